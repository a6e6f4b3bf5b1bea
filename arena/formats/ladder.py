"""A ladder's pairings: which two bots play next, chosen for what the game will teach.

A ladder never ends and has no schedule: it plays one pair after another while bots come and
go, and rates every game as it finishes (TrueSkill). The pairing follows what simulation
ladders (Kaggle's, Halite's) do, by information rather than at random: the next game is the
pair with the most to teach, the highest ``quality * (sigma_a**2 + sigma_b**2)``:

- **uncertain bots play more**: ``sigma**2``, a bot's variance, is large for a new or changed
  bot (it starts at the prior) and shrinks as it plays, so a new bot plays at once and often,
  and a settled one now and then;
- **against opponents of their level**: TrueSkill's *match quality* of the two (the probability
  of a draw, high when the outcome is least predictable: the game that moves the ratings most);
- **seats balanced**: the one of the two that has moved first less often moves first (``seats``).

Ties are broken at random; the benchmark (benchmarks/ladder.py) compared this with drawing the
player by its sigma and the opponent by quality, which needs more games.
``RandomPairing`` and ``RoundRobinPairing`` are the baselines the ladder benchmark compares with
(benchmarks/ladder.py). Every pairing draws only from the ``random.Random`` it is given.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence, Set
from dataclasses import dataclass, field

import trueskill

#: pairs whose information is within this share of the best are tied (one is drawn)
TIE = 1e-3


@dataclass(slots=True)
class Rung:
    """One bot on the ladder (its rung): its rating, how often it played, moved first, won and
    drew."""

    name: str
    rating: trueskill.Rating
    games: int = 0
    first: int = 0
    wins: int = 0
    draws: int = 0

    @property
    def conservative(self) -> float:
        """mu - 3 sigma, what the ladder ranks by."""
        return float(self.rating.mu - 3 * self.rating.sigma)


@dataclass(slots=True)
class Ladder:
    """Ratings that move as games finish, and the pairing that chooses the next game."""

    env: trueskill.TrueSkill = field(default_factory=lambda: trueskill.TrueSkill(draw_probability=0.1, backend=None))
    rungs: dict[str, Rung] = field(default_factory=dict)

    def join(self, name: str) -> Rung:
        """Add a bot (a new one starts at the prior: the most uncertain there is)."""
        return self.rungs.setdefault(name, Rung(name, self.env.create_rating()))

    def leave(self, name: str) -> None:
        """Take a bot off the ladder (a retired version)."""
        self.rungs.pop(name, None)

    def record(self, first: str, second: str, winner: int | None) -> None:
        """Rate a finished game: ``first`` moved first; ``winner`` 0, 1 or ``None`` (a draw)."""
        a, b = self.rungs[first], self.rungs[second]
        if winner is None:
            a.rating, b.rating = trueskill.rate_1vs1(a.rating, b.rating, drawn=True, env=self.env)
        elif winner == 0:
            a.rating, b.rating = trueskill.rate_1vs1(a.rating, b.rating, env=self.env)
        else:
            b.rating, a.rating = trueskill.rate_1vs1(b.rating, a.rating, env=self.env)
        a.games, b.games, a.first = a.games + 1, b.games + 1, a.first + 1
        if winner is None:
            a.draws, b.draws = a.draws + 1, b.draws + 1
        else:
            (a, b)[winner].wins += 1

    def order(self) -> list[str]:
        """The bots best first, by mu - 3 sigma (then by name)."""
        return [s.name for s in sorted(self.rungs.values(), key=lambda s: (-s.conservative, s.name))]


class InformationPairing:
    """Pairs by information: the pair of highest ``quality * (sigma_a**2 + sigma_b**2)``, seats
    balanced."""

    name = "information"

    def next(self, ladder: Ladder, rng: random.Random, taken: Set[frozenset[str]] = frozenset()) -> tuple[str, str]:
        """The next game: (first to move, second); none of the pairs ``taken`` (the games of a
        batch already chosen)."""
        names = sorted(ladder.rungs)
        best, chosen = -1.0, []
        for a, b in itertools.combinations(names, 2):
            if taken and frozenset((a, b)) in taken:
                continue
            value = information(ladder, a, b)
            if value > best * (1 + TIE):
                best, chosen = value, [(a, b)]
            elif value >= best * (1 - TIE):
                chosen.append((a, b))
        return seats(ladder, *rng.choice(chosen))


class RandomPairing:
    """Two bots drawn uniformly, seats drawn too (the baseline a ladder must beat)."""

    name = "random"

    def next(self, ladder: Ladder, rng: random.Random) -> tuple[str, str]:
        """The next game: (first to move, second)."""
        first, second = rng.sample(sorted(ladder.rungs), 2)
        return first, second


class RoundRobinPairing:
    """Every pair in turn, both seats, in a shuffled order, over and over."""

    name = "round robin"

    def __init__(self) -> None:
        self.queue: list[tuple[str, str]] = []

    def next(self, ladder: Ladder, rng: random.Random) -> tuple[str, str]:
        """The next game of the cycle: (first to move, second)."""
        if not self.queue:
            self.queue = list(itertools.permutations(sorted(ladder.rungs), 2))
            rng.shuffle(self.queue)
        return self.queue.pop()


PAIRINGS = {pairing.name: pairing for pairing in (InformationPairing, RandomPairing, RoundRobinPairing)}


def information(ladder: Ladder, a: str, b: str) -> float:
    """What a game of ``a`` and ``b`` would teach: their match quality times their variances."""
    first, second = ladder.rungs[a].rating, ladder.rungs[b].rating
    quality = trueskill.quality_1vs1(first, second, env=ladder.env)
    return float(quality * (first.sigma**2 + second.sigma**2))


def seats(ladder: Ladder, a: str, b: str) -> tuple[str, str]:
    """(first, second): the one who moved first less often (of its games) moves first."""
    share = {name: ladder.rungs[name].first / max(1, ladder.rungs[name].games) for name in (a, b)}
    return (a, b) if share[a] <= share[b] else (b, a)


def spearman(first: Sequence[str], second: Sequence[str]) -> float:
    """Spearman's rank correlation of two orders of the same names."""
    n = len(first)
    if n < 2:
        return 1.0
    where = {name: index for index, name in enumerate(second)}
    return 1 - 6 * sum((index - where[name]) ** 2 for index, name in enumerate(first)) / (n * (n * n - 1))
