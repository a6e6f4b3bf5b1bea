"""A killed run leaves nothing behind: ``arena run``'s own process killed alone (SIGKILL or
SIGTERM: its workers, launchers, bots and what the bots detached all go, and the next run takes
over its lock with a note), or one worker killed alone (its bots and what they detached go, the
run finishes). The other kill tests kill the whole process group; these kill one process, as a
user's ``kill PID`` or an out-of-memory killer would.
"""

from __future__ import annotations

import os
import shutil
import signal
from pathlib import Path

import pytest

from tests.fixtures.harnesskit import BOTS, arena, finished_games, processes_mentioning, start_arena, wait_until
from tests.test_tournament_resume import children

pytestmark = pytest.mark.slow

#: slow bots (50 ms a move), and one that detaches a sleeping grandchild in every game
TOURNAMENT = (
    """\
name: kills
game: tictactoe
seed: 21
time: {move: 1.0}
workers: 2
bots:
"""
    + "".join(f"  team-{n}: {{path: slow_seeded_random.py}}\n" for n in range(5))
    + """\
  detacher: {path: detaches_grandchild.py}
stages:
  - {games_per_pair: 2}
"""
)


class Folder:
    def __init__(self, path: Path) -> None:
        for name in ("slow_seeded_random", "detaches_grandchild"):
            shutil.copy(BOTS / f"{name}.py", path)
        (path / "t.yaml").write_text(TOURNAMENT)
        self.path = path
        self.database = path / "arena.sqlite3"
        self.args = ("run", "t.yaml", "--db", f"sqlite:///{self.database}")

    def left(self) -> list[str]:
        """The processes of the run still running, after giving them 10 s to end."""
        wait_until(lambda: not processes_mentioning(str(self.path)), timeout=10)
        return processes_mentioning(str(self.path))


def started(folder: Folder, games: int = 3):
    process = start_arena(*folder.args, cwd=folder.path)
    assert wait_until(lambda: finished_games(folder.database) >= games or process.poll() is not None, timeout=60)
    assert process.poll() is None, "the run ended before it could be killed"
    return process


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_killing_the_runs_own_process_alone_leaves_nothing_of_it(tmp_path, sig):
    folder = Folder(tmp_path)
    process = started(folder)
    assert len(children(process.pid)) == 2  # its workers
    os.kill(process.pid, sig)
    process.communicate(timeout=30)
    assert folder.left() == []


def test_the_next_run_takes_over_the_lock_of_a_killed_one_with_a_note(tmp_path):
    folder = Folder(tmp_path)
    process = started(folder)
    os.kill(process.pid, signal.SIGKILL)
    process.communicate(timeout=30)
    folder.left()
    again = arena(*folder.args, cwd=folder.path, timeout=300)
    assert again.returncode == 0, again.stderr
    assert (
        f"note: the last run of this tournament (pid {process.pid}) stopped without finishing; taking over its "
        "lock" in again.stderr.replace("\n", " ")
    )
    assert not list(tmp_path.glob("*.lock"))  # gone at the end of the run


def test_killing_one_worker_alone_leaves_nothing_of_it_and_the_run_finishes(tmp_path):
    folder = Folder(tmp_path)
    process = started(folder)
    worker = children(process.pid)[0]
    os.kill(worker, signal.SIGKILL)
    _stdout, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stderr
    assert folder.left() == []
    assert finished_games(folder.database) == 30
