"""The tables a tournament's results are made of (arena/results/tournament_results.py reads them from the
database): its teams, its games, the leaderboard's lines, the Elo leaderboard, the stages with
their pools' standings, the crosstable's cells and the totals."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from arena.core.records import Termination
from arena.formats.format_standings import RANKED_BY
from arena.formats.rounds import Match, round_name
from arena.formats.stagedef import StageDef
from arena.formats.standings import Standing, Tally
from arena.games.base import RESULTS
from arena.results.lookup import pool_name
from arena.stats.elo import EloFit


@dataclass(frozen=True, slots=True)
class Team:
    """A team of the tournament and the bot version it played with."""

    entry_id: int
    number: int
    name: str
    bot: str
    version: int
    kind: str
    target: str
    params: str
    description: str


@dataclass(frozen=True, slots=True)
class Think:
    """One seat's thinking in one game: its moves, their total and longest wall time (ms)."""

    moves: int = 0
    total_ms: float = 0.0
    max_ms: float = 0.0


def forfeit_kind(termination: str | None) -> str | None:
    """The kind of forfeit a game that ended by ``termination`` with a seat to blame is, or
    ``None`` (an end that is no forfeit); a termination this version does not know, itself."""
    if termination is None:
        return None
    try:
        return termination if Termination(termination).is_forfeit else None
    except ValueError:
        return termination


@dataclass(slots=True)
class TeamSeats:
    """A team's seats over its finished games: its thinking, and the points the game reported
    in those where it reported some for every seat (``None``: it never did)."""

    think: Think = field(default_factory=Think)
    reported: float | None = None


@dataclass(slots=True)
class GameSummary:
    """A scheduled game as the results see it (its moves are read separately)."""

    id: int
    stage: int
    pool: int
    round: int
    #: the teams, in seat order
    teams: tuple[str, ...]
    status: str
    winner: int | None
    points: tuple[float, ...] | None  # by the tournament's scoring
    raw_points: tuple[float, ...] | None  # as the game reported them (xtreme: course points; a game's returns)
    termination: str | None
    offender: int | None
    detail: str | None
    plies: int | None
    started_at: float | None
    finished_at: float | None
    stderr: tuple[str | None, ...] = (None, None)
    think: tuple[Think, ...] = (Think(), Think())
    #: why it was voided and played again, each time (the machine was too busy to time it)
    voids: tuple[str, ...] = ()

    @property
    def first(self) -> str:
        """The team of seat 0."""
        return self.teams[0]

    @property
    def second(self) -> str:
        """The team of seat 1."""
        return self.teams[1]

    @property
    def finished(self) -> bool:
        """Whether the game was played to its end (normally or by a forfeit)."""
        return self.status == "finished"

    @property
    def seats(self) -> tuple[str, ...]:
        """The teams, in seat order."""
        return self.teams

    @property
    def places(self) -> tuple[int, ...] | None:
        """Each seat's finishing place in the finished game (1 is first, equal points share a
        place): with two seats from the winner, with more from the points the game reported
        (its returns); ``None`` unfinished, or without points where it has more seats."""
        if not self.finished:
            return None
        if len(self.teams) == 2:
            return (1, 1) if self.winner is None else (1, 2) if self.winner == 0 else (2, 1)
        points = self.raw_points if self.raw_points is not None else self.points
        if points is None or len(points) != len(self.teams):
            return None
        return tuple(1 + sum(other > value for other in points) for value in points)

    @property
    def result(self) -> str:
        """The result as a table writes it: ``1-0``, ``0-1`` or ``½-½`` with two seats, each
        seat's finishing place with more (``1-3-2``); empty while unfinished."""
        if not self.finished:
            return ""
        if len(self.teams) == 2:
            return RESULTS.get(self.winner, "")
        places = self.places
        return "" if places is None else "-".join(map(str, places))

    @property
    def forfeit(self) -> str | None:
        """The kind of forfeit that ended the game, or ``None``."""
        return None if self.offender is None else forfeit_kind(self.termination)

    def pairs(self) -> list[tuple[int, str, str, float, float]]:
        """The finished game as what each seat scored against each other seat: (seat, team,
        opponent, its points, the opponent's points). Two seats: the game's points; more: 1, ½
        or 0 for finishing ahead of, level with or behind the opponent (and the opponent's
        reverse): a game of N seats is N·(N−1)/2 games of two, as for Elo."""
        points = self.points
        if points is None:
            return []
        found = []
        for seat, team in enumerate(self.teams):
            for other, opponent in enumerate(self.teams):
                if other == seat:
                    continue
                if len(self.teams) == 2:
                    found.append((seat, team, opponent, points[seat], points[other]))
                else:
                    mine = 1.0 if points[seat] > points[other] else 0.5 if points[seat] == points[other] else 0.0
                    found.append((seat, team, opponent, mine, 1.0 - mine))
        return found

    def standing(self, seat: int) -> str:
        """How ``seat`` did in a finished game: ``win``, ``draw`` or ``loss`` (``score_of``)."""
        return {"W": "win", "D": "draw", "L": "loss"}[self.score_of(self.teams[seat])]

    def score_of(self, team: str) -> str:
        """``W``, ``D`` or ``L`` from ``team``'s side (``-`` while unplayed): with more than two
        seats, ``W`` alone on top, ``D`` on top with others, ``L`` otherwise."""
        if not self.finished:
            return "-"
        if self.winner is not None:
            return "W" if self.seats[self.winner] == team else "L"
        if len(self.teams) == 2 or self.points is None:
            return "D"
        return "D" if self.points[self.teams.index(team)] == max(self.points) else "L"


