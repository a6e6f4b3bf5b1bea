"""A soak of the harness: many games of instant bots through the real harness (worker
processes, warm bot processes rotating between teams, every game stored in SQLite), printing at
intervals what the harness holds: games done, the parent's resident memory and open file
descriptors, the workers' (summed), and the bot processes alive. At the end, a verdict on
whether these stayed flat: their growth from the 20 % mark to the end.

Run: python benchmarks/soak.py [--games 10000] [--every 1000] [--workers 2] [--teams 24]

The bots are tests/fixtures/bots/first_legal.py and seeded_random.py (tic-tac-toe, instant);
with more teams than a worker keeps warm (16), bot processes are started and closed all along.
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.contests.config import parse_config  # noqa: E402
from arena.contests.run import Silent, run_tournament  # noqa: E402
from arena.contests.tournament import Progress  # noqa: E402
from arena.core.records import GameRecord  # noqa: E402
from arena.runners.seat import WARM_PROCESSES  # noqa: E402
from arena.sandbox.procfs import child_pids, harness_waited  # noqa: E402

BOTS = ROOT / "tests" / "fixtures" / "bots"
#: growth from the 20 % mark to the end still called flat: resident memory (MiB), descriptors
FLAT_RSS_MIB = 4.0
FLAT_FDS = 0
#: descriptors a worker holds for each bot process it keeps (stdin, stdout, stderr)
PIPES = 3


@dataclass(frozen=True)
class Sample:
    """What the harness held after ``games`` games."""

    games: int
    seconds: float
    parent_rss_kib: int
    parent_fds: int
    workers_rss_kib: int
    workers_fds: int
    bots: int


def rss_kib(pid: int | str) -> int:
    """Resident memory of process ``pid`` in KiB (0 if it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def fds(pid: int | str) -> int:
    """Open file descriptors of process ``pid`` (0 if it is gone)."""
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


def sample(games: int, start: float) -> Sample:
    """What this process (the parent) and its workers hold now."""
    workers = child_pids(os.getpid(), every_thread=True)
    bots = sum(len(child_pids(worker, every_thread=True)) for worker in workers)
    return Sample(
        games,
        time.monotonic() - start,
        rss_kib("self"),
        fds("self"),
        sum(rss_kib(w) for w in workers),
        sum(fds(w) for w in workers),
        bots,
    )


def tournament(teams: int, games: int) -> str:
    """A round robin of ``teams`` instant bots with at least ``games`` games."""
    pairs = teams * (teams - 1) // 2
    per_pair = math.ceil(games / pairs)
    if per_pair > 100:
        raise SystemExit(f"{games} games need more than {teams} teams (at most 100 games a pair)")
    bots = "".join(
        f"  team-{n}: {{path: {BOTS / ('first_legal.py' if n % 2 else 'seeded_random.py')}}}\n" for n in range(teams)
    )
    return (
        f"name: soak\ngame: tictactoe\nseed: 1\ntime: {{move: 1.0}}\nbots:\n{bots}"
        f"stages:\n  - {{games_per_pair: {per_pair}}}\n"
    )


def soak(games: int, every: int, workers: int, teams: int, folder: Path, report=print) -> list[Sample]:
    """Play the soak tournament in ``folder``; a sample at the start, every ``every`` games and
    at the end (after the workers have stopped), each passed to ``report`` as it is taken."""
    text = tournament(teams, games)
    gc.collect()  # what earlier work left for the collector (a caller's files) is not the run's
    harness_waited()  # the one descriptor a process keeps for its own CPU waits: not the run's
    start = time.monotonic()
    samples = [sample(0, start)]  # before anything of the run is open
    report(samples[-1])

    class Sampled(Silent):
        def record(self, record: GameRecord, progress: Progress) -> None:
            if progress.done % every == 0:
                samples.append(sample(progress.done, start))
                report(samples[-1])

    url = f"sqlite:///{folder / 'soak.sqlite3'}"
    progress = run_tournament(parse_config(text), text, url, folder, workers=workers, listener=Sampled())
    samples.append(sample(progress.done, start))
    report(samples[-1])
    return samples


def growth(samples: list[Sample], mark_at: float = 0.2) -> dict[str, float]:
    """From the first sample at or past ``mark_at`` of the games (once the warm processes are
    up) to the last one taken while the workers ran: parent and workers' memory (MiB) and
    descriptors."""
    running = samples[1:-1] or samples
    total = running[-1].games
    mark = next(s for s in running if s.games >= mark_at * total)
    end = running[-1]
    return {
        "parent RSS MiB": (end.parent_rss_kib - mark.parent_rss_kib) / 1024,
        "parent fds": end.parent_fds - mark.parent_fds,
        "workers RSS MiB": (end.workers_rss_kib - mark.workers_rss_kib) / 1024,
        "workers fds": end.workers_fds - mark.workers_fds,
        # a worker holds 3 pipes a bot process; a sample may catch one being started or closed
        "workers fds beyond the bots' pipes": (end.workers_fds - PIPES * end.bots)
        - (mark.workers_fds - PIPES * mark.bots),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--every", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--teams", type=int, default=24)
    args = parser.parse_args()
    print(f"soak: at least {args.games} tic-tac-toe games of instant bots, {args.teams} teams, {args.workers} workers")
    print(
        f"{'games':>7} {'seconds':>8} {'games/s':>8} {'parent RSS MiB':>15} {'parent fds':>10} "
        f"{'workers RSS MiB':>16} {'workers fds':>11} {'bots':>5}"
    )

    def report(s: Sample) -> None:
        rate = s.games / s.seconds if s.seconds > 0 else 0.0
        print(
            f"{s.games:7d} {s.seconds:8.1f} {rate:8.1f} {s.parent_rss_kib / 1024:15.1f} {s.parent_fds:10d} "
            f"{s.workers_rss_kib / 1024:16.1f} {s.workers_fds:11d} {s.bots:5d}",
            flush=True,
        )

    with tempfile.TemporaryDirectory() as tmp:
        samples = soak(args.games, args.every, args.workers, args.teams, Path(tmp), report)
    first, last = samples[0], samples[-1]
    print(
        f"after the run (workers stopped): parent fds {last.parent_fds} (at the start {first.parent_fds}), "
        f"bot processes {last.bots}"
    )
    change = growth(samples)
    print("growth from the 20 % mark to the end: " + ", ".join(f"{k} {v:+.1f}" for k, v in change.items()))
    most_bots = max(s.bots for s in samples)
    flat = (
        change["parent RSS MiB"] <= FLAT_RSS_MIB
        and change["workers RSS MiB"] <= FLAT_RSS_MIB
        and change["parent fds"] <= FLAT_FDS
        and change["workers fds beyond the bots' pipes"] <= FLAT_FDS
        and most_bots <= args.workers * (WARM_PROCESSES + 2)
        and last.parent_fds == first.parent_fds
        and last.bots == 0
    )
    print(
        f"verdict: {'flat' if flat else 'NOT flat'} (memory within {FLAT_RSS_MIB:g} MiB, descriptors within "
        f"{FLAT_FDS} besides {PIPES} a bot process, at most {most_bots} bot processes for a bound of "
        f"{args.workers * (WARM_PROCESSES + 2)}, all back to the start after the run); "
        f"{last.games / last.seconds:.1f} games/s overall"
    )


if __name__ == "__main__":
    main()
