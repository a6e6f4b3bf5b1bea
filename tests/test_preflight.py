"""The pre-flight check of ``arena run`` (arena/contests/preflight.py): every mistake in how a tournament
file uses its bots (a parameter a bot does not have, a value of the wrong type or out of
range, a game a bot does not play, a file, program or registered bot that is not there) is
found before anything is stored or played, all of them at once, one line each naming the
bot's field with the bot's own message, and ``arena run`` exits 2. A bot that fails in its own
code is a warning, and plays. ``arena run --check`` does the check alone and writes nothing,
not even the database."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
from contextlib import closing
from pathlib import Path

import pytest

from arena.errors import BotParameterError
from bots import minimax, uct
from bots.common import resolve_parameters
from tests.fixtures.harnesskit import BOTS, FIXTURES, REPO, arena, arena_here, needs_node, without_root_warning

pytestmark = pytest.mark.slow

UCT_PARAMETERS = "c=1.4142135623730951, iterations=None, reuse=True"


class Folder:
    """A folder with a tournament file and a database of its own (not made yet)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.file = path / "t.yaml"
        self.database = path / "db" / "arena.sqlite3"
        self.db = f"sqlite:///{self.database}"

    def write(self, bots: str, game: str = "tictactoe", name: str = "pf", more: str = "") -> None:
        """The tournament file: ``bots`` (YAML lines under ``bots:``) play ``game`` once a pair."""
        self.file.write_text(
            f"name: {name}\ngame: {game}\nseed: 1\ntime: {{move: 0.5, startup: 10}}\n{more}"
            f"bots:\n{bots}stages: [{{games_per_pair: 1}}]\n"
        )

    def arena(self, *args: str) -> subprocess.CompletedProcess:
        """The real ``arena ARGS --db`` this folder's database, run in the folder."""
        return arena(*args, "--db", self.db, cwd=self.path)

    def here(self, *args: str) -> subprocess.CompletedProcess:
        """``arena ARGS --db`` this folder's database as the user sees it, run in this process:
        for runs refused before any game, and checks (neither starts a worker)."""
        return arena_here(*args, "--db", self.db, cwd=self.path)

    def rows(self, query: str) -> list[tuple]:
        with closing(sqlite3.connect(self.database)) as connection:
            return connection.execute(query).fetchall()


@pytest.fixture
def folder(tmp_path) -> Folder:
    return Folder(tmp_path)


def refusal(folder: Folder, *problems: str) -> str:
    """What ``arena run`` prints on stderr when it finds ``problems``."""
    count = f"{len(problems)} problem{'s' if len(problems) != 1 else ''}"
    lines = "".join(f"  {problem}\n" for problem in problems)
    return f"error: {folder.file}: {count} with the tournament's bots; nothing was stored or played:\n{lines}"


def parameter_error(bot: str, parameters, given: dict) -> str:
    """The message a built-in bot gives for parameters ``given`` (``bots.common``)."""
    with pytest.raises(BotParameterError) as error:
        resolve_parameters(bot, parameters, given)
    return str(error.value)


def run_refused(folder: Folder, *problems: str) -> None:
    """``arena run`` of the folder's file lists ``problems``, exits 2 and makes no database."""
    result = folder.here("run", str(folder.file), "-q")
    assert (result.returncode, without_root_warning(result.stderr)) == (2, refusal(folder, *problems))
    assert result.stdout == ""
    assert not folder.database.exists()


def test_a_misspelt_parameter_is_refused_before_anything_is_stored(folder):
    folder.write("  mcts: {module: bots.uct, params: {iteration: 100}}\n  rand: {module: bots.randombot}\n")
    run_refused(folder, f"bots.mcts: bot 'uct' has no parameter 'iteration'; its parameters: {UCT_PARAMETERS}")


def test_a_value_of_the_wrong_type_gets_the_bots_own_message(folder):
    folder.write("  deep: {module: bots.minimax, params: {depth: three}}\n  rand: {module: bots.randombot}\n")
    run_refused(folder, "bots.deep: " + parameter_error("minimax", minimax.PARAMETERS, {"depth": "three"}))


