"""Swiss rounds: players of equal or nearest score meet, nobody meets anybody twice while that
can be avoided, colours (who moves first) stay balanced, and with an odd field the lowest-ranked
player who has not had a bye sits out.

The rules :func:`swiss_round` follows, most important first:

1. a player has at most one bye (unless every player has had one); the bye counts as a win
   (``BYE_POINTS``, 1 point, added by whoever keeps the scores, as :func:`play_swiss` does);
2. no pair meets twice, if the field can be paired so;
3. every player's colour balance (games moving first less games moving second) stays within
   -1..1, if the field can be paired so (the player with the lower balance moves first; with
   equal balances ``rng`` decides);
4. players are ranked by score, then by their order in ``players`` (the seeding); the bye goes
   to the lowest-ranked player it can go to; the highest-ranked unpaired player meets the
   nearest candidate in the Dutch order: in a group of equal score the top half meets the
   bottom half (1st of the group against the first of its lower half, and so on), and a player
   left over floats down to the next score group.

The pairing is found by depth-first search with backtracking: when the candidate the order
prefers leads to a dead end further down the field, the next is tried. Rules 2 and 3 are
dropped in that order only when no pairing keeps them (or the search gives up after a fixed
number of steps); a pair that must meet again is then one that has met the fewest times.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from arena.formats.base import FormatError, check_players

#: the points a bye scores: a win
BYE_POINTS = 1.0
#: search steps a rule set may take before the next, looser one is tried
SEARCH_STEPS = 20_000


@dataclass(frozen=True, slots=True)
class SwissRound:
    """One round: ``pairings`` (first mover, second mover), top board first, and the bye."""

    pairings: tuple[tuple[str, str], ...]
    bye: str | None


def _colour_ok(first: int, second: int) -> bool:
    """Whether balances ``first`` (moving first) and ``second`` stay within 1, or get no worse."""
    return abs(first + 1) <= max(1, abs(first)) and abs(second - 1) <= max(1, abs(second))


class _Search:
    """Depth-first pairing of an even field in rank order under one set of rules."""

    def __init__(
        self,
        scores: Mapping[str, float],
        met: Counter[frozenset[str]],
        balance: Mapping[str, int],
        repeats: bool,
        colours: bool,
    ) -> None:
        self.scores = scores
        self.met = met
        self.balance = balance
        self.repeats = repeats
        self.colours = colours
        self.failed: set[tuple[str, ...]] = set()
        self.steps = 0

    def allowed(self, a: str, b: str) -> bool:
        """Whether ``a`` may meet ``b`` under this search's rules."""
        if not self.repeats and self.met[frozenset((a, b))]:
            return False
        if self.colours:
            low, high = sorted((self.balance.get(a, 0), self.balance.get(b, 0)))
            return _colour_ok(low, high)
        return True

    def candidates(self, remaining: tuple[str, ...]) -> list[str]:
        """The allowed opponents of the top remaining player, the preferred first."""
        top, rest = remaining[0], remaining[1:]
        score = self.scores.get(top, 0.0)
        group = [p for p in rest if self.scores.get(p, 0.0) == score]
        half = (len(group) + 1) // 2  # the first of the lower half of the group with top in it
        ordered = group[half - 1 :] + group[: half - 1][::-1] if group else []
        others = [p for p in rest if self.scores.get(p, 0.0) != score]
        others.sort(key=lambda p: (abs(self.scores.get(p, 0.0) - score), self.scores.get(p, 0.0) > score))
        ordered += others
        if self.repeats:
            ordered.sort(key=lambda p: self.met[frozenset((top, p))])  # stable: fewest meetings first
        return [p for p in ordered if self.allowed(top, p)]

    def pair(self, remaining: tuple[str, ...]) -> list[tuple[str, str]] | None:
        """A pairing of ``remaining`` (in rank order), or ``None`` if there is none (or the
        search ran out of steps)."""
        if not remaining:
            return []
        if remaining in self.failed or self.steps > SEARCH_STEPS:
            return None
        self.steps += 1
        top = remaining[0]
        for other in self.candidates(remaining):
            rest = tuple(p for p in remaining if p != top and p != other)
            found = self.pair(rest)
            if found is not None:
                return [(top, other), *found]
        self.failed.add(remaining)
        return None


