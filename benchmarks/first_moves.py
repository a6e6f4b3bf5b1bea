"""Does any built-in bot pay a one-time cost inside a timed move? For every built-in bot, in a
fresh process each game, the CPU time of its first 5 moves beside the median of its later
moves, over several games, started the plain way and forked from the warm launcher.

    python benchmarks/first_moves.py [--game uttt] [--games 5] [--start plain|forked|both]

A one-time cost shows as a first-moves figure far above the steady median (before the warm-up
hook, ``bots.uct``'s second move in uttt cost some 80 ms of CPU against 3 ms for the others).
CPU times, so the figures hold on a busy machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.core.botspec import BotSpec
from arena.core.job import GameJob
from arena.core.timing import TimeControl
from arena.runners.worker import GameWorker

#: each built-in bot at a budget the default tournament uses
BOTS = {
    "randombot": {},
    "rules": {},
    "onestep": {},
    "flatmc": {"playouts": 100},
    "qlearning": {"episodes": 25},
    "sarsa": {"episodes": 25},
    "uct": {"iterations": 200},
    "hmcts": {"iterations": 100},
    "minimax": {"depth": 2},
}
OPPONENT = BotSpec("opponent", "python", "bots.randombot")


def first_moves(name: str, params: dict, game: str, games: int, fork: bool) -> tuple[list[list[float]], float]:
    """The CPU milliseconds of the bot's first 5 moves in each of ``games`` games (each in a
    fresh process), and the median of its later moves."""
    spec = BotSpec(name, "python", f"bots.{name}", json.dumps(params, sort_keys=True))
    firsts: list[list[float]] = []
    later: list[float] = []
    for number in range(games):
        with GameWorker(fork=fork) as worker:  # a worker of its own: a fresh process every game
            record = worker.play(
                GameJob(
                    number,
                    {"name": game, "params": {}},
                    (spec, OPPONENT),
                    1000 + number,
                    TimeControl(move=2.0, clock="cpu", startup=30.0),
                )
            )
        times = [m.cpu_ms or 0.0 for m in record.moves if m.seat == 0]  # a cpu clock measures every move
        firsts.append(times[:5])
        later.extend(times[5:])
    return firsts, statistics.median(later) if later else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="uttt")
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--start", choices=("plain", "forked", "both"), default="both")
    options = parser.parse_args()
    starts = ["plain", "forked"] if options.start == "both" else [options.start]
    print(
        f"{options.game}: CPU ms of each of the first 5 moves (median over {options.games} games, each in a fresh "
        "process; in brackets the largest) and the steady median of later moves"
    )
    print(
        f"{'bot':11} {'start':7} {'move 1':>13} {'move 2':>13} {'move 3':>13} {'move 4':>13} {'move 5':>13} "
        f"{'steady':>7} {'worst/steady':>12}"
    )
    for name, params in BOTS.items():
        for start in starts:
            firsts, steady = first_moves(name, params, options.game, options.games, start == "forked")
            cells, worst = [], 0.0
            for ply in range(5):
                values = [moves[ply] for moves in firsts if len(moves) > ply]
                worst = max([worst, *values])
                cells.append(f"{statistics.median(values):6.1f} [{max(values):5.1f}]" if values else "-")
            ratio = worst / steady if steady > 0 else float("nan")
            print(f"{name:11} {start:7} {' '.join(f'{c:>13}' for c in cells)} {steady:7.1f} {ratio:12.1f}")


if __name__ == "__main__":
    main()
