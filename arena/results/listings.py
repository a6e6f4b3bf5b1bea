"""The stored tournaments, games and bots as plain rows, for the listing commands and scripts,
and one game's whole record (the read side: nothing here writes)."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from arena.errors import ArenaError
from arena.results.lookup import find_game, pool_name, stage_name, stage_names
from arena.store.models import Bot, Entry, GameRow, GameSeat, GameVoid, MoveRow, Tournament, game_seats

#: how much of a bot's stored error output a game's record shows: its last characters
STDERR_SHOWN = 4000


def tournament_rows(session: Session) -> list[dict[str, Any]]:
    """Every tournament: name, game, status, teams, games finished and planned, seed, created."""
    rows = []
    for t in session.scalars(select(Tournament).order_by(Tournament.id)):
        counts = dict(
            session.execute(
                select(GameRow.status, func.count()).where(GameRow.tournament_id == t.id).group_by(GameRow.status)
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
    (``None``: all); and how many there are in all. A game of more than two seats also has
    ``teams``, every seat's, and ``result``, each seat's finishing place (``1-3-2``)."""
    from arena.results.replay import result_text

    query = select(GameRow, Tournament).join(Tournament, GameRow.tournament_id == Tournament.id)
    if tournament is not None:
        if session.scalar(select(Tournament.id).where(Tournament.name == tournament)) is None:
            known = ", ".join(session.scalars(select(Tournament.name))) or "none"
            raise ArenaError(f"no tournament {tournament!r}; the tournaments: {known}")
        query = query.where(Tournament.name == tournament)
    if bot is not None:
        of_bot = (
            select(GameSeat.game_id)
            .join(Entry, Entry.id == GameSeat.entry_id)
            .join(Bot, Bot.id == Entry.bot_id)
            .where(or_(Entry.team == bot, Bot.name == bot))
        )
        query = query.where(GameRow.id.in_(of_bot))
    total = session.scalar(select(func.count()).select_from(query.subquery())) or 0
    ordered = query.order_by(GameRow.id.desc())
    listed = session.execute(ordered if limit is None else ordered.limit(limit)).all()
    teams: dict[int, list[str]] = {}
    for game_id, team in session.execute(
        select(GameSeat.game_id, Entry.team)
        .join(Entry, Entry.id == GameSeat.entry_id)
        .where(GameSeat.game_id.in_([g.id for g, _ in listed]))
        .order_by(GameSeat.game_id, GameSeat.seat)
    ):
        teams.setdefault(game_id, []).append(team)
    points = _points_of(session, [g.id for g, _ in listed])
    names: dict[int, list[str]] = {}
    rows = []
    for g, t in listed:
        if t.id not in names:
            names[t.id] = _stage_names(t)
        seated = teams.get(g.id, [])
        row = {
            "id": g.id,
            "tournament": t.name,
            "stage": g.stage,
            "stage_name": stage_name(names[t.id], g.stage),
            "pool": g.pool,
            "pool_name": pool_name(g.pool),
            "round": g.round,
            "first": seated[0] if seated else "?",
            "second": seated[1] if len(seated) > 1 else "?",
            "status": g.status,
            "winner": g.winner,
            "points": points.get(g.id),
            "termination": g.termination,
            "offender": g.offender,
            "plies": g.plies,
            "replays": g.replays,
        }
        if len(seated) > 2:  # (a game of two seats keeps its rows as they were: scripts read them)
            row["teams"] = seated
            row["result"] = result_text(len(seated), g.winner, points.get(g.id)) if g.status == "finished" else None
        rows.append(row)
    return rows, total


def _points_of(session: Session, game_ids: list[int]) -> dict[int, list[float]]:
    """The points each seat of the games ``game_ids`` scored as their games reported them, for
    the games that report them for every seat."""
    found: dict[int, list[float | None]] = {}
    for game_id, points in session.execute(
        select(GameSeat.game_id, GameSeat.points)
        .where(GameSeat.game_id.in_(game_ids))
        .order_by(GameSeat.game_id, GameSeat.seat)
    ):
        found.setdefault(game_id, []).append(points)
    return {game_id: [p for p in points if p is not None] for game_id, points in found.items() if None not in points}


def _stage_names(tournament: Tournament) -> list[str]:
    """The tournament's stage names; none (its stages go by number) when this arena cannot read
    its stored configuration, which a listing does not need."""
    try:
        return stage_names(tournament)
    except ArenaError:
        return []