def swiss_round(
    players: Sequence[str],
    scores: Mapping[str, float],
    history: Iterable[tuple[str, str | None]],
    colours: Mapping[str, int],
    rng: random.Random,
) -> SwissRound:
    """The next round of a Swiss tournament (the rules are in the module docstring).

    ``players`` is the field in seeding order (best first); ``scores`` each player's points so
    far (missing: 0); ``history`` the pairings played, (first, second), with a bye as
    (player, None); ``colours`` each player's games moving first less games moving second
    (missing: 0); ``rng`` breaks colour ties.
    """
    field = check_players(players, least=2)
    known = set(field)
    met: Counter[frozenset[str]] = Counter()
    byes: Counter[str] = Counter()
    for entry in history:
        first, second = entry
        if second is None:
            byes[first] += 1
        elif first in known and second in known:
            met[frozenset((first, second))] += 1
    seed = {name: i for i, name in enumerate(field)}
    ranked = sorted(field, key=lambda p: (-scores.get(p, 0.0), seed[p]))
    if len(ranked) % 2:
        fewest = min(byes[p] for p in ranked)  # 0 until everyone has had a bye
        bye_options: list[str | None] = [p for p in reversed(ranked) if byes[p] == fewest]
    else:
        bye_options = [None]
    for repeats, colour_rule in ((False, True), (False, False), (True, False)):
        search = _Search(scores, met, colours, repeats, colour_rule)
        for bye in bye_options:
            found = search.pair(tuple(p for p in ranked if p != bye))
            if found is not None:  # (a dead end is one whichever bye led to it: search.failed is kept)
                return SwissRound(tuple(_seat(a, b, colours, rng) for a, b in found), bye)
    raise FormatError("no Swiss pairing found")  # unreachable: the last rule set pairs anyone


def _seat(a: str, b: str, colours: Mapping[str, int], rng: random.Random) -> tuple[str, str]:
    """The pair in order (first, second): the lower colour balance moves first."""
    ca, cb = colours.get(a, 0), colours.get(b, 0)
    if ca < cb or (ca == cb and rng.random() < 0.5):
        return (a, b)
    return (b, a)


@dataclass(frozen=True, slots=True)
class SwissResult:
    """A finished Swiss: its rounds, each player's points and colour balance, and the standings
    (by points, then seeding)."""

    rounds: tuple[SwissRound, ...]
    scores: Mapping[str, float]
    colours: Mapping[str, int]
    standings: tuple[str, ...]


def play_swiss(
    players: Sequence[str],
    rounds: int,
    play: Callable[[SwissRound], Sequence[tuple[float, float]]],
    rng: random.Random,
    *,
    bye_points: float = BYE_POINTS,
) -> SwissResult:
    """Plan and play ``rounds`` Swiss rounds, each paired from the results of the ones before.

    ``play(round)`` plays a round and returns, for each of its pairings in order, the points of
    (first, second): a game's 1/0, 0.5/0.5, or a mini-match's totals. A bye scores
    ``bye_points``.
    """
    field = check_players(players, least=2)
    if rounds < 0:
        raise FormatError(f"rounds must be >= 0, got {rounds}")
    scores = dict.fromkeys(field, 0.0)
    colours = dict.fromkeys(field, 0)
    history: list[tuple[str, str | None]] = []
    played = []
    for number in range(rounds):
        this = swiss_round(field, scores, history, colours, rng)
        results = list(play(this))
        if len(results) != len(this.pairings):
            raise FormatError(f"round {number + 1} has {len(this.pairings)} pairings but {len(results)} results")
        for (first, second), (points_first, points_second) in zip(this.pairings, results):
            scores[first] += points_first
            scores[second] += points_second
            colours[first] += 1
            colours[second] -= 1
            history.append((first, second))
        if this.bye is not None:
            scores[this.bye] += bye_points
            history.append((this.bye, None))
        played.append(this)
    seed = {name: i for i, name in enumerate(field)}
    standings = tuple(sorted(field, key=lambda p: (-scores[p], seed[p])))
    return SwissResult(tuple(played), scores, colours, standings)