def test_a_value_out_of_range_gets_the_bots_own_message(folder):
    folder.write("  mcts: {module: bots.uct, params: {c: -1}}\n  rand: {module: bots.randombot}\n")
    expected = parameter_error("uct", uct.PARAMETERS, {"c": -1})
    assert expected.startswith("bot 'uct': parameter 'c' cannot be -1; it accepts a number >= 0")
    run_refused(folder, f"bots.mcts: {expected}")


def test_a_bot_whose_games_leave_out_the_tournaments_game_is_refused(folder):
    folder.write("  rules: {module: bots.rules}\n  rand: {module: bots.randombot}\n", game="othello")
    run_refused(folder, "bots.rules: bot 'bots.rules' does not play 'othello'; it plays tictactoe, uttt, xtreme")


def test_a_parameter_a_file_bots_make_bot_does_not_take_is_refused(folder):
    shutil.copy(BOTS / "takes_params.py", folder.path)
    folder.write("  mine: {path: takes_params.py, params: {ofset: 1}}\n  rand: {module: bots.randombot}\n")
    run_refused(
        folder, f"bots.mine: bot '{folder.path / 'takes_params.py'}' has no parameter 'ofset'; its parameters: offset=0"
    )


def test_a_file_bot_refusing_a_value_with_bot_parameter_error_is_refused(folder):
    shutil.copy(BOTS / "takes_params.py", folder.path)
    folder.write("  mine: {path: takes_params.py, params: {offset: x}}\n  rand: {module: bots.randombot}\n")
    run_refused(folder, "bots.mine: offset must be an int, not 'x'")


def test_a_parameter_a_file_bots_make_bot_needs_is_refused_when_missing(folder):
    (folder.path / "needs_model.py").write_text(
        '"""Needs its model."""\n\n\ndef make_bot(game, seat, rng, model, temperature=1.0):\n    return None\n'
    )
    folder.write("  mine: {path: needs_model.py, params: {temperature: 0.5}}\n  rand: {module: bots.randombot}\n")
    run_refused(
        folder,
        f"bots.mine: bot '{folder.path / 'needs_model.py'}' needs the parameter 'model'; its parameters: model, "
        "temperature=1.0",
    )


def test_limits_a_bot_cannot_start_under_are_refused(folder):
    (folder.path / "big_tables.py").write_text(
        '"""Builds 64 MB of tables."""\n\nTABLES = []\n\n\ndef make_bot(game, seat, rng):\n'
        "    TABLES.append(bytearray(64 << 20))\n    return None\n"
    )
    folder.write("  a: {path: big_tables.py}\n  b: {path: big_tables.py}\n", more="limits: {memory_mb: 16}\n")
    problem = (
        "cannot start within the tournament's limits: MemoryError: out of memory (the memory limit was reached); "
        "raise them under limits: (now memory_mb 16, file_size_mb 16, processes 256)"
    )
    run_refused(folder, f"bots.a: {problem}", f"bots.b: {problem}")


def test_absurd_limits_are_refused_by_the_files_own_validation(folder):
    folder.write("  a: {module: bots.randombot}\n  b: {module: bots.randombot}\n", more="limits: {memory_mb: 1e20}\n")
    result = folder.here("run", str(folder.file), "-q")
    assert (result.returncode, result.stderr) == (
        2,
        f"error: {folder.file} is not a valid tournament:\n"
        "  limits.memory_mb: at most 1048576 MB (1 TiB); null for no limit; got 1e+20\n",
    )
    assert not folder.database.exists()


