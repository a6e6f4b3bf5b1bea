"""A game whose rules are a referee program in any language (docs/referee.md): the example in
JavaScript (examples/referees/pig.js, Pig for 2 to 4 players with a die) and a Kuhn poker
referee in Python (tests/fixtures/referees/kuhn.py, hidden cards) pass ``arena game check``; a
tournament runs on the example end to end and rates, replays and reports; moves read back from
their texts alone; a seat is sent only its view; and a referee that crashes, hangs, writes what
is not JSON or breaks the contract raises an error naming it and the request, while the games
already stored stay as they were."""

from __future__ import annotations

import json
import pickle
import shutil
import sqlite3
import sys
from pathlib import Path

import pytest

from arena.core.botspec import BotSpec
from arena.core.job import GameJob
from arena.core.timing import TimeControl
from arena.games import CHANCE, IllegalMoveError, MoveSyntaxError, get_game_from_spec, referee_process
from arena.games.conformance import check_game
from arena.games.referee import TEXT_BASE, load_referee, move_int, move_text, referee_game
from arena.games.referee_process import RefereeError, RefereeLoadError, close_referees, referee_pids
from arena.runners.worker import GameWorker
from arena.sandbox.landlock import abi_version
from tests.fixtures.harnesskit import FIXTURES, REPO, arena, arena_here, command_bot, job, python_bot

PIG = REPO / "examples" / "referees"
KUHN = FIXTURES / "referees" / "kuhn.py"
LOWEST = FIXTURES / "referees" / "lowest.py"


def kuhn(*options: str):
    """The Kuhn poker referee, told to misbehave by ``options`` (``--fail MODE --when HISTORY``)."""
    return referee_game(" ".join([sys.executable, str(KUHN), *options]))


def pig(players: int = 2):
    return referee_game(f"node {PIG / 'pig.js'} --target 20", params={"players": players})


@pytest.fixture(autouse=True)
def no_referee_left():
    """Every test ends the referee processes it started, and leaves none behind."""
    yield
    close_referees()
    assert referee_pids() == set()


# ---------------------------------------------------------------- the contract


def test_the_example_referee_in_javascript_passes_arena_game_check():
    said = arena_here(
        "game", "check", "node pig.js --target 20", "--seeds", "10", "--time-budget", "0.1", "--json", cwd=PIG
    )
    assert said.returncode == 0, said.stdout
    report = json.loads(said.stdout)
    assert report["game"] == "pig" and report["passed"] is True
    assert {check["players"] for check in report["checks"]} == {2, 4} and len(report["checks"]) == 18


def test_the_kuhn_referee_with_hidden_cards_passes_every_check_views_included():
    report = check_game(kuhn(), seeds=20, time_budget=0.1)
    assert report.passed, report.summary()
    assert "views" in [check.name for check in report.checks]


def test_a_move_is_its_number_or_an_int_made_from_its_text_and_reads_back_without_the_referee():
    assert (move_int("0"), move_int("6"), move_int("123456789012345678")) == (0, 6, 123456789012345678)
    assert move_int("007") > TEXT_BASE and move_text(move_int("007")) == "007"
    assert move_int("roll") == TEXT_BASE + int.from_bytes(b"\x01roll", "big")
    assert [move_text(move_int(text)) for text in ("roll", "a1-b2", "2x5", "bet")] == ["roll", "a1-b2", "2x5", "bet"]
    assert sorted(["roll", "6", "hold", "1"], key=move_int) == ["1", "6", "hold", "roll"]
    for no_move in (-1, TEXT_BASE, TEXT_BASE + 5, 10**18):
        with pytest.raises(ValueError, match="is not a move"):
            move_text(no_move)
    game = pig()
    assert game.parse_move(" roll ") == move_int("roll") and game.format_move(move_int("hold")) == "hold"
    for text in ("", "rolls", "%%", "7", "roll hold"):
        with pytest.raises(MoveSyntaxError, match="a move is 'roll' or 'hold'"):
            game.parse_move(text)


