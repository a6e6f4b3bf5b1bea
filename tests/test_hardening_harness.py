"""The harness's own faults and limits: an unexpected failure while one game is played ends that
game as aborted, never its worker; registration and play start bots inside a worker, which ends
whatever they left; a bot may have at most ``limits.processes`` processes and threads where a
pids controller counts them."""

from __future__ import annotations

import pytest

from arena.core.records import Termination
from arena.runners import worker as worker_module
from tests.fixtures.harnesskit import BOTS, job, python_bot


def test_a_failure_of_the_harness_during_a_game_aborts_that_game_and_the_worker_plays_on(pool, monkeypatch):
    def broken(*args, **kwargs):
        raise RecursionError("maximum recursion depth exceeded")

    real = worker_module.play_game
    monkeypatch.setattr(worker_module, "play_game", broken)
    record = pool.play(job(python_bot("first_legal"), python_bot("seeded_random"), game_id=7))
    monkeypatch.setattr(worker_module, "play_game", real)
    assert (record.game_id, record.termination, record.offender, record.winner) == (7, Termination.ABORTED, None, None)
    assert record.detail == ("the harness failed while playing it: RecursionError: maximum recursion depth exceeded")
    again = pool.play(job(python_bot("first_legal"), python_bot("seeded_random"), game_id=8))
    assert again.termination is Termination.NORMAL


def test_registering_a_bot_that_detaches_a_process_refuses_it_and_ends_the_process(cli, monkeypatch):
    from arena.sandbox.procfs import running

    monkeypatch.chdir(BOTS)
    result = cli("register", "detaches_grandchild.py")
    assert type(result.exception).__name__ == "RegistrationError"
    assert "smoke game of tictactoe against random: the bot forfeited (resource_limit)" in str(result.exception)
    grandchildren = [int(line.split()[1]) for line in str(result.exception).splitlines() if "grandchild" in line]
    assert all(not running(pid) for pid in grandchildren)


def test_a_bot_over_its_process_and_thread_limit_cannot_start_more(isolation, pool):
    from arena.sandbox.cgroups import support

    if isolation != "cgroups" or "pids" not in support().v2_controllers | set(support().v1):
        pytest.skip("no pids controller here: processes and threads are not counted")
    spec = python_bot("starts_many_threads", params={"threads": 100}, processes=20)
    record = pool.play(job(spec, python_bot("first_legal"), move=5.0))
    assert (record.termination, record.offender) == (Termination.CRASH, 0)
    assert "can't start new thread" in record.detail
