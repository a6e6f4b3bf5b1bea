"""What a run leaves in the database's folder: the database and the tournament's log, nothing
else (no lock file, no write-ahead log), whether it finished or was stopped with Ctrl-C; and the
commands that only look never create a database, or its folder, where there is none."""

from __future__ import annotations

import os
import shutil
import signal
from pathlib import Path

import pytest

from arena.errors import ArenaError
from tests.fixtures.harnesskit import (
    BOTS,
    arena,
    finished_games,
    processes_mentioning,
    run_arena,
    start_arena,
    wait_until,
)

#: six teams of slow bots (50 ms a move): 30 games, long enough to be stopped in the middle
TOURNAMENT = "name: tidy\ngame: tictactoe\nseed: 5\ntime: {move: 1.0}\nworkers: 2\nbots:\n" + "".join(
    f"  team-{n}: {{path: slow_seeded_random.py}}\n" for n in range(6)
)
#: what the database's folder holds after a run, however it ended
LEFT = ["arena.sqlite3", "tidy.log"]


@pytest.fixture
def folder(tmp_path) -> Path:
    shutil.copy(BOTS / "slow_seeded_random.py", tmp_path)
    (tmp_path / "t.yaml").write_text(TOURNAMENT)
    return tmp_path


def url(folder: Path) -> str:
    return f"sqlite:///{folder / 'db' / 'arena.sqlite3'}"


@pytest.mark.slow
def test_a_finished_run_leaves_the_database_and_its_log(folder):
    result = arena("run", "t.yaml", "--db", url(folder), "-q", cwd=folder, timeout=300)
    assert result.returncode == 0, result.stderr
    assert sorted(os.listdir(folder / "db")) == LEFT
    assert finished_games(folder / "db" / "arena.sqlite3") == 30  # (after: reading it read-only leaves its -wal)


@pytest.mark.slow
def test_a_run_stopped_with_ctrl_c_leaves_the_database_and_its_log(folder):
    process = start_arena("run", "t.yaml", "--db", url(folder), "-q", cwd=folder)
    assert wait_until(lambda: finished_games(folder / "db" / "arena.sqlite3") >= 3 or process.poll() is not None, 60)
    assert process.poll() is None, "the run ended before Ctrl-C could stop it"
    os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C in a terminal sends: the whole foreground group
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert wait_until(lambda: not processes_mentioning(str(folder)), timeout=10)
    assert sorted(os.listdir(folder / "db")) == LEFT
    assert finished_games(folder / "db" / "arena.sqlite3") < 30


LOOKING = [
    ["tournaments"],
    ["games"],
    ["games", "show", "1"],
    ["bots"],
    ["leaderboard"],
    ["replay", "1"],
    ["report"],
    ["dataset", "t", "--out", "data.npz"],
    ["train", "nnvalue", "--game", "tictactoe", "--from-db", "t", "--out", "model.npz"],
]


@pytest.mark.parametrize("command", LOOKING, ids=" ".join)
def test_a_command_that_only_looks_creates_no_database(tmp_path, monkeypatch, command):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ARENA_DB", raising=False)
    result = run_arena(*command)  # the default database, db/arena.sqlite3, which does not exist
    assert result.exception is None or isinstance(result.exception, ArenaError), repr(result.exception)
    assert list(tmp_path.iterdir()) == []
