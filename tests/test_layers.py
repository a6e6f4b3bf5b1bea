"""The layers of the code run one way: the games, then the job (what a worker plays), then the
process layer, then the runner, then the tournament; the read side (listings, results, report)
uses the store and the records, never the process layer. Each import is checked in a fresh
interpreter, so that what another test imported does not hide it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

PROCESS_LAYER = [
    "arena.sandbox.process",
    "arena.sandbox.launcher",
    "arena.runners.worker",
    "arena.runners.seat",
    "arena.sandbox.reaper",
    "arena.sandbox.procfs",
    "arena.runners.local",
    "arena.runners.dask_node",
    "arena.runners.dask_runner",
    "arena.sandbox.wrapper",
    "arena.sandbox.cgroups",
    "arena.host.python_host",
    "arena.sandbox.seccomp",
    "arena.sandbox.landlock",
]


def imported_by(module: str) -> set[str]:
    """The arena modules that importing ``module`` loads, in a fresh interpreter."""
    code = f"import json, sys, {module}; print(json.dumps(sorted(n for n in sys.modules if n.startswith('arena'))))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    return set(json.loads(done.stdout))


@pytest.mark.parametrize(
    "module",
    [
        "arena.results.report",
        "arena.results.pages",
        "arena.web.site",
        "arena.web.app",
        "arena.results.tournament_results",
        "arena.results.final_standings",
        "arena.formats.format_standings",
        "arena.results.listings",
        "arena.results.replay",
        "arena.results.nodestats",
    ],
)
def test_the_read_side_does_not_import_the_process_layer(module):
    assert imported_by(module) & set(PROCESS_LAYER) == set()


@pytest.mark.parametrize(
    "module",
    [
        "arena.contests.stages",
        "arena.formats.rounds",
        "arena.contests.tournament",
        "arena.contests.roster",
        "arena.core.job",
    ],
)
def test_planning_a_tournament_does_not_import_the_process_layer(module):
    assert imported_by(module) & set(PROCESS_LAYER) == set()


def test_the_games_import_nothing_of_the_harness():
    assert {name for name in imported_by("arena.games") if not name.startswith("arena.games")} <= {
        "arena",
        "arena.errors",
    }


def test_the_job_imports_only_the_records_and_the_time_model():
    # a cluster node unpickles jobs and records with nothing of the local harness loaded
    assert imported_by("arena.core.job") == {"arena", "arena.core.job", "arena.core.records", "arena.core.timing"}
