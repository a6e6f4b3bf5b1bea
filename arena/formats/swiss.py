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
4. the pairs' total score gap (the sum over the pairs of the difference of their points) is the
   least the pairings keeping rules 2 and 3 allow, as in FIDE's Dutch system: a lone leader meets
   the player of the next score group whose group-mates can still meet each other, not one whose
   group-mates met already and would both float down;
5. players are ranked by score, then by their order in ``players`` (the seeding); the bye goes to
   the lowest-ranked player it can go to; going down the ranking, the highest-ranked unpaired
   player meets the first candidate in the Dutch order with whom the players left can still be
   paired by rules 2 to 4: in a group of equal score the top half meets the bottom half (1st of
   the group against the first of its lower half, and so on, the group counted among the players
   not yet paired), and a player left over floats down to the nearest score group, its
   highest-ranked player first.

Rules 3 and 2 are dropped, in that order, only when no bye rule 1 allows leaves a field that can be
paired keeping them; without rule 2 the bye goes to the lowest-ranked player rule 1 allows, and
the highest-ranked unpaired player meets, in the Dutch order, the first it has met the fewest
times (rule 4 is not applied then).

The least gap is exact, not searched for: a least-gap pairing is a maximum-weight matching
(Edmonds' blossom algorithm, :mod:`arena.formats.matching`, O(n³)) of the pairs rules 2 and 3
allow, each weighing less the larger its gap. One is kept at hand for the players not yet paired
while rule 5 goes down the ranking; a candidate it does not give is checked by swapping partners,
else by pairing the others anew. So whenever the first pairing in the Dutch order (what a
depth-first search down the ranking finds) has the least gap, that is the round.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from arena.formats.base import FormatError, check_players
from arena.formats.matching import max_weight_matching

#: the points a bye scores: a win
BYE_POINTS = 1.0


@dataclass(frozen=True, slots=True)
class SwissRound:
    """One round: ``pairings`` (first mover, second mover), top board first, and the bye."""

    pairings: tuple[tuple[str, str], ...]
    bye: str | None


def _colour_ok(first: int, second: int) -> bool:
    """Whether balances ``first`` (moving first) and ``second`` stay within 1, or get no worse."""
    return abs(first + 1) <= max(1, abs(first)) and abs(second - 1) <= max(1, abs(second))


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
    for balance in (colours, None):
        for bye in bye_options:
            found = _least_gap([p for p in ranked if p != bye], scores, met, balance)
            if found is not None:
                return SwissRound(tuple(_seat(a, b, colours, rng) for a, b in found), bye)
    bye = bye_options[0]
    found = _fewest_meetings([p for p in ranked if p != bye], scores, met)
    return SwissRound(tuple(_seat(a, b, colours, rng) for a, b in found), bye)


def _least_gap(
    ranked: Sequence[str], scores: Mapping[str, float], met: Counter[frozenset[str]], balance: Mapping[str, int] | None
) -> list[tuple[str, str]] | None:
    """The pairing of ``ranked`` (an even field in rank order) no pair of which has met and that
    keeps every colour ``balance`` within 1 (``None``: whatever the colours), with the least total
    score gap, ties broken by rule 5; top board first. ``None`` if no pairing keeps these rules.

    Rank by rank, the highest-ranked unpaired player takes the first candidate in the Dutch order
    with which the rest can still be paired at the least gap: a least-gap pairing of the players
    left is kept at hand, and changed only when the candidate is not the partner it gives."""
    points = _points(ranked, scores)
    allowed = [{j for j, b in enumerate(ranked) if b != a and _allowed(a, b, met, balance)} for a in ranked]
    remaining = list(range(len(ranked)))
    plan = _cheapest(remaining, points, allowed)
    if plan is None:
        return None
    pairs: list[tuple[str, str]] = []
    while remaining:
        top = remaining[0]
        for other in _dutch_order(remaining, points):
            if other != plan[top]:
                found = _with_pair(plan, top, other, remaining, points, allowed) if other in allowed[top] else None
                if found is None:
                    continue
                plan = found
            pairs.append((ranked[top], ranked[other]))
            remaining = [p for p in remaining if p not in (top, other)]
            break
    return pairs


def _with_pair(
    plan: Mapping[int, int],
    top: int,
    other: int,
    remaining: Sequence[int],
    points: Sequence[int],
    allowed: Sequence[set[int]],
) -> dict[int, int] | None:
    """A pairing of ``remaining`` along ``allowed`` pairs, ``top`` with ``other``, whose total
    gap is no more than that of ``plan`` (a least-gap pairing of ``remaining``); ``None`` if there
    is none. Their partners in ``plan`` meeting each other is tried first, then the rest is
    paired anew."""
    mate, partner = plan[top], plan[other]
    before = abs(points[top] - points[mate]) + abs(points[other] - points[partner])
    if partner in allowed[mate] and abs(points[top] - points[other]) + abs(points[mate] - points[partner]) <= before:
        return {**plan, top: other, other: top, mate: partner, partner: mate}
    rest = [p for p in remaining if p not in (top, other)]
    found = _cheapest(rest, points, allowed)
    if found is None or _gap(found, rest, points) + points[top] - points[other] > _gap(plan, remaining, points):
        return None
    return {**found, top: other, other: top}


def _allowed(a: str, b: str, met: Counter[frozenset[str]], balance: Mapping[str, int] | None) -> bool:
    """Whether ``a`` may meet ``b``: they have not met, and their colour ``balance`` (``None``:
    whatever the colours) stays within 1."""
    if met[frozenset((a, b))]:
        return False
    return balance is None or _colour_ok(*sorted((balance.get(a, 0), balance.get(b, 0))))


def _cheapest(players: Sequence[int], points: Sequence[int], allowed: Sequence[set[int]]) -> dict[int, int] | None:
    """A pairing of ``players`` (in rank order) along ``allowed`` pairs with the least total gap of
    ``points``, each player's partner; ``None`` if there is none. Of those, it is one with the least
    total distance of its pairs from the Dutch order's (a pair's distance: how far the lower-ranked
    is from the player one half its group's size below the higher-ranked), most often the pairing
    rule 5 wants, so that :func:`_least_gap` seldom has to look for another."""
    size = len(players)
    groups = Counter(points[p] for p in players)
    scale = size * size  # more than the total of the distances
    costs: dict[tuple[int, int], int] = {}
    for i, a in enumerate(players):
        ideal = i + groups[points[a]] // 2
        for j in range(i + 1, size):
            if players[j] in allowed[a]:
                costs[i, j] = (points[a] - points[players[j]]) * scale + abs(j - ideal)
    big = size * max(costs.values(), default=0) + 1  # more than any pairing's total cost
    mates = max_weight_matching(size, [(i, j, big - cost) for (i, j), cost in costs.items()])
    if None in mates:
        return None
    return {players[i]: players[j] for i, j in enumerate(mates) if j is not None}


def _gap(plan: Mapping[int, int], players: Sequence[int], points: Sequence[int]) -> int:
    """The total score gap of ``plan``'s pairs among ``players``."""
    return sum(abs(points[p] - points[plan[p]]) for p in players) // 2


def _dutch_order(remaining: Sequence[int], points: Sequence[int]) -> list[int]:
    """The players the first of ``remaining`` (players in rank order) would rather meet, the
    preferred first (rule 5)."""
    top, rest = remaining[0], remaining[1:]
    group = [p for p in rest if points[p] == points[top]]
    half = (len(group) + 1) // 2  # the first of the lower half of the group with top in it
    ordered = group[half - 1 :] + group[: half - 1][::-1] if group else []
    return ordered + sorted((p for p in rest if points[p] != points[top]), key=lambda p: points[top] - points[p])


def _fewest_meetings(
    ranked: Sequence[str], scores: Mapping[str, float], met: Counter[frozenset[str]]
) -> list[tuple[str, str]]:
    """The pairing of ``ranked`` (an even field in rank order) when no pairing avoids a repeat:
    the highest-ranked player not yet paired meets, in the Dutch order, the first it has met the
    fewest times; top board first."""
    points = _points(ranked, scores)
    remaining = list(range(len(ranked)))
    pairs: list[tuple[str, str]] = []
    while remaining:
        top = remaining[0]
        meetings = {p: met[frozenset((ranked[top], ranked[p]))] for p in _dutch_order(remaining, points)}
        other = min(meetings, key=meetings.__getitem__)  # the first of the fewest
        pairs.append((ranked[top], ranked[other]))
        remaining = [p for p in remaining if p not in (top, other)]
    return pairs


def _points(ranked: Sequence[str], scores: Mapping[str, float]) -> list[int]:
    """The scores of ``ranked`` (missing: 0), exactly, as whole numbers on one scale."""
    exact = [Fraction(scores.get(p, 0.0)) for p in ranked]
    scale = math.lcm(*(x.denominator for x in exact))
    return [int(x * scale) for x in exact]


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
