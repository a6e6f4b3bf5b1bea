"""Resuming: ``arena run`` of an existing tournament continues it. A run killed at any moment
(SIGKILL of its whole process group) or stopped with Ctrl-C, then run again, ends with the same
games and results as a run never interrupted; nothing is duplicated, no bot process is left
behind, the database stays consistent. A second run of a running tournament, and a changed
config or bot under the same name, are refused with a message saying what to do."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from tests.fixtures.harnesskit import (
    BOTS,
    TournamentFolder,
    arena,
    children,
    finished_games,
    processes_mentioning,
    stop,
    wait_until,
    without_root_warning,
)

pytestmark = pytest.mark.slow

#: six deterministic bots that sleep 50 ms a move: two pools of three, then a final of four
TOURNAMENT = (
    """\
name: resume
game: tictactoe
seed: 11
time: {move: 1.0}
workers: 2
bots:
"""
    + "".join(f"  team-{n}: {{path: slow_seeded_random.py}}\n" for n in range(6))
    + """\
stages:
  - {name: groups, pools: 2, advance: 2, games_per_pair: 2}
  - {name: final, games_per_pair: 1}
"""
)
TOTAL = 18  # 2 pools x 3 pairs x 2 games, then 6 pairs x 1 game


def resume_folder(path: Path) -> TournamentFolder:
    return TournamentFolder(path, TOURNAMENT, ("slow_seeded_random",))


def status(folder: TournamentFolder) -> str:
    """The tournament's status as stored."""
    with closing(sqlite3.connect(folder.database)) as connection:
        return connection.execute("SELECT status FROM tournaments").fetchone()[0]


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> list[tuple]:
    """The results of the tournament played without interruption."""
    folder = resume_folder(tmp_path_factory.mktemp("reference"))
    result = folder.run()
    assert result.returncode == 0, result.stderr
    return folder.games()


class Killed:
    """Killed with SIGKILL twice (in the groups, then in the final), each time run again."""

    def __init__(self, folder: TournamentFolder) -> None:
        self.folder = folder
        self.survivors: list[list[str]] = []
        self.stored_at_kill: list[int] = []
        for at_least in (4, 13):
            process = folder.start()
            folder.wait_for_games(process, at_least)
            stop(process, signal.SIGKILL)
            self.stored_at_kill.append(finished_games(folder.database))
            wait_until(lambda: not processes_mentioning(str(folder.path)), timeout=10)
            self.survivors.append(processes_mentioning(str(folder.path)))
        self.final = folder.run()


@pytest.fixture(scope="module")
def killed(tmp_path_factory) -> Killed:
    return Killed(resume_folder(tmp_path_factory.mktemp("killed")))


def test_the_tournament_is_long_enough_to_be_killed_in_the_middle(killed):
    assert killed.stored_at_kill[0] < TOTAL and killed.stored_at_kill[1] < TOTAL
    assert killed.stored_at_kill[1] > 12  # the second kill came during the final


def test_no_process_outlives_a_sigkilled_run(killed):
    assert killed.survivors == [[], []]


def test_a_run_killed_twice_and_resumed_ends_with_the_games_of_an_uninterrupted_run(killed, reference):
    assert killed.final.returncode == 0, killed.final.stderr
    assert killed.folder.games() == reference


def test_a_killed_and_resumed_run_stores_every_game_once_and_consistently(killed):
    results = killed.folder.games()
    assert (len(results), [r[5] for r in results]) == (TOTAL, ["finished"] * TOTAL)
    assert killed.folder.checks()[1] == []
    assert status(killed.folder) == "finished"


def test_the_reference_run_is_complete(reference):
    assert len(reference) == TOTAL
    assert {r[1] for r in reference} == {0, 1}
    assert all(r[5] == "finished" and r[7] == "normal" for r in reference)


def test_a_worker_killed_in_the_middle_of_a_run_is_replaced_and_its_game_played_again(tmp_path, reference):
    folder = resume_folder(tmp_path)
    process = folder.start()
    folder.wait_for_games(process, 3)
    workers = children(process.pid)
    assert len(workers) == 2
    os.kill(workers[0], signal.SIGKILL)
    _stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 0, stderr
    assert folder.games() == reference
    assert re.search(
        r"WARNING worker arena-worker-\d+ died \(exit .*\) during game \d+; playing it again",
        (tmp_path / "resume.log").read_text(),
    )


class Interrupted:
    """Started; while it runs, a second run of the same tournament; then Ctrl-C; then run again.

    The first run's main process is stopped (SIGSTOP) while the second one starts, so that it
    cannot finish meanwhile however slow the machine is: its workers finish their games and
    wait for it, and the bots' time is not touched."""

    def __init__(self, folder: TournamentFolder) -> None:
        self.folder = folder
        process = folder.start()
        folder.wait_for_games(process, 3)
        self.pid = process.pid
        os.kill(process.pid, signal.SIGSTOP)
        try:
            self.second = folder.run()
        finally:
            os.kill(process.pid, signal.SIGCONT)
        assert process.poll() is None, "the run ended before Ctrl-C could stop it"
        process.send_signal(signal.SIGINT)
        self.stdout, self.stderr = process.communicate(timeout=30)
        self.returncode = process.returncode
        wait_until(lambda: not processes_mentioning(str(folder.path)), timeout=5)
        self.survivors = processes_mentioning(str(folder.path))
        self.stored = finished_games(folder.database)
        self.problems = folder.checks()[1]
        self.status = status(folder)
        self.final = folder.run()


@pytest.fixture(scope="module")
def interrupted(tmp_path_factory) -> Interrupted:
    return Interrupted(resume_folder(tmp_path_factory.mktemp("interrupted")))


