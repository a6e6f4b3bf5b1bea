"""Workers pinned to CPUs (``LocalRunner(pin=True)``, the default of ``arena run``): each worker
and the bots it starts keep to one CPU of their own when there are no more workers than CPUs;
otherwise, or with ``--no-pin``, they run wherever the system puts them."""

from __future__ import annotations

import json
import os

import pytest

from arena.runners import local as runner
from arena.runners.local import LocalRunner, choose_cpus
from tests.fixtures.harnesskit import job, python_bot

CPUS = sorted(os.sched_getaffinity(0))


@pytest.mark.parametrize(
    ("allowed", "workers", "pinned"),
    [
        ({0, 1}, 2, [0, 1]),
        ({0, 1}, 1, [0]),
        ({0, 1}, 3, None),
        ({5}, 1, None),
        ({2, 5, 7}, 2, [2, 5]),
    ],
)
def test_each_worker_gets_a_cpu_of_its_own_when_there_are_enough(monkeypatch, allowed, workers, pinned):
    monkeypatch.setattr(runner.os, "sched_getaffinity", lambda pid: allowed)
    assert choose_cpus(workers, pin=True)[0] == pinned


def bots_cpus(pin: bool) -> list[list[int]]:
    """The CPUs the reports_sandbox bot saw in each of 4 games played by 2 workers."""
    games = [job(python_bot("reports_sandbox"), python_bot("first_legal"), game_id=n) for n in range(4)]
    cpus = []
    for record in LocalRunner(2, pin=pin).run(games):
        (line,) = [line for line in record.stderr[0].splitlines() if line.startswith("sandbox ")]
        cpus.append(json.loads(line.removeprefix("sandbox "))["cpus"])
    return cpus


@pytest.mark.skipif(len(CPUS) < 2, reason="one CPU: nothing to pin to")
def test_pinned_workers_bots_run_on_their_workers_cpu_and_both_cpus_are_used():
    seen = bots_cpus(pin=True)
    assert all(len(cpus) == 1 for cpus in seen), seen
    assert {cpus[0] for cpus in seen} == set(CPUS[:2])


def test_without_pinning_bots_may_run_on_every_cpu():
    assert bots_cpus(pin=False) == [CPUS] * 4
