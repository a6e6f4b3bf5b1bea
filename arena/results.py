"""A tournament's results as the database holds them: ratings, the leaderboard, the stages and
pools with who went on, the podium, the crosstable and the totals.

Everything here is read, never written: the same stored games always give the same results.
Ratings are TrueSkill replayed in schedule order (``arena.rating``); pool standings are the
harness's own (``arena.stages.pool_standings``), so what the report shows is what decided
advancement.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.config import GameDef, RatingDef, StageDef, TimeDef, TournamentDef, load_yaml
from arena.errors import ArenaError
from arena.rating import RatingHistory, replay_ratings
from arena.records import Termination
from arena.stages import advancing, expected_games, pool_standings, results
from arena.standings import GameResult, Standing, game_points, table
from arena.store import Bot, Entry, Game, GameVoid, Move, PoolEntry, Tournament

#: how each TrueSkill setting is shown, in the order the report lists them
RATING_SETTINGS = (("mu", "μ"), ("sigma", "σ"), ("beta", "β"), ("tau", "τ"), ("draw_probability", "draw probability"))


class UnknownTournamentError(ArenaError, LookupError):
    """No tournament of that name in the database."""


class UnknownGameIdError(ArenaError, LookupError):
    """No game with that id in the database."""


# ---------------------------------------------------------------- finding what was asked for


def find_tournament(session: Session, name: str | None = None) -> Tournament:
    """The tournament called ``name``, or the latest one; a message naming the others if none."""
    if name is None:
        found = session.scalars(select(Tournament).order_by(Tournament.id.desc())).first()
        if found is None:
            raise UnknownTournamentError(
                "there are no tournaments in this database yet: run one with 'arena run FILE' (or pass the right --db)"
            )
        return found
    found = session.scalars(select(Tournament).where(Tournament.name == name)).first()
    if found is None:
        known = list(session.scalars(select(Tournament.name).order_by(Tournament.id)))
        listing = ", ".join(known[-10:]) if known else "none yet"
        raise UnknownTournamentError(
            f"no tournament {name!r} in this database; the tournaments: {listing} (list them with 'arena tournaments')"
        )
    return found


def find_game(session: Session, game_id: int) -> Game:
    """The stored game ``game_id``; a message saying how to list games if there is none."""
    found = session.get(Game, game_id)
    if found is None:
        last = session.scalar(select(func.max(Game.id)))
        where = f"game ids run from 1 to {last}" if last else "this database has no games yet"
        raise UnknownGameIdError(
            f"no game {game_id} in this database ({where}); list games with "
            "'arena games' or 'arena games --tournament NAME'"
        )
    return found


def tournament_config(tournament: Tournament) -> TournamentDef:
    """The tournament's stored configuration; where it does not validate in full (the games of
    ``arena play`` have no teams list), the parts results need (game, scoring, time, rating,
    stages, teams) are validated alone."""
    data = tournament.config
    try:
        return TournamentDef.model_validate(data)
    except (ValidationError, ArenaError):
        pass
    try:
        return TournamentDef.model_construct(
            name=data["name"],
            game=GameDef.model_validate(data["game"]),
            seed=data.get("seed", 0),
            scoring=data.get("scoring", "standard"),
            time=TimeDef.model_validate(data.get("time") or {}),
            workers=data.get("workers"),
            rating=RatingDef.model_validate(data.get("rating") or {}),
            bots=dict(data.get("bots") or {}),
            teams=data.get("teams"),
            stages=[StageDef.model_validate(stage) for stage in data.get("stages") or [{}]],
        )
    except (ValidationError, KeyError, TypeError, ArenaError) as error:
        raise ArenaError(
            f"the stored configuration of tournament {tournament.name!r} cannot be read by this "
            f"version of arena: {error}"
        ) from None


@dataclass(frozen=True, slots=True)
class RatingSetting:
    """One TrueSkill setting used: its name, symbol, value, and whether the file set it."""

    name: str
    symbol: str
    value: float
    source: str  # "tournament file" or "default"


def rating_settings(tournament: Tournament, rating: RatingDef) -> list[RatingSetting]:
    """The TrueSkill environment used for ``tournament``, each value with where it came from."""
    try:
        written = load_yaml(tournament.config_text, "the stored tournament file") or {}
        given = written.get("rating") or {} if isinstance(written, dict) else {}
    except ArenaError:
        given = {}
    given = given if isinstance(given, dict) else {}
    return [
        RatingSetting(name, symbol, getattr(rating, name), "tournament file" if name in given else "default")
        for name, symbol in RATING_SETTINGS
    ]


def pool_name(pool: int) -> str:
    """How pools are called: A, B, C, ... (numbers after Z)."""
    return chr(ord("A") + pool) if pool < 26 else str(pool + 1)


# ---------------------------------------------------------------- what a report is made of


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


@dataclass(slots=True)
class GameSummary:
    """A scheduled game as the results see it (its moves are read separately)."""

    id: int
    stage: int
    pool: int
    round: int
    first: str
    second: str
    status: str
    winner: int | None
    points: tuple[float, float] | None  # by the tournament's scoring
    raw_points: tuple[float, float] | None  # as the game reported them (xtreme: course points)
    termination: str | None
    offender: int | None
    detail: str | None
    plies: int | None
    started_at: float | None
    finished_at: float | None
    stderr: tuple[str | None, str | None] = (None, None)
    think: tuple[Think, Think] = (Think(), Think())
    #: why it was voided and played again, each time (the machine was too busy to time it)
    voids: tuple[str, ...] = ()

    @property
    def finished(self) -> bool:
        return self.status == "finished"

    @property
    def seats(self) -> tuple[str, str]:
        return (self.first, self.second)

    @property
    def forfeit(self) -> str | None:
        """The kind of forfeit that ended the game, or ``None``."""
        if self.offender is None or self.termination is None:
            return None
        try:
            return self.termination if Termination(self.termination).is_forfeit else None
        except ValueError:
            return self.termination

    def score_of(self, team: str) -> str:
        """``W``, ``D`` or ``L`` from ``team``'s side (``-`` while unplayed)."""
        if not self.finished:
            return "-"
        if self.winner is None:
            return "D"
        return "W" if self.seats[self.winner] == team else "L"


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
        return pool_name(self.pool)