def test_a_second_run_of_a_running_tournament_is_refused(interrupted):
    assert interrupted.second.returncode == 2
    assert interrupted.second.stderr == (
        f"error: tournament 'resume' is already running (pid {interrupted.pid}); "
        "wait for it to finish or stop it first\n"
    )


def test_ctrl_c_stops_the_run_with_a_message_saying_how_to_resume(interrupted):
    assert interrupted.returncode == 130
    database = interrupted.folder.database
    assert interrupted.stderr.endswith(
        f"stopped; run 'arena run t.yaml --db sqlite:///{database}' again to resume where it stopped\n"
    )  # the same database, not the default one
    assert "Traceback" not in interrupted.stderr
    assert interrupted.stored < TOTAL


def test_ctrl_c_leaves_no_bot_or_worker_running(interrupted):
    assert interrupted.survivors == []


def test_ctrl_c_leaves_the_database_consistent_and_the_tournament_interrupted(interrupted):
    assert (interrupted.problems, interrupted.status) == ([], "interrupted")


def test_a_run_stopped_with_ctrl_c_resumes_to_the_games_of_an_uninterrupted_run(interrupted, reference):
    assert interrupted.final.returncode == 0, interrupted.final.stderr
    assert interrupted.folder.games() == reference


# ---------------------------------------------------------------- changes under the same name

TINY = (
    "name: tiny\ngame: tictactoe\nseed: {seed}\ntime: {{move: 1.0}}\nworkers: 1\nbots:\n"
    "  first: {{path: first_legal.py}}\n  rand: {{path: seeded_random.py}}\n"
)


@pytest.fixture
def tiny(tmp_path) -> Path:
    """A two-game tournament, already played, in ``tmp_path``."""
    for name in ("first_legal", "seeded_random"):
        shutil.copy(BOTS / f"{name}.py", tmp_path)
    (tmp_path / "tiny.yaml").write_text(TINY.format(seed=1))
    result = arena("run", "tiny.yaml", "--db", f"sqlite:///{tmp_path / 'a.db'}", "-q", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    return tmp_path


def test_a_changed_config_under_the_same_name_is_refused_with_how_to_start_a_new_one(tiny):
    (tiny / "tiny.yaml").write_text(TINY.format(seed=2))
    result = arena("run", "tiny.yaml", "--db", f"sqlite:///{tiny / 'a.db'}", cwd=tiny)
    assert result.returncode == 2
    assert result.stderr == (
        "error: tournament 'tiny' already exists with a different configuration; to start a "
        "new one, change its name: in the file, or with 'arena run FILE --name NEW-NAME'; or play "
        "it again from scratch in its place with 'arena run FILE --restart'\n"
    )


def test_a_refused_run_leaves_no_lock_for_the_next_run_to_take_over(tiny):
    (tiny / "tiny.yaml").write_text(TINY.format(seed=2))
    assert arena("run", "tiny.yaml", "--db", f"sqlite:///{tiny / 'a.db'}", cwd=tiny).returncode == 2
    assert list(tiny.glob("*.lock")) == []
    (tiny / "tiny.yaml").write_text(TINY.format(seed=1))
    again = arena("run", "tiny.yaml", "--db", f"sqlite:///{tiny / 'a.db'}", "-q", cwd=tiny)
    assert (again.returncode, without_root_warning(again.stderr)) == (0, "")


def test_a_changed_config_runs_as_a_new_tournament_under_another_name(tiny):
    (tiny / "tiny.yaml").write_text(TINY.format(seed=2))
    result = arena("run", "tiny.yaml", "--name", "tiny-2", "--db", f"sqlite:///{tiny / 'a.db'}", "-q", cwd=tiny)
    assert result.returncode == 0, result.stderr
    listed = arena("tournaments", "--json", "--db", f"sqlite:///{tiny / 'a.db'}", cwd=tiny)
    assert [(t["name"], t["status"], t["games_finished"]) for t in json.loads(listed.stdout)] == [
        ("tiny", "finished", 2),
        ("tiny-2", "finished", 2),
    ]


def test_a_config_with_only_comments_and_spacing_changed_resumes(tiny):
    (tiny / "tiny.yaml").write_text("# reformatted\n" + TINY.format(seed=1).replace(": ", ":   "))
    result = arena("run", "tiny.yaml", "--db", f"sqlite:///{tiny / 'a.db'}", cwd=tiny)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Resuming tiny: ")


def test_a_changed_bot_file_in_a_new_tournament_is_stored_as_a_new_version(tiny):
    bot = tiny / "seeded_random.py"
    bot.write_text(bot.read_text() + "\n# tuned\n")
    result = arena("run", "tiny.yaml", "--name", "tiny-2", "--db", f"sqlite:///{tiny / 'a.db'}", "-q", cwd=tiny)
    assert result.returncode == 0, result.stderr
    listed = json.loads(arena("bots", "--json", "--db", f"sqlite:///{tiny / 'a.db'}", cwd=tiny).stdout)
    listed = [bot for bot in listed if not bot["built_in"]]
    assert [(b["name"], b["version"]) for b in listed] == [("first", 1), ("rand", 1), ("rand", 2)]
    assert listed[2]["code_hash"] != listed[1]["code_hash"]


def test_a_bot_whose_code_changed_since_the_tournament_started_is_refused(tiny):
    bot = tiny / "seeded_random.py"
    bot.write_text(bot.read_text() + "\n# tuned\n")
    result = arena("run", "tiny.yaml", "--db", f"sqlite:///{tiny / 'a.db'}", cwd=tiny)
    assert result.returncode == 2
    assert result.stderr == (
        "error: the code of bot 'rand' (team 'rand') changed since tournament 'tiny' started, "
        "so resuming would mix two versions; restore it, or start a new tournament under "
        "another name\n"
    )
