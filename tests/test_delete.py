"""``arena delete NAME`` and ``arena run --restart``: a stored tournament is removed whole (its
games, moves, entries, pool places and the bot versions only it declared; registered bots and
bots another tournament entered stay) in one transaction, after a confirmation that ``--yes``
skips, and never while a run of it holds its run lock. ``--restart`` deletes the stored
tournament of the file's name, then runs the file from scratch."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import pytest

from tests.fixtures.harnesskit import arena, arena_here, without_root_warning

pytestmark = pytest.mark.slow

ONE = """\
name: one
game: tictactoe
seed: {seed}
time: {{move: 0.5}}
workers: 1
bots:
  shared: {{module: bots.randombot}}
  solo: {{module: bots.randombot}}
teams: {{A: shared, B: solo, C: reg}}
stages: [{{games_per_pair: 1}}]
"""
TWO = """\
name: two
game: tictactoe
seed: 2
time: {move: 0.5}
workers: 1
bots:
  shared: {module: bots.randombot}
  other: {module: bots.randombot}
stages: [{games_per_pair: 1}]
"""


class Stored:
    """A folder with tournaments ``one`` (teams playing a bot declared by ``two`` too, a bot of
    its own and a registered bot) and ``two``, both played, in one database."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.database = path / "arena.sqlite3"
        self.db = f"sqlite:///{self.database}"

    def build(self) -> None:
        (self.path / "one.yaml").write_text(ONE.format(seed=1))
        (self.path / "two.yaml").write_text(TWO)
        for args in (
            ("register", "bots.randombot", "--name", "reg", "--game", "tictactoe"),
            ("run", str(self.path / "one.yaml"), "-q"),
            ("run", str(self.path / "two.yaml"), "-q"),
        ):
            result = self.arena(*args)
            assert result.returncode == 0, result.stderr

    def copy(self, path: Path) -> Stored:
        shutil.copytree(self.path, path, dirs_exist_ok=True)
        return Stored(path)

    def arena(self, *args: str, input: str = "") -> subprocess.CompletedProcess:
        """The real ``arena ARGS --db`` this database, run in the folder, ``input`` its stdin."""
        return arena(*args, "--db", self.db, cwd=self.path, input=input)

    def command(self, *args: str, input: str = "") -> subprocess.CompletedProcess:
        """``arena ARGS --db`` this database as the user sees it, run in this process."""
        return arena_here(*args, "--db", self.db, cwd=self.path, input=input)

    def rows(self, query: str, *args: object) -> list[tuple]:
        with closing(sqlite3.connect(self.database)) as connection:
            return connection.execute(query, args).fetchall()

    def everything(self) -> list[list[tuple]]:
        """Every row of every table, to compare a database before and after."""
        tables = ("tournaments", "entries", "pool_entries", "games", "game_voids", "moves", "bots")
        return [self.rows(f"SELECT * FROM {table} ORDER BY id") for table in tables]

    def moves_of(self, name: str) -> int:
        return self.rows(
            "SELECT count(*) FROM moves m JOIN games g ON g.id = m.game_id JOIN tournaments t "
            "ON t.id = g.tournament_id WHERE t.name = ?",
            name,
        )[0][0]


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Stored:
    stored = Stored(tmp_path_factory.mktemp("template"))
    stored.build()
    return stored


@pytest.fixture
def stored(template, tmp_path) -> Stored:
    return template.copy(tmp_path)


@contextmanager
def lock_held(stored: Stored, name: str) -> Iterator[int]:
    """The run lock of tournament ``name`` held by another process (a lock belongs to its
    process: this one could take it again); that process's pid."""
    code = (
        "import sys\nfrom arena.contests.tournament import run_lock\n"
        "with run_lock(sys.argv[1], sys.argv[2]):\n    print('locked', flush=True)\n    sys.stdin.read()\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", code, stored.db, name], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None and process.stdout.readline() == "locked\n"
        yield process.pid
    finally:
        assert process.stdin is not None
        process.stdin.close()
        process.wait(timeout=30)


def said_deleted(stored: Stored) -> str:
    """What deleting tournament ``one`` of ``stored`` says it removed."""
    return f"3 games ({stored.moves_of('one')} moves), 3 entries, 3 pool places, 1 bot version declared only by it"


# ---------------------------------------------------------------- arena delete


def test_delete_yes_removes_the_tournament_and_says_what_it_removed(stored):
    removed = said_deleted(stored)
    result = stored.command("delete", "one", "--yes")
    assert (result.returncode, result.stdout, result.stderr) == (0, f"Deleted tournament 'one': {removed}\n", "")


def test_delete_removes_the_games_moves_entries_and_pools_of_the_tournament_alone(stored):
    two = [
        stored.rows(f"SELECT * FROM {table} WHERE tournament_id = 2 ORDER BY id")
        for table in ("entries", "pool_entries")
    ]
    two_games = stored.rows("SELECT * FROM games WHERE tournament_id = 2 ORDER BY id")
    two_moves = stored.moves_of("two")
    assert stored.command("delete", "one", "--yes").returncode == 0
    assert stored.rows("SELECT name FROM tournaments") == [("two",)]
    assert [stored.rows(f"SELECT * FROM {table} ORDER BY id") for table in ("entries", "pool_entries")] == two
    assert stored.rows("SELECT * FROM games ORDER BY id") == two_games
    assert stored.rows("SELECT count(*) FROM moves") == [(two_moves,)]