@dataclass(slots=True)
class StageTable:
    """A stage: its definition, its pools and how far it got."""

    number: int
    definition: StageDef
    pools: list[PoolTable]
    planned: int
    finished: int

    @property
    def name(self) -> str:
        return self.definition.name

    @property
    def status(self) -> str:
        if not self.planned:
            return "not started"
        return "complete" if self.finished == self.planned else "in progress"


@dataclass(slots=True)
class CrossCell:
    """What a team scored against one opponent over all their games."""

    points: float = 0.0
    against: float = 0.0
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0

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


@dataclass(slots=True)
class Results:
    """Everything the leaderboard and the report show of one tournament."""

    tournament: Tournament
    config: TournamentDef
    teams: list[Team]
    games: list[GameSummary]
    ratings: dict[str, RatingHistory]
    leaderboard: list[LeaderboardLine]
    stages: list[StageTable]
    crosstable: dict[tuple[str, str], CrossCell]
    totals: Totals
    rating_settings: list[RatingSetting]
    podium_stage: str | None
    podium: list[Standing]

    @property
    def complete(self) -> bool:
        """Whether the tournament ran to its end (every game of every stage played)."""
        return self.tournament.status == "finished" and self.totals.finished == self.totals.expected

    @property
    def has_course_points(self) -> bool:
        """Whether the game reports points of its own (xtreme's course points)."""
        return any(g.raw_points is not None for g in self.games)

    def team(self, name: str) -> Team:
        return next(t for t in self.teams if t.name == name)

    def games_of(self, team: str) -> list[GameSummary]:
        """``team``'s games, in schedule order."""
        return [g for g in self.games if team in g.seats]


# ---------------------------------------------------------------- reading them


def load_teams(session: Session, tournament: Tournament) -> list[Team]:
    """The tournament's teams with their bots, in entry order."""
    rows = session.execute(
        select(Entry, Bot)
        .join(Bot, Entry.bot_id == Bot.id)
        .where(Entry.tournament_id == tournament.id)
        .order_by(Entry.number)
    )
    return [
        Team(e.id, e.number, e.team, b.name, b.version, b.kind, b.target, b.params, b.description or "")
        for e, b in rows
    ]


