"""Games and move times per machine (node) of a tournament: on a cluster, a slow or busy node
shows as longer move times or more timeouts than the others."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import case, func, select
from sqlalchemy.orm import Session

from arena.store.models import GameRow, GameSeat


@dataclass(frozen=True, slots=True)
class NodeLine:
    """One machine's share of a tournament: where (``node``, ``cpu``), how it timed bots
    (``clock``, ``time_scale``), its games, their timeouts, and its moves' times in ms."""

    node: str
    cpu: str
    clock: str
    time_scale: float
    games: int
    timeouts: int
    moves: int
    mean_wall_ms: float | None
    max_wall_ms: float | None
    mean_cpu_ms: float | None


def node_lines(session: Session, tournament_id: int) -> list[NodeLine]:
    """The finished games of tournament ``tournament_id`` by the machine, clock and time scale
    they were played with (games stored before machines were recorded: ``unknown``), the
    busiest first: their bots' moves from the seats' sums (``GameSeat``), not the moves."""
    node = func.coalesce(GameRow.node, "unknown")
    cpu = func.coalesce(GameRow.cpu, "")
    clock = func.coalesce(GameRow.clock, "")
    scale = func.coalesce(GameRow.time_scale, 1.0)
    keys = (node, cpu, clock, scale)
    finished = (GameRow.tournament_id == tournament_id, GameRow.status == "finished")
    first, timed = GameSeat.seat == 0, GameSeat.cpu_ms.is_not(None)
    rows = session.execute(
        select(
            *keys,
            func.sum(case((first, 1), else_=0)),
            func.sum(case((first & (GameRow.termination == "timeout"), 1), else_=0)),
            func.sum(GameSeat.moves),
            func.sum(GameSeat.think_ms),
            func.max(GameSeat.longest_ms),
            func.sum(GameSeat.cpu_ms),
            func.sum(case((timed, GameSeat.moves), else_=0)),
        )
        .join(GameSeat, GameSeat.game_id == GameRow.id)
        .where(*finished)
        .group_by(*keys)
    ).all()
    lines = []
    for where, cpu_kind, clock_kind, time_scale, games, timeouts, moves, wall, longest, cpu_total, timed_moves in rows:
        moves = int(moves or 0)
        lines.append(
            NodeLine(
                str(where),
                str(cpu_kind),
                str(clock_kind),
                float(time_scale),
                int(games or 0),
                int(timeouts or 0),
                moves,
                float(wall) / moves if moves and wall is not None else None,
                float(longest) if moves and longest is not None else None,
                float(cpu_total) / timed_moves if timed_moves and cpu_total is not None else None,
            )
        )
    return sorted(lines, key=lambda line: (-line.games, line.node, line.clock, line.time_scale))
