"""Shared fixtures, and the check, after the last test, that nothing of a run is left."""

from __future__ import annotations

import compileall
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import pytest

from arena.games import GAMES, get_game
from arena.sandbox.process import ONE_THREAD

# numeric libraries in one thread, as in a bot's process: a BLAS thread left spinning on a busy
# machine would count as the CPU of a move the tests time on the CPU clock (set before numpy loads)
os.environ.update(ONE_THREAD)

#: the harness's fixtures (``pool``, ``forking``, ``isolation``, ``cli``) and the browser's
#: (``browser``, ``page``), for every test module
pytest_plugins = ["tests.fixtures.harnesskit", "tests.fixtures.browserkit"]

#: every registered game, with each non-default parameter setting worth covering
GAME_SPECS = [(name, {}) for name in GAMES] + [
    ("uttt", {"tiebreak": "boards"}),
    ("othello", {"size": 6}),
    ("othello", {"size": 10}),
    ("othello", {"opening": "free"}),
    ("othello", {"scoring": "wof"}),
]


@pytest.fixture(params=GAME_SPECS, ids=lambda spec: spec[0] + "".join(f"-{v}" for v in spec[1].values()))
def game(request):
    """Each registered game in turn."""
    name, params = request.param
    return get_game(name, **params)


# ---------------------------------------------------------------- nothing of a run is left
#
# The whole suite runs with a temporary folder of its own (every process the tests start, bots
# included, puts its scratch folders there). When the last test is done, the controlling process
# looks for what a run could leave behind: a process of arena's, a scratch folder, a control
# group, a System V IPC object. Any is a failure of the suite, listed.

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def league_url(tmp_path):
    """A database holding a finished one-stage league of four teams (tests/test_results.py)."""
    from tests.builders import create, league_config, play_league, play_stage, set_status

    url = f"sqlite:///{tmp_path / 'league.db'}"
    sessions, tid = create(url, league_config())
    play_stage(sessions, tid, 0, play_league)
    set_status(sessions, tid, "finished")
    return url


@pytest.fixture
def staged_url(tmp_path):
    """A database holding a tournament of 8 teams in two pools, the best two of each to a final."""
    from tests.builders import synthesize

    url = f"sqlite:///{tmp_path / 'staged.db'}"
    stages = [{"name": "group", "pools": 2, "games_per_pair": 2, "advance": 2}, {"name": "final"}]
    synthesize(url, teams=8, game="tictactoe", stages=stages, name="staged", forfeit_every=4)
    return url


def _cgroups() -> set[str]:
    from arena.sandbox.cgroups import PREFIX, support

    found = support()
    if found is None:
        return set()
    folders = [found.v2, *found.v1.values()]
    return {
        str(entry)
        for folder in folders
        if folder.is_dir()
        for entry in folder.iterdir()
        if entry.name.startswith(PREFIX)
    }


def _ipc_objects() -> set[str]:
    found = set()
    for kind in ("shm", "sem", "msg"):
        try:
            lines = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()[1:]
        except OSError:
            continue
        found |= {f"{kind} {' '.join(line.split()[:2])}" for line in lines}
    return found


def _arena_processes(folder: str) -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state not in ("Z", "X") and (folder in command or f"{REPO}/arena/" in command) and "pytest" not in command:
            found.append(f"{entry.name}: {command.strip()[:200]}")
    return found


def pytest_xdist_auto_num_workers(config):
    """``-n auto``: one and a half workers a core. A third of the suite's time its tests wait
    (for bots that time out, servers that start, runs that are killed) with their CPU idle; a
    third worker a pair of cores fills it (the suite is green with two busy loops beside it,
    which load the machine more)."""
    return max(2, (os.cpu_count() or 1) * 3 // 2)


def pytest_xdist_make_scheduler(config, log):
    """Each test file to one worker, whole: the tournaments a file's tests share (its module
    fixtures) are played once, not once a worker."""
    from xdist.scheduler import LoadFileScheduling

    return LoadFileScheduling(config, log)


def pytest_configure(config):
    if hasattr(config, "workerinput"):
        return  # a worker: its controller set the folder up, and checks at the end
    # the suite starts hundreds of processes that import arena (commands, workers, bots): where
    # the environment says not to write bytecode (PYTHONDONTWRITEBYTECODE), each would compile
    # arena's modules again; compiled once here, they read the compiled code
    for package in ("arena", "bots"):
        compileall.compile_dir(REPO / package, quiet=2)
    folder = tempfile.mkdtemp(prefix="arena-tests-")
    os.environ["TMPDIR"] = folder  # the test workers, and every process they start, inherit it
    tempfile.tempdir = None
    config.arena_leftovers = (folder, _cgroups(), _ipc_objects())


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Say loudly which tests did not run for a program or package this machine lacks."""
    from tests.fixtures.missing import missing_lines

    skipped = terminalreporter.stats.get("skipped", [])  # each report's longrepr: (file, line, "Skipped: why")
    reasons = [str(r.longrepr[2]).removeprefix("Skipped: ") for r in skipped if isinstance(r.longrepr, tuple)]
    lines = missing_lines(reasons)
    if lines:
        terminalreporter.section("NOT RUN: what this machine lacks", sep="!", red=True, bold=True)
        for line in lines:
            terminalreporter.write_line(line, red=True, bold=True)


def pytest_sessionfinish(session, exitstatus):
    before = getattr(session.config, "arena_leftovers", None)
    if before is None:
        return
    folder, cgroups, ipc = before
    end = time.monotonic() + 10
    while _arena_processes(folder) and time.monotonic() < end:
        time.sleep(0.1)
    left = [f"process {line}" for line in _arena_processes(folder)]
    left += [f"scratch folder {entry.name}" for entry in Path(folder).iterdir() if entry.name.startswith("arena-")]
    left += [f"control group {name}" for name in sorted(_cgroups() - cgroups)]
    left += [f"IPC object {name}" for name in sorted(_ipc_objects() - ipc)]
    if left:
        print("\nthe tests left behind what a run must not:\n  " + "\n  ".join(left), file=sys.stderr)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    shutil.rmtree(folder, ignore_errors=True)


# ---------------------------------------------------------------- PostgreSQL


@pytest.fixture(scope="session")
def postgres():
    """A PostgreSQL server of the test process's own (tests/fixtures/pgserver.py), stopped at
    the end; skips (fails under CI) without the server's binaries."""
    from tests.fixtures.pgserver import PostgresServer, require_server

    server = PostgresServer(require_server())
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path):
    """The URL of an empty database: an SQLite file, then a fresh database of ``postgres``."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'arena.db'}"
    return request.getfixturevalue("postgres").new_database()
