"""The database under stress (issue 7): a full disk, a write lock held by another process, a
folder that cannot be written, two runs at the same time. Each ends in a clear error (exit
status 2, one line, no traceback) or a safe wait, never in a damaged database: afterwards
SQLite's integrity check and arena's ``integrity_problems`` pass, every game is either
finished with all its moves or still pending, and a rerun finishes the tournament with the
games of an uninterrupted run.

The full disk is a soft file-size limit (RLIMIT_FSIZE) on the ``arena`` process, so SQLite's
writes fail partway, as on a full disk, without root; a folder that cannot be written is a
Landlock rule when the tests run as root (root ignores file modes), its mode otherwise. Both
come from tests/fixtures/arena_under.py.
"""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest

from arena.sandbox import landlock
from arena.store import database
from tests.fixtures.harnesskit import (
    FIXTURES,
    WIDE,
    TournamentFolder,
    arena,
    finished_games,
    wait_until,
    without_root_warning,
)

pytestmark = pytest.mark.slow

TOURNAMENT = (
    """\
name: stress
game: tictactoe
seed: 5
time: {move: 1.0}
workers: 2
bots:
"""
    + "".join(f"  team-{n}: {{path: {'first_legal' if n % 2 else 'seeded_random'}.py}}\n" for n in range(6))
    + """\
stages:
  - {games_per_pair: 30}
"""
)
TOTAL = 15 * 30
UNDER = FIXTURES / "arena_under.py"


def store_folder(path: Path) -> TournamentFolder:
    return TournamentFolder(path, TOURNAMENT, ("first_legal", "seeded_random"))


def under(folder: TournamentFolder, *handicap: str, args: tuple[str, ...] | None = None) -> subprocess.CompletedProcess:
    """``arena`` with ``args`` (default: the run of the tournament) under ``handicap`` (options of
    arena_under.py)."""
    return subprocess.run(
        [sys.executable, str(UNDER), *handicap, "--", *(args or folder.args)],
        cwd=folder.path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **WIDE},
    )


def counts(folder: TournamentFolder) -> dict[str, int]:
    """Games by status, and how many moves the pending ones have (none, if all is well)."""
    with closing(sqlite3.connect(folder.database)) as connection:
        found = dict(connection.execute("SELECT status, count(*) FROM games GROUP BY status").fetchall())
        found["moves of pending games"] = connection.execute(
            "SELECT count(*) FROM moves m JOIN games g ON g.id = m.game_id WHERE g.status = 'pending'"
        ).fetchone()[0]
    return found


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> list[tuple]:
    """The tournament played without interruption."""
    folder = store_folder(tmp_path_factory.mktemp("reference"))
    result = folder.run()
    assert result.returncode == 0, result.stderr
    return folder.games("stress")


# ---------------------------------------------------------------- a full disk


class DiskFull:
    """Run with no file allowed past 500 kB (the write-ahead log reaches it after some games),
    then run again with room."""

    def __init__(self, folder: TournamentFolder) -> None:
        self.folder = folder
        self.stopped = under(folder, "--file-size", str(500 * 1024))
        self.checks = folder.checks()
        self.counts = counts(folder)
        self.final = folder.run()


@pytest.fixture(scope="module")
def disk_full(tmp_path_factory) -> DiskFull:
    return DiskFull(store_folder(tmp_path_factory.mktemp("disk-full")))


def test_a_full_disk_stops_the_run_with_a_clear_error(disk_full):
    assert disk_full.stopped.returncode == 2
    assert re.fullmatch(
        rf"error: cannot write to the database {disk_full.folder.database}: (disk I/O error|database or "
        r"disk is full) \(is the disk full, or a file-size limit reached\?\); every game stored before "
        r"is intact: make room, then run again to continue\n",
        without_root_warning(disk_full.stopped.stderr),
    )


