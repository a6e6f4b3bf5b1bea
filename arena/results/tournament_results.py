"""A tournament's results as the database holds them: ratings, the leaderboard, the Elo
leaderboard, the stages and pools with who went on, the final standings and their podium, the
crosstable and the totals.

Everything here is read, never written: the same stored games always give the same results.
Ratings are the tournament's rating system (TrueSkill or OpenSkill) replayed in schedule order
(``arena.contests.rating``); Elo is a maximum-likelihood fit over the finished games with confidence
intervals (``arena.stats.elo``); pool standings are the harness's own
(``arena.contests.stages.pool_standings``), so what the report shows is what decided advancement; the
final standings place every team from them (``arena.results.final_standings``).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass, field
from functools import cached_property

from sqlalchemy import ColumnElement, func, or_, select
from sqlalchemy.orm import Session

from arena.contests.config import RatingDef, TournamentDef
from arena.contests.game_sums import GameSums, sum_games
from arena.contests.rating import RatingHistory, RatingSystem, replay_ratings, system_of
from arena.contests.stages import (
    StoredGames,
    advancing,
    expected_games,
    extra_games,
    knockout_bracket,
    next_plan,
    pool_standings,
    rate,
    results,
    stored_games,
)
from arena.contests.yamlfile import load_yaml
from arena.errors import ArenaError
from arena.formats.standings import GameResult, game_points, table
from arena.results.figures import rating_span
from arena.results.final_standings import Place, final_standings
from arena.results.lookup import tournament_config
from arena.results.nodestats import NodeLine, SeatSums, node_lines, seat_sums
from arena.results.tables import (
    CrossCell,
    EloLine,
    EloTable,
    GameSummary,
    LeaderboardLine,
    PoolTable,
    StageTable,
    Team,
    TeamSeats,
    Think,
    Totals,
    forfeit_kind,
)
from arena.stats.elo import Alike, fit_elo
from arena.store.models import (
    Bot,
    Entry,
    GameRow,
    GameSeat,
    GameVoid,
    MoveRow,
    Tournament,
    not_aborted,
)

#: how each rating setting is shown, in the order the report lists them
RATING_SETTINGS = (("mu", "μ"), ("sigma", "σ"), ("beta", "β"), ("tau", "τ"), ("draw_probability", "draw probability"))
#: the most teams the report's table of likelihoods of superiority shows (the best by Elo)
LOS_TEAMS = 16


@dataclass(frozen=True, slots=True)
class RatingSetting:
    """One rating setting used: its name, symbol, value, and whether the file set it."""

    name: str
    symbol: str
    value: float
    source: str  # "tournament file" or "default"


def rating_settings(tournament: Tournament, rating: RatingDef) -> list[RatingSetting]:
    """The settings of the rating system used for ``tournament`` (those it uses), each value
    with where it came from."""
    try:
        written = load_yaml(tournament.config_text, "the stored tournament file") or {}
        given = written.get("rating") or {} if isinstance(written, dict) else {}
    except ArenaError:
        given = {}
    given = given if isinstance(given, dict) else {}
    used = system_of(rating).settings
    return [
        RatingSetting(name, symbol, getattr(rating, name), "tournament file" if name in given else "default")
        for name, symbol in RATING_SETTINGS
        if name in used
    ]


@dataclass
class Results:
    """Everything the leaderboard and the report show of one tournament, worked out from sums
    the database makes and from its finished games' results with those alike counted together
    (``outcomes``); the leaderboard, the Elo fit and the crosstable when first asked for. Its
    games one by one (``games``, and ``ratings``' whole history) only when read with them."""

    tournament: Tournament
    config: TournamentDef
    teams: list[Team]
    #: every team's rating now (its history only since the ratings kept with the tournament)
    current: dict[str, RatingHistory]
    #: each stage's finished games' results, alike ones counted together (``GameResult.count``)
    outcomes: dict[int, list[GameResult]]
    #: each team's thinking and the points the game reported, over its finished games
    seated: dict[str, TeamSeats]
    stages: list[StageTable]
    totals: Totals
    rating_settings: list[RatingSetting]
    standings: list[Place]
    #: each team's moves the clock cut short of the bot's own budget (teams with none left out)
    cut: dict[str, int] = field(default_factory=dict)
    #: the most seats a game of the tournament has (2 before any is scheduled)
    seat_count: int = 2
    #: its finished games by the machine they were played on
    nodes: list[NodeLine] = field(default_factory=list)
    #: every scheduled game, in schedule order, and the finished ones as ratings take them (``None``:
    #: read without them, as the commands read)
    read_games: list[GameSummary] | None = None
    read_played: list[GameResult] | None = None
    #: the sums of its settled games, to be kept for the next read (``load_results(keep=True)``)
    sums: GameSums | None = None

    @property
    def games(self) -> list[GameSummary]:
        """Every scheduled game, in schedule order (``load_results(..., games=True)``)."""
        if self.read_games is None:
            raise ArenaError("these results were read without their games: load_results(..., games=True)")
        return self.read_games

    def cut_notes(self) -> list[str]:
        """A sentence for each team some of whose moves the clock cut (``cut_moves``)."""
        return [cut_note(team, count) for team, count in sorted(self.cut.items())]

    @cached_property
    def leaderboard(self) -> list[LeaderboardLine]:
        """Every team ranked by its rating, with its record, think time and Elo."""
        return leaderboard(self.teams, self.finished, self.seated, self.current, self.elo)

    @cached_property
    def finished(self) -> list[GameResult]:
        """Every stage's finished games' results (``outcomes``), in the order of their first games."""
        return sorted((result for found in self.outcomes.values() for result in found), key=lambda result: result.id)

    @cached_property
    def elo(self) -> EloTable:
        """The Elo leaderboard of every finished game."""
        return elo_table(self.teams, self.finished)

    def stage_elo(self, stage: StageTable) -> EloTable:
        """The Elo leaderboard of the finished games of ``stage``, among its teams."""
        return elo_table(self.teams, self.outcomes.get(stage.number, []), stage)

    @cached_property
    def crosstable(self) -> dict[tuple[str, str], CrossCell]:
        """(team, opponent) -> what the team scored against that opponent, over every stage."""
        return crosstable(self.finished)

    @cached_property
    def ratings(self) -> dict[str, RatingHistory]:
        """Every team's rating with its whole history, game by game (every finished game rated
        again: the team pages' charts need it, the leaderboard does not)."""
        if self.read_played is None:
            raise ArenaError("these results were read without their games: load_results(..., games=True)")
        names = [t.name for t in self.teams]
        return replay_ratings(names, [(g.id, g.teams, g.ranks()) for g in self.read_played], self.config.rating)

    @property
    def rating_system(self) -> RatingSystem:
        """The rating system the leaderboard ranks by (the tournament file's ``rating.system``)."""
        return system_of(self.config.rating)

    @property
    def complete(self) -> bool:
        """Whether the tournament ran to its end (every game of every stage played)."""
        return self.tournament.status == "finished" and self.totals.finished == self.totals.expected

    @property
    def podium(self) -> list[Place]:
        """The top three of the final standings, once the stage that places them has a finished
        game (provisional until the tournament is complete)."""
        if not self.standings or not self.stages[self.standings[0].stage].finished:
            return []
        return self.standings[:3]

    @property
    def has_course_points(self) -> bool:
        """Whether the game reports points of its own (xtreme's course points, a game's returns)."""
        return any(seats.reported is not None for seats in self.seated.values())

    @property
    def points_kind(self) -> str:
        """What the points the game reports are called: ``course`` (xtreme's course points),
        else ``game`` (a game's returns, such as the prizes won in goofspiel)."""
        spec = self.tournament.game
        return "course" if spec.get("name") == "xtreme" and not spec.get("module") else "game"

    @property
    def shows_game_points(self) -> bool:
        """Whether the leaderboard has a column of the points the game reports: where it reports
        them and they are not the points already (xtreme's course2019 scoring)."""
        return self.has_course_points and self.config.scoring != "course2019"

    def team(self, name: str) -> Team:
        """The team called ``name``."""
        return next(t for t in self.teams if t.name == name)

    def games_of(self, team: str) -> list[GameSummary]:
        """``team``'s games, in schedule order."""
        return self._games_by_team.get(team, [])

    @cached_property
    def _games_by_team(self) -> dict[str, list[GameSummary]]:
        by_team: dict[str, list[GameSummary]] = defaultdict(list)
        for g in self.games:
            for team in dict.fromkeys(g.seats):
                by_team[team].append(g)
        return by_team


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


def load_games(
    session: Session,
    tournament: Tournament,
    scoring: str,
    stored: StoredGames | None = None,
    *where: ColumnElement[bool],
) -> list[GameSummary]:
    """Every scheduled game of the tournament (those matching every condition of ``where``
    only, if given), in schedule order, with each seat's think time (``stored``: its games,
    if the caller read them already)."""
    stored = stored or stored_games(session, tournament)
    teams = stored.teams
    connection = session.connection()  # (rows as they come: no ORM work on each)
    chosen = (GameRow.tournament_id == tournament.id, *where)
    voids: dict[int, list[str]] = {}
    voided = select(GameVoid.game_id, GameVoid.reason).join(GameRow, GameRow.id == GameVoid.game_id)
    for game_id, reason in session.execute(voided.where(*chosen).order_by(GameVoid.id)):
        voids.setdefault(game_id, []).append(reason)
    details = select(GameRow.id, GameRow.detail, GameRow.plies, GameRow.started_at, GameRow.finished_at)
    more = {row[0]: row[1:] for row in connection.execute(details.where(*chosen)).all()}
    games = []
    for g in stored.some(*where) if where else stored.games:
        seated, raw = g.seats, g.points
        # a game left unfinished has no result: shown as such, never rated or counted as a draw
        status = "aborted" if g.status == "finished" and g.termination == "aborted" else g.status
        finished = status == "finished"
        detail, plies, started_at, finished_at = more.get(g.id, (None, None, None, None))  # (deleted meanwhile)
        games.append(
            GameSummary(
                g.id,
                g.stage,
                g.pool,
                g.round,
                tuple(teams[seat.entry_id] for seat in seated),
                status,
                g.winner,
                game_points(scoring, g.winner, raw, len(seated)) if finished else None,
                raw,
                g.termination,
                g.offender,
                detail,
                plies,
                started_at,
                finished_at,
                tuple(seat.stderr for seat in seated),
                tuple(Think(seat.moves or 0, seat.think_ms or 0.0, seat.longest_ms or 0.0) for seat in seated),
                tuple(voids.get(g.id, ())),
            )
        )
    return games


def team_games(session: Session, found: Results, team: Team) -> list[GameSummary]:
    """``team``'s games, in schedule order, read by themselves (``found`` read without games)."""
    own = select(GameSeat.game_id).where(GameSeat.entry_id == team.entry_id)
    return load_games(session, found.tournament, found.config.scoring, None, GameRow.id.in_(own))


def team_history(session: Session, found: Results, team: str) -> RatingHistory:
    """``team``'s rating after each of its games: those the kept ratings rated read from their
    seats (``GameSeat.mu``, ``sigma``), those since from ``found.current``; every game rated
    again where a seat has none (a database from before seats held them, until its next run)."""
    now = found.current[team]
    if not now.since:
        return now
    entry = found.team(team).entry_id
    rated = (*_rated(found, now.since), GameSeat.entry_id == entry)
    rows = session.execute(
        select(GameSeat.game_id, GameSeat.mu, GameSeat.sigma)
        .join(GameRow, GameRow.id == GameSeat.game_id)
        .where(*rated)
        .order_by(GameSeat.game_id)
    ).all()
    kept = [(game_id, mu, sigma) for game_id, mu, sigma in rows if mu is not None and sigma is not None]
    if len(kept) < len(rows):
        return all_ratings(session, found)[team]
    return RatingHistory(now.mu, now.sigma, kept + now.after)


def history_span(session: Session, found: Results) -> tuple[float, float]:
    """The μ ± σ range every team's rating chart shares (``figures.rating_span``), from the
    seats' kept ratings and ``found.current``."""
    rating = found.config.rating
    start = (rating.mu, rating.sigma)
    since = max((history.since for history in found.current.values()), default=0)
    if not since:
        return rating_span(found.current, start)
    low, high, missing = session.execute(
        select(
            func.min(GameSeat.mu - GameSeat.sigma),
            func.max(GameSeat.mu + GameSeat.sigma),
            func.count().filter(or_(GameSeat.mu.is_(None), GameSeat.sigma.is_(None))),
        )
        .join(GameRow, GameRow.id == GameSeat.game_id)
        .where(*_rated(found, since))
    ).one()
    if missing:
        return rating_span(all_ratings(session, found), start)
    return rating_span(found.current, start, None if low is None or high is None else (low, high))


def _rated(found: Results, through: int) -> tuple[ColumnElement[bool], ...]:
    """The rated games of ``found``'s tournament of ids up to ``through``."""
    t = found.tournament.id
    return (GameRow.tournament_id == t, GameRow.id <= through, GameRow.status == "finished", not_aborted())


def all_ratings(session: Session, found: Results) -> dict[str, RatingHistory]:
    """Every team's rating with its whole history: every finished game rated again."""
    played = results(session, found.tournament, found.config.scoring)
    names = [t.name for t in found.teams]
    return replay_ratings(names, [(g.id, g.teams, g.ranks()) for g in played], found.config.rating)


def cut_moves(session: Session, tournament_id: int) -> dict[str, int]:
    """Each team's moves in tournament ``tournament_id`` that the clock cut short of the bot's
    own budget (the bot said so), teams with none left out."""
    query = (
        select(Entry.team, func.count())
        .select_from(MoveRow)
        .join(GameRow, GameRow.id == MoveRow.game_id)
        .join(GameSeat, (GameSeat.game_id == MoveRow.game_id) & (GameSeat.seat == MoveRow.seat))
        .join(Entry, Entry.id == GameSeat.entry_id)
        # (+ 0: the tournament's games not by their index, so that SQLite starts from the cut moves'
        # index, a few rows, and not from every move of every game of the tournament)
        .where(GameRow.tournament_id + 0 == tournament_id, MoveRow.cut)
        .group_by(Entry.team)
    )
    return {str(team): int(count) for team, count in session.execute(query)}


def cut_note(team: str, count: int) -> str:
    """What ``count`` moves of ``team`` cut by the clock mean, in a sentence."""
    were = "was" if count == 1 else "were"
    return (
        f"{count} of {team}'s moves {were} cut by the clock: its search stopped short of its own budget, "
        "so its results may depend on this machine's load"
    )


def load_moves(
    session: Session, tournament: Tournament, game_ids: Collection[int] | None = None
) -> dict[int, list[tuple[int, str, float]]]:
    """Every stored move of the tournament, or of its games ``game_ids`` only: game id ->
    [(seat, move text, wall ms)] by ply."""
    moves: dict[int, list[tuple[int, str, float]]] = defaultdict(list)
    query = (
        select(MoveRow.game_id, MoveRow.seat, MoveRow.move, MoveRow.wall_ms)
        .join(GameRow, GameRow.id == MoveRow.game_id)
        .where(GameRow.tournament_id == tournament.id)
        .order_by(MoveRow.game_id, MoveRow.ply)
    )
    if game_ids is None:
        parts = [query]
    else:  # some hundreds of ids a query: a database bounds the parameters of one
        chosen = sorted(set(game_ids))
        parts = [query.where(MoveRow.game_id.in_(chosen[i : i + 500])) for i in range(0, len(chosen), 500)]
    for part in parts:
        for game_id, seat, text, wall in session.execute(part):
            moves[game_id].append((seat, text, wall))
    return moves


def leaderboard(
    teams: list[Team],
    played: list[GameResult],
    seated: dict[str, TeamSeats],
    ratings: dict[str, RatingHistory],
    elo: EloTable | None = None,
) -> list[LeaderboardLine]:
    """Every team ranked by μ − 3σ (then points, then name), with its record over the finished
    games ``played`` (alike ones counted together), its think time and reported points
    (``seated``) and, given the ``elo`` table of the same games, its Elo."""
    standings = {line.team: line for line in table([t.name for t in teams], played, {})}
    with_points = any(seats.reported is not None for seats in seated.values())
    lines = []
    for team in teams:
        s, r = standings[team.name], ratings[team.name]
        seats = seated.get(team.name, TeamSeats())
        moves = seats.think.moves
        fitted = elo.line(team.name) if elo is not None else None
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
                (seats.reported or 0.0) if with_points else None,
                dict(sorted(s.forfeits.items())),
                moves,
                seats.think.total_ms / moves if moves else None,
                seats.think.max_ms if moves else None,
                fitted.elo if fitted else None,
                fitted.lower if fitted else None,
                fitted.upper if fitted else None,
            )
        )
    lines.sort(key=lambda line: (-line.conservative, -line.points, line.team))
    for rank, line in enumerate(lines, 1):
        line.rank = rank
    return lines