def test_every_problem_is_listed_at_once(folder):
    shutil.copy(BOTS / "takes_params.py", folder.path)
    folder.write(
        "  mcts: {module: bots.uct, params: {iteration: 100}}\n"
        "  deep: {module: bots.minimax, params: {depth: three}}\n"
        "  mine: {path: takes_params.py}\n"
        "  gone: {path: no_such_bot.py}\n"
        "  js: {command: no-such-program-for-arena bot.js}\n"
        "  old: {path: takes_params.py, python: /nonexistent/python}\n"
        "  rand: {module: bots.randombot}\n",
        game="xtreme",
        more="teams: {A: mcts, B: deep, C: mine, D: gone, E: js, F: old, G: rand, H: rand, I: nobody, J: mcts}\n",
    )
    run_refused(
        folder,
        f"bots.mcts (teams A, J): bot 'uct' has no parameter 'iteration'; its parameters: {UCT_PARAMETERS}",
        "bots.deep (team B): " + parameter_error("minimax", minimax.PARAMETERS, {"depth": "three"}),
        f"bots.mine (team C): bot '{folder.path / 'takes_params.py'}' does not play 'xtreme'; it plays tictactoe, uttt",
        f"bots.gone (team D): no bot file 'no_such_bot.py' (looked in {folder.path})",
        "bots.js.command (team E): no program 'no-such-program-for-arena' on the PATH; install it, or give its path",
        "bots.old.python (team F): interpreter '/nonexistent/python' not found; give the path or name of an installed "
        'Python (2.7 or 3.x), e.g. --python python2.7 or --python "$(pyenv prefix 2.7.18)/bin/python2.7"',
        "teams.I: team 'I' plays bot 'nobody', which is neither under bots: nor registered; known bots: "
        "deep, gone, js, mcts, mine, old, rand (see 'arena bots', 'arena register')",
    )


def test_a_refused_tournament_stores_nothing_in_an_existing_database(folder):
    folder.write("  a: {module: bots.randombot}\n  b: {module: bots.randombot}\n", name="good")
    assert folder.arena("run", str(folder.file), "-q").returncode == 0
    before = folder.rows("SELECT * FROM bots"), folder.rows("SELECT id, status FROM games")
    folder.write("  a: {module: bots.randombot}\n  b: {module: bots.uct, params: {iteration: 1}}\n", name="bad")
    result = folder.here("run", str(folder.file), "-q")
    assert result.returncode == 2
    assert folder.rows("SELECT name FROM tournaments") == [("good",)]
    assert (folder.rows("SELECT * FROM bots"), folder.rows("SELECT id, status FROM games")) == before
    assert before[1] == [(1, "finished")]


def test_a_registered_bot_is_checked_as_stored(folder):
    shutil.copy(BOTS / "takes_params.py", folder.path)
    assert folder.here("register", "takes_params.py", "--name", "shifty", "--game", "tictactoe").returncode == 0
    folder.write("  rand: {module: bots.randombot}\n", game="xtreme", more="teams: {A: shifty, B: rand}\n")
    result = folder.here("run", str(folder.file), "-q")
    played = f"bot '{folder.path / 'takes_params.py'}' does not play 'xtreme'; it plays tictactoe, uttt"
    assert (result.returncode, without_root_warning(result.stderr)) == (2, refusal(folder, f"teams.A: {played}"))
    assert folder.rows("SELECT count(*) FROM tournaments") == [(0,)]


def test_a_course_bot_in_another_game_is_refused_from_its_description(folder):
    shutil.copy(FIXTURES / "course" / "team1.py", folder.path)
    folder.write("  team1: {course: team1.py}\n  rand: {module: bots.randombot}\n")
    run_refused(folder, "bots.team1: bot 'team1' does not play 'tictactoe'; it plays xtreme")


@needs_node
def test_a_command_bot_is_refused_for_a_game_its_description_leaves_out(folder):
    node_bot = REPO / "examples" / "node" / "random_bot.js"
    folder.write(f"  js: {{command: node {node_bot}}}\n  rand: {{module: bots.randombot}}\n", game="xtreme")
    run_refused(folder, "bots.js: bot 'js' does not play 'xtreme'; it plays tictactoe, uttt")


def test_a_bot_that_cannot_be_imported_is_a_warning_and_plays_its_forfeits(folder):
    shutil.copy(BOTS / "fails_to_import.py", folder.path)
    folder.write("  broken: {path: fails_to_import.py}\n  rand: {module: bots.randombot}\n")
    result = folder.arena("run", str(folder.file), "-q")
    assert result.returncode == 0, result.stderr
    assert without_root_warning(result.stderr) == (
        f"warning: bots.broken: could not be checked: BotLoadError: bot file '{folder.path / 'fails_to_import.py'}' "
        "failed to import: ModuleNotFoundError: No module named 'arena_no_such_module_for_tests'\n"
    )
    assert folder.rows(
        "SELECT g.termination, e.team FROM games g JOIN game_seats s ON s.game_id = g.id AND s.seat = g.offender "
        "JOIN entries e ON e.id = s.entry_id"
    ) == [("crash", "broken")]


