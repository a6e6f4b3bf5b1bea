"""Standings of a pool, a stage or a whole tournament, with the course's tie-breaks.

Teams are ranked by points, then wins, then the points of the games between the tied teams,
then the TrueSkill conservative rating, then name (docs/course2019.md).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class GameResult:
    """The part of a finished game that standings need."""

    id: int
    first: str
    second: str
    winner: int | None
    points: tuple[float, float]
    termination: str
    offender: int | None


@dataclass(slots=True, kw_only=True)
class Tally:
    """Games, their wins, draws and losses, and the points scored in them."""

    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: float = 0.0

    def count(self, seat: int, winner: int | None, points: float) -> None:
        """Add a game played as ``seat`` that ``winner`` won (``None``: a draw)."""
        self.games += 1
        self.points += points
        if winner is None:
            self.draws += 1
        elif winner == seat:
            self.wins += 1
        else:
            self.losses += 1


@dataclass(slots=True)
class Standing(Tally):
    """One team's line in a table."""

    team: str
    forfeits: Counter[str] = field(default_factory=Counter)
    rating: float = 0.0
    rank: int = 0


def game_points(scoring: str, winner: int | None, points: tuple[float, float] | None) -> tuple[float, float]:
    """The points each seat scores: ``standard`` 1/0 and ½ each for a draw; ``course2019`` the
    course points the game reports (86/0, small boards on a draw)."""
    if scoring == "course2019" and points is not None:
        return (float(points[0]), float(points[1]))
    if winner is None:
        return (0.5, 0.5)
    return (1.0, 0.0) if winner == 0 else (0.0, 1.0)


def table(teams: Iterable[str], games: Iterable[GameResult], ratings: Mapping[str, float]) -> list[Standing]:
    """The ranked standings of ``teams`` over ``games`` (games with other teams are ignored)."""
    lines = {team: Standing(team, rating=ratings.get(team, 0.0)) for team in teams}
    between: dict[tuple[str, str], float] = defaultdict(float)
    for game in games:
        if game.first not in lines or game.second not in lines:
            continue
        for seat, team in enumerate((game.first, game.second)):
            line = lines[team]
            line.count(seat, game.winner, game.points[seat])
            opponent = game.second if seat == 0 else game.first
            between[team, opponent] += game.points[seat]
            if game.offender == seat:
                line.forfeits[game.termination] += 1
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
        ranked += sorted(group, key=lambda s: (-h2h[s.team], -s.rating, s.team))
        start = end
    for rank, line in enumerate(ranked, 1):
        line.rank = rank
    return ranked
