"""The stored tournaments, games and bots as plain rows, for the listing commands and scripts
(the read side: nothing here writes)."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session, aliased

from arena.errors import ArenaError
from arena.store import Bot, Entry, Game, Tournament


def tournament_rows(session: Session) -> list[dict[str, Any]]:
    """Every tournament: name, game, status, teams, games finished and planned, seed, created."""
    rows = []
    for t in session.scalars(select(Tournament).order_by(Tournament.id)):
        counts = dict(
            session.execute(
                select(Game.status, func.count()).where(Game.tournament_id == t.id).group_by(Game.status)
            ).all()
        )
        teams = session.scalar(select(func.count()).select_from(Entry).where(Entry.tournament_id == t.id))
        rows.append(
            {
                "name": t.name,
                "game": t.game["name"],
                "status": t.status,
                "teams": teams,
                "games_finished": counts.get("finished", 0),
                "games_planned": sum(counts.values()),
                "seed": t.seed,
                "created_at": t.created_at,
            }
        )
    return rows


def game_rows(
    session: Session, tournament: str | None = None, bot: str | None = None, limit: int | None = 50
) -> tuple[list[dict[str, Any]], int]:
    """The games (of ``tournament``, of the team or bot ``bot``), newest first, at most ``limit``
    (``None``: all); and how many there are in all."""
    first, second = aliased(Entry), aliased(Entry)
    bot1, bot2 = aliased(Bot), aliased(Bot)
    query = (
        select(Game, Tournament.name, first.team, second.team)
        .join(Tournament, Game.tournament_id == Tournament.id)
        .join(first, Game.seat0 == first.id)
        .join(second, Game.seat1 == second.id)
        .join(bot1, first.bot_id == bot1.id)
        .join(bot2, second.bot_id == bot2.id)
    )
    if tournament is not None:
        if session.scalar(select(Tournament.id).where(Tournament.name == tournament)) is None:
            known = ", ".join(session.scalars(select(Tournament.name))) or "none"
            raise ArenaError(f"no tournament {tournament!r}; the tournaments: {known}")
        query = query.where(Tournament.name == tournament)
    if bot is not None:
        query = query.where(or_(first.team == bot, second.team == bot, bot1.name == bot, bot2.name == bot))
    total = session.scalar(select(func.count()).select_from(query.subquery())) or 0
    ordered = query.order_by(Game.id.desc())
    rows = [
        {
            "id": g.id,
            "tournament": tname,
            "stage": g.stage,
            "pool": g.pool,
            "round": g.round,
            "first": a,
            "second": b,
            "status": g.status,
            "winner": g.winner,
            "points": None if g.points is None else list(g.points),
            "termination": g.termination,
            "offender": g.offender,
            "plies": g.plies,
            "replays": g.replays,
        }
        for g, tname, a, b in session.execute(ordered if limit is None else ordered.limit(limit))
    ]
    return rows, total


def bot_rows(session: Session) -> list[dict[str, Any]]:
    """Every stored bot version: name, version, kind, target, parameters, games, whether it was
    registered (else declared in a tournament), its code's hash and its description."""
    return [
        {
            "name": b.name,
            "version": b.version,
            "kind": b.kind,
            "target": b.target,
            "params": json.loads(b.params),
            "games": b.games,
            "registered": b.registered,
            "built_in": False,
            "code_hash": b.code_hash,
            "description": b.description,
        }
        for b in session.scalars(select(Bot).order_by(Bot.name, Bot.version))
    ]


def builtin_rows() -> list[dict[str, Any]]:
    """Every built-in bot (``bots.uct``), as ``bot_rows`` gives a stored one: no version or code
    hash, its parameters with their defaults, its games and description; ``built_in`` true."""
    from arena.builtins import builtin_bots

    return [
        {
            "name": bot.module,
            "version": None,
            "kind": "python",
            "target": bot.module,
            "params": bot.defaults,
            "games": list(bot.games),
            "registered": False,
            "built_in": True,
            "code_hash": None,
            "description": bot.description,
        }
        for bot in builtin_bots()
    ]
