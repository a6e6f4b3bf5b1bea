"""The worker pool under faults (issue 7): a worker killed mid-game is replaced and its game
played again (tests/test_tournament_resume.py kills one during a real run); a game that kills
every worker playing it stops the run with an error instead of replaying it for ever. An open
runner keeps its workers, their launchers and warm bots between runs (a tournament's rounds),
but not those of a run given up midway, and ends them without waiting when told to wind down."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time

import pytest

from arena.core.records import GameRecord, Termination
from arena.runners.local import LocalRunner, RunnerError
from arena.runners.worker import GameWorker
from arena.sandbox.procfs import child_pids, descendants, running
from tests.fixtures.harnesskit import TICTACTOE, job, python_bot, wait_until
from tests.fixtures.leftovers import nothing_left_running  # noqa: F401

FIRST, RANDOM = python_bot("first_legal"), python_bot("seeded_random")


def dies_on(game_ids: set[int], deaths_file):
    """A ``GameWorker.play`` for the workers that ends the worker (as a SIGKILL would) when given
    one of ``game_ids``, the first time only if ``deaths_file`` says so, every time otherwise."""
    real = GameWorker.play

    def play(worker, game_job):
        if game_job.game_id in game_ids:
            with open(deaths_file, "a+") as deaths:
                deaths.seek(0)
                if deaths_file.name == "always" or not deaths.read():
                    deaths.write("died\n")
                    deaths.flush()
                    os._exit(9)
        return real(worker, game_job)

    return play


def test_a_game_whose_worker_died_once_is_played_again_and_the_run_goes_on(monkeypatch, tmp_path):
    monkeypatch.setattr(GameWorker, "play", dies_on({2}, tmp_path / "once"))
    records = list(LocalRunner(1).run([job(FIRST, RANDOM, game_id=n) for n in (1, 2, 3)]))
    assert sorted((r.game_id, r.termination) for r in records) == [
        (1, Termination.NORMAL),
        (2, Termination.NORMAL),
        (3, Termination.NORMAL),
    ]
    assert (tmp_path / "once").read_text() == "died\n"


def test_a_game_that_kills_every_worker_stops_the_run_after_three_deaths(monkeypatch, tmp_path):
    monkeypatch.setattr(GameWorker, "play", dies_on({2}, tmp_path / "always"))
    played = []
    with pytest.raises(RunnerError) as stopped:
        played.extend(
            record.game_id for record in LocalRunner(1).run([job(FIRST, RANDOM, game_id=n) for n in (1, 2, 3)])
        )
    assert str(stopped.value) == (
        "game 2 lost its worker process 3 times (the last exit status was 9); stopping the "
        "run: the log beside the database says more, and running again retries the game"
    )
    assert played == [1]
    assert (tmp_path / "always").read_text() == "died\n" * 3


def below(runner: LocalRunner) -> set[int]:
    """The processes of ``runner``'s workers: the workers, their launchers and their bots."""
    return {pid for worker in runner.worker_pids for pid in (worker, *descendants(worker))}


def test_an_open_runner_keeps_its_workers_launchers_and_warm_bots_from_run_to_run():
    with LocalRunner(1) as runner:
        runner.open(TICTACTOE)  # the worker starts its launcher before it is given a game
        assert wait_until(lambda: len(below(runner)) == 2, timeout=10)
        first = list(runner.run([job(FIRST, RANDOM, game_id=n) for n in (1, 2)]))
        playing = below(runner)  # the worker, its launcher and the two bots
        second = list(runner.run([job(RANDOM, FIRST, game_id=n) for n in (3, 4)]))
        assert below(runner) == playing and len(playing) == 4
    assert [r.termination for r in first + second] == [Termination.NORMAL] * 4
    assert runner.worker_pids == []  # (and nothing is left running: the fixture checks)


