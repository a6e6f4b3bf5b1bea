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
    "arena.process",
    "arena.launcher",
    "arena.worker",
    "arena.botplayer",
    "arena.reaper",
    "arena.procfs",
    "arena.runner",
    "arena.cluster",
    "arena.dask_runner",
    "arena.sandbox",
    "arena.cgroups",
    "arena.host",
    "arena.seccomp",
    "arena.landlock",
]


def imported_by(module: str) -> set[str]:
    """The arena modules that importing ``module`` loads, in a fresh interpreter."""
    code = f"import json, sys, {module}; print(json.dumps(sorted(n for n in sys.modules if n.startswith('arena'))))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    return set(json.loads(done.stdout))


@pytest.mark.parametrize(
    "module",
    [
        "arena.report",
        "arena.pages",
        "arena.web.site",
        "arena.web.app",
        "arena.results",
        "arena.final_standings",
        "arena.formatstandings",
        "arena.listings",
        "arena.replay",
        "arena.nodestats",
    ],
)
def test_the_read_side_does_not_import_the_process_layer(module):
    assert imported_by(module) & set(PROCESS_LAYER) == set()


@pytest.mark.parametrize("module", ["arena.stages", "arena.rounds", "arena.tournament", "arena.roster", "arena.job"])
def test_planning_a_tournament_does_not_import_the_process_layer(module):
    assert imported_by(module) & set(PROCESS_LAYER) == set()


def test_the_games_import_nothing_of_the_harness():
    assert {name for name in imported_by("arena.games") if not name.startswith("arena.games")} <= {
        "arena",
        "arena.errors",
    }


def test_the_job_imports_only_the_records_and_the_time_model():
    # a cluster node unpickles jobs and records with nothing of the local harness loaded
    assert imported_by("arena.job") == {"arena", "arena.job", "arena.records", "arena.timing"}
