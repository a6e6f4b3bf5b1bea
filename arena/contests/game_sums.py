"""A tournament's games summed for a read (``GameSums``): its games alike counted together, its
games counted by pool, round and result, its seats summed by team. Each is a ``Tally``
(arena/contests/tally.py), so a server keeps the sums of the settled games (every game up to
some id finished) and on each new game sums only the games after them (``sum_games``)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.contests.config import TournamentDef
from arena.contests.stages import ALIKE, alike_tally, rate
from arena.contests.tally import Span, Tally, add, least, most, settled_check, settled_through, tallied
from arena.store.models import GameRow, GameSeat, KeptSums, Tournament, not_aborted

#: the counts' key columns (stage, pool, round, seats, status, termination, no seat to blame)
#: and figures (games, draws, moves, first id)
COUNTS = (7, (add, add, add, least))
#: the seats' key columns (team, not left unfinished) and figures (games as the first seat,
#: timeouts of those, moves, think time, longest move, CPU time, timed moves, points reported, points)
SEATS = (2, (add, add, add, add, most, add, add, add, add))
NAMES = ("alike", "counts", "seats")

#: the seats' figures the machines table needs, summed over a group of seats of finished games
#: (games as the first seat, timeouts of those, moves, think time, longest move, CPU time, the
#: moves of seats with CPU times)
SEAT_FIGURES = (
    func.count().filter(GameSeat.seat == 0),
    func.count().filter((GameSeat.seat == 0) & (GameRow.termination == "timeout")),
    func.sum(GameSeat.moves),
    func.sum(GameSeat.think_ms),
    func.max(GameSeat.longest_ms),
    func.sum(GameSeat.cpu_ms),
    func.coalesce(func.sum(GameSeat.moves).filter(GameSeat.cpu_ms.is_not(None)), 0),
)


@dataclass(frozen=True, slots=True)
class GameSums:
    """A tournament's games summed (each a ``Tally``): ``through`` the id up to which they are
    the settled ones (every game up to it finished), ``check`` what ``settled_check`` gave for
    them (``None``: not worked out, for a read that does not keep its sums)."""

    through: int
    check: tuple[int, int] | None
    alike: Tally
    counts: Tally
    seats: Tally

    @property
    def seat_counts(self) -> set[int]:
        """The numbers of seats the games have."""
        return {row[3] for row in self.counts.groups}

    def plus(self, other: GameSums, through: int, check: tuple[int, int] | None) -> GameSums:
        """These sums and ``other``'s together, as the sums through ``through``."""
        tallies = [getattr(self, name).plus(getattr(other, name)) for name in NAMES]
        return GameSums(through, check, *tallies)


def counts_tally(session: Session, tournament: Tournament, span: Span, through: int | None) -> tuple[Tally, Tally]:
    """``tournament``'s games in ``span`` counted by stage, pool, round, seats, status,
    termination and whether a seat is to blame, with their draws, moves and first id
    (``COUNTS``): those up to id ``through`` and the others apart."""
    key = (
        GameRow.stage,
        GameRow.pool,
        GameRow.round,
        GameRow.players,
        GameRow.status,
        GameRow.termination,
        GameRow.offender.is_(None),
    )
    draws = func.count().filter(GameRow.winner.is_(None))
    figures = (func.count(), draws, func.sum(GameRow.plies), func.min(GameRow.id))
    query = select(*key, *figures).where(GameRow.tournament_id == tournament.id, *span.where())
    return tallied(session.connection(), query.group_by(*key), through, *COUNTS)


def seats_tally(session: Session, tournament: Tournament, span: Span, through: int | None) -> tuple[Tally, Tally]:
    """The seats of ``tournament``'s finished games in ``span`` summed by team, apart for games
    left unfinished (``SEATS``): those up to id ``through`` and the others apart."""
    keys = (GameSeat.entry_id, not_aborted())
    figures = (*SEAT_FIGURES, func.count(GameSeat.points), func.sum(GameSeat.points))
    query = (
        select(*keys, *figures)
        .join(GameSeat, GameSeat.game_id == GameRow.id)
        .where(GameRow.tournament_id == tournament.id, GameRow.status == "finished", *span.where())
        .group_by(*keys)
    )
    return tallied(session.connection(), query, through, *SEATS)


TALLIES = (alike_tally, counts_tally, seats_tally)


def sum_games(
    session: Session, tournament: Tournament, kept: GameSums | None = None, *, keep: bool = False
) -> tuple[GameSums | None, GameSums]:
    """``tournament``'s games summed: its settled ones (``None`` unless ``keep``: to be kept for
    the next read) and all of them. They go on from the sums ``kept`` by an earlier read, else
    from those kept with the tournament (``keep_for_reads``), over the games after them, if
    those settled games are unchanged (none deleted or played again since); else every game is
    summed."""
    kept = kept or stored_sums(session, tournament)
    if kept is not None and (kept.check is None or settled_check(session, tournament, kept.through) != kept.check):
        kept = None
    span = Span(after=kept.through if kept is not None else None)
    if not keep:
        found = GameSums(0, None, *(tally(session, tournament, span, None)[0] for tally in TALLIES))
        return None, found if kept is None else kept.plus(found, kept.through, None)
    through = settled_through(session, tournament)
    settled_parts, other_parts = zip(*(tally(session, tournament, span, through) for tally in TALLIES), strict=True)
    check = settled_check(session, tournament, through)
    found = GameSums(through, check, *settled_parts)
    settled = kept.plus(found, through, check) if kept is not None else found
    return settled, settled.plus(GameSums(through, None, *other_parts), through, None)


def stored_sums(session: Session, tournament: Tournament) -> GameSums | None:
    """The sums kept with ``tournament`` (``keep_for_reads``), or ``None``."""
    row = session.get(KeptSums, tournament.id)
    if row is None:
        return None
    data = json.loads(row.data)
    shapes = {"alike": ALIKE, "counts": COUNTS, "seats": SEATS}
    tallies = [Tally(*shapes[name]).add(data[name]) for name in NAMES]
    return GameSums(row.through, (row.games, row.replays), *tallies)


def keep_for_reads(session: Session, tournament: Tournament, config: TournamentDef) -> None:
    """Keep with ``tournament`` (in the caller's transaction) what its reads go on from: its
    ratings and its sums after its settled games, every game up to the first not finished."""
    settled, _ = sum_games(session, tournament, keep=True)
    assert settled is not None and settled.check is not None
    rate(session, tournament, config, settled.through)
    row = session.get(KeptSums, tournament.id)
    if row is None:
        row = KeptSums(tournament_id=tournament.id)
        session.add(row)
    row.through, (row.games, row.replays) = settled.through, settled.check
    row.data = json.dumps({name: getattr(settled, name).rows() for name in NAMES}, separators=(",", ":"))
