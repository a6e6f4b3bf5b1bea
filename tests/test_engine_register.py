"""Registering an engine (docs/engines.md, "Registering an engine"): ``arena register --uci``,
``--ugi`` or ``--gtp`` with the settings a tournament file declares, checked by a smoke game over
the engine's protocol, stored as the bot its inline declaration is; then played by name in
``arena match`` (on arena's games and OpenSpiel's, ``--game openspiel:NAME``), in a tournament's
teams and in ``arena play``. The real engines are Debian's (``.ci/run`` installs them); a test
of one skips only when its program is missing."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import pytest

from arena.contests import registration, roster
from arena.contests.config import parse_config
from arena.contests.registration import RegistrationError
from arena.entrants.kinds import engine_program
from arena.errors import ArenaError
from arena.store.database import open_store
from arena.store.models import Bot
from tests.fixtures.harnesskit import arena

ENGINES = Path(__file__).resolve().parent / "engines"
#: Fairy-Stockfish at tic-tac-toe, at its third skill level, as registered and as declared
FAIRY = ("--uci", "fairy-stockfish", "--variant", "tictactoe", "--option", "Skill Level=3", "--option", "Threads=1")
DECLARED = "{uci: fairy-stockfish, variant: tictactoe, options: {Skill Level: 3, Threads: 1}}"
GO9 = "openspiel:go(board_size=9,komi=7.5)"


def needs(program: str) -> pytest.MarkDecorator:
    """Skip a test of the engine ``program`` where it is not installed."""
    missing = engine_program(program) is None
    return pytest.mark.skipif(missing, reason=f"{program} is not installed (apt-get install {program})")


def fake(script: str) -> str:
    """The command line of the fake engine ``tests/engines/<script>``."""
    return f"{sys.executable} {ENGINES / script}"


def registered(cli) -> list[dict]:
    """The bots ``arena bots --json`` lists as stored (the built-in ones left out)."""
    result = cli("bots", "--json")
    assert result.exit_code == 0, result.output
    return [bot for bot in json.loads(result.stdout) if not bot["built_in"]]


@pytest.fixture
def fsf3(cli, tmp_path, monkeypatch):
    """``cli`` with Fairy-Stockfish registered as ``fsf3`` from ``tmp_path``."""
    monkeypatch.chdir(tmp_path)
    result = cli("register", *FAIRY, "--name", "fsf3", "-g", "tictactoe", "--move-time", "0.1")
    assert result.exit_code == 0, result.output
    assert result.stdout == "registered: fsf3 v1 (uci fairy-stockfish), games: tictactoe\n"
    return cli


@needs("fairy-stockfish")
def test_a_registered_engine_is_listed_with_its_kind_and_settings_and_plays_arena_match(fsf3, tmp_path):
    (bot,) = registered(fsf3)
    assert (bot["name"], bot["version"], bot["kind"], bot["target"], bot["games"]) == (
        "fsf3",
        1,
        "uci",
        "fairy-stockfish",
        ["tictactoe"],
    )
    assert bot["params"] == {"options": {"Skill Level": 3, "Threads": 1}, "variant": "tictactoe"}
    again = fsf3("register", *FAIRY, "--name", "fsf3", "-g", "tictactoe", "--move-time", "0.1")
    assert again.stdout.startswith("unchanged: fsf3 v1 (uci fairy-stockfish)")
    db = tmp_path / "arena.sqlite3"
    done = arena(
        *("match", "fsf3", "bots.randombot", "--game", "tictactoe", "--games", "4", "--time", "0.05"),
        *("--sprt", "elo0=0,elo1=10", "--name", "m", "--workers", "1", "--db", f"sqlite:///{db}"),
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Match fsf3 vs randombot: tictactoe, up to 4 games")
    with sqlite3.connect(db) as conn:
        seats = conn.execute(
            "SELECT g.termination, e.team, b.name, b.version, b.kind FROM games g "
            "JOIN game_seats s ON s.game_id = g.id JOIN entries e ON e.id = s.entry_id "
            "JOIN bots b ON b.id = e.bot_id WHERE e.team = 'fsf3'"
        ).fetchall()
        infos = conn.execute(
            "SELECT m.info FROM moves m JOIN game_seats s ON s.game_id = m.game_id AND s.seat = m.seat "
            "JOIN entries e ON e.id = s.entry_id WHERE e.team = 'fsf3'"
        ).fetchall()
    assert seats == [("normal", "fsf3", "fsf3", 1, "uci")] * 4
    assert infos and all(json.loads(info)["depth"] >= 1 for (info,) in infos)


@needs("fairy-stockfish")
def test_a_registered_engine_is_the_bot_its_inline_declaration_is(fsf3, tmp_path):
    config = parse_config(f"name: t\ngame: tictactoe\nbots:\n  fsf3: {DECLARED}\n  r: {{module: bots.randombot}}\n")
    declared = roster.bot_fields(config.bots["fsf3"], tmp_path)
    with open_store(fsf3.db)() as session:
        stored = session.query(Bot).filter_by(name="fsf3").one()
        assert {key: getattr(stored, key) for key in declared} == declared
        assert roster.spec(stored, "Fairy") == roster.spec(Bot(name="fsf3", version=1, **declared), "Fairy")


@needs("fairy-stockfish")
def test_a_registered_engine_plays_by_name_in_a_tournaments_teams_and_against_a_person(fsf3, tmp_path):
    db = f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    (tmp_path / "t.yaml").write_text(
        "name: teams\ngame: tictactoe\nseed: 1\ntime: {move: 0.05}\nworkers: 1\n"
        "teams:\n  Fairy: fsf3\n  Random: {module: bots.randombot}\n"
    )
    done = arena("run", "t.yaml", "--db", db, "-q", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    # the person tries every cell in turn (those taken are refused) until the game ends
    moves = "\n".join("012345678")
    played = arena("play", "tictactoe", "--bot", "fsf3", "--move-time", "0.05", "--db", db, cwd=tmp_path, input=moves)
    assert played.returncode == 0, played.stderr
    assert "against fsf3" in played.stdout and "Game over: " in played.stdout
    with sqlite3.connect(tmp_path / "arena.sqlite3") as conn:
        teams = conn.execute(
            "SELECT t.name, e.team, b.name, b.kind FROM entries e JOIN tournaments t ON t.id = e.tournament_id "
            "JOIN bots b ON b.id = e.bot_id WHERE b.name = 'fsf3' ORDER BY t.id"
        ).fetchall()
    assert teams == [("teams", "Fairy", "fsf3", "uci"), ("play tictactoe fsf3 v1", "fsf3", "fsf3", "uci")]


@needs("fairy-stockfish")
def test_arena_match_refuses_an_engine_with_no_notation_for_the_game_before_its_first_game(fsf3):
    result = fsf3("match", "fsf3", "bots.randombot", "--game", "uttt", "--name", "m")
    assert str(result.exception) == (
        "bot 'fsf3': UCI has no notation for uttt here; it plays tictactoe, connect4 (6 rows, 7 columns) and "
        "OpenSpiel's connect_four"
    )
    assert fsf3("tournaments", "--json").stdout.strip() == "[]"


@needs("fairy-stockfish")
def test_an_engine_registered_for_openspiels_connect_four_plays_a_match_of_it(cli, tmp_path, monkeypatch):
    pytest.importorskip("pyspiel")
    monkeypatch.chdir(tmp_path)
    result = cli(
        *("register", "--uci", "fairy-stockfish", "--variant", "connect4", "--name", "fsf"),
        *("-g", "openspiel:connect_four", "--move-time", "0.05"),
    )
    assert result.stdout == "registered: fsf v1 (uci fairy-stockfish), games: connect_four\n"
    done = arena(
        *("match", "fsf", "bots.randombot", "--game", "openspiel:connect_four", "--games", "2", "--time", "0.05"),
        *("--workers", "1", "--db", cli.db),
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "Played 2 games: fsf 2-0-0 (W-D-L)" in done.stdout


@needs("gnugo")
def test_gnu_go_registers_over_gtp_on_openspiels_go(cli, tmp_path, monkeypatch):
    pytest.importorskip("pyspiel")
    monkeypatch.chdir(tmp_path)
    result = cli("register", "--gtp", "gnugo --mode gtp --level 1", "--name", "gnugo", "-g", GO9, "--smoke-moves", "2")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("registered: gnugo v1 (gtp gnugo --mode gtp --level 1), games: go\n")
    (bot,) = registered(cli)
    assert (bot["kind"], bot["params"]) == ("gtp", {})


FAILURES = {
    "missing": (
        ["--uci", "no-such-engine-for-arena", "--variant", "tictactoe"],
        "--uci: no program 'no-such-engine-for-arena' on the PATH (nor in /usr/games); install it, or give its path",
    ),
    "illegal": (
        ["--uci", fake("illegal.py"), "--move-time", "0.5"],
        "smoke game of tictactoe against random: the bot forfeited (illegal_move) after 2 moves: 4 is illegal in "
        "tictactoe: cell 4 is occupied",
    ),
    "no-notation": (
        ["--gtp", fake("gtp_resigns.py")],
        "--gtp: GTP has no notation for tictactoe here; it plays Go (OpenSpiel's go)",
    ),
    "gtp-settings": (
        ["--gtp", fake("gtp_resigns.py"), "--variant", "go"],
        "gtp engine: a GTP engine is set up by its command line alone; it takes no variant",
    ),
    "bad-option": (
        ["--uci", fake("illegal.py"), "--option", "Hash=[1]"],
        "uci engine: option 'Hash': [1] is not an option value (a number, true/false or one line of text)",
    ),
    "no-smoke": (
        ["--uci", fake("illegal.py"), "--no-smoke"],
        "--no-smoke: an engine is checked by its smoke game alone",
    ),
    "settings-of-a-module": (
        ["bots.randombot", "--variant", "tictactoe"],
        "variant: settings of an engine (uci, ugi or gtp), not of a python bot",
    ),
}


@pytest.mark.parametrize("case", FAILURES)
def test_an_engine_that_fails_is_not_registered_and_the_message_says_why(cli, case):
    args, message = FAILURES[case]
    result = cli("register", *args)
    assert isinstance(result.exception, RegistrationError), result.output
    assert str(result.exception).startswith(message)
    assert registered(cli) == []


def test_an_engine_that_never_says_uciok_is_refused_as_not_finishing_its_handshake(cli, monkeypatch):
    monkeypatch.setattr(registration, "STARTUP", 1.0)  # (20 s a registration)
    result = cli("register", "--uci", fake("silent.py"))
    assert isinstance(result.exception, RegistrationError), result.output
    message = str(result.exception)
    assert message.startswith(
        "smoke game of tictactoe against random: the bot forfeited (timeout) after 0 moves: no reply within 1.000 s"
    )
    assert message.endswith("during startup; it did not finish the UCI handshake: does it speak UCI?")
    assert registered(cli) == []


@pytest.mark.parametrize(
    "args",
    [
        ["bots.randombot", "--uci", "fairy-stockfish"],
        ["--uci", "fairy-stockfish", "--gtp", "gnugo"],
        ["--variant", "x"],
    ],
)
def test_register_takes_exactly_one_bot_or_engine(cli, args):
    result = cli("register", *args)
    assert type(result.exception) is ArenaError
    assert str(result.exception) == (
        'give either a bot file or module, or --command "PROGRAM ARGS", or an engine\'s --uci, --ugi or --gtp '
        '"PROGRAM ARGS"'
    )