def elo_table(teams: list[Team], played: list[GameResult], stage: StageTable | None = None) -> EloTable:
    """The Elo leaderboard of the finished games ``played`` (alike ones counted together): every
    team (of ``stage``'s pools, for a stage's games) fitted by ``arena.stats.elo.fit_elo`` at its
    defaults, 95 % intervals, the field's mean at 0, one virtual draw each so that a perfect score
    stays finite. A game of more than two seats is fitted as a game of each two of its seats, and
    a team's games, W-D-L and score on the board are those games of two, so that they are what
    its Elo was fitted to."""
    if stage is None:
        names = [t.name for t in teams]
    else:
        members = {line.team for pool in stage.pools for line in pool.lines}
        if not members:
            raise ArenaError(f"stage {stage.name!r} has not started: it has no teams to rate yet")
        names = [t.name for t in teams if t.name in members]
    record = {name: [0, 0, 0] for name in names}  # wins, draws, losses
    fitted: list[Alike] = []
    for g in played:
        if len(g.teams) == 2:
            first, second = g.teams
            if g.winner is None:
                fitted.append((first, second, 0.5, g.count))
                record[first][1] += g.count
                record[second][1] += g.count
            else:
                winner, loser = (first, second) if g.winner == 0 else (second, first)
                fitted.append((winner, loser, 1.0, g.count))
                record[winner][0] += g.count
                record[loser][2] += g.count
            continue
        # every two seats of the table as a game of their own (Kaggle's Game Arena does the same)
        for seat, team in enumerate(g.teams):
            for opponent, mine in g.against(seat):
                if seat < g.teams.index(opponent):
                    fitted.append((team, opponent, mine, g.count))
                # the record of the games fitted (two seats' each), as the fit counts the team's games
                record[team][0 if mine == 1.0 else 1 if mine == 0.5 else 2] += g.count
    fit = fit_elo(fitted, names)
    bots = {t.name: t.bot for t in teams}
    ranked = fit.players
    lines = []
    for rank, player in enumerate(ranked, 1):
        wins, draws, losses = record[player.name]
        below = ranked[rank].name if rank < len(ranked) else None
        lines.append(
            EloLine(
                rank,
                player.name,
                bots[player.name],
                player.elo,
                player.lower,
                player.upper,
                player.games,
                wins,
                draws,
                losses,
                fit.los(player.name, below) if below is not None else None,
            )
        )
    return EloTable(None if stage is None else stage.name, sum(g.count for g in played), fit, lines)