def cpu_ticks(pid: int) -> int:
    """The CPU time process ``pid`` used so far, in clock ticks (user and system)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def test_an_open_runner_waits_for_its_workers_launchers_to_be_ready_and_then_plays_as_usual():
    with LocalRunner(2) as runner:
        runner.open(TICTACTOE)
        runner.wait_ready()  # (what a tournament measuring paces does: a quiet machine from here)
        launchers = below(runner) - set(runner.worker_pids)
        assert len(launchers) == 2
        used = {pid: cpu_ticks(pid) for pid in launchers}
        time.sleep(0.3)
        assert {pid: cpu_ticks(pid) for pid in launchers} == used  # idle, their imports done
        records = list(runner.run([job(FIRST, RANDOM, game_id=n) for n in (1, 2, 3)]))
    assert sorted((r.game_id, r.termination) for r in records) == [(n, Termination.NORMAL) for n in (1, 2, 3)]


def test_a_wait_for_the_launchers_cut_short_by_ctrl_c_leaves_the_next_run_its_records(monkeypatch):
    real = GameWorker.wait_ready
    monkeypatch.setattr(GameWorker, "wait_ready", lambda worker: (time.sleep(1), real(worker)))  # slow imports
    with LocalRunner(1) as runner:
        runner.open(TICTACTOE)
        threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT)).start()
        with pytest.raises(KeyboardInterrupt):
            runner.wait_ready()
            time.sleep(5)  # (the interrupt comes here if the wait was over first)
        records = list(runner.run([job(FIRST, RANDOM, game_id=n) for n in (1, 2)]))
    assert [(type(r), r.game_id) for r in records] == [(GameRecord, 1), (GameRecord, 2)]


def test_the_workers_of_a_run_given_up_midway_are_ended_and_the_next_run_has_new_ones():
    with LocalRunner(1) as runner:
        run = runner.run([job(FIRST, RANDOM, game_id=n) for n in (1, 2, 3, 4)])
        next(run)
        stopped = below(runner)
        run.close()  # its worker still had games: they are not the next run's
        assert runner.worker_pids == []
        records = list(runner.run([job(FIRST, RANDOM, game_id=5)]))
        assert [r.game_id for r in records] == [5] and not stopped & below(runner)


def test_a_worker_killed_while_the_runner_waits_for_its_first_run_is_replaced():
    with LocalRunner(1) as runner:
        runner.open(TICTACTOE)
        runner.wait_ready()
        (launcher,) = below(runner) - set(runner.worker_pids)
        (worker,) = runner.worker_pids
        os.kill(worker, signal.SIGKILL)
        assert wait_until(lambda: not running(worker) and not running(launcher))  # it dies with its worker
        records = list(runner.run([job(FIRST, RANDOM, game_id=n) for n in (1, 2)]))
        assert sorted((r.game_id, r.termination) for r in records) == [(1, Termination.NORMAL), (2, Termination.NORMAL)]
        assert runner.worker_pids != [worker]
    assert launcher not in child_pids(os.getpid())  # handed to us when its worker died, and reaped


def test_a_runner_winding_down_ends_its_workers_while_its_caller_goes_on():
    with LocalRunner(1) as runner:
        list(runner.run([job(FIRST, RANDOM, game_id=1)]))
        ending = below(runner)
        runner.wind_down()  # (a tournament's last ratings are kept meanwhile)
        assert runner.worker_pids == []
        assert wait_until(lambda: not any(running(pid) for pid in ending))
        records = list(runner.run([job(FIRST, RANDOM, game_id=2)]))  # another run starts others
        assert [r.termination for r in records] == [Termination.NORMAL] and not ending & below(runner)


def test_a_run_given_up_midway_and_closed_late_leaves_the_next_run_whole():
    with LocalRunner(1) as runner:
        given_up = runner.run([job(FIRST, RANDOM, game_id=n) for n in (1, 2, 3, 4)])
        next(given_up)  # (its generator is not closed yet)
        later = runner.run([job(FIRST, RANDOM, game_id=n) for n in (5, 6, 7, 8)])
        played = [next(later).game_id]
        given_up.close()  # as when the frame that held it is freed at last
        played += [record.game_id for record in later]
    assert sorted(played) == [5, 6, 7, 8]


def test_a_game_too_big_to_wait_in_a_pipe_is_not_given_ahead(monkeypatch):
    """A job and a record each bigger than a pipe's buffer: given ahead, the job would fill the
    worker's pipe while it plays, and its record then the other way, each side waiting for the
    other (a watchdog ends the worker after 20 s without a record, failing the test)."""
    size = 300_000

    def play(worker, game_job):
        time.sleep(0.1)  # a game
        return GameRecord(game_job.game_id, [], detail="d" * size)

    monkeypatch.setattr(GameWorker, "play", play)
    big = python_bot("takes_params", params={"blob": "x" * size})
    runner = LocalRunner(1)
    played: list[int] = []
    stuck: list[list[int]] = []
    done = threading.Event()

    def watchdog() -> None:
        seen = -1
        while not done.wait(20):
            if len(played) == seen:
                stuck.append(list(played))
                for pid in runner.worker_pids:
                    os.kill(pid, signal.SIGKILL)
            seen = len(played)

    threading.Thread(target=watchdog, daemon=True).start()
    try:
        played += [record.game_id for record in runner.run([job(big, big, game_id=n) for n in (1, 2, 3)])]
    finally:
        done.set()
    assert sorted(played) == [1, 2, 3] and stuck == []


def test_a_process_its_caller_started_before_a_run_is_no_stray_of_the_runner():
    with LocalRunner(1) as runner:
        runner.open(TICTACTOE)
        own = subprocess.Popen(["sleep", "60"])  # (a load a benchmark starts beside the run)
        try:
            list(runner.run([job(FIRST, RANDOM, game_id=1)]))
            runner.close()
            assert own.poll() is None
        finally:
            own.kill()
            own.wait()


def test_a_bot_that_computes_between_two_runs_of_an_open_runner_forfeits_its_next_game():
    """Kept warm from one round to the next, a bot is still watched while it is not its turn."""
    spinner = python_bot("spins_after_game")
    with LocalRunner(1) as runner:
        (first,) = runner.run([job(spinner, FIRST, game_id=1)])
        time.sleep(0.3)  # (between two rounds)
        (second,) = runner.run([job(spinner, FIRST, game_id=2)])
    assert first.termination is Termination.NORMAL
    assert (second.termination, second.offender) == (Termination.RESOURCE_LIMIT, 0)
    assert "between its games" in (second.detail or "")
