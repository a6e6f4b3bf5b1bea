"""OpenSpiel's games and bots in arena (the extra ``arena[openspiel]``): tournaments of
``game: {openspiel: ...}`` run, rate, replay and report; each game passes ``arena game check``;
its notation round-trips; a seat of a game of hidden cards is never told the other's card;
OpenSpiel's bots play arena's tictactoe, uttt and othello legally, their moves mapped between
the notations."""

from __future__ import annotations

import json
import pickle
import random
from pathlib import Path

import pytest

pytest.importorskip("pyspiel")

from arena.clock import Clock
from arena.contests.config import parse_config
from arena.errors import ConfigError
from arena.games import CHANCE, SIMULTANEOUS, get_game, get_game_from_spec
from arena.games.conformance import check_game, random_game
from arena.games.openspiel import OpenSpielError, installed_version, openspiel_game, playable
from arena.runners.worker import GameWorker
from bots import openspiel_bots, randombot
from tests.fixtures.harnesskit import arena, arena_here, command_bot, job

#: the games of the issue, small enough to play in seconds: (game string, seats)
GAMES = [
    ("connect_four", 2),
    ("breakthrough(rows=5,columns=5)", 2),
    ("kuhn_poker", 2),
    ("backgammon", 2),
    ("goofspiel(num_cards=4,players=3)", 3),
]
IDS = [text.split("(")[0] for text, _ in GAMES]


def tournament(game: str, seats: int) -> str:
    """A league of random bots, one more team than seats, two games a table."""
    teams = "\n".join(f"  r{n}: {{module: bots.randombot}}" for n in range(seats + 1))
    return (
        f"name: os\ngame: {{openspiel: {json.dumps(game)}}}\nseed: 5\ntime: {{move: 2.0}}\nworkers: 1\n"
        f"bots:\n{teams}\nstages: [{{name: league, games_per_pair: 2}}]\n"
    )


@pytest.fixture(scope="module", params=GAMES, ids=IDS)
def played(request, tmp_path_factory) -> tuple[Path, str, int, str]:
    """A finished tournament of each game: its folder, database URL, seats and the game's name."""
    game, seats = request.param
    folder = tmp_path_factory.mktemp(IDS[GAMES.index(request.param)])
    (folder / "t.yaml").write_text(tournament(game, seats))
    url = f"sqlite:///{folder / 'arena.sqlite3'}"
    done = arena("run", "t.yaml", "--db", url, "-q", cwd=folder, timeout=300)
    assert done.returncode == 0, done.stderr
    return folder, url, seats, openspiel_game(game).name


def test_a_tournament_plays_every_game_to_its_end_and_ranks_every_team(played):
    folder, url, seats, name = played
    standings = arena_here("standings", "os", "--db", url, "--json", cwd=folder)
    assert standings.returncode == 0, standings.stderr
    found = json.loads(standings.stdout)
    assert (found["game"], found["status"], found["games_unfinished"]) == (name, "finished", 0)
    assert sorted(row["team"] for row in found["standings"]) == [f"r{n}" for n in range(seats + 1)]
    board = arena_here("leaderboard", "os", "--db", url, cwd=folder)
    assert board.returncode == 0 and "r0" in board.stdout, board.stderr


def test_every_stored_game_replays_through_the_engine_and_the_report_is_written(played):
    folder, url, _, _ = played
    shown = arena_here("replay", "1", "--db", url, cwd=folder)
    assert shown.returncode == 0, shown.stderr
    assert "every move legal, result confirmed" in shown.stdout
    report = arena_here("report", "os", "--db", url, "--out", str(folder / "report"), cwd=folder)
    assert report.returncode == 0, report.stderr
    assert (folder / "report" / "index.html").is_file()


@pytest.mark.parametrize(("text", "seats"), GAMES, ids=IDS)
def test_arena_game_check_passes(text, seats):
    report = check_game(openspiel_game(text), 5, time_budget=0.05)
    assert [check.name for check in report.checks if not check.passed] == []
    assert openspiel_game(text).players == seats


