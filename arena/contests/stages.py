"""The stages of a tournament as stored: planning a stage's pools and its games (all at once, or
round by round from the results so far: arena/formats/rounds.py), and the finished games, standings and
advancing teams that decide the next stage (read by the run and by the results alike)."""

from __future__ import annotations

import logging
import random
from collections import Counter
from dataclasses import dataclass
from functools import cached_property

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import Session, aliased

from arena.contests.config import TournamentDef
from arena.contests.rating import Rated, RatingHistory, kept_ratings
from arena.contests.tally import Span, Tally, add, least, tallied
from arena.core.job import derive_seed
from arena.formats.format_standings import format_table, merge_key
from arena.formats.rounds import Match, Played, knockout_rounds, next_games
from arena.formats.schedule import draw_pools, drawn_tables, round_robin_tables
from arena.formats.standings import GameResult, Standing, game_points
from arena.games.xtreme_board import WIN_POINTS
from arena.store.models import (
    Entry,
    GameRow,
    GameSeat,
    PoolEntry,
    SeatRow,
    Tournament,
    game_seats,
    not_aborted,
    reported_points,
)
from arena.store.writes import PlannedGame, add_games, add_pool

log = logging.getLogger(__name__)


def expected_games(config: TournamentDef) -> int:
    """How many games the whole tournament will have, all stages included (a knockout's drawn
    matches add extra games to these: ``extra_games``)."""
    total, count = 0, len(config.team_bots())
    for stage in config.stages:
        total += stage.games(count, config.game.players)
        count = (stage.advance or 0) * stage.pools
    return total


def bye_points(config: TournamentDef, stage: int) -> float:
    """What a Swiss bye scores in ``stage``: a win of each of its pairing's games (1 a game, or
    the course's 86 in course2019 scoring)."""
    win = float(WIN_POINTS) if config.scoring == "course2019" else 1.0
    return win * config.stages[stage].games_per_pair


def plan_stage(
    session: Session, tournament: Tournament, config: TournamentDef, number: int, ranked: list[Entry]
) -> int:
    """Draw stage ``number``'s pools from ``ranked`` (best first) and store its first games (a
    round robin's or a gauntlet's: all of them; otherwise its first round)."""
    stage = config.stages[number]
    rng = random.Random(derive_seed(tournament.seed, "pools", number))
    pools = draw_pools(ranked, stage.pools, stage.seeding, rng)
    for pool, members in enumerate(pools):
        add_pool(session, tournament.id, number, pool, [entry.id for entry in members])
    planned = plan_next(session, tournament, config, number)
    log.info("planned stage %d (%s): %d pools, %d games", number, stage.name, len(pools), planned)
    return planned


@dataclass(frozen=True, slots=True)
class StoredGame:
    """A game as standings and planning read it: where it stands, its result, its seats."""

    id: int
    stage: int
    pool: int
    round: int
    status: str
    winner: int | None
    termination: str | None
    offender: int | None
    seats: list[SeatRow]
    #: the points the game reported for each seat (``reported_points``)
    points: tuple[float, ...] | None


#: the formats whose pools are planned whole when drawn: their standings need no game's round
PLANNED_WHOLE = ("round_robin", "gauntlet")


