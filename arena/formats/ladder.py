"""A ladder's pairings: which bots play next, chosen for what the game will teach.

A ladder never ends and has no schedule: it plays one game after another while bots come and
go, and rates every game as it finishes (TrueSkill, from the finishing order of any number of
seats). The pairing follows what simulation ladders (Kaggle's, Halite's) do, by information
rather than at random: the next game is the table (a pair, or as many bots as the game has
seats) with the most to teach, the highest ``quality * (sigma_a**2 + sigma_b**2 + ...)``:

- **uncertain bots play more**: ``sigma**2``, a bot's variance, is large for a new or changed
  bot (it starts at the prior) and shrinks as it plays, so a new bot plays at once and often,
  and a settled one now and then;
- **against opponents of their level**: TrueSkill's *match quality* of the table (the
  probability of a draw, high when the outcome is least predictable: the game that moves the
  ratings most);
- **seats balanced**: each bot sits where it has sat least (``seats``; of two, the one that has
  moved first less often moves first).

Ties are broken at random; the benchmark (benchmarks/ladder.py) compared this with drawing the
player by its sigma and the opponent by quality, which needs more games.
``RandomPairing`` and ``RoundRobinPairing`` are the baselines the ladder benchmark compares with
(benchmarks/ladder.py). Every pairing draws only from the ``random.Random`` it is given.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterable, Sequence, Set
from dataclasses import dataclass, field
from typing import Any

import trueskill

#: tables whose information is within this share of the best are tied (one is drawn)
TIE = 1e-3
#: tables of at most this many seats are seated by trying every order
MAX_SEATING = 6


@dataclass(slots=True)
class Rung:
    """One bot on the ladder (its rung): its rating, how often it played, sat in each seat, won
    (finished first alone) and drew (finished first with others)."""

    name: str
    rating: trueskill.Rating
    games: int = 0
    seated: Counter[int] = field(default_factory=Counter)
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

    def record(self, names: Sequence[str], ranks: Sequence[int]) -> None:
        """Rate a finished game: ``names`` its bots in seat order, ``ranks`` each seat's place (0
        the first, equal places tied; ``ranks_of`` gives a two-seat game's)."""
        rungs = [self.rungs[name] for name in names]
        rated = self.env.rate([(rung.rating,) for rung in rungs], ranks=list(ranks))
        best = min(ranks)
        for seat, (rung, (rating,), rank) in enumerate(zip(rungs, rated, ranks, strict=True)):
            rung.rating, rung.games = rating, rung.games + 1
            rung.seated[seat] += 1
            if rank == best:
                if list(ranks).count(best) == 1:
                    rung.wins += 1
                else:
                    rung.draws += 1

    def state(self) -> dict[str, list[Any]]:
        """Every rung as numbers to keep (``restore`` takes them back exactly): its rating's
        precision and precision-adjusted mean, its games, wins, draws and games in each seat."""
        return {
            name: [r.rating.pi, r.rating.tau, r.games, r.wins, r.draws, sorted(r.seated.items())]
            for name, r in self.rungs.items()
        }

    def restore(self, state: dict[str, list[Any]]) -> None:
        """Set the rungs of ``state`` (``Ladder.state``) as they were kept."""
        for name, (pi, tau, games, wins, draws, seated) in state.items():
            rung = self.join(name)
            rung.rating = self.env.create_rating()
            rung.rating.pi, rung.rating.tau = pi, tau
            rung.games, rung.wins, rung.draws = games, wins, draws
            rung.seated = Counter(dict(seated))

    def order(self) -> list[str]:
        """The bots best first, by mu - 3 sigma (then by name)."""
        return [s.name for s in sorted(self.rungs.values(), key=lambda s: (-s.conservative, s.name))]


