"""A short soak (issue 7): a few hundred games of instant bots through the real harness leave
the parent's open file descriptors as they were, no bot process running, and the memory of the
parent and the workers flat. ``benchmarks/soak.py`` is the long version (10,000 games), where
the workers' descriptors are seen flat too, once every worker has its warm processes up (here
a worker meets a team for the first time until late in the run, and opens its pipes then)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

SOAK = Path(__file__).resolve().parent.parent / "benchmarks" / "soak.py"


def load_soak():
    spec = importlib.util.spec_from_file_location("soak", SOAK)
    module = importlib.util.module_from_spec(spec)
    sys.modules["soak"] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def samples(tmp_path_factory):
    """402 games of 4 teams, sampled every 50 games, and once more after the workers stopped."""
    soak = load_soak()
    return soak, soak.soak(400, 50, 2, 4, tmp_path_factory.mktemp("soak"), report=lambda sample: None)


def test_the_soak_played_every_game(samples):
    _, taken = samples
    assert taken[-1].games == 6 * 67


def test_after_the_run_the_parent_has_the_descriptors_it_had_and_no_bot_runs(samples):
    _, taken = samples
    assert (taken[-1].parent_fds, taken[-1].bots, taken[-1].workers_fds) == (taken[0].parent_fds, 0, 0)


def test_the_parents_descriptors_stay_flat_while_games_are_played(samples):
    _, taken = samples
    running = taken[1:-1]
    assert {s.parent_fds for s in running} == {running[0].parent_fds}


def test_memory_stays_flat_while_games_are_played(samples):
    soak, taken = samples
    change = soak.growth(taken)
    assert change["parent RSS MiB"] < 4.0
    assert change["workers RSS MiB"] < 4.0