class StoredGames:
    """A tournament's games read as one read needs them, and each part once: its teams and
    pools at once; its games (all of them, or one stage's) one game at a time when a question
    needs each game (ratings, a Swiss's or a knockout's rounds); and its finished games of two
    seats counted together where they are alike (``alike``: standings, records, Elo and the
    crosstable need no more), so that a read of a big tournament reads its games at most once,
    and the commands not one at a time. ``after``: the games of ids after it only."""

    def __init__(
        self,
        session: Session,
        tournament: Tournament,
        after: int | None = None,
        tallied: Tallied | None = None,
    ) -> None:
        self.session, self.tournament, self.after, self.tallied = session, tournament, after, tallied
        self.teams: dict[int, str] = dict(
            session.execute(select(Entry.id, Entry.team).where(Entry.tournament_id == tournament.id)).all()
        )
        self.pools: dict[int, dict[int, list[int]]] = {}
        members = select(PoolEntry.stage, PoolEntry.pool, PoolEntry.entry_id).where(
            PoolEntry.tournament_id == tournament.id
        )
        for number, pool, entry in session.execute(members.order_by(PoolEntry.stage, PoolEntry.pool, PoolEntry.seed)):
            self.pools.setdefault(number, {}).setdefault(pool, []).append(entry)
        self._games: list[StoredGame] | None = None
        self._stages: dict[int, list[StoredGame]] = {}
        self._results: dict[tuple[str, int | None], list[GameResult]] = {}
        self._pools: dict[tuple[str, int], list[PoolGames]] = {}
        self._alike: dict[str, dict[int, list[GameResult]]] = {}
        self._with_games: dict[int, set[int]] = {}

    @property
    def games(self) -> list[StoredGame]:
        """Every game (after ``after``), in schedule order: read when first asked for."""
        if self._games is None:
            self._games = self._read()
            self._stages = {}
            for game in self._games:
                self._stages.setdefault(game.stage, []).append(game)
        return self._games

    @property
    def read(self) -> bool:
        """Whether every game is read already."""
        return self._games is not None

    def stage(self, number: int) -> list[StoredGame]:
        """The games of stage ``number``, in schedule order (that stage's alone read, unless
        every game was already)."""
        if self._games is None and number not in self._stages:
            self._stages[number] = self._read(GameRow.stage == number)
        return self._stages.get(number, [])

    @cached_property
    def seat_counts(self) -> set[int]:
        """How many seats the tournament's games have (one number, unless its game changed)."""
        if self.tallied is not None:
            return self.tallied[1]
        seats = select(GameRow.players).where(GameRow.tournament_id == self.tournament.id).distinct()
        return set(self.session.scalars(seats))

    def pools_with_games(self, number: int) -> set[int]:
        """The pools of stage ``number`` that have a game planned."""
        if number not in self._with_games:
            query = select(GameRow.pool).where(GameRow.tournament_id == self.tournament.id, GameRow.stage == number)
            self._with_games[number] = set(self.session.scalars(query.distinct()))
        return self._with_games[number]

    def alike(self, scoring: str, stage: int) -> list[GameResult]:
        """The finished games' results of ``stage`` by ``scoring``, those alike (teams in the
        same seats, the same result) as one with their ``count``, in the order of each one's
        first game: standings, records, Elo and the crosstable count them as the games one by
        one. A game of more than two seats: one by one (``results``)."""
        return self.alike_by_stage(scoring).get(stage, [])

    def alike_by_stage(self, scoring: str) -> dict[int, list[GameResult]]:
        """``alike`` for every stage with a finished game, by stage."""
        if self.after is not None or self.seat_counts - {2}:  # (by each game's own seats)
            numbers = sorted({game.stage for game in self.games})
            found = {number: results(self.session, self.tournament, scoring, number, self) for number in numbers}
            return {number: played for number, played in found.items() if played}
        if scoring not in self._alike:
            by_stage: dict[int, list[GameResult]] = {}
            self._alike[scoring], teams = by_stage, self.teams
            alike = self.tallied[0] if self.tallied else alike_tally(self.session, self.tournament, Span(), None)[0]
            for number, *outcome, count, first in sorted(alike.rows(), key=lambda row: row[-1]):
                winner, termination, offender, a, b, points_a, points_b = outcome
                reported = None if points_a is None or points_b is None else (points_a, points_b)
                by_stage.setdefault(number, []).append(
                    GameResult(
                        first,
                        (teams[a], teams[b]),
                        winner,
                        game_points(scoring, winner, reported, 2),
                        termination or "normal",
                        offender,
                        count,
                    )
                )
        return self._alike[scoring]

    def some(self, *where: ColumnElement[bool]) -> list[StoredGame]:
        """The games matching every condition of ``where``, in schedule order (read, not kept)."""
        return self._read(*where)

    def _read(self, *where: ColumnElement[bool]) -> list[StoredGame]:
        where = (GameRow.tournament_id == self.tournament.id, *where)
        if self.after is not None:
            where = (*where, GameRow.id > self.after)
        seats = game_seats(self.session, *where)
        columns = (GameRow.id, GameRow.stage, GameRow.pool, GameRow.round, GameRow.status, GameRow.winner)
        query = select(*columns, GameRow.termination, GameRow.offender).where(*where).order_by(GameRow.id)
        games = []
        for row in self.session.connection().execute(query).all():
            seated = seats.get(row[0], [])
            games.append(StoredGame(*row, seated, reported_points(seated)))
        return games