def test_delete_keeps_registered_bots_and_bots_another_tournament_entered(stored):
    assert stored.rows("SELECT name FROM bots ORDER BY name") == [("other",), ("reg",), ("shared",), ("solo",)]
    assert stored.command("delete", "one", "--yes").returncode == 0
    assert stored.rows("SELECT name FROM bots ORDER BY name") == [("other",), ("reg",), ("shared",)]


def test_delete_asks_first_and_an_answer_of_no_deletes_nothing(stored):
    before = stored.everything()
    result = stored.command("delete", "one", input="n\n")
    assert (result.returncode, result.stdout, result.stderr) == (
        1,
        f"Delete tournament 'one' (finished): {said_deleted(stored)}? [y/N]: ",
        "nothing deleted\n",
    )
    assert stored.everything() == before


def test_delete_with_nothing_to_read_for_an_answer_deletes_nothing(stored):
    before = stored.everything()
    result = stored.command("delete", "one", input="")
    assert (result.returncode, result.stderr) == (1, "nothing deleted\n")
    assert stored.everything() == before


def test_delete_answered_yes_deletes(stored):
    removed = said_deleted(stored)
    result = stored.command("delete", "one", input="y\n")
    assert result.returncode == 0
    assert result.stdout == (
        f"Delete tournament 'one' (finished): {removed}? [y/N]: Deleted tournament 'one': {removed}\n"
    )
    assert stored.rows("SELECT name FROM tournaments") == [("two",)]


def test_delete_is_refused_while_a_run_of_the_tournament_holds_its_lock(stored):
    before = stored.everything()
    with lock_held(stored, "one") as pid:
        result = stored.command("delete", "one", "--yes")
    assert (result.returncode, result.stderr) == (
        2,
        f"error: tournament 'one' is already running (pid {pid}); wait for it to finish or stop it first\n",
    )
    assert stored.everything() == before


def test_delete_of_an_unknown_tournament_names_the_stored_ones(stored):
    result = stored.command("delete", "three", "--yes")
    assert (result.returncode, result.stderr) == (
        2,
        "error: no tournament 'three' in this database; the tournaments: one, two (list them with "
        "'arena tournaments')\n",
    )


def test_delete_in_a_database_not_made_yet_makes_none(tmp_path):
    result = arena("delete", "one", "--yes", "--db", f"sqlite:///{tmp_path / 'db' / 'arena.sqlite3'}", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (
        2,
        "error: no tournament 'one' in this database; the tournaments: none yet (list them with 'arena tournaments')\n",
    )
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- arena run --restart


def test_restart_deletes_the_stored_tournament_then_runs_the_file_from_scratch(stored):
    removed = said_deleted(stored)
    (stored.path / "one.yaml").write_text(ONE.format(seed=5))
    result = stored.arena("run", str(stored.path / "one.yaml"), "--restart")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[:2] == [
        f"Deleted the stored tournament 'one': {removed}",
        f"Running one: tictactoe, 3 teams, 3 games, 1 workers (log: {stored.path / 'one.log'})",
    ]
    assert stored.rows("SELECT name, seed, status FROM tournaments ORDER BY id") == [
        ("two", 2, "finished"),
        ("one", 5, "finished"),
    ]
    assert stored.rows(
        "SELECT count(*), min(g.status) FROM games g JOIN tournaments t ON t.id = g.tournament_id WHERE t.name = 'one'"
    ) == [(3, "finished")]


def test_restart_is_refused_while_another_run_holds_the_lock(stored):
    before = stored.everything()
    with lock_held(stored, "one") as pid:
        result = stored.arena("run", str(stored.path / "one.yaml"), "--restart", "-q")
    assert (result.returncode, without_root_warning(result.stderr)) == (
        2,
        f"error: tournament 'one' is already running (pid {pid}); wait for it to finish or stop it first\n",
    )
    assert stored.everything() == before


def test_restart_of_a_file_with_problems_deletes_nothing(stored):
    before = stored.everything()
    mistake = ONE.format(seed=5).replace("solo: {module: bots.randombot}", "solo: {module: bots.uct, params: {c: -1}}")
    (stored.path / "one.yaml").write_text(mistake)
    result = stored.arena("run", str(stored.path / "one.yaml"), "--restart", "-q")
    assert result.returncode == 2
    assert "  bots.solo (team B): bot 'uct': parameter 'c' cannot be -1; " in result.stderr
    assert stored.everything() == before


def test_restart_of_a_tournament_not_stored_runs_it(stored):
    (stored.path / "three.yaml").write_text(TWO.replace("name: two", "name: three"))
    result = stored.arena("run", str(stored.path / "three.yaml"), "--restart")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Running three: ")
