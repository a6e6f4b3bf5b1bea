"""Games per second on this machine's worker processes and on a Dask cluster of as many worker
processes on this same machine (a scheduler and the workers started as separate processes, as
docs/cluster.md starts them on real machines); the cluster's scaling from 1 to 2 workers; and
the course-sized report (72 teams, about 790 games) built from PostgreSQL against SQLite.

The games are the same in every run: tic-tac-toe between iteration-budgeted and seeded bots
(the cost of a game is the harness's, not the bots' thinking), so games/s compares what the
two runners add. Issue 16's target: the Dask runner at least 0.8 times the local runner.

    python benchmarks/cluster.py [--games 400] [--workers 2] [--quick]

``--quick`` checks that it all works in a few seconds (40 games, a 16-team report): its
figures mean little. PostgreSQL comes from Debian's postgresql package (tests/fixtures/pgserver.py
starts a server of its own); without it that part is skipped, saying so.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.core.botspec import BotSpec  # noqa: E402
from arena.core.job import GameJob  # noqa: E402
from arena.core.timing import TimeControl  # noqa: E402
from arena.runners.local import LocalRunner  # noqa: E402

#: the target of issue 16: Dask's games/s over the local runner's, with as many worker processes
TARGET = 0.8
BOTS = [
    BotSpec(name="uct", kind="python", target="bots.uct", params='{"iterations":60}'),
    BotSpec(name="uct2", kind="python", target="bots.uct", params='{"iterations":30}'),
    BotSpec(name="random", kind="python", target="bots.randombot"),
    BotSpec(name="onestep", kind="python", target="bots.onestep"),
]


def jobs(count: int) -> list[GameJob]:
    """``count`` games among ``BOTS``, every pair in turn, seats alternating."""
    pairs = [(a, b) for a in BOTS for b in BOTS if a != b]
    game = {"name": "tictactoe", "params": {}}
    return [GameJob(i, game, pairs[i % len(pairs)], i, TimeControl(move=5.0)) for i in range(1, count + 1)]


def rate(runner: object, count: int) -> float:
    """Games per second of ``runner`` playing ``count`` games (every record must come back)."""
    started = time.perf_counter()
    records = list(runner.run(jobs(count)))  # type: ignore[attr-defined]
    elapsed = time.perf_counter() - started
    assert sorted(r.game_id for r in records) == list(range(1, count + 1)), "games were lost"
    return count / elapsed


def runners(games: int, workers: int, runs: int) -> None:
    """The local runner against the Dask runner, then the Dask runner's scaling."""
    from arena.runners.dask_runner import DaskRunner
    from tests.fixtures.daskcluster import LocalCluster

    local = statistics.median(rate(LocalRunner(workers), games) for _ in range(runs))
    print(f"local runner, {workers} worker processes: {local:.1f} games/s ({games} games, median of {runs})")
    by_workers: dict[int, float] = {}
    with LocalCluster(workers=1) as cluster:
        for count in sorted({1, 2, workers}):
            while len(cluster.workers) < count:
                cluster.add_worker(len(cluster.workers))
            cluster.wait_for_workers(count)
            with DaskRunner(cluster.address) as runner:
                by_workers[count] = statistics.median(rate(runner, games) for _ in range(runs))
            print(f"Dask runner, {count} worker process{'es' if count > 1 else ''}: {by_workers[count]:.1f} games/s")
    ratio = by_workers[workers] / local
    verdict = "meets" if ratio >= TARGET else "misses"
    print(f"Dask / local with {workers} workers: {ratio:.2f} ({verdict} the target of {TARGET})")
    if 2 in by_workers and 1 in by_workers:
        print(f"Dask scaling from 1 to 2 workers: {by_workers[2] / by_workers[1]:.2f}x")


def reports(teams: int) -> None:
    """The report of a synthetic course-format tournament from SQLite and from PostgreSQL."""
    import pytest

    from arena.results.report import write_report
    from arena.store.database import open_store
    from tests.builders import synthesize
    from tests.fixtures.pgserver import PostgresServer, require_server

    try:
        folder = require_server()
    except pytest.skip.Exception as skipped:
        print(f"report from PostgreSQL: skipped ({skipped})")
        return
    server = PostgresServer(folder)
    server.start()
    try:
        with tempfile.TemporaryDirectory() as scratch:
            urls = {"SQLite": f"sqlite:///{scratch}/course.db", "PostgreSQL": server.new_database()}
            for kind, url in urls.items():
                started = time.perf_counter()
                synthesize(url, teams=teams)
                stored = time.perf_counter() - started
                sessions = open_store(url)
                times = []
                for _ in range(3):
                    started = time.perf_counter()
                    written = write_report(sessions, None, Path(scratch) / kind)
                    times.append(time.perf_counter() - started)
                print(
                    f"report from {kind}: {statistics.median(times):.2f} s (median of 3; {written.games} games, "
                    f"{written.pages} pages; storing them took {stored:.1f} s)"
                )
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=400, help="games a run (default 400)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes of each runner (default 2)")
    parser.add_argument("--runs", type=int, default=3, help="runs of each runner; the median is shown")
    parser.add_argument("--teams", type=int, default=72, help="teams of the report's tournament (72: ~790 games)")
    parser.add_argument("--quick", action="store_true", help="a few seconds' check that it all works")
    args = parser.parse_args()
    if args.quick:
        args.games, args.runs, args.teams = 40, 1, 16
    runners(args.games, args.workers, args.runs)
    reports(args.teams)


if __name__ == "__main__":
    main()