def los_matrix(table: EloTable, teams: list[str]) -> list[list[float | None]]:
    """For each of ``teams`` (rows) and each of them again (columns), the likelihood that the
    row's team is stronger than the column's (``None`` on the diagonal)."""
    return [[None if a == b else table.los(a, b) for b in teams] for a in teams]


def final_los(found: Results) -> tuple[list[str], list[list[float | None]], int]:
    """The teams of the last stage once it is drawn (the ``LOS_TEAMS`` best by Elo), their
    likelihoods of superiority from the Elo fit over every game, and how many teams the stage
    has; no teams before the stage is drawn."""
    last = found.stages[-1] if found.stages else None
    members = {line.team for pool in last.pools for line in pool.lines} if last else set()
    ranked = [line.team for line in found.elo.lines if line.team in members]
    shown = ranked[:LOS_TEAMS]
    return shown, los_matrix(found.elo, shown), len(ranked)


def crosstable(played: list[GameResult]) -> dict[tuple[str, str], CrossCell]:
    """(team, opponent) -> what the team scored against that opponent in the finished games
    ``played`` (alike ones counted together), over every stage."""
    cells: dict[tuple[str, str], CrossCell] = defaultdict(CrossCell)
    for g in played:
        for seat, team in enumerate(g.teams):
            if len(g.teams) == 2:
                cell = cells[team, g.teams[1 - seat]]
                cell.count(g.standing(seat), g.points[seat], g.count)
                cell.against += g.points[1 - seat] * g.count
                continue
            for opponent, mine in g.against(seat):  # its finishing order against that opponent
                cell = cells[team, opponent]
                cell.count("win" if mine == 1.0 else "draw" if mine == 0.5 else "loss", mine, g.count)
                cell.against += (1.0 - mine) * g.count
    return dict(cells)