def test_a_full_disk_stops_the_run_partway_with_every_game_whole_or_pending(disk_full):
    assert disk_full.checks == ("ok", [])
    assert 0 < disk_full.counts.get("finished", 0) < TOTAL
    assert disk_full.counts["finished"] + disk_full.counts["pending"] == TOTAL
    assert disk_full.counts["moves of pending games"] == 0


def test_after_a_full_disk_a_run_with_room_finishes_with_the_games_of_an_uninterrupted_run(disk_full, reference):
    assert disk_full.final.returncode == 0, disk_full.final.stderr
    assert disk_full.folder.games("stress") == reference
    assert disk_full.folder.checks() == ("ok", [])


# ---------------------------------------------------------------- a lock held by another process


def hold_write_lock(database: Path, seconds: float) -> subprocess.Popen:
    """Another process that takes the database's write lock (waiting for it if need be), says
    ``locked`` and keeps it for ``seconds``."""
    script = (
        "import sqlite3, sys, time\n"
        "c = sqlite3.connect(sys.argv[1], timeout=30, isolation_level=None)\n"
        "c.execute('BEGIN IMMEDIATE')\n"
        "print('locked', flush=True)\n"
        "time.sleep(float(sys.argv[2]))\n"
        "c.execute('COMMIT')\n"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", script, str(database), str(seconds)], stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout.readline() == "locked\n"
    return holder


def test_a_run_waits_for_a_write_lock_held_a_few_seconds_then_finishes(tmp_path, reference):
    folder = store_folder(tmp_path)
    process = folder.start()
    assert wait_until(lambda: finished_games(folder.database) >= 20, timeout=60)
    holder = hold_write_lock(folder.database, 3.0)
    at_lock = finished_games(folder.database)
    time.sleep(2.0)
    during = finished_games(folder.database)
    holder.wait(timeout=30)
    _stdout, stderr = process.communicate(timeout=120)
    assert (process.returncode, without_root_warning(stderr)) == (0, "")
    assert during == at_lock < TOTAL  # it waited: nothing was stored while the lock was held
    assert folder.games("stress") == reference
    assert folder.checks() == ("ok", [])


class LockedOut:
    """A run that may wait 1 s for the write lock, while another process holds it for 4 s from
    the middle of the run; then a run after the lock is released."""

    def __init__(self, folder: TournamentFolder) -> None:
        self.folder = folder
        command = [sys.executable, str(UNDER), "--busy-timeout", "1", "--", *folder.args]
        process = subprocess.Popen(
            command,
            cwd=folder.path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **WIDE},
        )
        assert wait_until(lambda: finished_games(folder.database) >= 20, timeout=60)
        holder = hold_write_lock(folder.database, 4.0)
        self.stdout, self.stderr = process.communicate(timeout=60)
        self.returncode = process.returncode
        holder.wait(timeout=30)
        self.checks = folder.checks()
        self.counts = counts(folder)
        self.final = folder.run()


@pytest.fixture(scope="module")
def locked_out(tmp_path_factory) -> LockedOut:
    return LockedOut(store_folder(tmp_path_factory.mktemp("locked-out")))


def test_a_lock_held_longer_than_the_wait_stops_the_run_with_a_clear_error(locked_out):
    assert locked_out.returncode == 2
    assert without_root_warning(locked_out.stderr) == (
        f"error: the database {locked_out.folder.database} is locked by another process, and stayed locked for 1 s; "
        "wait for that process to finish (or stop it), then run again\n"
    )


def test_a_run_locked_out_leaves_every_game_whole_or_pending(locked_out):
    assert locked_out.checks == ("ok", [])
    assert 20 <= locked_out.counts["finished"] < TOTAL
    assert locked_out.counts["moves of pending games"] == 0


def test_after_the_lock_is_released_a_run_finishes_with_the_games_of_an_uninterrupted_run(locked_out, reference):
    assert locked_out.final.returncode == 0, locked_out.final.stderr
    assert locked_out.folder.games("stress") == reference


# ---------------------------------------------------------------- where the database cannot be


