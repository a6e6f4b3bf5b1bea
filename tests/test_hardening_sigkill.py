"""SIGKILL at random moments: ``arena run`` of a tournament of instant, deterministic bots is
killed (its whole process group, SIGKILL) at least ``KILLS`` times, each at a different moment
(seeded), and run again until it finishes. Every kill leaves a consistent database and no
process behind; the finished tournament has exactly the games, results and moves of an
uninterrupted run in another database.

Half the kills come after a delay from 0.2 s to 1.5 s (while Python starts, the database opens,
the tournament is planned, or games are played), half once the run has stored a number of
games more than it had: games being played and stored, the next stage being
planned, however slow the machine is (1 to 5 games for the first, 6 to 10 for the next, ...).
"""

from __future__ import annotations

import random
import signal
import subprocess
from pathlib import Path

import pytest

from tests.fixtures.harnesskit import TournamentFolder, finished_games, processes_mentioning, stop, wait_until

pytestmark = pytest.mark.slow

KILLS = 22
#: ten instant deterministic bots; two groups of five, then a final of four: 1,400 games, so
#: that the kills land in the groups, between the stages and in the final
TOURNAMENT = (
    """\
name: sigkill
game: tictactoe
seed: 13
time: {move: 1.0}
workers: 2
bots:
"""
    + "".join(f"  team-{n}: {{path: {'first_legal' if n % 3 == 0 else 'seeded_random'}.py}}\n" for n in range(10))
    + """\
stages:
  - {name: groups, pools: 2, advance: 2, games_per_pair: 40}
  - {name: final, games_per_pair: 100}
"""
)
TOTAL = 2 * 10 * 40 + 6 * 100


def sigkill_folder(path: Path) -> TournamentFolder:
    return TournamentFolder(path, TOURNAMENT, ("first_legal", "seeded_random"))


class Killed:
    """Tournaments ``sigkill-1``, ``sigkill-2``, ... each killed and run again until it
    finishes, ``KILLS`` kills in all; what each kill left."""

    def __init__(self, folder: TournamentFolder) -> None:
        self.folder = folder
        rng = random.Random(2019)
        self.kills: list[dict] = []
        self.names: list[str] = []
        self.final_runs: list[subprocess.CompletedProcess] = []
        while len(self.kills) < KILLS:
            name = f"sigkill-{len(self.names) + 1}"
            self.names.append(name)
            while len(self.kills) < KILLS:
                delay, games = rng.uniform(0.2, 1.5), 5 * (len(self.kills) // 2) + rng.randint(1, 5)
                before = finished_games(folder.database)
                process = folder.start("--name", name)
                moment = f"after {delay:.3f} s"
                if len(self.kills) % 2:  # once it has stored some games
                    wait_until(
                        lambda before=before, games=games, process=process: (
                            finished_games(folder.database) >= before + games or process.poll() is not None
                        ),
                        timeout=60,
                        step=0.005,
                    )
                    delay, moment = 0.0, f"after {games} more games"
                try:
                    process.wait(timeout=delay)
                except subprocess.TimeoutExpired:
                    stop(process, signal.SIGKILL)
                else:  # it finished the tournament before the kill
                    process.communicate()
                    assert process.returncode == 0, process.stderr
                    break
                wait_until(lambda: not processes_mentioning(str(folder.path)), timeout=10)
                self.kills.append(
                    {
                        "moment": moment,
                        "stored before": before,
                        "stored after": finished_games(folder.database),
                        "survivors": processes_mentioning(str(folder.path)),
                        "problems": folder.checks()[1],
                    }
                )
        for name in self.names:
            self.final_runs.append(folder.run("--name", name))


@pytest.fixture(scope="module")
def killed(tmp_path_factory) -> Killed:
    return Killed(sigkill_folder(tmp_path_factory.mktemp("killed")))


@pytest.fixture(scope="module")
def reference(tmp_path_factory, killed) -> dict[str, list[tuple]]:
    """Each tournament the killed runs played, played without interruption in another database."""
    folder = sigkill_folder(tmp_path_factory.mktemp("reference"))
    results = {}
    for name in killed.names:
        result = folder.run("--name", name)
        assert result.returncode == 0, result.stderr
        results[name] = folder.games(name)
    return results


def test_the_runs_were_killed_at_least_kills_times_at_different_moments(killed):
    moments = [kill["moment"] for kill in killed.kills]
    assert len(moments) == KILLS
    assert len(set(moments)) == KILLS


def test_kills_landed_both_before_any_game_and_while_games_were_being_stored(killed):
    progress = [kill["stored after"] - kill["stored before"] for kill in killed.kills]
    assert sum(1 for p in progress if p == 0) >= 1
    assert sum(1 for p in progress if p > 0) >= KILLS // 3


def test_no_process_outlives_any_kill(killed):
    assert [kill["survivors"] for kill in killed.kills] == [[]] * KILLS


def test_every_kill_leaves_a_consistent_database(killed):
    assert [kill["problems"] for kill in killed.kills] == [[]] * KILLS


def test_each_killed_tournament_finishes_with_the_games_of_an_uninterrupted_run(killed, reference):
    assert [run.returncode for run in killed.final_runs] == [0] * len(killed.names)
    for name in killed.names:
        results = killed.folder.games(name)
        assert len(results) == TOTAL
        assert {game[5] for game in results} == {"finished"}
        assert results == reference[name]


def test_the_killed_database_is_consistent_at_the_end(killed):
    assert killed.folder.checks()[1] == []
