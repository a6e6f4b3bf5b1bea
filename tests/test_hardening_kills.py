"""A killed run leaves nothing behind: ``arena run``'s own process killed alone (SIGKILL or
SIGTERM: its workers, launchers, bots and what the bots detached all go, and the next run takes
over its lock with a note), or one worker killed alone (its bots and what they detached go, the
run finishes). The other kill tests kill the whole process group; these kill one process, as a
user's ``kill PID`` or an out-of-memory killer would.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from tests.fixtures.harnesskit import TournamentFolder, children, finished_games

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


def kills_folder(path: Path) -> TournamentFolder:
    return TournamentFolder(path, TOURNAMENT, ("slow_seeded_random", "detaches_grandchild"), quiet=False)


def started(folder: TournamentFolder, games: int = 3):
    process = folder.start()
    folder.wait_for_games(process, games)
    return process


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_killing_the_runs_own_process_alone_leaves_nothing_of_it(tmp_path, sig):
    folder = kills_folder(tmp_path)
    process = started(folder)
    assert len(children(process.pid)) == 2  # its workers
    os.kill(process.pid, sig)
    process.communicate(timeout=30)
    assert folder.left() == []


def test_the_next_run_takes_over_the_lock_of_a_killed_one_with_a_note(tmp_path):
    folder = kills_folder(tmp_path)
    process = started(folder)
    os.kill(process.pid, signal.SIGKILL)
    process.communicate(timeout=30)
    folder.left()
    again = folder.run(timeout=300)
    assert again.returncode == 0, again.stderr
    assert (
        f"note: the last run of this tournament (pid {process.pid}) stopped without finishing; taking over its "
        "lock" in again.stderr.replace("\n", " ")
    )
    assert not list(tmp_path.glob("*.lock"))  # gone at the end of the run


def test_killing_one_worker_alone_leaves_nothing_of_it_and_the_run_finishes(tmp_path):
    folder = kills_folder(tmp_path)
    process = started(folder)
    worker = children(process.pid)[0]
    os.kill(worker, signal.SIGKILL)
    _stdout, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stderr
    assert folder.left() == []
    assert finished_games(folder.database) == 30
