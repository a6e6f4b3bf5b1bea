"""Which format finds the best bots? Simulated tournaments of bots of known strength, every format
given the same game budget, scored on whether exactly the right top k advance.

Run: python benchmarks/ranking.py [--bots 72] [--top 8] [--tournaments 200] [--spread 200]
                                  [--draws 0.2] [--first 0.5] [--jobs 2] [--seed 1]

Each simulated tournament draws the bots' true Elo from a normal distribution (mean 0, standard
deviation ``--spread``); a game between Elo ``a`` and ``b`` is a draw with probability
``draws * 4 E (1 - E)`` and a win for ``a`` with probability ``E - draws * 2 E (1 - E)``,
``E = 1 / (1 + 10^((b - a) / 400))`` (no first-move advantage: colours do not matter here). No
bot process runs: a game is one random draw. The budget is two full round robins,
``bots * (bots - 1)`` games (5112 for 72 bots), and every format plays the same tournaments
(the same strengths; games drawn from one seed a tournament):

- round robin: every pair meets twice, colours swapped (the budget exactly);
- swiss: 14 rounds of mini-matches of as many games as the budget allows (10 for 72 bots:
  5040 games), colours alternating within a mini-match, paired on game points;
- knockout: a bracket seeded at random (nothing is known before it), matches of
  ``budget // (bots - 1)`` games (72: the budget exactly, plus a few extra games for drawn
  matches); the top k are the players who reached the last k (the quarter-finals for 8);
- adaptive: ``--first`` of one round robin (the first half of its rounds by default: every bot
  meets half the field once, 1296 games for 72 bots), then ``play_adaptive`` spends the rest of
  the budget on the bots near the cut and the podium.

Every format's final order is that of the Elo fit of all its games (``arena.stats.elo.fit_elo``, one
virtual draw of prior), the knockout's within the round each bot reached. Figures: the share of
tournaments whose top k is exactly the true top k (with its standard error), the mean absolute
difference between a bot's place and its true place, over all bots, and the games played. The
target: adaptive picks the exact top k at least twice as often as the round robin.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.formats import play_adaptive, play_knockout, play_swiss
from arena.formats.schedule import round_robin
from arena.stats.elo import expected_score, fit_elo

FORMATS = ("round robin", "swiss", "knockout", "adaptive")
SWISS_ROUNDS = 14


@dataclass(frozen=True)
class Settings:
    """One benchmark's settings (the command line's)."""

    bots: int
    top: int
    spread: float
    draws: float
    first: float


@dataclass(frozen=True)
class Outcome:
    """One format in one simulated tournament."""

    format: str
    exact: bool
    rank_error: float
    games: int


class Field:
    """Bots of known Elo and a game between two of them, drawn from ``rng``."""

    def __init__(self, settings: Settings, rng: random.Random) -> None:
        self.names = [f"bot{i:02d}" for i in range(settings.bots)]
        self.elo = {name: rng.gauss(0.0, settings.spread) for name in self.names}
        self.truth = sorted(self.names, key=lambda name: -self.elo[name])
        self.draws = settings.draws
        self.rng = rng
        self.played = 0

    def game(self, first: str, second: str) -> float:
        """The first player's score in one simulated game."""
        self.played += 1
        e = expected_score(self.elo[first] - self.elo[second])
        draw = self.draws * 4.0 * e * (1.0 - e)
        r = self.rng.random()
        return 1.0 if r < e - draw / 2.0 else 0.5 if r < e + draw / 2.0 else 0.0


def ranked_by_fit(games: list[tuple[str, str, float]], names: list[str]) -> list[str]:
    """The field's order by an Elo fit of ``games``."""
    return fit_elo(games, names).ranking()


def run_round_robin(field: Field, order: list[str]) -> list[str]:
    """Two legs; returns the final order."""
    games = []
    for pairing in round_robin(len(order), 2):
        a, b = order[pairing.first], order[pairing.second]
        games.append((a, b, field.game(a, b)))
    return ranked_by_fit(games, field.names)