def load_games(session: Session, tournament: Tournament, scoring: str) -> list[GameSummary]:
    """Every scheduled game of the tournament, in schedule order, with each seat's think time."""
    teams = dict(session.execute(select(Entry.id, Entry.team).where(Entry.tournament_id == tournament.id)).all())
    think: dict[tuple[int, int], Think] = {}
    aggregate = (
        select(Move.game_id, Move.seat, func.count(), func.sum(Move.wall_ms), func.max(Move.wall_ms))
        .join(Game, Game.id == Move.game_id)
        .where(Game.tournament_id == tournament.id)
        .group_by(Move.game_id, Move.seat)
    )
    for game_id, seat, count, total, longest in session.execute(aggregate):
        think[game_id, seat] = Think(count, total or 0.0, longest or 0.0)
    voids: dict[int, list[str]] = {}
    voided = (
        select(GameVoid.game_id, GameVoid.reason)
        .join(Game, Game.id == GameVoid.game_id)
        .where(Game.tournament_id == tournament.id)
        .order_by(GameVoid.id)
    )
    for game_id, reason in session.execute(voided):
        voids.setdefault(game_id, []).append(reason)
    games = []
    for g in session.scalars(select(Game).where(Game.tournament_id == tournament.id).order_by(Game.id)):
        raw = g.points
        finished = g.status == "finished"
        games.append(
            GameSummary(
                g.id,
                g.stage,
                g.pool,
                g.round,
                teams[g.seat0],
                teams[g.seat1],
                g.status,
                g.winner,
                game_points(scoring, g.winner, raw) if finished else None,
                raw,
                g.termination,
                g.offender,
                g.detail,
                g.plies,
                g.started_at,
                g.finished_at,
                (g.stderr0, g.stderr1),
                (think.get((g.id, 0), Think()), think.get((g.id, 1), Think())),
                tuple(voids.get(g.id, ())),
            )
        )
    return games


def load_moves(session: Session, tournament: Tournament) -> dict[int, list[tuple[int, str, float]]]:
    """Every stored move of the tournament: game id -> [(seat, move text, wall ms)] by ply."""
    moves: dict[int, list[tuple[int, str, float]]] = defaultdict(list)
    query = (
        select(Move.game_id, Move.seat, Move.move, Move.wall_ms)
        .join(Game, Game.id == Move.game_id)
        .where(Game.tournament_id == tournament.id)
        .order_by(Move.game_id, Move.ply)
    )
    for game_id, seat, text, wall in session.execute(query):
        moves[game_id].append((seat, text, wall))
    return moves


def leaderboard(
    teams: list[Team], games: list[GameSummary], played: list[GameResult], ratings: dict[str, RatingHistory]
) -> list[LeaderboardLine]:
    """Every team ranked by μ − 3σ (then points, then name), with its record over the finished
    games ``played`` and its think time."""
    finished = [g for g in games if g.finished]
    standings = {line.team: line for line in table([t.name for t in teams], played, {})}
    course: dict[str, float] = defaultdict(float)
    think: dict[str, list[float]] = {t.name: [0, 0.0, 0.0] for t in teams}
    with_points = any(g.raw_points is not None for g in finished)
    for g in finished:
        for seat, name in enumerate(g.seats):
            if g.raw_points is not None:
                course[name] += g.raw_points[seat]
            moves, total, longest = think[name]
            t = g.think[seat]
            think[name] = [moves + t.moves, total + t.total_ms, max(longest, t.max_ms)]
    lines = []
    for team in teams:
        s, r = standings[team.name], ratings[team.name]
        moves, total, longest = think[team.name]
        lines.append(
            LeaderboardLine(
                0,
                team.name,
                team.bot,
                r.conservative,
                r.mu,
                r.sigma,
                s.games,
                s.wins,
                s.draws,
                s.losses,
                s.points,
                course[team.name] if with_points else None,
                dict(sorted(s.forfeits.items())),
                int(moves),
                total / moves if moves else None,
                longest if moves else None,
            )
        )
    lines.sort(key=lambda line: (-line.conservative, -line.points, line.team))
    for rank, line in enumerate(lines, 1):
        line.rank = rank
    return lines


def crosstable(games: list[GameSummary]) -> dict[tuple[str, str], CrossCell]:
    """(team, opponent) -> what the team scored against that opponent, over every stage."""
    cells: dict[tuple[str, str], CrossCell] = defaultdict(CrossCell)
    for g in games:
        if not g.finished or g.points is None:
            continue
        for seat, (team, opponent) in enumerate(((g.first, g.second), (g.second, g.first))):
            cell = cells[team, opponent]
            cell.points += g.points[seat]
            cell.against += g.points[1 - seat]
            cell.games += 1
            if g.winner is None:
                cell.draws += 1
            elif g.winner == seat:
                cell.wins += 1
            else:
                cell.losses += 1
    return dict(cells)