#: a tournament's games alike (``alike_tally``) and the numbers of seats its games have
Tallied = tuple[Tally, set[int]]
#: the alike games' key columns (stage, result, seats' teams and points) and figures (count, first id)
ALIKE = (8, (add, least))


def alike_tally(session: Session, tournament: Tournament, span: Span, through: int | None) -> tuple[Tally, Tally]:
    """The finished games of two seats of ``tournament`` in ``span`` (none left unfinished),
    grouped by stage, seats and result, each group with its count and first game's id: those
    up to id ``through`` and the others apart (``tallied``)."""
    first, second = aliased(GameSeat), aliased(GameSeat)
    key = (
        GameRow.stage,
        GameRow.winner,
        GameRow.termination,
        GameRow.offender,
        first.entry_id,
        second.entry_id,
        first.points,
        second.points,
    )
    query = (
        select(*key, func.count(), func.min(GameRow.id))
        .join(first, (first.game_id == GameRow.id) & (first.seat == 0))
        .join(second, (second.game_id == GameRow.id) & (second.seat == 1))
        .where(GameRow.tournament_id == tournament.id, GameRow.status == "finished", not_aborted(), *span.where())
        .group_by(*key)
    )
    return tallied(session.connection(), query, through, *ALIKE)


def stored_games(
    session: Session, tournament: Tournament, after: int | None = None, tallied: Tallied | None = None
) -> StoredGames:
    """``tournament``'s games (those of ids after ``after`` only, if given), teams and pools,
    each read once when first needed; ``tallied``: its games alike (``alike_tally``) and the
    numbers of seats its games have, summed already."""
    return StoredGames(session, tournament, after, tallied)


@dataclass(frozen=True, slots=True)
class PoolGames:
    """A pool of a stage as planning sees it: its number, its teams in seeding order and its
    games in schedule order (the unfinished ones with no points)."""

    pool: int
    field: list[str]
    played: list[Played]

    @property
    def finished(self) -> list[Played]:
        """The pool's finished games."""
        return [game for game in self.played if game.points is not None]


def pool_games(
    session: Session, tournament: Tournament, config: TournamentDef, number: int, stored: StoredGames | None = None
) -> list[PoolGames]:
    """Each drawn pool of stage ``number`` with its teams and its games (of a game of more than
    two seats, the first two: a round robin of tables needs only to know that it was planned);
    from ``stored`` if the caller read them already."""
    stored = stored or stored_games(session, tournament)
    found = stored._pools.get((config.scoring, number))
    if found is not None:
        return found
    teams, games = stored.teams, stored.stage(number)
    found = stored._pools[config.scoring, number] = []
    for pool, members in sorted(stored.pools.get(number, {}).items()):
        played = [
            Played(
                game.round,
                teams[game.seats[0].entry_id],
                teams[game.seats[1].entry_id],
                _pool_points(config, game),
            )
            for game in games
            if game.pool == pool
        ]
        found.append(PoolGames(pool, [teams[entry] for entry in members], played))
    return found


def _pool_points(config: TournamentDef, game: StoredGame) -> tuple[float, float] | None:
    """What a game scored its first two seats as its pool plans its next round: ``None`` while
    it is to be played; nothing for either when it was left unfinished (``aborted``: no
    result, but played)."""
    if game.status != "finished":
        return None
    if game.termination == "aborted":
        return (0.0, 0.0)
    points = game_points(config.scoring, game.winner, game.points, len(game.seats))
    return (points[0], points[1])


