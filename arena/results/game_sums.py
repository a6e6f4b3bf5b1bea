"""A tournament's games summed for a read (``GameSums``): its games alike counted together, its
games counted by pool, round and result, its seats summed by team. Each is a ``Tally``
(arena/contests/tally.py), so a server keeps the sums of the settled games (every game up to
some id finished) and on each new game sums only the games after them (``sum_games``)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.contests.stages import alike_tally
from arena.contests.tally import Span, Tally, add, least, most, settled_check, settled_through, tallied
from arena.results.nodestats import SEAT_FIGURES
from arena.store.models import GameRow, GameSeat, Tournament, not_aborted

#: the counts' key columns (stage, pool, round, seats, status, termination, no seat to blame)
#: and figures (games, draws, moves, first id)
COUNTS = (7, (add, add, add, least))
#: the seats' key columns (team, not left unfinished) and figures (games as the first seat,
#: timeouts of those, moves, think time, longest move, CPU time, timed moves, points reported, points)
SEATS = (2, (add, add, add, add, most, add, add, add, add))
NAMES = ("alike", "counts", "seats")


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
    the next read) and all of them. With sums ``kept`` from an earlier read whose settled games
    are unchanged (none deleted or played again since), only the games after those are summed;
    otherwise every game."""
    if kept is None and not keep:
        return None, GameSums(0, None, *(tally(session, tournament, Span(), None)[0] for tally in TALLIES))
    through = settled_through(session, tournament)
    if kept is not None:
        unchanged = kept.check is not None and kept.through <= through
        if not (unchanged and settled_check(session, tournament, kept.through) == kept.check):
            kept = None
    span = Span(after=kept.through if kept is not None else None)
    settled_parts, other_parts = zip(*(tally(session, tournament, span, through) for tally in TALLIES), strict=True)
    check = settled_check(session, tournament, through)
    found = GameSums(through, check, *settled_parts)
    settled = kept.plus(found, through, check) if kept is not None else found
    return settled, settled.plus(GameSums(through, None, *other_parts), through, None)
