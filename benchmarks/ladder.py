"""How many games does a ladder need to find the true order? A field of bots of known strength
plays on a ladder (arena/formats/ladder.py: TrueSkill, rated as each game finishes) paired three ways:
by information (uncertain bots play more, opponents by match quality, seats balanced), at
random, and round robin. For each, the games needed until the ladder's order (mu - 3 sigma)
matches the true order (Spearman >= 0.95 and the exact top 3) and keeps matching for the next
``--stable`` games; the median over ``--trials`` seeded trials, and the ratio to random pairing.

    python benchmarks/ladder.py [--bots 16] [--trials 40] [--real] [--real-games 4]

Simulated field: ``--bots`` bots with Elo strengths 100 apart; a game is a draw with
probability 0.1, else won by the first with the Elo probability. ``--real``: the field is
``bots.uct`` at 25, 50, ... 1600 iterations on uttt; ``--real-games`` games of every ordered pair
are played for real first (arena's sandboxed workers), and the ladders then draw each game's
result from those of its ordered pair (the true order: by iterations, checked against the
games' scores).
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.formats.ladder import PAIRINGS, Ladder, ranks_of, spearman

ROOT = Path(__file__).resolve().parent.parent
#: a game's result given (first, second, rng): 0, 1 or None
Play = Callable[[str, str, random.Random], int | None]
ITERATIONS = (25, 50, 100, 200, 400, 800, 1600)


def found(order: list[str], truth: list[str]) -> bool:
    """The ladder's order is the true one as the benchmark asks."""
    return order[:3] == truth[:3] and spearman(order, truth) >= 0.95


def games_needed(pairing: str, truth: list[str], play: Play, seed: int, limit: int, stable: int) -> int | None:
    """Games until the ladder's order is found and stays found for ``stable`` more games."""
    rng = random.Random(seed)
    ladder, chooser = Ladder(), PAIRINGS[pairing]()
    for name in sorted(truth, key=lambda _: rng.random()):
        ladder.join(name)
    since = None
    for games in range(1, limit + 1):
        first, second = chooser.next(ladder, rng)
        ladder.record((first, second), ranks_of(play(first, second, rng)))
        if found(ladder.order(), truth):
            since = games if since is None else since
            if games - since >= stable:
                return since
        else:
            since = None
    return None


def simulated(bots: int) -> tuple[list[str], Play]:
    """A field of ``bots`` bots 100 Elo apart, strongest first, and how their games end."""
    elo = {f"bot{index:02d}": 100.0 * (bots - index) for index in range(bots)}

    def play(first: str, second: str, rng: random.Random) -> int | None:
        if rng.random() < 0.1:
            return None
        return 0 if rng.random() < 1 / (1 + 10 ** ((elo[second] - elo[first]) / 400)) else 1

    return sorted(elo, key=lambda name: -elo[name]), play


def real(games_per_pair: int) -> tuple[list[str], Play]:
    """``bots.uct`` at ``ITERATIONS`` on uttt: every ordered pair played ``games_per_pair`` times
    for real; a ladder's game draws one of its pair's results."""
    from arena.contests.config import parse_config
    from arena.contests.run import run_tournament

    teams = "\n".join(f"  uct{n}: {{module: bots.uct, params: {{iterations: {n}}}}}" for n in ITERATIONS)
    text = (
        f"name: ladder-field\ngame: uttt\nseed: 11\ntime: {{move: 5, clock: cpu}}\nbots:\n{teams}\n"
        f"stages:\n  - {{games_per_pair: {2 * games_per_pair}}}\n"
    )
    with tempfile.TemporaryDirectory(prefix="arena-ladder-") as folder:
        database = Path(folder) / "field.sqlite3"
        start = time.perf_counter()
        run_tournament(parse_config(text), text, f"sqlite:///{database}", ROOT)
        print(f"  played the field's games for real in {time.perf_counter() - start:.0f} s")
        with sqlite3.connect(database) as connection:
            rows = connection.execute(
                "SELECT a.team, b.team, g.winner FROM games g"
                " JOIN game_seats s0 ON s0.game_id = g.id AND s0.seat = 0 JOIN entries a ON a.id = s0.entry_id"
                " JOIN game_seats s1 ON s1.game_id = g.id AND s1.seat = 1 JOIN entries b ON b.id = s1.entry_id"
                " WHERE g.status = 'finished'"
            ).fetchall()
    results: dict[tuple[str, str], list[int | None]] = {}
    score = {f"uct{n}": 0.0 for n in ITERATIONS}
    for first, second, winner in rows:
        results.setdefault((first, second), []).append(winner)
        if winner is None:
            score[first] += 0.5
            score[second] += 0.5
        else:
            score[(first, second)[winner]] += 1
    truth = [f"uct{n}" for n in reversed(ITERATIONS)]
    print("  scores of the real games: " + ", ".join(f"{name} {score[name]:g}" for name in truth))

    def play(first: str, second: str, rng: random.Random) -> int | None:
        return rng.choice(results[(first, second)])

    return truth, play


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=16)
    parser.add_argument("--trials", type=int, default=40)
    parser.add_argument("--stable", type=int, default=50)
    parser.add_argument("--limit", type=int, default=20000)
    parser.add_argument("--real", action="store_true")
    parser.add_argument("--real-games", type=int, default=4)
    options = parser.parse_args()
    if options.real:
        print(f"field: bots.uct at {', '.join(map(str, ITERATIONS))} iterations on uttt")
        truth, play = real(options.real_games)
    else:
        print(f"field: {options.bots} simulated bots 100 Elo apart, 10 % draws")
        truth, play = simulated(options.bots)
    medians = {}
    for pairing in PAIRINGS:
        start = time.perf_counter()
        needed = [
            games_needed(pairing, truth, play, seed, options.limit, options.stable) for seed in range(options.trials)
        ]
        done = sorted(n for n in needed if n is not None)
        medians[pairing] = statistics.median(done) if done else None
        spread = f"quartiles {done[len(done) // 4]}-{done[3 * len(done) // 4]}" if done else "never"
        print(
            f"  {pairing:12} median {medians[pairing]} games ({spread}; found in {len(done)}/{options.trials} "
            f"trials within {options.limit}); {time.perf_counter() - start:.1f} s"
        )
    if medians["information"] and medians["random"]:
        print(f"information / random: {medians['information'] / medians['random']:.2f} (target <= 0.5)")


if __name__ == "__main__":
    main()