def test_a_state_is_what_the_referee_said_of_it_and_play_refuses_what_it_did_not_list():
    game = pig(3)
    start = game.initial_state()
    assert (start.to_move, start.ply, start.last_move, start.legal_moves()) == (0, 0, None, [move_int("roll")])
    rolling = start.play(move_int("roll"))
    assert rolling.to_move == CHANCE and [game.format_move(m) for m, _ in rolling.chance_outcomes()] == list("123456")
    assert rolling.chance_outcomes()[0][1] == pytest.approx(1 / 6)
    after = game.replay(["roll", "5", "hold"])
    assert (after.to_move, after.ply, game.format_move(after.last_move)) == (1, 3, "hold")
    assert after.render().splitlines()[0] == "round 1 of 10, target 20; banks: p1 5, p2 0, p3 0"
    assert after.board()["boards"][0]["cells"] == ["5", "0", "0"]
    with pytest.raises(IllegalMoveError, match="'hold' is not a legal move here"):
        start.play(move_int("hold"))
    with pytest.raises(IllegalMoveError, match="'7' is not a chance outcome here"):
        rolling.play(7)


def test_a_game_pickles_and_is_made_again_from_its_spec_without_starting_its_referee():
    game = pig(4)
    state = game.replay(["roll", "3"])
    assert pickle.loads(pickle.dumps(game)) == game
    assert pickle.loads(pickle.dumps(state)).to_dict() == state.to_dict()
    spec = json.loads(json.dumps(game.spec()))
    assert spec["name"] == "pig" and spec["params"] == {"rounds": 10, "players": 4}
    assert spec["command"] == f"node {PIG / 'pig.js'} --target 20" and len(spec["code_hash"]) == 64
    close_referees()
    again = get_game_from_spec(spec)
    assert again == game and referee_pids() == set()
    assert again.replay(["roll", "3"]).to_dict() == state.to_dict()


def test_a_referee_whose_code_changed_since_its_tournament_began_is_refused(tmp_path):
    shutil.copy(KUHN, tmp_path / "kuhn.py")
    spec = referee_game(f"{sys.executable} kuhn.py", tmp_path).spec()
    (tmp_path / "kuhn.py").write_text(KUHN.read_text() + "\n# changed\n")
    with pytest.raises(RefereeLoadError, match="changed since its tournament began"):
        load_referee(spec, spec["params"])


def test_a_referee_with_simultaneous_steps_passes_the_checks_and_plays_a_game_of_three_bots():
    game = referee_game(f"{sys.executable} {LOWEST}", params={"players": 3})
    report = check_game(game, seeds=10, time_budget=0.1)
    assert report.passed, report.summary()
    step = game.initial_state().play_joint([1, 1, 2])
    assert (step.ply, step.view(None), step.moves_of(0)) == (
        3,
        {"points": [0, 0, 1], "rounds": [["1", "1", "2"]]},
        [1, 2, 3],
    )
    random = BotSpec("random", "python", "bots.randombot", "{}")
    with GameWorker(fork=False) as worker:
        record = worker.play(GameJob(1, game.spec(), (random, random, random), 5, TimeControl(1.0)))
    assert record.termination.value == "normal", record.detail
    assert len(record.moves) == 9 and all(move.move in ("1", "2", "3") for move in record.moves)
    assert record.points == game.replay([move.move for move in record.moves]).returns()


@pytest.mark.skipif(abi_version() == 0, reason="no Landlock: the referee's files are not confined")
def test_a_referee_reads_the_files_its_command_names_and_no_other_file_beside_them(tmp_path):
    (tmp_path / "secret.txt").write_text("the database")
    (tmp_path / "named.txt").write_text("its data")
    (tmp_path / "peek.py").write_text(
        "import json, os, sys\n"
        "def can_read(name):\n"
        "    try:\n"
        "        return bool(open(os.path.join(os.path.dirname(__file__), name)).read())\n"
        "    except OSError:\n"
        "        return False\n"
        'name = f\'named-{can_read("named.txt")}-secret-{can_read("secret.txt")}\'.lower()\n'
        "for line in sys.stdin:\n"
        "    print(json.dumps({'name': name, 'max_length': 1}), flush=True)\n"
    )
    game = referee_game(f"{sys.executable} peek.py named.txt", tmp_path)
    assert game.name == "named-true-secret-false"


# ---------------------------------------------------------------- a broken referee


def test_a_referee_that_crashes_at_its_start_cannot_be_loaded_saying_why():
    with pytest.raises(RefereeLoadError) as caught:
        kuhn("--fail", "crash", "--when", "start")
    assert str(caught.value) == (
        "referee 'python kuhn.py --fail crash --when start', asked info: closed its output (exited with status 3); "
        "its stderr says: 'kuhn: told to crash'"
    )