def test_the_game_check_command_names_an_openspiel_game(tmp_path):
    done = arena_here("game", "check", "openspiel:tic_tac_toe", "--seeds", "3", "--time-budget", "0.05", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(("text", "seats"), GAMES, ids=IDS)
def test_moves_round_trip_through_their_text_and_games_through_pickle(text, seats):
    game = openspiel_game(text)
    record = random_game(game, 1)
    assert [game.format_move(game.parse_move(move)) for move in record] == record
    assert pickle.loads(pickle.dumps(game)) == game
    # half the record, cut between steps (never inside a simultaneous one)
    cuts = [state.ply for state, _ in game.steps(game.initial_state(), record)]
    state = game.replay(record[: cuts[len(cuts) // 2]])
    again = pickle.loads(pickle.dumps(state))
    assert (again.ply, again.render(), again.legal_moves()) == (state.ply, state.render(), state.legal_moves())
    assert get_game_from_spec(game.spec()) == game


def _walked(game, seed: int) -> tuple[list, list[str], list]:
    """A random game through the contract, every state kept and none read on the way: the
    states, and OpenSpiel's text of each position and returns at the end from OpenSpiel's own
    loop on one state played in place."""
    rng = random.Random(seed)
    states = [game.initial_state()]
    spiel = game.spiel.new_initial_state()
    texts = [str(spiel)]
    while not states[-1].is_terminal:
        state = states[-1]
        if state.to_move == CHANCE:
            move = rng.choice(state.legal_moves())
            states.append(state.play(move))
            spiel.apply_action(move - game.actions)
        elif state.to_move == SIMULTANEOUS:
            moves = [rng.choice(state.moves_of(seat)) for seat in state.actors()]
            states.append(state.play_joint(moves))
            spiel.apply_actions(moves)
        else:
            move = rng.choice(state.legal_moves())
            states.append(state.play(move))
            spiel.apply_action(move)
        texts.append(str(spiel))
    return states, texts, spiel.returns()


@pytest.mark.parametrize(("text", "seats"), GAMES, ids=IDS)
def test_a_state_whose_child_took_its_openspiel_state_still_reads_as_its_own_position(text, seats):
    game = openspiel_game(text)
    for seed, order in ((1, "backwards"), (2, "shuffled")):
        states, texts, returns = _walked(game, seed)
        assert len(states) > 3 and states[-1].returns() == tuple(returns)
        positions = list(range(len(states)))
        if order == "backwards":  # each read makes the states before it again from the first one
            positions.reverse()
        else:
            random.Random(seed).shuffle(positions)
        for n in positions:
            assert states[n].render() == texts[n], (order, n)
        middle = states[len(states) // 2]
        assert pickle.loads(pickle.dumps(middle)).render() == texts[len(states) // 2]


def test_a_second_child_of_a_state_is_played_from_that_state_not_from_the_first():
    game = openspiel_game("connect_four")
    state = game.initial_state().play(3).play(3)  # a state that lends what it holds
    first, second = state.play(0), state.play(6)
    spiel = game.spiel.new_initial_state()
    for action in (3, 3):
        spiel.apply_action(action)
    assert (first.render(), second.render()) == (str(spiel.child(0)), str(spiel.child(6)))
    assert first.play(1).render() == str(spiel.child(0).child(1))
    assert state.render() == str(spiel) and state.legal_moves() == spiel.legal_actions()


def test_what_a_state_holds_is_never_changed_under_a_reader_of_it():
    """A state's first child takes its OpenSpiel state and plays on it; one read through
    ``spiel``, or a state ``shared()`` (the browser's page reads the game's state from its own
    thread while the game's thread plays on from it), is never taken."""
    game = openspiel_game("connect_four")
    state = game.initial_state().play(3)
    held = state._spiel
    state.play(4)  # the child took it and played on it
    assert str(held) != state.render() and state._spiel is not held
    for state in (game.initial_state().play(3), game.initial_state().play(3).shared()):
        read = state.spiel if state._parent else state._spiel
        text = str(read)
        state.play(4)
        assert str(read) == text == state.render()


def test_a_state_made_again_far_from_a_holder_keeps_few_clones():
    """Read after a long game walked on, a state is made again from the first one: the states
    on the way keep a clone only every ``REMADE_EVERY`` (OpenSpiel's states carry their
    history: a clone each would grow with the square of the way), and each is read right."""
    from arena.games.openspiel import REMADE_EVERY

    game = openspiel_game("repeated_game(stage_game=matrix_pd(),num_repetitions=400)")
    states = [game.initial_state()]
    spiel = game.spiel.new_initial_state()
    texts = [str(spiel)]
    for n in range(400):
        states.append(states[-1].play_joint([n % 2, 0]))
        spiel.apply_actions([n % 2, 0])
        texts.append(str(spiel))
    assert states[300].render() == texts[300]
    holding = [n for n, state in enumerate(states) if state._spiel is not None]
    assert holding == [0, *range(REMADE_EVERY, 300, REMADE_EVERY), 300, 400]
    assert [state.render() for state in reversed(states)] == texts[::-1]


def test_notation_is_the_action_string_where_it_names_the_action_alone():
    kuhn = openspiel_game("kuhn_poker")
    assert [kuhn.format_move(move) for move in (0, 1, 2, 4)] == ["Pass", "Bet", "chance 0", "chance 2"]
    assert kuhn.parse_move(" Bet ") == 1 and kuhn.parse_move("1") == 1
    # tic-tac-toe's strings name the player too (x(1,1), o(1,1)): its cells are numbers
    assert openspiel_game("tic_tac_toe").format_move(4) == "4"
    # othello's squares as arena's othello writes them; the centre squares, never legal, as numbers
    othello = openspiel_game("othello")
    assert [othello.format_move(move) for move in (0, 19, 27, 63, 64)] == ["a1", "d3", "27", "h8", "pass"]
    assert othello.parse_move("d3") == othello.parse_move("19") == 19


def test_chance_and_simultaneous_steps_are_arenas():
    goofspiel = openspiel_game("goofspiel(num_cards=4,players=3)")
    state = goofspiel.initial_state()
    assert state.to_move == CHANCE and [p for _, p in state.chance_outcomes()] == [0.25] * 4
    state = state.play(state.legal_moves()[0])
    assert state.to_move == SIMULTANEOUS and state.actors() == (0, 1, 2)
    assert state.play_joint([0, 1, 2]).ply == 4


def test_the_game_string_and_params_are_one_canonical_string():
    config = parse_config(
        "name: g\ngame: {openspiel: goofspiel, params: {players: 3, num_cards: 4}}\n"
        "bots: {a: {module: bots.randombot}, b: {module: bots.randombot}, c: {module: bots.randombot}}\n"
    )
    assert config.game.spec() == {
        "name": "goofspiel",
        "params": {},
        "openspiel": "goofspiel(num_cards=4,players=3)",
        "openspiel_version": installed_version(),
    }
    assert config.game.players == 3


@pytest.mark.parametrize(
    ("game", "said"),
    [
        ("no_such_game", "unknown OpenSpiel game 'no_such_game'"),
        ("goofspiel(bogus=1)", "Unknown parameter 'bogus'"),
        ("mfg_garnet", "a mean-field game"),
        ("catch", "a game of 1 player"),
    ],
)
def test_a_game_arena_cannot_play_is_refused_saying_why(game, said):
    with pytest.raises(OpenSpielError, match=said.replace("(", r"\(")):
        openspiel_game(game)
    with pytest.raises(ConfigError, match=said.replace("(", r"\(")):
        parse_config(f"name: g\ngame: {{openspiel: {game}}}\nbots: {{a: {{module: bots.randombot}}}}\n")


def test_playable_lists_connect_four_and_says_why_not_for_mean_field_games():
    found = dict(playable())
    assert found["connect_four"] is None and found["kuhn_poker"] is None
    assert "mean-field" in str(found["mfg_crowd_modelling"])


def test_a_bot_hears_its_own_card_and_never_the_others():
    kuhn = openspiel_game("kuhn_poker").spec()
    spy = command_bot("tells_what_it_hears.py")
    with GameWorker(fork=False) as worker:
        for seed in range(1, 5):
            record = worker.play(job(spy, spy, game=kuhn, seed=seed, game_id=seed))
            assert record.termination.value == "normal", record.detail
            deals = [int(m.move.removeprefix("chance ")) for m in record.moves if m.seat == -1]
            for seat in (0, 1):
                heard = [json.loads(line[6:]) for line in record.stderr[seat].splitlines() if line.startswith("heard ")]
                moves = [message for message in heard if message["type"] == "move" and message.get("ply") is not None]
                assert moves and all("moves" not in message for message in moves)
                for message in moves:
                    told = message["view"]["information"]
                    # its own card (0 J, 1 Q, 2 K) first, then the bets: p and b; no other digit
                    assert told[0] == str(deals[seat]) and not any(ch.isdigit() for ch in told[1:])
                    assert "chance" not in json.dumps(message)


@pytest.mark.parametrize("name", ["tictactoe", "uttt", "othello"])
@pytest.mark.parametrize("algorithm", ["mcts", "alphabeta", "random"])
def test_openspiels_bots_play_arenas_games_legally_from_either_seat(name, algorithm):
    game = get_game(name)
    budget = {"mcts": {"iterations": 50}, "alphabeta": {"depth": 2}, "random": {}}[algorithm]
    for seat in (0, 1):
        players = [randombot.make_bot(game, 1 - seat, random.Random(seat))] * 2
        players[seat] = openspiel_bots.make_bot(game, seat, random.Random(3), algorithm=algorithm, **budget)
        state = game.initial_state()
        while not state.is_terminal:
            move = players[state.to_move].move(state, Clock(1.0))
            other = getattr(players[1 - state.to_move], "observe", None)
            if other is not None:
                other(state, move)
            state = state.play(move)  # IllegalMoveError on a move mapped wrongly


@pytest.mark.parametrize("name", ["tictactoe", "uttt", "othello"])
def test_arenas_legal_moves_are_openspiels_mapped(name):
    # the mapping checked on every position of random games: arena's moves are OpenSpiel's
    import pyspiel

    game = get_game(name)
    rng = random.Random(9)
    for _ in range(5):
        state, spiel = game.initial_state(), pyspiel.load_game(openspiel_bots.MAPPED[name]).new_initial_state()
        while not state.is_terminal:
            assert sorted(_spiel_moves(name, spiel)) == state.legal_moves()
            move = rng.choice(state.legal_moves())
            for action in openspiel_bots.to_spiel(name, spiel, move):
                spiel.apply_action(action)
            state = state.play(move)
        assert spiel.is_terminal() and state.outcome is not None
        returns = spiel.returns()
        assert state.outcome.winner == (None if returns[0] == returns[1] else int(returns[1] > returns[0]))


def _spiel_moves(name: str, spiel) -> list[int]:
    """OpenSpiel's legal moves of ``spiel`` in arena's numbers."""
    if name == "uttt" and openspiel_bots._board_free(spiel):
        moves = []
        for board in spiel.legal_actions():
            child = spiel.clone()
            child.apply_action(board)
            moves += [board * 9 + cell for cell in child.legal_actions()]
        return moves
    return [openspiel_bots.from_spiel(name, spiel, action) for action in spiel.legal_actions()]


def test_openspiels_mcts_plays_an_openspiel_game_in_a_tournament(tmp_path):
    (tmp_path / "t.yaml").write_text(
        "name: mcts\ngame: {openspiel: connect_four}\nseed: 1\ntime: {move: 1.0}\nworkers: 1\n"
        "bots:\n  mcts: {module: bots.openspiel_bots, params: {iterations: 100}}\n"
        "  ab: {module: bots.openspiel_bots, params: {algorithm: alphabeta, depth: 2}}\n"
        "stages: [{name: league, games_per_pair: 2}]\n"
    )
    url = f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    done = arena("run", "t.yaml", "--db", url, "-q", cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    shown = arena_here("games", "--db", url, "--json", cwd=tmp_path)
    assert [row["termination"] for row in json.loads(shown.stdout)] == ["normal", "normal"]


def test_a_grid_of_the_observation_tensor_is_drawn_as_the_board_the_right_way_up():
    connect_four = openspiel_game("connect_four").replay(["0", "1"])
    (board,) = connect_four.board()["boards"]
    assert (board["rows"], board["cols"]) == (6, 7)
    # the bottom row, as OpenSpiel's text shows it: x in column 0, o in column 1
    assert board["cells"][35:42] == ["x", "o", "", "", "", "", ""] and set(board["cells"][:35]) == {""}
    othello = openspiel_game("othello").initial_state().board()["boards"][0]["cells"]
    # d4 and e5 white (o), e4 and d5 black (x, who moves first), as in arena's othello
    assert (othello[27], othello[28], othello[35], othello[36]) == ("o", "x", "x", "o")
    assert openspiel_game("backgammon").initial_state().board() is None


def test_the_state_as_data_has_openspiels_text_and_action_strings():
    state = openspiel_game("tic_tac_toe").replay(["4"])
    data = state.to_dict()
    assert data["legal"] == ["0", "1", "2", "3", "5", "6", "7", "8"]
    assert data["actions"] == ["o(0,0)", "o(0,1)", "o(0,2)", "o(1,0)", "o(1,2)", "o(2,0)", "o(2,1)", "o(2,2)"]
    assert data["state"] == "...\n.x.\n..."
    json.dumps(data)


@pytest.mark.parametrize("name", ["connect_four", "kuhn_poker"])
def test_the_example_tournament_files_are_valid(name):
    from arena.contests.config import load_config

    config, _ = load_config(Path(__file__).resolve().parent.parent / "examples" / "openspiel" / f"{name}.yaml")
    assert config.game.spec()["openspiel"] == f"{name}()"


def test_the_benchmark_beside_openspiels_own_loop_runs():
    import subprocess
    import sys

    script = Path(__file__).resolve().parent.parent / "benchmarks" / "outside.py"
    done = subprocess.run(
        [sys.executable, str(script), "openspiel", "--quick"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "== openspiel" and lines[1].split()[:3] == ["game", "openspiel/s", "contract/s"]
    assert [line.split()[0] for line in lines[2:]] == ["tic_tac_toe", "connect_four"]


def test_a_person_plays_an_openspiel_game_against_a_bot_in_the_terminal(tmp_path):
    # each column in turn, over and over: more moves than a game has, a full column's refused
    typed = "".join(f"{column}\n" for column in list(range(7)) * 9)
    url = f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    done = arena("play", "openspiel:connect_four", "-b", "bots.randombot", "--db", url, cwd=tmp_path, input=typed)
    assert done.returncode == 0, done.stderr
    assert "Game over: " in done.stdout and "Stored as game 1" in done.stdout


def test_a_bot_of_arenas_own_othello_refuses_openspiels_othello():
    from arena.errors import BotParameterError
    from bots import hmcts

    with pytest.raises(BotParameterError, match="plays arena's own othello, not the game of that name"):
        hmcts.make_bot(openspiel_game("othello"), 0, random.Random(0))


def test_arena_game_openspiel_lists_the_playable_games_and_why_not_the_others(tmp_path):
    done = arena_here("game", "openspiel", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = {row["game"]: row for row in json.loads(done.stdout)}
    assert rows["kuhn_poker"] == {"game": "kuhn_poker", "playable": True, "why_not": None}
    assert rows["2048"]["playable"] is False and "a game of 1 player" in rows["2048"]["why_not"]


def test_without_open_spiel_installed_the_error_says_how_to_install_it(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "pyspiel", None)  # an import of it then fails
    with pytest.raises(OpenSpielError, match=r"pip install 'arena\[openspiel\]'"):
        openspiel_game("connect_four")
    with pytest.raises(ConfigError, match=r"pip install 'arena\[openspiel\]'"):
        parse_config("name: g\ngame: {openspiel: connect_four}\nbots: {a: {module: bots.randombot}}\n")


def test_the_pre_flight_check_refuses_a_search_bot_for_a_game_of_hidden_cards(tmp_path):
    (tmp_path / "t.yaml").write_text(
        "name: k\ngame: {openspiel: kuhn_poker}\n"
        "bots: {mcts: {module: bots.openspiel_bots}, random: {module: bots.randombot}}\n"
    )
    done = arena("run", "t.yaml", "--check", "--db", f"sqlite:///{tmp_path / 'a.sqlite3'}", cwd=tmp_path)
    assert done.returncode != 0
    assert "mcts needs the whole state, in turns; kuhn_poker has hidden information" in done.stderr
    assert "use algorithm: random" in done.stderr


def test_games_played_with_another_open_spiel_are_not_read_with_this_one():
    spec = {**openspiel_game("connect_four").spec(), "openspiel_version": "1.0.0"}
    with pytest.raises(OpenSpielError, match=r"played with open-spiel 1.0.0, and .* is installed: install that"):
        get_game_from_spec(spec)


def test_a_person_plays_the_openspiel_game_of_a_tournament_in_the_browser(played):
    from starlette.testclient import TestClient

    from arena.web.server import build
    from tests.fixtures.usergames import play_out

    _, url, seats, name = played
    if seats != 2 or name == "backgammon":  # (one of each kind is enough: a long game of dice is not)
        pytest.skip("a game of two seats that ends soon")
    form = {"game": "tournament:1", "bot": "bots.randombot", "seat": "x", "move_time": "1"}
    with TestClient(build(url, play=True), base_url="http://127.0.0.1") as web:
        assert "tournament:1" in web.get("/play").text
        started = web.post("/play", data=form, follow_redirects=False)
        assert started.status_code == 303, started.text
        last = play_out(web, started.headers["location"])
    assert last["failure"] is None and last["result"]