def next_plan(
    session: Session, tournament: Tournament, config: TournamentDef, number: int, stored: StoredGames | None = None
) -> list[tuple[int, int, int, tuple[str, ...]]]:
    """The games stage ``number`` plays next, as (round, pool, number in the pool, the teams in
    seat order) in schedule order: empty while some of its games are unfinished, and once the
    stage is done."""
    stage = config.stages[number]
    stored = stored or stored_games(session, tournament)
    if (stage.format in PLANNED_WHOLE or config.game.players > 2) and set(stored.pools.get(number, {})) <= (
        stored.pools_with_games(number)
    ):
        return []  # (planned whole when drawn: a pool with games has them all, and nothing more to plan)
    pools = pool_games(session, tournament, config, number, stored)
    if any(game.points is None for pool in pools for game in pool.played):
        return []
    planned = []
    seats = config.game.players
    for pool in pools:
        if seats > 2:  # a round robin of tables, planned whole: every table, or rounds of tables drawn
            if pool.played:
                tables = []
            elif stage.table_rounds is not None:
                draw = random.Random(derive_seed(tournament.seed, "tables", number, pool.pool))
                tables = drawn_tables(len(pool.field), seats, stage.table_rounds, stage.games_per_pair, draw)
            else:
                tables = round_robin_tables(len(pool.field), seats, stage.games_per_pair)
            new = [(table.round, tuple(pool.field[i] for i in table.seats)) for table in tables]
        else:
            seed = derive_seed(tournament.seed, stage.format, number, pool.pool)
            paired = next_games(stage, pool.field, pool.played, seed=seed, bye_points=bye_points(config, number))
            new = [(rnd, (a, b)) for rnd, a, b in paired]
        start = len(pool.played)
        planned += [(rnd, pool.pool, index, teams) for index, (rnd, teams) in enumerate(new, start)]
    planned.sort()  # schedule order: round by round across the pools; ids follow it
    return planned


def knockout_bracket(
    session: Session, tournament: Tournament, config: TournamentDef, number: int, stored: StoredGames | None = None
) -> list[list[Match]]:
    """The matches of knockout stage ``number`` round by round, as far as its games have gone
    (empty before it is drawn, and for a stage of another format)."""
    stage = config.stages[number]
    if stage.format != "knockout":
        return []
    pools = pool_games(session, tournament, config, number, stored)
    if not pools or len(pools[0].field) < 2:
        return []
    return knockout_rounds(pools[0].field, pools[0].finished, stage.games_per_pair)


def plan_next(session: Session, tournament: Tournament, config: TournamentDef, number: int) -> int:
    """Store the games stage ``number`` plays next (``next_plan``); how many (0: the stage is
    done, or some of its games are still to be played)."""
    planned = next_plan(session, tournament, config, number)
    ids = dict(session.execute(select(Entry.team, Entry.id).where(Entry.tournament_id == tournament.id)).all())
    add_games(
        session,
        tournament.id,
        (
            PlannedGame(
                number,
                pool,
                rnd,
                index,
                tuple(ids[team] for team in teams),
                derive_seed(tournament.seed, number, pool, index),
            )
            for rnd, pool, index, teams in planned
        ),
    )
    if planned and config.stages[number].format != "round_robin":
        log.info("planned round %d of stage %d: %d games", planned[0][0] + 1, number, len(planned))
    return len(planned)


def extra_games(
    session: Session, tournament: Tournament, config: TournamentDef, stored: StoredGames | None = None
) -> int:
    """The extra games the knockout stages' drawn matches have had so far (beyond
    ``games_per_pair`` a match)."""
    extra = 0
    for number, stage in enumerate(config.stages):
        if stage.format != "knockout":
            continue
        played = (stored or stored_games(session, tournament)).stage(number)
        matches = Counter((game.round, frozenset(seat.entry_id for seat in game.seats)) for game in played)
        extra += sum(max(0, games - stage.games_per_pair) for games in matches.values())
    return extra