#: a referee's time a request in the tests of one that hangs (long enough for a busy machine to
#: start one: each test's other requests have it too)
SHORT = 2.0


@pytest.mark.parametrize(
    ("mode", "problem"),
    [
        ("crash", "closed its output (exited with status 3); its stderr says: 'kuhn: told to crash'"),
        ("garbage", "answered with a line that is not JSON: 'this is not json'"),
        ("contract", "to_move is 7: a seat (0 to 1), 'chance', 'simultaneous' or 'over' (docs/referee.md)"),
        ("hang", f"did not answer within {SHORT:g} s"),
    ],
)
def test_a_referee_that_fails_mid_game_raises_naming_itself_and_the_request(monkeypatch, mode, problem):
    timeout = referee_process.REQUEST_TIMEOUT
    monkeypatch.setattr(referee_process, "REQUEST_TIMEOUT", SHORT)
    game = kuhn("--fail", mode, "--when", "bb")
    betting = game.replay(["K", "J", "bet"])
    with pytest.raises(RefereeError) as caught:
        betting.play(game.parse_move("bet"))
    assert (
        str(caught.value) == f"referee 'python kuhn.py --fail {mode} --when bb', asked apply 'bet' at ply 3: {problem}"
    )
    assert referee_pids() == set()  # the failed process is gone; the next request starts another
    monkeypatch.setattr(referee_process, "REQUEST_TIMEOUT", timeout)  # (its start within the usual time)
    assert betting.play(game.parse_move("pass")).returns() == (1.0, -1.0)


def test_arena_game_check_fails_a_referee_that_breaks_the_contract_saying_where():
    report = check_game(kuhn("--fail", "contract", "--when", "bb"), seeds=10, time_budget=0.05)
    assert not report.passed
    failed = {check.name: check.message for check in report.failures()}
    assert "playouts" in failed and "legal-moves" in failed
    assert "asked apply 'bet' at ply 3: to_move is 7: a seat (0 to 1)" in failed["playouts"]


@pytest.mark.parametrize("mode", ["crash", "garbage", "contract", "hang"])
def test_a_game_whose_referee_fails_is_aborted_naming_it_and_the_worker_plays_the_next(monkeypatch, mode):
    timeout = referee_process.REQUEST_TIMEOUT
    monkeypatch.setattr(referee_process, "REQUEST_TIMEOUT", SHORT)
    spec = kuhn("--fail", mode, "--when", "bb").spec()
    first = python_bot("first_legal")  # bets: both seats betting reach "bb"
    random = BotSpec("random", "python", "bots.randombot", "{}")
    with GameWorker(fork=False) as worker:
        failed = worker.play(job(first, first, game=spec, seed=1, game_id=1))
        monkeypatch.setattr(referee_process, "REQUEST_TIMEOUT", timeout)
        played = worker.play(job(random, random, game=spec, seed=2, game_id=2))
    assert (failed.termination.value, failed.offender) == ("aborted", None)
    assert failed.detail.startswith(
        f"the harness failed while playing it: RefereeError: referee 'python kuhn.py --fail {mode} --when bb', "
        "asked apply 'bet' at ply 3: "
    )
    assert played.termination.value == "normal" and played.points is not None


# ---------------------------------------------------------------- hidden information


def played_kuhn(first, second, seeds=range(1, 5)):
    """Kuhn poker games on the referee, one a seed: each record with the cards dealt."""
    spec = kuhn().spec()
    with GameWorker(fork=False) as worker:
        for seed in seeds:
            record = worker.play(job(first, second, game=spec, seed=seed, game_id=seed))
            assert record.termination.value == "normal", record.detail
            deals = [m.move for m in record.moves if m.seat == -1]
            yield record, deals


def strings(data: object) -> set[str]:
    """Every string anywhere in ``data``."""
    if isinstance(data, str):
        return {data}
    if isinstance(data, dict):
        return set().union(*(strings(value) for value in data.values()), set())
    if isinstance(data, list):
        return set().union(*(strings(value) for value in data), set())
    return set()


