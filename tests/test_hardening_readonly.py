"""The commands that only look (``tournaments``, ``games``, ``bots``, ``leaderboard``, ``replay``,
and ``report``, which writes only its output folder) open the database read-only: a database on a
read-only mount can be read, even in WAL mode, whose ``-shm`` file SQLite cannot create there;
and they never create a database, or its folder, that does not exist.

A read-only mount is a Landlock rule here (tests/fixtures/arena_under.py ``--read-only``), as the
tests may run as root, whom file modes do not stop.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from arena.sandbox import landlock
from arena.store.database import SCHEMA_VERSION, open_store
from arena.store.models import StoreError
from tests.fixtures.harnesskit import BOTS, FIXTURES, WIDE, arena

pytestmark = pytest.mark.skipif(not landlock.abi_version(), reason="this kernel has no Landlock to forbid writes")

TOURNAMENT = f"""\
name: looked-at
game: tictactoe
seed: 3
workers: 1
bots:
  first: {{path: {BOTS / "first_legal.py"}}}
  second: {{path: {BOTS / "seeded_random.py"}}}
stages:
  - {{games_per_pair: 2}}
"""


def under_read_only(*args: str, cwd: Path, writable: Path | None = None) -> subprocess.CompletedProcess:
    """``arena ARGS`` forbidden to write anywhere (but ``writable``)."""
    extra = ["--writable", str(writable)] if writable else []
    return subprocess.run(
        [sys.executable, str(FIXTURES / "arena_under.py"), "--read-only", *extra, "--", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **WIDE},
    )


def listing(folder: Path) -> dict[str, int]:
    """Every file beneath ``folder`` and its modification time in nanoseconds."""
    return {str(path.relative_to(folder)): path.stat().st_mtime_ns for path in sorted(folder.rglob("*"))}


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    """A folder whose database (in WAL mode, as arena leaves it) holds a finished tournament."""
    folder = tmp_path_factory.mktemp("read-only")
    (folder / "t.yaml").write_text(TOURNAMENT)
    result = arena("run", "t.yaml", "--db", f"sqlite:///{folder / 'db' / 'arena.sqlite3'}", "-q", cwd=folder)
    assert result.returncode == 0, result.stderr
    with closing(sqlite3.connect(folder / "db" / "arena.sqlite3")) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert not (folder / "db" / "arena.sqlite3-shm").exists()
    return folder


READING = {
    "tournaments": (["tournaments", "--json"], lambda out: [t["name"] for t in json.loads(out)] == ["looked-at"]),
    "games": (["games", "--json"], lambda out: len(json.loads(out)) == 2),
    "bots": (
        ["bots", "--json"],
        lambda out: sorted(b["name"] for b in json.loads(out) if not b["built_in"]) == ["first", "second"],
    ),
    "leaderboard": (["leaderboard", "--json"], lambda out: json.loads(out)["games_finished"] == 2),
    "replay": (["replay", "1", "--json"], lambda out: json.loads(out)["game_id"] == 1),
}


@pytest.mark.parametrize("command", READING)
def test_a_database_that_cannot_be_written_is_read_by_the_commands_that_only_look(played, command):
    args, expected = READING[command]
    before = listing(played)
    result = under_read_only(*args, "--db", f"sqlite:///{played / 'db' / 'arena.sqlite3'}", cwd=played)
    assert result.returncode == 0, result.stderr
    assert expected(result.stdout)
    assert listing(played) == before


def test_a_report_of_a_database_that_cannot_be_written_is_written_to_its_folder(played, tmp_path):
    before = listing(played)
    result = under_read_only(
        "report",
        "--out",
        str(tmp_path),
        "--db",
        f"sqlite:///{played / 'db' / 'arena.sqlite3'}",
        cwd=played,
        writable=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "index.html").is_file()
    assert listing(played) == before


def test_a_database_in_rollback_journal_mode_is_read_read_only(played, tmp_path):
    database = tmp_path / "copy.sqlite3"
    source = closing(sqlite3.connect(played / "db" / "arena.sqlite3"))
    with source as original, closing(sqlite3.connect(database)) as copy:
        original.backup(copy)
        copy.execute("PRAGMA journal_mode=DELETE")
    result = under_read_only("tournaments", "--json", "--db", f"sqlite:///{database}", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert [t["name"] for t in json.loads(result.stdout)] == ["looked-at"]


def test_a_missing_database_reads_as_empty_and_is_not_created(tmp_path):
    result = arena("tournaments", "--db", f"sqlite:///{tmp_path / 'new' / 'arena.sqlite3'}", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, "No tournaments yet: run one with 'arena run [FILE]'.\n")
    assert list(tmp_path.iterdir()) == []


def test_the_bots_of_a_missing_database_are_the_built_in_ones_and_nothing_is_created(tmp_path):
    result = arena("bots", "--json", "--db", f"sqlite:///{tmp_path / 'new' / 'arena.sqlite3'}", cwd=tmp_path)
    stored = [row for row in json.loads(result.stdout) if not row.get("built_in")]  # (arena bots lists its own)
    assert (result.returncode, stored) == (0, [])
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", [["leaderboard"], ["games"], ["games", "--json"]])
def test_the_results_of_a_missing_database_say_there_are_no_tournaments_and_create_nothing(tmp_path, command):
    result = arena(*command, "--db", f"sqlite:///{tmp_path / 'new' / 'arena.sqlite3'}", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (
        2,
        "error: there are no tournaments in this database yet: run one "
        "with 'arena run FILE' (or pass the right --db)\n",
    )
    assert list(tmp_path.iterdir()) == []


def test_a_database_needing_an_upgrade_opened_read_only_is_a_clear_error(tmp_path):
    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    open_store(url)
    with closing(sqlite3.connect(tmp_path / "old.sqlite3")) as connection, connection:
        connection.execute("UPDATE schema_version SET version = 0")
    with pytest.raises(StoreError) as error:
        open_store(url, read_only=True)
    assert str(error.value) == (
        f"the database {tmp_path / 'old.sqlite3'} is at schema version 0 and needs upgrading "
        f"to {SCHEMA_VERSION}, which takes writing: run 'arena run' or 'arena register' on it "
        "where it can be written (or on a copy), then read it again"
    )


def test_a_file_that_is_not_a_database_opened_read_only_is_a_clear_error(tmp_path):
    (tmp_path / "not.sqlite3").write_text("these are not the tables you are looking for\n" * 100)
    with pytest.raises(StoreError) as error:
        open_store(f"sqlite:///{tmp_path / 'not.sqlite3'}", read_only=True)
    assert str(error.value).startswith(f"the database {tmp_path / 'not.sqlite3'} is damaged or not an SQLite database")