def run_swiss(field: Field, order: list[str], budget: int, rng: random.Random) -> list[str]:
    """``SWISS_ROUNDS`` rounds of mini-matches filling the budget."""
    length = max(1, budget // (SWISS_ROUNDS * (len(order) // 2)))
    games: list[tuple[str, str, float]] = []

    def play(round_):
        points = []
        for first, second in round_.pairings:
            total = 0.0
            for number in range(length):
                a, b = (first, second) if number % 2 == 0 else (second, first)
                score = field.game(a, b)
                games.append((a, b, score))
                total += score if a == first else 1.0 - score
            points.append((total, length - total))
        return points

    play_swiss(order, SWISS_ROUNDS, play, rng)
    return ranked_by_fit(games, field.names)


def run_knockout(field: Field, order: list[str], budget: int) -> list[str]:
    """A randomly seeded bracket; each round's players ordered by the fit of every game."""
    games: list[tuple[str, str, float]] = []

    def play(first: str, second: str) -> float:
        score = field.game(first, second)
        games.append((first, second, score))
        return score

    result = play_knockout(order, play, games=max(1, budget // (len(order) - 1)))
    fitted = {name: place for place, name in enumerate(ranked_by_fit(games, field.names))}
    return [name for group in result.places for name in sorted(group, key=fitted.__getitem__)]


def run_adaptive(field: Field, order: list[str], budget: int, settings: Settings) -> list[str]:
    """Part of one round robin, then adaptive batches to the budget."""
    size = len(order) + len(order) % 2
    rounds = round((size - 1) * settings.first)
    first = []
    for pairing in round_robin(len(order), 1):
        if pairing.round < rounds:
            a, b = order[pairing.first], order[pairing.second]
            first.append((a, b, field.game(a, b)))
    run = play_adaptive(first, field.names, settings.top, budget, lambda pairs: [field.game(a, b) for a, b in pairs])
    return run.fit.ranking()


def tournament(settings: Settings, seed: int) -> list[Outcome]:
    """Every format on one field of bots (the same strengths), each with its own games."""
    budget = settings.bots * (settings.bots - 1)
    order = list(Field(settings, random.Random(seed)).names)
    random.Random(-seed).shuffle(order)  # the seeding (or its absence): one random order
    outcomes = []
    for index, name in enumerate(FORMATS):
        field = Field(settings, random.Random(seed))  # the same strengths for every format
        field.rng = random.Random(seed * 1000 + index + 1)
        if name == "round robin":
            ranking = run_round_robin(field, order)
        elif name == "swiss":
            ranking = run_swiss(field, order, budget, field.rng)
        elif name == "knockout":
            ranking = run_knockout(field, order, budget)
        else:
            ranking = run_adaptive(field, order, budget, settings)
        place = {bot: i for i, bot in enumerate(ranking)}
        exact = set(ranking[: settings.top]) == set(field.truth[: settings.top])
        error = statistics.fmean(abs(place[bot] - i) for i, bot in enumerate(field.truth))
        outcomes.append(Outcome(name, exact, error, field.played))
    return outcomes


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures; the exit status is 0 when the target is met."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=int, default=72)
    parser.add_argument("--top", type=int, default=8)
    parser.add_argument("--tournaments", type=int, default=200)
    parser.add_argument("--spread", type=float, default=200.0, help="standard deviation of the true Elo")
    parser.add_argument("--draws", type=float, default=0.2, help="draw rate between equals (at most 0.5)")
    parser.add_argument("--first", type=float, default=0.5, help="share of one round robin adaptive starts from")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    settings = Settings(args.bots, args.top, args.spread, args.draws, args.first)
    seeds = [args.seed * 100_000 + i for i in range(args.tournaments)]
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(tournament, [settings] * len(seeds), seeds, chunksize=4))
    seconds = time.perf_counter() - start
    budget = settings.bots * (settings.bots - 1)
    print(
        f"{args.tournaments} tournaments of {args.bots} bots (true Elo ~ N(0, {args.spread:g})), top {args.top}, "
        f"draw rate {args.draws:g} between equals, budget {budget} games (two round robins); "
        f"{seconds:.0f} s with {args.jobs} jobs"
    )
    print(f"{'format':<12} {'exact top ' + str(args.top):>16} {'mean |rank error|':>18} {'games':>7}")
    exact_of = {}
    for name in FORMATS:
        mine = [outcome for tour in results for outcome in tour if outcome.format == name]
        share = sum(o.exact for o in mine) / len(mine)
        error = math.sqrt(share * (1 - share) / len(mine))
        exact_of[name] = share
        print(
            f"{name:<12} {share:>9.1%} +-{error:>4.1%} {statistics.fmean(o.rank_error for o in mine):>18.2f} "
            f"{statistics.fmean(o.games for o in mine):>7.0f}"
        )
    adaptive, plain = exact_of["adaptive"], exact_of["round robin"]
    ratio = adaptive / plain if plain else math.inf
    # the ratio's standard error by the delta method (the two shares taken as independent)
    spread = (
        ratio * math.sqrt((1 - adaptive) / (adaptive * len(seeds)) + (1 - plain) / (plain * len(seeds)))
        if adaptive and plain
        else math.nan
    )
    met = ratio >= 2.0
    print(
        f"target: adaptive finds the exact top {args.top} at least twice as often as the round robin: "
        f"{ratio:.2f} (+-{spread:.2f}) times as often: {'met' if met else 'NOT met'}"
    )
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
