"""Games and move times per machine (node) of a tournament: on a cluster, a slow or busy node
shows as longer move times or more timeouts than the others."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.contests.game_sums import SEAT_FIGURES
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


@dataclass(frozen=True, slots=True)
class SeatSums:
    """A team's seats in a tournament's finished games summed, apart for games left unfinished
    (``aborted``): its thinking, and what the machines table needs."""

    entry: int
    aborted: bool
    games: int  # the games in which this team had the first seat (each game counted once overall)
    timeouts: int  # of those, the ones ended by a timeout
    moves: int
    think_ms: float
    longest_ms: float | None
    cpu_ms: float | None
    timed_moves: int  # the moves of seats whose every move has its CPU time
    reported: int  # the seats with points reported
    points: float


def seat_sums(rows: list[tuple[Any, ...]]) -> list[SeatSums]:
    """The rows of a tournament's seats summed (``seats_tally``, arena/contests/game_sums.py)
    as ``SeatSums``."""
    found = []
    for entry, kept, games, timeouts, moves, think, longest, cpu_total, timed, reported, points in rows:
        found.append(
            SeatSums(
                entry,
                not kept,
                int(games or 0),
                int(timeouts or 0),
                int(moves or 0),
                float(think or 0.0),
                None if longest is None else float(longest),
                None if cpu_total is None else float(cpu_total),
                int(timed or 0),
                int(reported or 0),
                float(points or 0.0),
            )
        )
    return found


def machines(session: Session, tournament_id: int) -> list[tuple[str, str, str, float]]:
    """The machines, clocks and time scales the finished games of tournament ``tournament_id``
    were played with (games stored before machines were recorded: on machine ``unknown``)."""
    found = select(*MACHINE).where(GameRow.tournament_id == tournament_id, GameRow.status == "finished").distinct()
    return [(str(node), str(cpu), str(clock), float(scale)) for node, cpu, clock, scale in session.execute(found)]


MACHINE = (
    func.coalesce(GameRow.node, "unknown"),
    func.coalesce(GameRow.cpu, ""),
    func.coalesce(GameRow.clock, ""),
    func.coalesce(GameRow.time_scale, 1.0),
)


def node_lines(session: Session, tournament_id: int, sums: list[SeatSums]) -> list[NodeLine]:
    """The finished games of tournament ``tournament_id`` by the machine, clock and time scale
    they were played with, the busiest first: from its seats' sums ``sums`` where they were all
    played on one, else summed by machine (``GameSeat``: the seats, not the moves)."""
    found = machines(session, tournament_id)
    if len(found) == 1:
        rows = [(*found[0], *_figures(sums))]
    else:
        query = select(*MACHINE, *SEAT_FIGURES).join(GameSeat, GameSeat.game_id == GameRow.id)
        finished = (GameRow.tournament_id == tournament_id, GameRow.status == "finished")
        rows = [tuple(row) for row in session.execute(query.where(*finished).group_by(*MACHINE))]
    lines = []
    for node, cpu, clock, scale, games, timeouts, moves, wall, longest, cpu_total, timed in rows:
        moves = int(moves or 0)
        lines.append(
            NodeLine(
                str(node),
                str(cpu),
                str(clock),
                float(scale),
                int(games or 0),
                int(timeouts or 0),
                moves,
                float(wall) / moves if moves and wall is not None else None,
                float(longest) if moves and longest is not None else None,
                float(cpu_total) / timed if timed and cpu_total is not None else None,
            )
        )
    return sorted(lines, key=lambda line: (-line.games, line.node, line.clock, line.time_scale))


def _figures(sums: list[SeatSums]) -> tuple[Any, ...]:
    """The machines table's figures over every seat of ``sums``, as the query by machine gives them."""
    longest = [part.longest_ms for part in sums if part.longest_ms is not None]
    cpu = [part.cpu_ms for part in sums if part.cpu_ms is not None]
    return (
        sum(part.games for part in sums),
        sum(part.timeouts for part in sums),
        sum(part.moves for part in sums),
        sum(part.think_ms for part in sums),
        max(longest, default=None),
        sum(cpu) if cpu else None,
        sum(part.timed_moves for part in sums),
    )