# ---------------------------------------------------------------- arena run --check


def test_check_says_ok_with_the_bots_and_teams_and_makes_no_database(folder):
    folder.write(
        "  mcts: {module: bots.uct, params: {iterations: 10}}\n  rand: {module: bots.randombot}\n",
        more="teams: {A: mcts, B: mcts, C: rand}\n",
    )
    result = folder.here("run", "--check", str(folder.file))
    assert (result.returncode, result.stdout) == (0, "ok: 2 bots of 3 teams checked\n")
    assert not folder.database.parent.exists()


def test_check_lists_the_problems_exits_2_and_makes_no_database(folder):
    folder.write("  mcts: {module: bots.uct, params: {iteration: 100}}\n  rand: {module: bots.randombot}\n")
    result = folder.here("run", "--check", str(folder.file))
    assert (result.returncode, without_root_warning(result.stderr)) == (
        2,
        refusal(folder, f"bots.mcts: bot 'uct' has no parameter 'iteration'; its parameters: {UCT_PARAMETERS}"),
    )
    assert not folder.database.parent.exists()


def test_check_leaves_an_existing_database_as_it_was(folder):
    folder.write("  a: {module: bots.randombot}\n  b: {module: bots.randombot}\n")
    assert folder.arena("run", str(folder.file), "-q").returncode == 0
    files = sorted(path.name for path in folder.database.parent.iterdir())
    before = folder.database.read_bytes()
    folder.write("  a: {module: bots.randombot}\n  b: {module: bots.onestep}\n", name="other")
    assert folder.here("run", "--check", str(folder.file)).returncode == 0
    assert sorted(path.name for path in folder.database.parent.iterdir()) == files
    assert folder.database.read_bytes() == before


def test_check_passes_the_default_tournament(folder):
    result = folder.here("run", "--check", str(REPO / "tournament.yaml"))
    assert (result.returncode, result.stdout) == (0, "ok: 72 bots of 72 teams checked\n")


# ---------------------------------------------------------------- a bot of several files

TA_BOT = (
    '"""A TA\'s bot of two files."""\nfrom tabot.search import first\n\nGAMES = ["tictactoe"]\n\n\n'
    "def move(state, clock):\n    return first(state)\n"
)
TA_SEARCH = "def first(state):\n    return state.legal_moves()[0]\n"


def test_a_bot_of_several_files_given_by_its_path_is_refused_with_the_fix_and_runs_as_a_package(folder):
    (folder.path / "tabot").mkdir()
    (folder.path / "tabot" / "bot.py").write_text(TA_BOT)
    (folder.path / "tabot" / "search.py").write_text(TA_SEARCH)
    folder.write("  ta: {path: tabot/bot.py}\n  rand: {module: bots.randombot}\n")
    refused = folder.here("run", "--check", str(folder.file))
    problem = without_root_warning(refused.stderr).splitlines()[1]
    assert refused.returncode == 2
    assert problem.startswith(
        f"  bots.ta: bot file '{folder.path / 'tabot' / 'bot.py'}' imports its own module 'tabot'"
    )
    assert problem.endswith(
        f"put an __init__.py in '{folder.path / 'tabot'}', import its modules as 'tabot.MODULE' (or 'from . "
        f"import MODULE'), and give it as module: tabot.bot from a tournament file in '{folder.path}' "
        "(docs/bots.md, 'A bot of several files')"
    )
    (folder.path / "tabot" / "__init__.py").write_text("")
    folder.write("  ta: {module: tabot.bot}\n  rand: {module: bots.randombot}\n")
    played = folder.arena("run", str(folder.file), "-q")
    assert played.returncode == 0, played.stderr
    assert folder.rows("SELECT status, termination FROM games") == [("finished", "normal")]  # one game a pair