class InformationPairing:
    """Pairs by information: the table (two bots, or the game's seats) of highest
    ``quality * sum(sigma**2)``, seats balanced."""

    name = "information"

    def next(
        self, ladder: Ladder, rng: random.Random, taken: Set[frozenset[str]] = frozenset(), size: int = 2
    ) -> tuple[str, ...]:
        """The next game's bots in seat order; not one of the tables ``taken`` (the games of a
        batch already chosen). Two seats: the best pair of all. More: grown from the best pairs,
        each time by the bot that makes the table most informative (an exact search of every
        table would cost a quality of each of C(n, size) tables a game)."""
        names = sorted(ladder.rungs)
        pairs = _best_first(((pair, information(ladder, pair)) for pair in itertools.combinations(names, 2)), rng)
        for pair in pairs:
            table = list(pair)
            while len(table) < size:
                grown = [
                    (tuple(table) + (name,), information(ladder, [*table, name]))
                    for name in names
                    if name not in table and (len(table) + 1 < size or frozenset((*table, name)) not in taken)
                ]
                if not grown:
                    break
                table = list(_best_first(grown, rng)[0])
            if len(table) == size and frozenset(table) not in taken:
                return seats(ladder, table)
        # every table grown is taken (a batch near all the tables there are): the best of the rest
        rest = [table for table in itertools.combinations(names, size) if frozenset(table) not in taken]
        if not rest:
            raise ValueError(f"every table of {size} of the {len(names)} bots is taken")
        return seats(ladder, _best_first(((table, information(ladder, table)) for table in rest), rng)[0])


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


def information(ladder: Ladder, table: Sequence[str]) -> float:
    """What a game of the bots of ``table`` would teach: their match quality times the sum of
    their variances."""
    ratings = [ladder.rungs[name].rating for name in table]
    if len(ratings) == 2:
        quality = trueskill.quality_1vs1(*ratings, env=ladder.env)
    else:
        quality = ladder.env.quality([(rating,) for rating in ratings])
    return float(quality * sum(rating.sigma**2 for rating in ratings))


def _best_first(scored: Iterable[tuple[tuple[str, ...], float]], rng: random.Random) -> list[tuple[str, ...]]:
    """The tables of ``scored`` (table, information), most informative first; tables within
    ``TIE`` of each other in a random order."""
    tables = sorted(scored, key=lambda item: -item[1])
    ordered: list[tuple[str, ...]] = []
    while tables:
        top = tables[0][1]
        tied = [table for table, value in tables if value >= top * (1 - TIE)]
        rng.shuffle(tied)
        ordered += tied
        tables = tables[len(tied) :]
    return ordered


def seats(ladder: Ladder, table: Sequence[str]) -> tuple[str, ...]:
    """``table`` in seat order: each bot where it has sat least, by share of its games (the
    order of least total share; two seats: the one who moved first less often moves first)."""

    def share(name: str, seat: int) -> float:
        rung = ladder.rungs[name]
        return rung.seated[seat] / max(1, rung.games)

    if len(table) <= MAX_SEATING:
        orders: Iterable[Sequence[str]] = itertools.permutations(table)
        return tuple(min(orders, key=lambda order: sum(share(name, seat) for seat, name in enumerate(order))))
    chosen: list[str] = []  # a big table: seat by seat, the bot that sat there least
    for seat in range(len(table)):
        chosen.append(min((name for name in table if name not in chosen), key=lambda name: share(name, seat)))
    return tuple(chosen)


def ranks_of(winner: int | None) -> tuple[int, int]:
    """A two-seat game's places from its winner (``None``: a draw)."""
    return (0, 0) if winner is None else ((0, 1) if winner == 0 else (1, 0))


def spearman(first: Sequence[str], second: Sequence[str]) -> float:
    """Spearman's rank correlation of two orders of the same names."""
    n = len(first)
    if n < 2:
        return 1.0
    where = {name: index for index, name in enumerate(second)}
    return 1 - 6 * sum((index - where[name]) ** 2 for index, name in enumerate(first)) / (n * (n * n - 1))
