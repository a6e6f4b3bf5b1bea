"""Standings of a pool, a stage or a whole tournament, with the course's tie-breaks, and which
tie-break put one team above another with as many points.

Teams are ranked by points, then wins, then the points of the games between the tied teams,
then the TrueSkill conservative rating, then name (docs/course2019.md).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from arena.games.base import pairwise_score, places


@dataclass(frozen=True, slots=True)
class GameResult:
    """The part of a finished game that standings need: its teams in seat order, the winning
    seat (``None``: a draw, or no seat alone on top) and the points each seat scored; or of
    ``count`` such games alike, which standings, records, Elo and crosstables count as that many
    (never ratings, which take games one by one: ``id`` is then the first one's)."""

    id: int
    teams: tuple[str, ...]
    winner: int | None
    points: tuple[float, ...]
    termination: str
    offender: int | None
    count: int = 1

    @property
    def first(self) -> str:
        """The team of seat 0."""
        return self.teams[0]

    @property
    def second(self) -> str:
        """The team of seat 1."""
        return self.teams[1]

    def standing(self, seat: int) -> str:
        """How ``seat`` did: ``win`` (alone on top), ``draw`` (on top with others; two seats: a
        draw) or ``loss``."""
        if self.winner is not None:
            return "win" if self.winner == seat else "loss"
        if len(self.teams) == 2:
            return "draw"
        return "draw" if self.points[seat] == max(self.points) else "loss"

    def ranks(self) -> tuple[int, ...]:
        """Each seat's finishing place, 0 the first, equal places tied: with two seats by the
        winner (a draw ties, whatever points it gave), with more by the points."""
        if len(self.teams) == 2:
            return (0, 0) if self.winner is None else ((0, 1) if self.winner == 0 else (1, 0))
        return tuple(place - 1 for place in places(self.points))

    def against(self, seat: int) -> list[tuple[str, float]]:
        """What ``seat`` scored against each other seat's team: with two seats its points; with
        more, 1, ½ or 0 for finishing ahead of, level with or behind it."""
        if len(self.teams) == 2:
            return [(self.teams[1 - seat], self.points[seat])]
        mine = self.points[seat]
        return [
            (team, 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0)
            for other, (team, theirs) in enumerate(zip(self.teams, self.points, strict=True))
            if other != seat
        ]


@dataclass(slots=True, kw_only=True)
class Tally:
    """Games, their wins, draws and losses, and the points scored in them."""

    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: float = 0.0

    def count(self, standing: str, points: float, games: int = 1) -> None:
        """Add a game (or ``games`` alike) that was a ``win``, a ``draw`` or a ``loss``
        (``GameResult.standing``) and scored ``points`` (each)."""
        self.games += games
        self.points += points * games
        if standing == "draw":
            self.draws += games
        elif standing == "win":
            self.wins += games
        else:
            self.losses += games


@dataclass(slots=True)
class Standing(Tally):
    """One team's line in a table."""

    team: str
    forfeits: Counter[str] = field(default_factory=Counter)
    rating: float = 0.0
    rank: int = 0
    #: the points scored against the teams level with this one on points and wins (``None``: none is)
    head_to_head: float | None = None


def game_points(
    scoring: str, winner: int | None, points: tuple[float | None, ...] | None, players: int = 2
) -> tuple[float, ...]:
    """The points each seat scores: ``standard`` 1/0 and ½ each for a draw; ``course2019`` the
    course points the game reports (86/0, small boards on a draw). With more than two seats,
    a seat scores the share of the other seats it finished ahead of (by the points the game
    reports: its returns), a tie counting half."""
    if players > 2:
        if points is None or any(value is None for value in points):
            return (0.0,) * players  # (a game with no result: left unfinished)
        returns = [float(value) for value in points if value is not None]
        return tuple(pairwise_score(returns, seat) for seat in range(players))
    if scoring == "course2019" and points is not None and None not in points:
        return (float(points[0] or 0.0), float(points[1] or 0.0))
    if winner is None:
        return (0.5, 0.5)
    return (1.0, 0.0) if winner == 0 else (0.0, 1.0)


def _count_two(game: GameResult, lines: dict[str, Standing], between: dict[tuple[str, str], float]) -> None:
    """Count a game of two seats (``count`` alike) into ``lines`` and ``between``, as ``table``
    counts any game (``standing``, ``against``): unless one of its teams is not in ``lines``."""
    first, second = game.teams
    one, other = lines.get(first), lines.get(second)
    if one is None or other is None:
        return
    n, (mine, theirs) = game.count, game.points
    one.games += n
    other.games += n
    one.points += mine * n
    other.points += theirs * n
    if game.winner is None:
        one.draws += n
        other.draws += n
    elif game.winner == 0:
        one.wins += n
        other.losses += n
    else:
        one.losses += n
        other.wins += n
    between[first, second] += mine * n
    between[second, first] += theirs * n
    if game.offender is not None:
        (one if game.offender == 0 else other).forfeits[game.termination] += n


def table(teams: Iterable[str], games: Iterable[GameResult], ratings: Mapping[str, float]) -> list[Standing]:
    """The ranked standings of ``teams`` over ``games`` (games with other teams are ignored)."""
    lines = {team: Standing(team, rating=ratings.get(team, 0.0)) for team in teams}
    between: dict[tuple[str, str], float] = defaultdict(float)
    for game in games:
        if len(game.teams) == 2:  # (most games, counted without a call a seat: a league's are many)
            _count_two(game, lines, between)
            continue
        if any(team not in lines for team in game.teams):
            continue
        for seat, team in enumerate(game.teams):
            line = lines[team]
            line.count(game.standing(seat), game.points[seat], game.count)
            for opponent, scored in game.against(seat):
                between[team, opponent] += scored * game.count
            if game.offender == seat:
                line.forfeits[game.termination] += game.count
    ordered = sorted(lines.values(), key=lambda s: (-s.points, -s.wins))
    ranked: list[Standing] = []
    start = 0
    while start < len(ordered):  # break ties inside each group of equal points and wins
        end = start + 1
        while end < len(ordered) and (ordered[end].points, ordered[end].wins) == (
            ordered[start].points,
            ordered[start].wins,
        ):
            end += 1
        group = ordered[start:end]
        names = {s.team for s in group}
        h2h = {s.team: sum(between[s.team, o] for o in names if o != s.team) for s in group}
        if len(group) > 1:
            for line in group:
                line.head_to_head = h2h[line.team]
        ranked += sorted(group, key=lambda s: (-h2h[s.team], -s.rating, s.team))
        start = end
    for rank, line in enumerate(ranked, 1):
        line.rank = rank
    return ranked


#: each tie-break as the standings name it, in the order they apply
TIE_BREAKS = {
    "wins": "wins",
    "head_to_head": "head-to-head points",
    "rating": "TrueSkill μ−3σ",
    "name": "name",
    # a Swiss's, a knockout's, a gauntlet's and an adaptive stage's own (arena/formats/format_standings.py)
    "buchholz": "Buchholz",
    "matches_won": "knockout matches won",
    "seed": "seed",
    "share": "score share %",
    "elo": "Elo",
}


@dataclass(frozen=True, slots=True)
class TieBreak:
    """How ``winner`` came to be placed just above ``loser``, level with it on points: the rule
    that decided (a key of ``TIE_BREAKS``) and each team's value under it (``None`` for name)."""

    rule: str
    winner: str
    loser: str
    values: tuple[float, float] | None

    def describe(self, team: str) -> str:
        """The tie-break from ``team``'s side, e.g. ``over Beta: TrueSkill μ−3σ 34.22 vs 34.06``
        (its own value first), or ``behind Alpha: ...``."""
        won = team == self.winner
        side = f"over {self.loser}" if won else f"behind {self.winner}"
        if self.values is None:
            return f"{side}: name, all else equal"
        own, other = self.values if won else self.values[::-1]
        shown = _distinct(own, other) if self.rule == "rating" else (_count(own), _count(other))
        return f"{side}: {TIE_BREAKS[self.rule]} {shown[0]} vs {shown[1]}"


def _count(value: float) -> str:
    """Wins or points as a count: ``3``, ``172``, ``1.5``."""
    return str(int(value)) if value == int(value) else f"{value:g}"


def _distinct(a: float, b: float) -> tuple[str, str]:
    """``a`` and ``b`` to two decimals, or to as many more as it takes to tell them apart."""
    for digits in range(2, 10):
        shown = (f"{a:.{digits}f}", f"{b:.{digits}f}")
        if shown[0] != shown[1]:
            return shown
    return (repr(a), repr(b))


def tie_break(upper: Standing, lower: Standing, *, same_pool: bool) -> TieBreak | None:
    """The tie-break that put ``upper`` above ``lower`` when both have as many points (``None``
    when their points differ). ``same_pool``: they are lines of one ``table``, so the points
    between the tied teams count; teams of different pools go by wins, rating, then name."""
    if upper.points != lower.points:
        return None
    if upper.wins != lower.wins:
        return TieBreak("wins", upper.team, lower.team, (upper.wins, lower.wins))
    if (
        same_pool
        and upper.head_to_head is not None
        and lower.head_to_head is not None
        and upper.head_to_head != lower.head_to_head
    ):
        return TieBreak("head_to_head", upper.team, lower.team, (upper.head_to_head, lower.head_to_head))
    if upper.rating != lower.rating:
        return TieBreak("rating", upper.team, lower.team, (upper.rating, lower.rating))
    return TieBreak("name", upper.team, lower.team, None)