def stage_tables(
    session: Session,
    tournament: Tournament,
    config: TournamentDef,
    counts: GameCounts,
    ratings: dict[str, float],
    stored: StoredGames | None = None,
) -> list[StageTable]:
    """Each stage's pools with their standings and who went on (the next stage's teams, or, for a
    stage complete whose next stage is not drawn yet, those who will); ``counts``: its games
    counted (``game_counts``), ``stored``: the games, if the caller read them already."""
    stored = stored or stored_games(session, tournament)
    members: dict[int, set[str]] = {
        stage: {stored.teams[entry] for entries in pools.values() for entry in entries}
        for stage, pools in stored.pools.items()
    }
    stages = []
    for number, definition in enumerate(config.stages):
        planned = sum(c[0] for (s, _), c in counts.pools.items() if s == number)
        finished = sum(c[1] for (s, _), c in counts.pools.items() if s == number)
        more = bool(planned) and finished == planned and bool(next_plan(session, tournament, config, number, stored))
        pools: list[PoolTable] = []
        if members.get(number):
            last = number == len(config.stages) - 1
            if members.get(number + 1):
                advanced = frozenset(members[number + 1])
            elif not last and planned and finished == planned and not more:
                chosen = advancing(session, tournament, config, number, ratings, stored)
                advanced = frozenset(e.team for e in chosen)
            else:
                advanced = frozenset()
            for pool, lines in enumerate(pool_standings(session, tournament, config, number, ratings, stored)):
                planned_pool, finished_pool = counts.pools.get((number, pool), (0, 0))
                pools.append(
                    PoolTable(
                        number, pool, lines, advanced & {line.team for line in lines}, planned_pool, finished_pool
                    )
                )
        bracket = knockout_bracket(session, tournament, config, number, stored)
        rounds = counts.rounds.get(number, 0)
        stages.append(StageTable(number, definition, pools, planned, finished, rounds, more, bracket))
    return stages


