"""Grouped sums over a tournament's games that can be taken in parts and added up.

A read of a big tournament is made of a few grouped queries (its games alike counted together,
its games counted by pool and result, its seats summed by team and machine). Each is a
``Tally``: rows of a key and figures, where the figures of two parts of the games are merged by
adding them, or keeping the least or the most. So a served tournament sums its *settled*
games (every game up to some id finished: nothing there changes unless a game is played again
or deleted) once, and on each new game sums only the games after them (``Span``), not every
game again."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import ColumnElement, Connection, Select, func, literal_column, select
from sqlalchemy.orm import Session

from arena.store.models import GameRow, Tournament

Merge = Callable[[Any, Any], Any]


def add(a: Any, b: Any) -> Any:
    """Two sums added (a sum over no value is ``None``, as SQL gives it)."""
    return b if a is None else a if b is None else a + b


def least(a: Any, b: Any) -> Any:
    """The smaller of two figures (``None``: none)."""
    return b if a is None else a if b is None else min(a, b)


def most(a: Any, b: Any) -> Any:
    """The larger of two figures (``None``: none)."""
    return b if a is None else a if b is None else max(a, b)


@dataclass(slots=True)
class Tally:
    """The rows of one grouped query: each group's key (the first ``keys`` columns) and its
    figures, each merged with another part's by its ``merges`` function."""

    keys: int
    merges: tuple[Merge, ...]
    groups: dict[tuple[Any, ...], tuple[Any, ...]] = field(default_factory=dict)

    def add(self, rows: Iterable[Sequence[Any]]) -> Tally:
        """``rows`` merged in (itself, changed)."""
        groups, keys, merges = self.groups, self.keys, self.merges
        for row in rows:
            key, figures = tuple(row[:keys]), tuple(row[keys:])
            known = groups.get(key)
            groups[key] = (
                figures if known is None else tuple(m(a, b) for m, a, b in zip(merges, known, figures, strict=True))
            )
        return self

    def plus(self, other: Tally) -> Tally:
        """A new tally of both parts' rows."""
        return Tally(self.keys, self.merges, dict(self.groups)).add(other.rows())

    def rows(self) -> list[tuple[Any, ...]]:
        """Each group as one row: its key, then its figures."""
        return [key + figures for key, figures in self.groups.items()]


@dataclass(frozen=True, slots=True)
class Span:
    """The games of a tournament of ids after ``after`` (``None``: from the first) and up to
    ``through`` (``None``: to the last)."""

    after: int | None = None
    through: int | None = None

    def where(self) -> list[ColumnElement[bool]]:
        """The conditions on ``GameRow.id`` that keep a query to these games."""
        found = []
        if self.after is not None:
            found.append(GameRow.id > self.after)
        if self.through is not None:
            found.append(GameRow.id <= self.through)
        return found


def settled_through(session: Session, tournament: Tournament) -> int:
    """The id up to which every game of ``tournament`` is finished (0: none is)."""
    where = GameRow.tournament_id == tournament.id
    waiting = session.scalar(select(func.min(GameRow.id)).where(where, GameRow.status != "finished"))
    if waiting is not None:
        return int(waiting) - 1
    return int(session.scalar(select(func.max(GameRow.id)).where(where)) or 0)


def settled_check(session: Session, tournament: Tournament, through: int) -> tuple[int, int]:
    """The games of ``tournament`` up to id ``through`` and the times they were played again:
    what changes when one of them is deleted or played again (which makes them unsettled)."""
    where = (GameRow.tournament_id == tournament.id, GameRow.id <= through, GameRow.status == "finished")
    count, replays = session.execute(select(func.count(), func.sum(GameRow.replays)).where(*where)).one()
    return int(count), int(replays or 0)


def tallied(
    connection: Connection, query: Select[*tuple[Any, ...]], through: int | None, keys: int, merges: tuple[Merge, ...]
) -> tuple[Tally, Tally]:
    """The rows of ``query`` (each group's key, its first ``keys`` columns, then its figures) as
    tallies: the groups of the games up to id ``through`` and the others apart, ``query``
    grouped by that too (``None``: every group in the first). (The id is written into the
    query, not bound, so that PostgreSQL sees one expression where it is selected and where it
    is grouped by.)"""
    settled, others = Tally(keys, merges), Tally(keys, merges)
    if through is None:
        return settled.add(connection.execute(query)), others
    flag = GameRow.id <= literal_column(str(int(through)))
    for *row, is_settled in connection.execute(query.add_columns(flag).group_by(flag)):
        (settled if is_settled else others).add([row])
    return settled, others