@dataclass(slots=True)
class LeaderboardLine:
    """One team's line of the leaderboard, ranked by the conservative rating μ − 3σ."""

    rank: int
    team: str
    bot: str
    conservative: float
    mu: float
    sigma: float
    games: int
    wins: int
    draws: int
    losses: int
    points: float
    course_points: float | None
    forfeits: dict[str, int]
    moves: int
    mean_ms: float | None
    max_ms: float | None
    #: the team's Elo over the same games, with its 95 % interval (``EloTable``)
    elo: float | None = None
    elo_lower: float | None = None
    elo_upper: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """The line as JSON-ready data."""
        return {
            "rank": self.rank,
            "team": self.team,
            "bot": self.bot,
            "rating": round(self.conservative, 4),
            "mu": round(self.mu, 4),
            "sigma": round(self.sigma, 4),
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "points": self.points,
            "course_points": self.course_points,
            "forfeits": dict(self.forfeits),
            "moves": self.moves,
            "mean_ms": None if self.mean_ms is None else round(self.mean_ms, 3),
            "max_ms": self.max_ms,
            "elo": _rounded(self.elo),
            "elo_lower": _rounded(self.elo_lower),
            "elo_upper": _rounded(self.elo_upper),
        }


def _rounded(value: float | None, digits: int = 2) -> float | None:
    return None if value is None else round(value, digits)


@dataclass(frozen=True, slots=True)
class EloLine:
    """One team's line of the Elo leaderboard: its Elo with the interval, its record in the
    games fitted, and the likelihood of superiority over the team ranked next (``None`` for the
    last)."""

    rank: int
    team: str
    bot: str
    elo: float
    lower: float
    upper: float
    games: int
    wins: int
    draws: int
    losses: int
    los_next: float | None

    @property
    def error(self) -> float:
        """The half width of the interval (the ``±`` figure)."""
        return (self.upper - self.lower) / 2.0

    @property
    def score(self) -> float | None:
        """The share of the points the team took, a win 1 and a draw ½ (``None`` without games)."""
        return (self.wins + self.draws / 2) / self.games if self.games else None

    def to_dict(self) -> dict[str, Any]:
        """The line as JSON-ready data."""
        return {
            "rank": self.rank,
            "team": self.team,
            "bot": self.bot,
            "elo": round(self.elo, 2),
            "elo_lower": round(self.lower, 2),
            "elo_upper": round(self.upper, 2),
            "elo_error": round(self.error, 2),
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "score": _rounded(self.score, 4),
            "los_next": _rounded(self.los_next, 4),
        }