def _tail(text: str | None) -> str:
    """The last ``STDERR_SHOWN`` characters of ``text``."""
    return (text or "")[-STDERR_SHOWN:]


def game_record(session: Session, game_id: int) -> dict[str, Any]:
    """Everything stored of game ``game_id``: its tournament, stage, pool and round; each seat's
    team and bot version with a summary of its moves' times and the tail of its error output
    (at most ``STDERR_SHOWN`` characters, ``stderr_chars`` says how many were stored); the
    result, how the game ended, who broke a rule and how; and each time it was voided. A game
    with chance has ``chance_moves``, its chance outcomes (no seat's: no seat's times count
    them); a user's game that cannot be loaded any more (its module gone or changed) names its
    seats ``p1``, ``p2``... and says why in ``game_problem``. The result is ``1-0``, ``0-1`` or
    ``½-½`` with two seats, each seat's finishing place (``1-3-2``) with more."""
    from arena.games import CHANCE
    from arena.results.replay import result_text, spec_seat_names

    g = find_game(session, game_id)
    t = session.get_one(Tournament, g.tournament_id)
    seated = game_seats(session, GameRow.id == g.id).get(g.id, [])
    sides, problem = spec_seat_names(t.game, len(seated))
    times = {
        seat: (moves, wall, longest, cpu, timed, wait)
        for seat, moves, wall, longest, cpu, timed, wait in session.execute(
            select(
                MoveRow.seat,
                func.count(),
                func.sum(MoveRow.wall_ms),
                func.max(MoveRow.wall_ms),
                func.sum(MoveRow.cpu_ms),
                func.count(MoveRow.cpu_ms),
                func.sum(MoveRow.wait_ms),
            )
            .where(MoveRow.game_id == g.id)
            .group_by(MoveRow.seat)
        )
    }
    cut: dict[int, list[int]] = {}
    for seat, ply in session.execute(
        select(MoveRow.seat, MoveRow.ply).where(MoveRow.game_id == g.id, MoveRow.cut).order_by(MoveRow.ply)
    ):
        cut.setdefault(seat, []).append(ply)
    seats = []
    for seat, stderr in ((row.seat, row.stderr) for row in seated):
        entry = session.get_one(Entry, seated[seat].entry_id)
        bot = session.get_one(Bot, entry.bot_id)
        moves, wall, longest, cpu, timed, wait = times.get(seat, (0, 0.0, None, None, 0, None))
        seats.append(
            {
                "seat": seat,
                "side": sides[seat] if seat < len(sides) else f"p{seat + 1}",
                "team": entry.team,
                "bot": bot.name,
                "version": bot.version,
                "kind": bot.kind,
                "moves": moves,
                "wall_ms": round(wall or 0.0, 3),
                "mean_ms": round(wall / moves, 3) if moves else None,
                "max_ms": None if longest is None else round(longest, 3),
                "cpu_ms": round(cpu, 3) if cpu is not None and timed == moves else None,
                "wait_ms": None if wait is None else round(wait, 3),
                "cut_plies": cut.get(seat, []),
                "stderr": _tail(stderr),
                "stderr_chars": len(stderr or ""),
            }
        )
    voids = session.scalars(select(GameVoid).where(GameVoid.game_id == g.id).order_by(GameVoid.attempt, GameVoid.id))
    points = _points_of(session, [g.id]).get(g.id)
    record = {
        "id": g.id,
        "tournament": t.name,
        "game": dict(t.game),
        "stage": g.stage,
        "stage_name": stage_name(_stage_names(t), g.stage),
        "pool": g.pool,
        "pool_name": pool_name(g.pool),
        "round": g.round,
        "seed": g.seed,
        "status": g.status,
        "result": result_text(len(seated), g.winner, points) if g.status == "finished" else None,
        "winner": g.winner,
        "points": points,
        "termination": g.termination,
        "offender": g.offender,
        "detail": g.detail,
        "plies": g.plies,
        "started_at": g.started_at,
        "finished_at": g.finished_at,
        "replays": g.replays,
        "voids": [{"attempt": v.attempt, "plies": v.plies, "reason": v.reason, "at": v.created_at} for v in voids],
        "seats": seats,
    }
    chance = times.get(CHANCE, (0,))[0]
    if chance:
        record["chance_moves"] = chance
    if problem is not None:
        record["game_problem"] = f"the game of tournament {t.name!r} cannot be loaded: {problem}"
    return record


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
    from arena.entrants.builtins import builtin_bots

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