def test_a_database_folder_that_cannot_be_written_is_refused_naming_it(tmp_path):
    folder = store_folder(tmp_path)
    closed = tmp_path / "closed"
    closed.mkdir()
    args = ("run", "t.yaml", "--db", f"sqlite:///{closed / 'arena.sqlite3'}", "-q")
    if os.geteuid() == 0:  # root writes whatever the mode says: forbid it with Landlock
        if not landlock.abi_version():
            pytest.skip("running as root on a kernel without Landlock: nothing can forbid the writes")
        result = under(folder, "--read-only", args=args)
    else:
        closed.chmod(0o555)
        result = arena(*args, cwd=folder.path)
    assert result.returncode == 2
    assert re.fullmatch(
        rf"error: cannot write in the database's folder '{closed}' \(to create the lock file "
        r"'arena\.sqlite3\.[0-9a-f]+\.lock'\): Permission denied; make it writable, or choose another "
        r"path with --db\n",
        result.stderr,
    )
    assert list(closed.iterdir()) == []


def test_a_database_path_through_a_file_is_refused_naming_it(tmp_path):
    store_folder(tmp_path)  # the tournament file and its bots
    result = arena("run", "t.yaml", "--db", f"sqlite:///{tmp_path / 't.yaml' / 'arena.sqlite3'}", "-q", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == (
        f"error: cannot put the database in '{tmp_path / 't.yaml'}': it is a file, not a folder; "
        "choose another path with --db\n"
    )


# ---------------------------------------------------------------- two runs at once


def test_of_two_runs_of_one_tournament_started_at_once_one_plays_and_one_is_refused(tmp_path, reference):
    folder = store_folder(tmp_path)
    both = [folder.start() for _ in range(2)]
    outcomes = sorted((p.wait(timeout=120), without_root_warning(p.stderr.read())) for p in both)
    for process in both:
        process.stdout.close()
        process.stderr.close()
    assert outcomes[0] == (0, "")
    assert outcomes[1][0] == 2
    assert re.fullmatch(
        r"error: tournament 'stress' is already running \(pid \d+\); wait for it to finish or stop "
        r"it first\n",
        outcomes[1][1],
    )
    assert folder.games("stress") == reference


def test_two_tournaments_started_at_once_in_a_new_database_both_finish(tmp_path, reference):
    folder = store_folder(tmp_path)
    both = [folder.start("--name", name) for name in ("stress", "stress-2")]
    outcomes = [(p.wait(timeout=120), without_root_warning(p.stderr.read())) for p in both]
    for process in both:
        process.stdout.close()
        process.stderr.close()
    assert outcomes == [(0, ""), (0, "")]
    without_ids = [game[1:] for game in reference]  # which of the two planned its games first is chance
    assert [game[1:] for game in folder.games("stress")] == without_ids
    assert [game[1:] for game in folder.games("stress-2")] == without_ids
    assert folder.checks() == ("ok", [])


class LockedAtFirst:
    """A cursor whose switch to WAL finds the database locked ``times`` times, at once."""

    def __init__(self, times: int) -> None:
        self.times = times
        self.statements: list[str] = []

    def execute(self, statement: str) -> None:
        self.statements.append(statement)
        if statement == "PRAGMA journal_mode=WAL" and self.times:
            self.times -= 1
            raise sqlite3.OperationalError("database is locked")


def test_a_new_database_found_locked_while_switching_to_wal_is_tried_again(monkeypatch):
    monkeypatch.setattr(database.time, "sleep", lambda seconds: None)
    cursor = LockedAtFirst(times=3)
    database._wal(cursor)
    assert cursor.statements == ["PRAGMA journal_mode=WAL"] * 4


def test_a_database_still_locked_after_the_wait_is_an_error(monkeypatch):
    clock = iter(range(0, 1000, 10))
    monkeypatch.setattr(database.time, "monotonic", lambda: next(clock))
    monkeypatch.setattr(database.time, "sleep", lambda seconds: None)
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        database._wal(LockedAtFirst(times=1000))