@dataclass(frozen=True, slots=True)
class EloTable:
    """The Elo leaderboard of a tournament's finished games (of one ``stage``, or all when it
    is ``None``): the fit behind it and its lines, best first."""

    stage: str | None
    games: int
    fit: EloFit
    lines: list[EloLine]

    def line(self, team: str) -> EloLine:
        """The line of ``team``."""
        return next(line for line in self.lines if line.team == team)

    def los(self, a: str, b: str) -> float:
        """The likelihood that team ``a`` is stronger than team ``b``."""
        return self.fit.los(a, b)

    def settings(self) -> dict[str, Any]:
        """How the fit was made, as JSON-ready data."""
        return {
            "model": "Bradley-Terry maximum likelihood; a draw is half a win and half a loss",
            "stage": self.stage,
            "games": self.games,
            "confidence": self.fit.confidence,
            "prior_draws": self.fit.prior_draws,
            "anchor": self.fit.anchor or "the field's mean",
            "anchor_elo": self.fit.anchor_elo,
        }


@dataclass(slots=True)
class PoolTable:
    """A pool's standings, with the course tie-breaks, and who went on from it."""

    stage: int
    pool: int
    lines: list[Standing]
    advanced: frozenset[str]
    planned: int
    finished: int

    @property
    def name(self) -> str:
        """The pool's letter (A, B, ...)."""
        return pool_name(self.pool)


@dataclass(slots=True)
class StageTable:
    """A stage: its definition, its pools and how far it got; a stage planned round by round
    also has its rounds so far and whether more are to come, and a knockout its bracket."""

    number: int
    definition: StageDef
    pools: list[PoolTable]
    planned: int
    finished: int
    #: the rounds planned so far (a Swiss's, a knockout's; an adaptive stage's batches count)
    rounds: int = 0
    #: whether the stage has rounds still to be planned (its games so far are all finished)
    more: bool = False
    #: a knockout's matches, round by round, as far as they went
    bracket: list[list[Match]] = field(default_factory=list)

    @property
    def name(self) -> str:
        """The stage's name in the tournament file."""
        return self.definition.name

    @property
    def format(self) -> str:
        """The stage's format: ``round_robin``, ``swiss``, ``knockout``, ``gauntlet`` or ``adaptive``."""
        return self.definition.format

    @property
    def ranked_by(self) -> str:
        """What the stage's standings rank by, in words."""
        return RANKED_BY[self.definition.format]

    @property
    def summary(self) -> str:
        """The stage's format in a few words: ``round robin``, ``Swiss, 2 of 5 rounds``,
        ``knockout``, ``gauntlet of mine, yours``, ``adaptive, 40 of 60 games``."""
        definition = self.definition
        if definition.format == "swiss":
            return f"Swiss, {self.rounds} of {definition.rounds} rounds"
        if definition.format == "gauntlet":
            return f"gauntlet of {', '.join(definition.named or ())}"
        if definition.format == "adaptive":
            return f"adaptive, {self.planned} of {definition.budget} games"
        return definition.format.replace("_", " ")

    @property
    def bracket_size(self) -> int:
        """A knockout's bracket size (its first round's lines, byes included; 0 before it is drawn)."""
        return 2 * len(self.bracket[0]) if self.bracket else 0

    def round_name(self, number: int) -> str:
        """What round ``number`` (from 0) of the knockout is called (``final``, ``semi-final``, ...)."""
        return round_name(number, self.bracket_size)

    @property
    def status(self) -> str:
        """``not started``, ``in progress`` or ``complete``."""
        if not self.planned:
            return "not started"
        return "complete" if self.finished == self.planned and not self.more else "in progress"


@dataclass(slots=True)
class CrossCell(Tally):
    """What a team scored against one opponent over all their games."""

    against: float = 0.0

    @property
    def share(self) -> float:
        """The team's share of the points of these games (0.5 when none were scored)."""
        total = self.points + self.against
        return self.points / total if total else 0.5


@dataclass(slots=True)
class Totals:
    """The tournament in figures."""

    expected: int
    planned: int
    finished: int
    moves: int
    forfeits: Counter[str] = field(default_factory=Counter)
    draws: int = 0
    replays: int = 0  # games played again because the machine was too busy to time them
    unfinished: int = 0  # games left without a result (a person left, the harness stopped one)

    def describe(self, of: str = "/") -> str:
        """``12/30 games`` (``of`` between the two), or for a tournament with no schedule (a
        person's games, a season's ladder) ``12 games``; and the games left unfinished, which
        are not rated."""
        counted = f"{self.finished}{of}{self.expected}" if self.expected else f"{self.finished}"
        left = f" ({self.unfinished} left unfinished, not rated)" if self.unfinished else ""
        return f"{counted} game{'s' if (self.expected or self.finished) != 1 else ''}{left}"
