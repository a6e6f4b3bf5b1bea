"""The stages of a tournament as stored: planning a stage's pools and games, and the finished
games, standings and advancing teams that decide the next stage (read by the run and by the
results alike)."""

from __future__ import annotations

import logging
import random

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.config import TournamentDef
from arena.job import derive_seed
from arena.rating import replay_ratings
from arena.schedule import draw_pools, round_robin
from arena.standings import GameResult, Standing, game_points, table
from arena.store import Entry, Game, PoolEntry, Tournament

log = logging.getLogger(__name__)


def expected_games(config: TournamentDef) -> int:
    """How many games the whole tournament will have, all stages included."""
    total, count = 0, len(config.team_bots())
    for stage in config.stages:
        base, extra = divmod(count, stage.pools)
        sizes = [base + (1 if p < extra else 0) for p in range(stage.pools)]
        total += sum(n * (n - 1) // 2 for n in sizes) * stage.games_per_pair
        count = (stage.advance or 0) * stage.pools
    return total


def plan_stage(
    session: Session, tournament: Tournament, config: TournamentDef, number: int, ranked: list[Entry]
) -> int:
    """Draw stage ``number``'s pools from ``ranked`` (best first) and store its games."""
    stage = config.stages[number]
    rng = random.Random(derive_seed(tournament.seed, "pools", number))
    pools = draw_pools(ranked, stage.pools, stage.seeding, rng)
    planned = []
    for pool, members in enumerate(pools):
        for order, entry in enumerate(members):
            session.add(PoolEntry(tournament_id=tournament.id, stage=number, pool=pool, entry_id=entry.id, seed=order))
        for index, pairing in enumerate(round_robin(len(members), stage.games_per_pair)):
            planned.append((pairing.round, pool, index, members[pairing.first].id, members[pairing.second].id))
    planned.sort()  # schedule order: round by round across the pools; ids follow it
    session.add_all(
        Game(
            tournament_id=tournament.id,
            stage=number,
            pool=pool,
            round=rnd,
            number=index,
            seat0=first,
            seat1=second,
            seed=derive_seed(tournament.seed, number, pool, index),
        )
        for rnd, pool, index, first, second in planned
    )
    session.flush()
    log.info("planned stage %d (%s): %d pools, %d games", number, stage.name, len(pools), len(planned))
    return len(planned)


def results(session: Session, tournament: Tournament, scoring: str, stage: int | None = None) -> list[GameResult]:
    """The finished games of ``tournament`` (of one ``stage``), in schedule order."""
    teams = dict(session.execute(select(Entry.id, Entry.team).where(Entry.tournament_id == tournament.id)).all())
    query = select(Game).where(Game.tournament_id == tournament.id, Game.status == "finished")
    if stage is not None:
        query = query.where(Game.stage == stage)
    return [
        GameResult(
            g.id,
            teams[g.seat0],
            teams[g.seat1],
            g.winner,
            game_points(scoring, g.winner, g.points),
            g.termination or "normal",
            g.offender,
        )
        for g in session.scalars(query.order_by(Game.id))
    ]


def conservative_ratings(session: Session, tournament: Tournament, config: TournamentDef) -> dict[str, float]:
    """Each team's TrueSkill mu - 3 sigma over every finished game, in schedule order."""
    teams = session.scalars(select(Entry.team).where(Entry.tournament_id == tournament.id))
    games = [(g.id, g.first, g.second, g.winner) for g in results(session, tournament, config.scoring)]
    return {team: history.conservative for team, history in replay_ratings(teams, games, config.rating).items()}


def pool_standings(
    session: Session, tournament: Tournament, config: TournamentDef, stage: int, ratings: dict[str, float] | None = None
) -> list[list[Standing]]:
    """The standings of each pool of ``stage`` (``ratings``: the tie-breaking ratings, if the
    caller has them already)."""
    if ratings is None:
        ratings = conservative_ratings(session, tournament, config)
    teams = dict(session.execute(select(Entry.id, Entry.team).where(Entry.tournament_id == tournament.id)).all())
    staged = results(session, tournament, config.scoring, stage)
    members: dict[int, list[str]] = {}
    pools = select(PoolEntry).where(PoolEntry.tournament_id == tournament.id, PoolEntry.stage == stage)
    for row in session.scalars(pools.order_by(PoolEntry.pool, PoolEntry.seed)):
        members.setdefault(row.pool, []).append(teams[row.entry_id])
    return [table(members[pool], staged, ratings) for pool in sorted(members)]


def advancing(
    session: Session, tournament: Tournament, config: TournamentDef, stage: int, ratings: dict[str, float] | None = None
) -> list[Entry]:
    """The teams that go on from ``stage``, ranked best first across the pools."""
    advance = config.stages[stage].advance or 0
    standings = pool_standings(session, tournament, config, stage, ratings)
    chosen = [line for pool in standings for line in pool[:advance]]
    chosen.sort(key=lambda s: (-s.points, -s.wins, -s.rating, s.team))
    entries = {e.team: e for e in session.scalars(select(Entry).where(Entry.tournament_id == tournament.id))}
    return [entries[line.team] for line in chosen]


# ---------------------------------------------------------------- running
