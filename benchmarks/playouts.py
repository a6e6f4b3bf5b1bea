"""Random playouts per second from the start position, fast engine beside the plain reference.

Run: python benchmarks/playouts.py [--seconds S] [--runs N] [GAME ...]
Each figure is the median of N runs of about S seconds each, all in this one process.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.games import GAMES, get_game
from tests.reference import reference

TARGETS = {"tictactoe": 400_000, "uttt": 35_000, "othello": 3_000, "xtreme": 15_000}


def rate(playout, seconds: float) -> float:
    """Playouts per second of ``playout()`` over about ``seconds``."""
    count, start = 0, time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(20):
            playout()
        count += 20
        now = time.perf_counter()
        if now >= deadline:
            return count / (now - start)


def reference_playout(initial, rng: random.Random):
    def playout():
        ref = initial
        while ref.outcome() is None:
            ref = ref.play(rng.choice(ref.legal_moves()))
        return ref.outcome()

    return playout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", default=list(GAMES))
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"{'game':<10} {'fast/s':>10} {'reference/s':>12} {'speed-up':>9} {'target/s':>9}  met")
    for name in args.games:
        rng = random.Random(1)
        start = get_game(name).initial_state()
        fast_runs, ref_runs = [], []
        ref_playout = reference_playout(reference(name).initial(), rng)
        for _ in range(args.runs):  # interleaved, so both see the same machine load
            fast_runs.append(rate(lambda start=start, rng=rng: start.random_playout(rng), args.seconds))
            ref_runs.append(rate(ref_playout, args.seconds / 4))
        fast, ref = statistics.median(fast_runs), statistics.median(ref_runs)
        target = TARGETS[name]
        print(
            f"{name:<10} {fast:>10,.0f} {ref:>12,.0f} {fast / ref:>8.1f}x {target:>9,}  "
            f"{'yes' if fast >= target else 'NO'}"
        )


if __name__ == "__main__":
    main()