def test_a_command_bot_hears_the_referees_view_of_its_seat_and_never_the_other_card():
    spy = command_bot("tells_what_it_hears.py")
    for record, deals in played_kuhn(spy, spy):
        for seat in (0, 1):
            heard = [json.loads(line[6:]) for line in record.stderr[seat].splitlines() if line.startswith("heard ")]
            moves = [message for message in heard if message["type"] == "move"]
            assert moves and all("moves" not in message for message in moves)
            assert all(message["view"]["cards"][seat] == deals[seat] for message in moves)
            assert all(message["view"]["cards"][1 - seat] == "?" for message in moves)
            assert deals[1 - seat] not in set().union(*(strings(message) for message in heard))


def test_a_python_bot_is_given_the_view_of_its_seat_and_no_state():
    spy = python_bot("tells_its_view")
    for record, deals in played_kuhn(spy, spy):
        for seat in (0, 1):
            lines = [line for line in record.stderr[seat].splitlines() if line.startswith("given ")]
            assert lines, record.stderr[seat]
            cards = [deals[0], "?"] if seat == 0 else ["?", deals[1]]
            assert all(line.startswith(f"given View: data={{'cards': {cards!r}, 'history': ") for line in lines)
            assert all(line.endswith("state=None") for line in lines)


# ---------------------------------------------------------------- tournaments


def stored(database: Path) -> list[tuple]:
    with sqlite3.connect(database) as connection:
        return connection.execute("SELECT id, status, termination, offender, detail FROM games ORDER BY id").fetchall()