def results(
    session: Session, tournament: Tournament, scoring: str, stage: int | None = None, stored: StoredGames | None = None
) -> list[GameResult]:
    """The finished games of ``tournament`` (of one ``stage``), in schedule order; a game left
    unfinished (``aborted``: a person who left a browser game, a game the harness stopped) has
    no result, and is not among them. From ``stored`` if the caller read them already."""
    stored = stored or stored_games(session, tournament)
    found = stored._results.get((scoring, stage))
    if found is None:
        teams = stored.teams
        found = stored._results[scoring, stage] = [
            GameResult(
                g.id,
                tuple(teams[seat.entry_id] for seat in g.seats),
                g.winner,
                game_points(scoring, g.winner, g.points, len(g.seats)),
                g.termination or "normal",
                g.offender,
            )
            for g in (stored.games if stage is None else stored.stage(stage))
            if g.status == "finished" and g.termination != "aborted"
        ]
    return found


def conservative_ratings(
    session: Session, tournament: Tournament, config: TournamentDef, stored: StoredGames | None = None
) -> dict[str, float]:
    """Each team's rating (TrueSkill's mu - 3 sigma, or OpenSkill's ordinal) over every
    finished game, in schedule order."""
    ratings = rate(session, tournament, config, stored=stored)
    return {team: history.conservative for team, history in ratings.items()}


def rate(
    session: Session,
    tournament: Tournament,
    config: TournamentDef,
    keep_through: int | None = None,
    stored: StoredGames | None = None,
) -> dict[str, RatingHistory]:
    """Every team's rating after the tournament's finished games, gone on from the ratings kept
    with it (``kept_ratings``: their history is that of the games since, the only games read
    one by one, unless ``stored`` has read every game already); ``keep_through``: keep the
    ratings after the games up to that id."""
    teams = session.scalars(select(Entry.team).where(Entry.tournament_id == tournament.id))

    def since(after: int) -> list[Rated]:
        read = stored if stored is not None and stored.after is None and (stored.read or not after) else None
        played = results(session, tournament, config.scoring, stored=read or stored_games(session, tournament, after))
        return [(g.id, g.teams, g.ranks()) for g in played if g.id > after]

    return kept_ratings(session, tournament.id, teams, config.rating, since, keep_through)


def pool_standings(
    session: Session,
    tournament: Tournament,
    config: TournamentDef,
    stage: int,
    ratings: dict[str, float] | None = None,
    stored: StoredGames | None = None,
) -> list[list[Standing]]:
    """The standings of each pool of ``stage`` by its format (``ratings``: the tie-breaking
    ratings, if the caller has them already; ``stored``: the games, if it read them)."""
    if ratings is None:
        ratings = conservative_ratings(session, tournament, config, stored)
    stored = stored or stored_games(session, tournament)
    definition, points = config.stages[stage], bye_points(config, stage)
    if definition.format in PLANNED_WHOLE:  # ranked by the results alone: alike ones counted together
        staged = stored.alike(config.scoring, stage)
        fields = [
            [stored.teams[entry] for entry in members] for _, members in sorted(stored.pools.get(stage, {}).items())
        ]
        return [format_table(definition, field, staged, (), ratings, points) for field in fields]
    staged = results(session, tournament, config.scoring, stage, stored)
    return [
        format_table(definition, pool.field, staged, pool.finished, ratings, points)
        for pool in pool_games(session, tournament, config, stage, stored)
    ]


def advancing(
    session: Session,
    tournament: Tournament,
    config: TournamentDef,
    stage: int,
    ratings: dict[str, float] | None = None,
    stored: StoredGames | None = None,
) -> list[Entry]:
    """The teams that go on from ``stage``, ranked best first across the pools."""
    definition = config.stages[stage]
    advance = definition.advance or 0
    standings = pool_standings(session, tournament, config, stage, ratings, stored)
    chosen = [line for pool in standings for line in pool[:advance]]
    if definition.format in ("round_robin", "swiss"):
        chosen.sort(key=lambda line: merge_key(definition, line))
    entries = {e.team: e for e in session.scalars(select(Entry).where(Entry.tournament_id == tournament.id))}
    return [entries[line.team] for line in chosen]


# ---------------------------------------------------------------- running
