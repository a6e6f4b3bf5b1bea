"""Two bots' results as fastchess and fishtest report them: the trinomial counts of their games
(losses, draws, wins) and the pentanomial counts of their pairs of games (each seat once), with
the score, its standard error, Elo with an interval and the likelihood of superiority. A pair is
one observation, so the variance counts the correlation of a pair's two games."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

from arena.stats.elo import EloError, elo_difference, z_value

_NORMAL = NormalDist()

#: the score of each pentanomial outcome of a pair of games (the two scores added)
PAIR_POINTS = (0.0, 0.5, 1.0, 1.5, 2.0)


def pentanomial(pairs: Iterable[tuple[float, float]]) -> tuple[int, int, int, int, int]:
    """The counts of the pair outcomes 0, 0.5, 1, 1.5 and 2 points (LL, LD+DL, LW+DD+WL, DW+WD,
    WW) of one bot over ``pairs`` = its scores in the two games of each pair (colours swapped)."""
    counts = [0] * 5
    for number, pair in enumerate(pairs):
        try:
            first, second = pair
            doubled = round(2 * (float(first) + float(second)))
        except (TypeError, ValueError):
            raise EloError(f"pair {number} is {pair!r}: a pair is the bot's two scores") from None
        if not all(float(s) in (0.0, 0.5, 1.0) for s in pair):
            raise EloError(f"pair {number} is {pair!r}: each score is 0, 0.5 or 1")
        counts[doubled] += 1
    return (counts[0], counts[1], counts[2], counts[3], counts[4])


def trinomial(scores: Iterable[float]) -> tuple[int, int, int]:
    """The counts of losses, draws and wins of one bot over its game ``scores`` (0, 0.5, 1)."""
    counts = [0, 0, 0]
    for number, score in enumerate(scores):
        if score not in (0, 0.5, 1):
            raise EloError(f"game {number} has score {score!r}: a score is 0, 0.5 or 1")
        counts[int(2 * score)] += 1
    return (counts[0], counts[1], counts[2])


@dataclass(frozen=True, slots=True)
class MatchStats:
    """One bot's result against another, as fastchess and fishtest report it.

    ``counts`` are ascending (trinomial: L, D, W; pentanomial: the five pair outcomes), ``n`` the
    games or pairs; ``score`` the mean score a game in [0, 1]; ``variance`` the variance of one
    observation (a game's score, or a pair's mean score) and ``stderr`` that of ``score``;
    ``elo`` with ``lower``/``upper`` at ``confidence``; ``los`` the likelihood of superiority.
    """

    counts: tuple[int, ...]
    n: int
    score: float
    variance: float
    stderr: float
    elo: float
    lower: float
    upper: float
    los: float
    confidence: float

    @property
    def error(self) -> float:
        """Half the width of the Elo interval (the ``+-`` figure); ``inf`` if it is unbounded."""
        return (self.upper - self.lower) / 2.0


def _stats(counts: Sequence[int], values: Sequence[float], confidence: float) -> MatchStats:
    z = z_value(confidence)
    if any(c < 0 for c in counts):
        raise EloError(f"counts cannot be negative: {tuple(counts)}")
    n = sum(counts)
    if n == 0:
        raise EloError("no games: the statistics need at least one result")
    score = sum(c * v for c, v in zip(counts, values)) / n
    variance = sum(c * (v - score) ** 2 for c, v in zip(counts, values)) / n
    stderr = math.sqrt(variance / n)
    los = (0.5 if score == 0.5 else float(score > 0.5)) if stderr == 0.0 else _NORMAL.cdf((score - 0.5) / stderr)
    return MatchStats(
        tuple(counts),
        n,
        score,
        variance,
        stderr,
        elo_difference(score),
        elo_difference(score - z * stderr),
        elo_difference(score + z * stderr),
        los,
        confidence,
    )


def game_stats(counts: Sequence[int], confidence: float = 0.95) -> MatchStats:
    """Trinomial statistics from ``counts`` = (losses, draws, wins): each game one observation."""
    if len(counts) != 3:
        raise EloError(f"trinomial counts are (losses, draws, wins), got {tuple(counts)}")
    return _stats(counts, (0.0, 0.5, 1.0), confidence)


def pair_stats(counts: Sequence[int], confidence: float = 0.95) -> MatchStats:
    """Pentanomial statistics from the five pair counts of :func:`pentanomial`: each pair one
    observation (its mean score a game, 0 to 1 in steps of 0.25), so the variance counts the
    correlation of the two games of a pair, as fishtest and fastchess do."""
    if len(counts) != 5:
        raise EloError(f"pentanomial counts are five (0, 0.5, 1, 1.5, 2 points), got {tuple(counts)}")
    return _stats(counts, tuple(p / 2 for p in PAIR_POINTS), confidence)