def test_a_tournament_on_the_example_referee_runs_rates_replays_and_reports(tmp_path):
    for name in ("pig.js", "pig.yaml"):
        shutil.copy(PIG / name, tmp_path / name)
    url = f"sqlite:///{tmp_path / 'a.db'}"
    run = arena("run", "pig.yaml", "--db", url, "-q", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    games = stored(tmp_path / "a.db")
    assert [(status, termination, offender) for _, status, termination, offender, _ in games] == [
        ("finished", "normal", None)
    ] * 8
    standings = arena_here("standings", "pig", "--db", url, cwd=tmp_path)
    assert standings.returncode == 0 and all(f"random-{t}" in standings.stdout for t in "abcd")
    board = arena_here("leaderboard", "pig", "--db", url, cwd=tmp_path)
    assert board.returncode == 0 and "random-a" in board.stdout
    replay = arena_here("replay", "1", "--db", url, cwd=tmp_path)
    assert (
        replay.returncode == 0 and "re-played through the engine: every move legal, result confirmed" in replay.stdout
    )
    assert "round 1 of 8, target 20; banks: p1 0, p2 0, p3 0" in replay.stdout
    report = arena_here("report", "pig", "--db", url, "--out", str(tmp_path / "site"), cwd=tmp_path)
    assert report.returncode == 0 and "banks: p1 0, p2 0, p3 0" in (tmp_path / "site" / "games" / "1.html").read_text()
    (tmp_path / "pig.js").write_text((PIG / "pig.js").read_text() + "\n// changed\n")
    again = arena("run", "pig.yaml", "--db", url, "-q", cwd=tmp_path)
    assert again.returncode != 0 and "changed since" in again.stderr
    assert stored(tmp_path / "a.db") == games
    (tmp_path / "pig.js").unlink()  # its referee gone: the results still show, a replay says why not
    for command in (["standings", "pig"], ["leaderboard", "pig"]):  # (new processes: no referee's info known)
        shown = arena(*command, "--db", url, cwd=tmp_path)
        assert shown.returncode == 0 and "random-a" in shown.stdout, shown.stderr
    gone = arena("replay", "1", "--db", url, cwd=tmp_path)
    assert gone.returncode != 0 and "cannot be replayed" in gone.stderr


KUHN_TOURNAMENT = """\
name: kuhn
game: {{command: "{python} kuhn.py{options}"}}
seed: 3
time: {{move: 1.0}}
bots:
  a: {{module: bots.randombot}}
  b: {{module: bots.randombot}}
stages: [{{name: league, games_per_pair: 8}}]
"""


def kuhn_folder(folder: Path, options: str) -> str:
    shutil.copy(KUHN, folder / "kuhn.py")
    (folder / "t.yaml").write_text(KUHN_TOURNAMENT.format(python=sys.executable, options=options))
    return f"sqlite:///{folder / 'a.db'}"


def test_a_referee_crashing_in_some_games_aborts_those_naming_it_and_the_others_are_stored(tmp_path):
    url = kuhn_folder(tmp_path, " --fail crash --when bb")
    run = arena("run", "t.yaml", "--db", url, "-q", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    games = stored(tmp_path / "a.db")
    aborted = [game for game in games if game[2] == "aborted"]
    assert 0 < len(aborted) < len(games) == 8
    assert all(status == "finished" and termination in ("normal", "aborted") for _, status, termination, _, _ in games)
    assert {detail for *_, detail in aborted} == {
        "the harness failed while playing it: RefereeError: referee 'python kuhn.py --fail crash --when bb', asked "
        "apply 'bet' at ply 3: closed its output (exited with status 3); its stderr says: 'kuhn: told to crash'"
    }


def test_a_tournament_whose_referee_crashes_at_its_start_is_refused_storing_nothing(tmp_path):
    url = kuhn_folder(tmp_path, " --fail crash --when start")
    run = arena("run", "t.yaml", "--db", url, "-q", cwd=tmp_path)
    assert run.returncode != 0
    assert "referee 'python kuhn.py --fail crash --when start', asked info: closed its output" in run.stderr
    assert not (tmp_path / "a.db").exists() or stored(tmp_path / "a.db") == []


def test_a_person_plays_a_referees_game_in_the_terminal_and_a_match_is_played_on_it(tmp_path):
    """``command:REFEREE`` names a referee's game wherever a command takes a game: ``arena
    play`` (its die rolled between the turns) and ``arena match``."""
    shutil.copy(PIG / "pig.js", tmp_path / "pig.js")
    game = "command:node pig.js --target 20"
    url = f"sqlite:///{tmp_path / 'p.db'}"
    turns = "roll\nhold\n" * 40  # more than a game of target 20 can last
    played = arena("play", game, "--bot", "bots.randombot", "--db", url, cwd=tmp_path, input=turns)
    assert played.returncode == 0, played.stderr
    assert "You play p1 (first) against bots.randombot" in played.stdout and "Game over: " in played.stdout
    assert [(status, termination) for _, status, termination, _, _ in stored(tmp_path / "p.db")] == [
        ("finished", "normal")
    ]
    match = arena(
        "match", "bots.randombot", "bots.randombot", "--game", game, "--games", "2", "--db", url, cwd=tmp_path
    )
    assert match.returncode == 0, match.stderr
    assert "Played 2 games: randombot" in match.stdout


def test_a_bot_is_registered_on_a_referees_game(tmp_path):
    """``arena register -g command:REFEREE`` smoke-tests the bot on the referee's game."""
    shutil.copy(PIG / "pig.js", tmp_path / "pig.js")
    (tmp_path / "pigbot.py").write_text(
        '"""Pig at random."""\nimport random\n\nGAMES = ("pig",)\n\n\n'
        "def move(state, clock):\n    return random.choice(state.legal_moves())\n"
    )
    url = f"sqlite:///{tmp_path / 'r.db'}"
    done = arena("register", "pigbot.py", "--game", "command:node pig.js --target 20", "--db", url, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "registered: pigbot v1" in done.stdout and "games: pig" in done.stdout


def test_a_smoke_game_of_more_than_two_seats_is_refused_before_anything_starts(tmp_path):
    pytest.importorskip("pyspiel")
    url = f"sqlite:///{tmp_path / 'r.db'}"
    said = arena_here(
        "register",
        str(FIXTURES / "bots" / "first_legal.py"),
        "--game",
        "openspiel:goofspiel(players=3)",
        "--db",
        url,
        cwd=tmp_path,
    )
    assert said.returncode == 2
    assert "a smoke game seats the bot and a random bot, and goofspiel has 3 seats" in said.stderr


def test_a_bot_that_plays_every_game_is_registered_on_a_referees_game(tmp_path):
    """``bots.randombot`` lists arena's own games but holds any (``every_game`` in its
    description): registering it on a referee's game plays its smoke game there."""
    shutil.copy(PIG / "pig.js", tmp_path / "pig.js")
    url = f"sqlite:///{tmp_path / 'r.db'}"
    done = arena("register", "bots.randombot", "--game", "command:node pig.js --target 20", "--db", url, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "registered: randombot v1" in done.stdout and done.stdout.rstrip().endswith(", pig")
    assert "smoke game of pig against random, the bot as p1" in done.stdout + done.stderr