@dataclass(slots=True)
class GameCounts:
    """A tournament's games counted by the database: each pool's planned and finished games
    (by (stage, pool)), each stage's rounds, and the figures of ``Totals`` but the expected."""

    pools: dict[tuple[int, int], tuple[int, int]]
    rounds: dict[int, int]
    totals: Totals


def game_counts(session: Session, tournament: Tournament, sums: GameSums) -> GameCounts:
    """``tournament``'s games counted (``GameCounts``) from ``sums`` (``sum_games``), and the
    games played again."""
    pools: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0])
    totals = Totals(expected=0, planned=0, finished=0, moves=0)
    rounds: dict[int, set[int]] = defaultdict(set)
    by_first_game = sorted(sums.counts.rows(), key=lambda row: row[-1])  # (forfeits in that order)
    for stage, pool, number, _, status, termination, blameless, count, draws, plies, _ in by_first_game:
        rounds[stage].add(number)
        pools[stage, pool][0] += count
        totals.planned += count
        if status != "finished":
            continue
        if termination == "aborted":  # left unfinished: no result, not counted as played
            totals.unfinished += count
            continue
        pools[stage, pool][1] += count
        totals.finished += count
        totals.moves += int(plies or 0)
        totals.draws += draws
        kind = None if blameless else forfeit_kind(termination)
        if kind:
            totals.forfeits[kind] += count
    voided = select(func.count()).select_from(GameVoid).join(GameRow, GameRow.id == GameVoid.game_id)
    totals.replays = session.scalar(voided.where(GameRow.tournament_id == tournament.id)) or 0
    counted = {stage: len(numbers) for stage, numbers in rounds.items()}
    return GameCounts({place: (c[0], c[1]) for place, c in pools.items()}, counted, totals)