def stage_tables(
    session: Session, tournament: Tournament, config: TournamentDef, games: list[GameSummary], ratings: dict[str, float]
) -> list[StageTable]:
    """Each stage's pools with their standings and who went on (the next stage's teams, or, for a
    stage complete whose next stage is not drawn yet, those who will)."""
    members: dict[int, set[str]] = defaultdict(set)
    teams = dict(session.execute(select(Entry.id, Entry.team).where(Entry.tournament_id == tournament.id)).all())
    for stage, entry in session.execute(
        select(PoolEntry.stage, PoolEntry.entry_id).where(PoolEntry.tournament_id == tournament.id)
    ):
        members[stage].add(teams[entry])
    counts: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0])
    for g in games:
        counts[g.stage, g.pool][0] += 1
        counts[g.stage, g.pool][1] += g.finished
    stages = []
    for number, definition in enumerate(config.stages):
        planned = sum(c[0] for (s, _), c in counts.items() if s == number)
        finished = sum(c[1] for (s, _), c in counts.items() if s == number)
        pools: list[PoolTable] = []
        if members.get(number):
            last = number == len(config.stages) - 1
            if members.get(number + 1):
                advanced = frozenset(members[number + 1])
            elif not last and planned and finished == planned:
                advanced = frozenset(e.team for e in advancing(session, tournament, config, number, ratings))
            else:
                advanced = frozenset()
            for pool, lines in enumerate(pool_standings(session, tournament, config, number, ratings)):
                planned_pool, finished_pool = counts.get((number, pool), [0, 0])
                pools.append(
                    PoolTable(
                        number, pool, lines, advanced & {line.team for line in lines}, planned_pool, finished_pool
                    )
                )
        stages.append(StageTable(number, definition, pools, planned, finished))
    return stages


def podium(stages: list[StageTable]) -> tuple[str | None, list[Standing]]:
    """The stage that decides the podium (the last one played so far) and its top three,
    provisional until the tournament is complete: one pool's own ranking, or across pools by
    points, wins, then rating."""
    played = [s for s in stages if s.pools and s.finished]
    if not played:
        return None, []
    last = played[-1]
    if len(last.pools) == 1:
        return last.name, last.pools[0].lines[:3]
    merged = [line for pool in last.pools for line in pool.lines]
    merged.sort(key=lambda s: (-s.points, -s.wins, -s.rating, s.team))
    return last.name, merged[:3]


def totals(config: TournamentDef, games: list[GameSummary]) -> Totals:
    """Games expected, planned and played, moves, draws and forfeits by kind."""
    finished = [g for g in games if g.finished]
    return Totals(
        expected=expected_games(config),
        planned=len(games),
        finished=len(finished),
        moves=sum(g.plies or 0 for g in finished),
        forfeits=Counter(g.forfeit for g in finished if g.forfeit),
        draws=sum(1 for g in finished if g.winner is None),
        replays=sum(len(g.voids) for g in games),
    )


def load_results(session: Session, tournament: Tournament) -> Results:
    """Everything about ``tournament`` that the leaderboard and the report show."""
    config = tournament_config(tournament)
    teams = load_teams(session, tournament)
    games = load_games(session, tournament, config.scoring)
    played = results(session, tournament, config.scoring)
    ratings = replay_ratings(
        [t.name for t in teams], [(g.id, g.first, g.second, g.winner) for g in played], config.rating
    )
    conservative = {team: history.conservative for team, history in ratings.items()}
    stages = stage_tables(session, tournament, config, games, conservative)
    return Results(
        tournament,
        config,
        teams,
        games,
        ratings,
        leaderboard(teams, games, played, ratings),
        stages,
        crosstable(games),
        totals(config, games),
        rating_settings(tournament, config.rating),
        *podium(stages),
    )


def describe_status(found: Results) -> str | None:
    """A sentence for a tournament that did not run to its end, else ``None``."""
    t, done = found.tournament, found.totals
    if found.complete:
        return None
    progress = f"{done.finished} of {done.expected} games played"
    if t.status == "running":
        return f"This tournament is still running (or its run was killed): reported as far as it got, {progress}."
    if t.status == "interrupted":
        return f"This tournament was interrupted: reported as far as it got, {progress}; 'arena run' resumes it."
    if t.status == "pending":
        return f"This tournament has not started yet: {progress}."
    return f"This tournament is {t.status}: {progress}."


def params_text(params: str) -> str:
    """A bot's stored parameters as ``key=value`` pairs (empty when it has none)."""
    try:
        data = json.loads(params or "{}")
    except ValueError:
        return params
    return ", ".join(f"{k}={v}" for k, v in sorted(data.items()))
