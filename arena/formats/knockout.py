"""Seeded single elimination: the bracket, when a match is decided, and a whole knockout.

The bracket. ``N`` players seeded best first fill a bracket of ``size``, the smallest power of two
``>= N``, in the standard order (:func:`bracket_order`): 1 meets ``size``, 2 meets ``size - 1``,
..., placed so that the top seeds meet as late as possible (1 and 2 only in the final, 1-4 only
in the semi-finals if they keep winning). The ``size - N`` missing seeds are byes, so the top
seeds get them: with 6 players, seeds 1 and 2 go straight to the second round.

A match. The higher seed moves first in the match's odd games (1st, 3rd, ...), the lower seed
in the even ones. All ``games`` games are played; the player with more points goes through. On
equal points extra games are played two at a time, one with each colour, until a pair leaves the
points unequal, at most ``max_extra`` extra games; if the points are still equal after them, the
higher seed goes through (the final tie-break: a seed is what the players earned before the
knockout).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from arena.formats.base import FormatError, check_players


def bracket_order(size: int) -> list[int]:
    """The seeds (1 = best) of a bracket of ``size`` (a power of two) from top line to bottom:
    ``[1, 8, 4, 5, 2, 7, 3, 6]`` for 8; lines ``2i`` and ``2i + 1`` meet in the first round."""
    if size < 1 or size & (size - 1):
        raise FormatError(f"a bracket's size is a power of two, got {size}")
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [seed for top in order for seed in (top, total - top)]
    return order


@dataclass(frozen=True, slots=True)
class Bracket:
    """A seeded bracket: ``lines`` from top to bottom, ``None`` a bye; ``size`` its length."""

    size: int
    lines: tuple[str | None, ...]

    @property
    def first_round(self) -> tuple[tuple[str, str | None], ...]:
        """The first round's matches, (higher seed, lower seed or ``None`` for a bye), top first."""
        return tuple((high, low) for high, low in zip(self.lines[::2], self.lines[1::2]) if high is not None)


def knockout(players: Sequence[str]) -> Bracket:
    """The bracket of ``players`` seeded best first (at least 2)."""
    field = check_players(players, least=2)
    size = 1
    while size < len(field):
        size *= 2
    lines = tuple(field[seed - 1] if seed <= len(field) else None for seed in bracket_order(size))
    return Bracket(size, lines)


@dataclass(frozen=True, slots=True)
class MatchStatus:
    """Where a match stands: ``winner`` 0 (the higher seed) or 1, or ``None`` while it goes on;
    ``next_first`` the side moving first in the next game; ``by_seed`` whether the final
    tie-break decided it."""

    winner: int | None
    next_first: int | None
    by_seed: bool = False


def match_status(scores: Sequence[float], games: int = 2, max_extra: int = 6) -> MatchStatus:
    """The status of a match after games in which the higher seed scored ``scores`` (0 to 1
    each), for a match of ``games`` games with at most ``max_extra`` extra games (an even
    number; see the module docstring)."""
    if games < 1:
        raise FormatError(f"a match has at least 1 game, got {games}")
    if max_extra < 0 or max_extra % 2:
        raise FormatError(f"extra games come in pairs: max_extra must be even and >= 0, got {max_extra}")
    played = len(scores)
    if played > games + max_extra:
        raise FormatError(f"{played} games played in a match of at most {games + max_extra}")
    next_first = played % 2
    if played < games or (played - games) % 2:
        return MatchStatus(None, next_first)
    high = sum(scores)
    low = played - high
    if high != low:
        return MatchStatus(0 if high > low else 1, None)
    if played == games + max_extra:
        return MatchStatus(0, None, by_seed=True)
    return MatchStatus(None, next_first)


@dataclass(frozen=True, slots=True)
class MatchResult:
    """A finished match: ``high`` the higher seed (``low`` ``None`` for a bye), the higher seed's
    score in each game, the winner and whether the final tie-break decided it."""

    high: str
    low: str | None
    scores: tuple[float, ...]
    winner: str
    by_seed: bool = False


@dataclass(frozen=True, slots=True)
class KnockoutResult:
    """A finished knockout: the bracket, each round's matches (top first), the champion, and
    ``places``: the players grouped by how far they went, champion first, then the finalist,
    the semi-final losers, the quarter-final losers, and so on (byes count as matches won)."""

    bracket: Bracket
    rounds: tuple[tuple[MatchResult, ...], ...]
    champion: str
    places: tuple[tuple[str, ...], ...]


def play_knockout(
    players: Sequence[str],
    play: Callable[[str, str], float],
    *,
    games: int = 2,
    max_extra: int = 6,
) -> KnockoutResult:
    """Play a knockout of ``players`` (seeded best first): ``play(first, second)`` plays one
    game and returns the first mover's score (0 to 1). Matches are as in :func:`match_status`."""
    bracket = knockout(players)
    seed = {name: i for i, name in enumerate(players)}
    alive: list[str | None] = list(bracket.lines)
    rounds: list[tuple[MatchResult, ...]] = []
    out_by_round: list[list[str]] = []
    while len(alive) > 1:
        matches = []
        losers = []
        winners: list[str | None] = []
        for i in range(0, len(alive), 2):
            a, b = alive[i], alive[i + 1]
            if a is None or b is None:
                only = a if b is None else b
                winners.append(only)
                if only is not None:
                    matches.append(MatchResult(only, None, (), only))
                continue
            high, low = (a, b) if seed[a] < seed[b] else (b, a)
            result = _play_match(high, low, play, games, max_extra)
            matches.append(result)
            winners.append(result.winner)
            losers.append(low if result.winner == high else high)
        rounds.append(tuple(matches))
        out_by_round.append(sorted(losers, key=seed.__getitem__))
        alive = winners
    champion = alive[0]
    assert champion is not None
    places = [(champion,)] + [tuple(out) for out in reversed(out_by_round) if out]
    return KnockoutResult(bracket, tuple(rounds), champion, tuple(places))


def _play_match(high: str, low: str, play: Callable[[str, str], float], games: int, max_extra: int) -> MatchResult:
    scores: list[float] = []
    while True:
        status = match_status(scores, games, max_extra)
        if status.winner is not None:
            return MatchResult(high, low, tuple(scores), (high, low)[status.winner], status.by_seed)
        if status.next_first == 0:
            scores.append(float(play(high, low)))
        else:
            scores.append(1.0 - float(play(low, high)))