def team_seats(sums: list[SeatSums], teams: dict[int, str]) -> dict[str, TeamSeats]:
    """Each team's thinking over its finished games (moves, their total and longest wall time)
    and the points the game reported in them (a game reports points for every seat or for none),
    from ``seat_sums`` (games left unfinished left out); ``teams`` names each entry."""
    found: dict[str, list[SeatSums]] = defaultdict(list)
    for line in sums:
        if not line.aborted:
            found[teams[line.entry]].append(line)
    seated = {}
    for team, parts in found.items():
        longest = [part.longest_ms for part in parts if part.longest_ms is not None]
        reported = sum(part.reported for part in parts)
        think = Think(
            sum(part.moves for part in parts), sum(part.think_ms for part in parts), max(longest, default=0.0)
        )
        seated[team] = TeamSeats(think, sum(part.points for part in parts) if reported else None)
    return seated


def load_results(
    session: Session, tournament: Tournament, *, games: bool = True, kept: GameSums | None = None, keep: bool = False
) -> Results:
    """Everything about ``tournament`` that the leaderboard and the report show, from sums the
    database makes (``sum_games``: its finished games alike counted together, counted by pool,
    its seats summed), its ratings gone on from those kept with it; ``games``: its games one by
    one too (the report's and the server's pages), read once. ``kept`` and ``keep``: the sums
    of its settled games kept from an earlier read, and whether to keep them (``Results.sums``)."""
    config = tournament_config(tournament)
    settled, summed = sum_games(session, tournament, kept, keep=keep)
    stored = stored_games(session, tournament, tallied=(summed.alike, summed.seat_counts))
    teams = load_teams(session, tournament)
    counts = game_counts(session, tournament, summed)
    counts.totals.expected = expected_games(config) + extra_games(session, tournament, config, stored)
    seats = seat_sums(summed.seats.rows())
    read_games = load_games(session, tournament, config.scoring, stored) if games else None
    current = rate(session, tournament, config, stored=stored)
    conservative = {team: history.conservative for team, history in current.items()}
    stages = stage_tables(session, tournament, config, counts, conservative, stored)
    return Results(
        tournament,
        config,
        teams,
        current,
        stored.alike_by_stage(config.scoring),
        team_seats(seats, stored.teams),
        stages,
        counts.totals,
        rating_settings(tournament, config.rating),
        final_standings(stages),
        cut_moves(session, tournament.id),
        max(stored.seat_counts, default=2),
        node_lines(session, tournament.id, seats),
        read_games,
        results(session, tournament, config.scoring, stored=stored) if games else None,
        settled,
    )


def describe_status(found: Results) -> str | None:
    """A sentence for a tournament that did not run to its end, else ``None``."""
    t, done = found.tournament, found.totals
    if found.complete:
        return None
    progress = f"{done.describe(' of ')} played"
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
