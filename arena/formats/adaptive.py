"""Adaptive pairings: after a first round robin (or any games), spend the rest of a game budget
where it decides something: on the bots whose rating interval straddles the advancement cut
(between the k-th and the (k+1)-th place) or a podium place.

The rule, each batch (:func:`adaptive_pairings`):

1. fit Elo to every game so far (:func:`arena.stats.elo.fit_elo`, the field's mean at 0) and rank;
2. the cuts: between places ``k`` and ``k + 1`` (weight 1) and, for the podium, between places
   1|2, 2|3 and 3|4 (``podium`` places, weight ``podium_weight``); a cut's Elo is the middle of
   the two places' Elo;
3. a bot's stake: for each cut, how far inside its interval the cut lies, ``1 - |elo - cut| /
   half-width`` (1 at the centre, 0 at the interval's end or beyond), times the cut's weight;
   the bot's stake is its largest. While fewer than two bots have a stake, the intervals are
   taken twice as wide (at most 12 times);
4. only pairs of two bots with a stake are played; a pair's value is the sum of the two stakes
   times how close the game is, ``4 p (1 - p)`` with ``p`` the expected score (1 for equals,
   less the more one-sided the game: it is proportional to what the game tells about the two
   bots' difference), divided by ``1 + m / g``, ``m`` the games the pair has played and ``g``
   the games of a pairing, so that a contender meets several rivals rather than one again and
   again;
5. pairs are taken by value, highest first, each bot in at most ``per_player`` pairs of the
   batch, until the batch is full; each pair plays ``games_per_pair`` games, colours alternating.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from arena.formats.base import FormatError, check_players
from arena.stats.elo import EloFit, Game, expected_score, fit_elo, strengths, z_value

#: widen the intervals at most this many times (x2 each) looking for a bot near a cut
_WIDENINGS = 12
#: the intervals the stakes are read from: the binomial ones (``arena.stats.elo``, ``spread="model"``),
#: which its window was tuned to. The draw-aware ones (``spread="draws"``) are truer and, on drawish
#: fields, narrower. Read from them, as they are or widened by the ratio of binomial to draw-aware
#: information (the field's, to the power 1, 1.5 or 2; each bot's own), the window found the exact
#: top 8 in 64-70 % of python benchmarks/ranking.py --draws 0.5's 100 tournaments, these in 76 %;
#: but over 1000 others (--tournaments 1000 --seed 3) all were within 3 points (these 68.5 %, the
#: draw-aware as they are 68.8 %, each bot's ratio 69.3 %): 100 tournaments cannot tell them apart,
#: only the mean place error can (3.57 these; 3.67 as they are, 3.48 and 3.37 widened to the power
#: 1.5 and 2). No window met the 76 % of those 100 tournaments, so these stay.
SPREAD = "model"


def _stakes(fit: EloFit, k: int, podium: int, podium_weight: float) -> dict[str, float]:
    ranked = fit.players
    cuts: dict[int, float] = {place: podium_weight for place in range(1, podium + 1) if place < len(ranked)}
    if k < len(ranked):
        cuts[k] = 1.0
    levels = [((ranked[place - 1].elo + ranked[place].elo) / 2.0, weight) for place, weight in cuts.items()]
    widen = 1.0
    for _ in range(_WIDENINGS):
        stakes = {}
        for line in ranked:
            half = line.error * widen
            best = 0.0
            for level, weight in levels:
                if half > 0:
                    best = max(best, weight * max(0.0, 1.0 - abs(line.elo - level) / half))
            stakes[line.name] = best
        if sum(value > 0 for value in stakes.values()) >= 2:
            return stakes
        widen *= 2.0
    return stakes


def adaptive_pairings(
    games: Sequence[Game],
    players: Sequence[str],
    k: int,
    total_games: int,
    *,
    batch: int | None = None,
    games_per_pair: int = 2,
    per_player: int = 8,
    podium: int = 3,
    podium_weight: float = 0.5,
    confidence: float = 0.95,
    prior_draws: float = 1.0,
    fit: EloFit | None = None,
) -> list[tuple[str, str]]:
    """The next batch of games (first mover, second mover) aimed at the cut of the top ``k``
    and at the podium (the rule is in the module docstring).

    ``games`` are the games so far, (player, opponent, score of player), ``players`` the field,
    ``total_games`` the budget counting the games already played: at most
    ``total_games - len(games)`` games are returned, and at most ``batch`` (default: twice the
    number of players). ``fit`` may pass a fit of ``games`` already made (the window was tuned to
    one made with ``spread=SPREAD``); otherwise one is made with ``confidence``, ``prior_draws``
    and ``SPREAD``. An empty list means the budget is spent.
    """
    field = check_players(players, least=2)
    if not 1 <= k < len(field):
        raise FormatError(f"the cut k must be between 1 and {len(field) - 1} for {len(field)} players, got {k}")
    if games_per_pair < 1 or per_player < 1:
        raise FormatError(f"games_per_pair and per_player must be >= 1, got {games_per_pair} and {per_player}")
    if podium < 0 or podium_weight < 0:
        raise FormatError(f"podium and podium_weight must be >= 0, got {podium} and {podium_weight}")
    z_value(confidence)
    room = min(total_games - len(games), 2 * len(field) if batch is None else batch)
    if room <= 0:
        return []
    if fit is None:
        fit = fit_elo(games, field, confidence=confidence, prior_draws=prior_draws, spread=SPREAD)
    stakes = _stakes(fit, k, podium, podium_weight)
    elo = {line.name: line.elo for line in fit.players}
    met: Counter[frozenset[str]] = Counter(frozenset((a, b)) for a, b, _ in games)
    values = []
    for i, a in enumerate(field):
        for b in field[i + 1 :]:
            if stakes[a] <= 0 or stakes[b] <= 0:
                continue
            stake = stakes[a] + stakes[b]
            p = expected_score(elo[a] - elo[b])
            value = stake * 4.0 * p * (1.0 - p) / (1.0 + met[frozenset((a, b))] / games_per_pair)
            values.append((value, a, b))
    values.sort(key=lambda item: (-item[0], item[1], item[2]))
    firsts: Counter[str] = Counter()
    for a, b, _ in games:
        firsts[a] += 1
        firsts[b] -= 1
    load: Counter[str] = Counter()
    chosen: list[tuple[str, str]] = []
    for _value, a, b in values:
        if len(chosen) >= room:
            break
        if load[a] >= per_player or load[b] >= per_player:
            continue
        load[a] += 1
        load[b] += 1
        first, second = (a, b) if firsts[a] <= firsts[b] else (b, a)
        pairs = min(games_per_pair, room - len(chosen))
        chosen.extend((first, second) if number % 2 == 0 else (second, first) for number in range(pairs))
    return chosen


@dataclass(frozen=True, slots=True)
class AdaptiveRun:
    """A finished adaptive stage: every game (the first ones included), the final fit, the
    ``advancing`` top ``k`` by it, and the number of adaptive batches played."""

    games: tuple[Game, ...]
    fit: EloFit
    advancing: tuple[str, ...]
    batches: int


def play_adaptive(
    games: Sequence[Game],
    players: Sequence[str],
    k: int,
    total_games: int,
    play: Callable[[list[tuple[str, str]]], Sequence[float]],
    *,
    batch: int | None = None,
    games_per_pair: int = 2,
    per_player: int = 8,
    podium: int = 3,
    podium_weight: float = 0.5,
    confidence: float = 0.95,
    prior_draws: float = 1.0,
) -> AdaptiveRun:
    """Spend the budget ``total_games`` batch by batch after ``games`` (e.g. a first round
    robin): ``play(pairings)`` plays a batch of (first, second) games and returns the first
    mover's score in each. The options are those of :func:`adaptive_pairings`."""
    field = check_players(players, least=2)
    played: list[Game] = list(games)
    fit = fit_elo(played, field, confidence=confidence, prior_draws=prior_draws, spread=SPREAD)
    batches = 0
    while True:
        pairings = adaptive_pairings(
            played,
            field,
            k,
            total_games,
            batch=batch,
            games_per_pair=games_per_pair,
            per_player=per_player,
            podium=podium,
            podium_weight=podium_weight,
            confidence=confidence,
            prior_draws=prior_draws,
            fit=fit,
        )
        if not pairings:
            break
        scores = list(play(pairings))
        if len(scores) != len(pairings):
            raise FormatError(f"a batch of {len(pairings)} games came back with {len(scores)} results")
        played += [(first, second, score) for (first, second), score in zip(pairings, scores)]
        fit = fit_elo(
            played, field, confidence=confidence, prior_draws=prior_draws, start=strengths(fit), spread=SPREAD
        )
        batches += 1
    return AdaptiveRun(tuple(played), fit, tuple(fit.ranking()[:k]), batches)
