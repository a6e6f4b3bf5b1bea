"""The stored tournaments, games and bots as plain rows, for the listing commands and scripts,
one game's whole record, and a page of a tournament's games as a list filters them (the read
side: nothing here writes)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, and_, false, func, not_, or_, select
from sqlalchemy.orm import Session

from arena.core.records import Termination
from arena.errors import ArenaError
from arena.results.lookup import find_game, pool_name, stage_name, stage_names
from arena.store.models import Bot, Entry, GameRow, GameSeat, GameVoid, MoveRow, Tournament, game_seats

#: how much of a bot's stored error output a game's record shows: its last characters
STDERR_SHOWN = 4000
#: the columns of a game that ``game_rows`` lists
LISTED = (
    GameRow.id,
    GameRow.tournament_id,
    GameRow.stage,
    GameRow.pool,
    GameRow.round,
    GameRow.status,
    GameRow.winner,
    GameRow.termination,
    GameRow.offender,
    GameRow.plies,
    GameRow.replays,
)


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

    where = []
    if tournament is not None:
        tournament_id = session.scalar(select(Tournament.id).where(Tournament.name == tournament))
        if tournament_id is None:
            known = ", ".join(session.scalars(select(Tournament.name))) or "none"
            raise ArenaError(f"no tournament {tournament!r}; the tournaments: {known}")
        where.append(GameRow.tournament_id == tournament_id)
    if bot is not None:
        of_bot = (
            select(GameSeat.game_id)
            .join(Entry, Entry.id == GameSeat.entry_id)
            .join(Bot, Bot.id == Entry.bot_id)
            .where(or_(Entry.team == bot, Bot.name == bot))
        )
        where.append(GameRow.id.in_(of_bot))
    total = session.scalar(select(func.count()).select_from(GameRow).where(*where)) or 0
    # only the columns a row shows, newest first (the index of a tournament's games by id gives
    # them in that order: no sort of every game)
    ordered = select(*LISTED).where(*where).order_by(GameRow.id.desc())
    listed = session.execute(ordered if limit is None else ordered.limit(limit)).all()
    ids = [g.id for g in listed]
    teams: dict[int, list[str]] = {}
    for game_id, team in session.execute(
        select(GameSeat.game_id, Entry.team)
        .join(Entry, Entry.id == GameSeat.entry_id)
        .where(GameSeat.game_id.in_(ids))
        .order_by(GameSeat.game_id, GameSeat.seat)
    ):
        teams.setdefault(game_id, []).append(team)
    points = _points_of(session, ids)
    tournaments = {
        t.id: (t.name, _stage_names(t))
        for t in session.scalars(select(Tournament).where(Tournament.id.in_({g.tournament_id for g in listed})))
    }
    rows = []
    for g in listed:
        name, stages = tournaments[g.tournament_id]
        seated = teams.get(g.id, [])
        row = {
            "id": g.id,
            "tournament": name,
            "stage": g.stage,
            "stage_name": stage_name(stages, g.stage),
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


@dataclass(frozen=True, slots=True)
class GameFilter:
    """Which of a tournament's games a list shows (``None``: any): those the team ``entry_id``
    (an entry of the tournament) plays, of stage ``stage``, won by seat ``winner``, and of the
    ``result`` (one of ``RESULTS``)."""

    entry_id: int | None = None
    stage: int | None = None
    winner: int | None = None
    result: str | None = None


#: what ``GameFilter.result`` may say: no winner, a forfeit, won or lost by the team (the
#: filter's ``entry_id``), not played yet (a game left unfinished is not finished either)
RESULTS = ("draw", "forfeit", "won", "lost", "pending")
#: the terminations of a game that are not a forfeit (``Termination.is_forfeit``)
NOT_FORFEITS = tuple(t.value for t in Termination if not t.is_forfeit)


def _conditions(tournament_id: int, chosen: GameFilter) -> list[ColumnElement[bool]]:
    """What a game of ``tournament_id`` that ``chosen`` lets through is, in SQL (as the static
    report's games list filters its rows in the page, report.js)."""
    finished = and_(GameRow.status == "finished", or_(GameRow.termination.is_(None), GameRow.termination != "aborted"))
    where: list[ColumnElement[bool]] = [GameRow.tournament_id == tournament_id]
    if chosen.entry_id is not None:
        where.append(GameRow.id.in_(select(GameSeat.game_id).where(GameSeat.entry_id == chosen.entry_id)))
    if chosen.stage is not None:
        where.append(GameRow.stage == chosen.stage)
    if chosen.winner is not None:
        where += [finished, GameRow.winner == chosen.winner]
    match chosen.result:
        case None:
            pass
        case "draw":
            where += [finished, GameRow.winner.is_(None)]
        case "forfeit":
            where += [GameRow.offender.is_not(None), GameRow.termination.not_in(NOT_FORFEITS)]
        case "pending":
            where.append(not_(finished))
        case "won" | "lost" if chosen.entry_id is None:  # nobody's win or loss: no game
            where.append(false())
        case "won" | "lost":
            won = _won_by(chosen.entry_id)
            where += [finished, won] if chosen.result == "won" else [finished, GameRow.winner.is_not(None), not_(won)]
        case _:
            raise ArenaError(f"no result {chosen.result!r} to list games by; the results: {', '.join(RESULTS)}")
    return where


def _won_by(entry_id: int | None) -> ColumnElement[bool]:
    """Whether the seat that won a game is the team ``entry_id``'s."""
    seat = select(GameSeat.game_id).where(
        GameSeat.game_id == GameRow.id, GameSeat.seat == GameRow.winner, GameSeat.entry_id == entry_id
    )
    return seat.exists()


def game_page(
    session: Session, tournament_id: int, chosen: GameFilter, page: int, size: int
) -> tuple[list[int], int, int]:
    """The ids of the games on page ``page`` (from 1; past the last, the last) of those of
    tournament ``tournament_id`` that ``chosen`` lets through, ``size`` a page in schedule
    order; how many it lets through, and the page's number."""
    where = _conditions(tournament_id, chosen)
    matching = session.scalar(select(func.count()).select_from(GameRow).where(*where)) or 0
    page = max(1, min(page, -(-matching // size)))
    query = select(GameRow.id).where(*where).order_by(GameRow.id).offset((page - 1) * size).limit(size)
    return list(session.scalars(query)), matching, page


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
