"""The database's tables: SQLAlchemy 2 models, and the two helpers every query uses (``count``,
``get_row``). The writes the harness makes are arena/store/writes.py's; opening the database and
its schema's migrations arena/store/database.py's.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, NamedTuple, TypeVar

from sqlalchemy import (
    JSON,
    BigInteger,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
    false,
    func,
    or_,
    select,
    text,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column
from sqlalchemy.sql import ColumnElement

from arena.core.text import clean, clean_data
from arena.errors import ArenaError


class StoreError(ArenaError):
    """The database cannot be opened, written or understood."""


class CleanText(TypeDecorator[str]):
    """Text that is ``clean`` before it is written: the last line of defence, so that no string
    (a bot's message, a name from a file) can fail a write, and with it every later run."""

    impl: Any = Text
    cache_ok = True

    def process_bind_param(self, value: str | None, dialect: Dialect) -> str | None:
        return None if value is None else clean(value)


class CleanString(CleanText):
    """A ``String`` column (with a length) of clean text."""

    impl = String
    cache_ok = True


class CleanJSON(TypeDecorator[Any]):
    """JSON whose strings are ``clean`` before it is written (JSON keeps a lone surrogate as an
    escape that reads back as the surrogate, which would then fail a print)."""

    impl = JSON
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Dialect) -> Any:
        return clean_data(value)


class Base(DeclarativeBase):
    pass


#: a 63-bit number (a game's seed): SQLite's INTEGER holds it already (so its schema stays as it
#: was), PostgreSQL's needs BIGINT
Int64 = Integer().with_variant(BigInteger(), "postgresql")


class Bot(Base):
    """A bot version: a registered or declared bot, with the hash of its code."""

    __tablename__ = "bots"
    __table_args__ = (UniqueConstraint("name", "version"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(CleanString(200))
    version: Mapped[int] = mapped_column(Integer, default=1)
    kind: Mapped[str] = mapped_column(CleanString(20))
    target: Mapped[str] = mapped_column(CleanText)
    params: Mapped[str] = mapped_column(CleanText, default="{}")
    python: Mapped[str | None] = mapped_column(CleanText)
    path: Mapped[str | None] = mapped_column(CleanText)
    code_hash: Mapped[str | None] = mapped_column(CleanString(64))
    description: Mapped[str] = mapped_column(CleanText, default="")
    games: Mapped[list[str] | None] = mapped_column(CleanJSON)
    registered: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[float] = mapped_column(Float, default=time.time)


#: the ``config_hash`` of a tournament that holds the games people play with ``arena play`` (one
#: a game and bot version): such a tournament is never a command's default tournament
PLAY_HASH = "play"


class Tournament(Base):
    """A tournament: its config as written, the hash that guards resuming it, its status."""

    __tablename__ = "tournaments"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(CleanString(200), unique=True)
    game: Mapped[dict[str, Any]] = mapped_column(CleanJSON)
    config_text: Mapped[str] = mapped_column(CleanText)
    config_hash: Mapped[str] = mapped_column(CleanString(64))
    config: Mapped[dict[str, Any]] = mapped_column(CleanJSON)
    seed: Mapped[int] = mapped_column(Int64)
    status: Mapped[str] = mapped_column(CleanString(20), default="pending")
    stages: Mapped[int] = mapped_column(Integer, default=1)
    created_at: Mapped[float] = mapped_column(Float, default=time.time)
    started_at: Mapped[float | None] = mapped_column(Float)
    finished_at: Mapped[float | None] = mapped_column(Float)
    run_seconds: Mapped[float] = mapped_column(Float, default=0.0)


class OfTournament:
    """The columns of a row that belongs to a tournament: its own id and the tournament's (the
    first columns of its table)."""

    id: Mapped[int] = mapped_column(primary_key=True, sort_order=-2)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"), sort_order=-1)


class Entry(OfTournament, Base):
    """A team of a tournament and the bot version it plays with."""

    __tablename__ = "entries"
    __table_args__ = (UniqueConstraint("tournament_id", "team"),)
    team: Mapped[str] = mapped_column(CleanString(200))
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"))
    number: Mapped[int] = mapped_column(Integer)


class PoolEntry(OfTournament, Base):
    """A team's place in a pool of a stage (``seed``: its order when the pool was drawn)."""

    __tablename__ = "pool_entries"
    __table_args__ = (UniqueConstraint("tournament_id", "stage", "entry_id"),)
    stage: Mapped[int] = mapped_column(Integer)
    pool: Mapped[int] = mapped_column(Integer)
    entry_id: Mapped[int] = mapped_column(ForeignKey("entries.id"))
    seed: Mapped[int] = mapped_column(Integer)


class GameRow(OfTournament, Base):
    """A scheduled game; its result fields are filled when it is finished. Who plays which seat,
    and what each seat scored and wrote, are its ``GameSeat`` rows."""

    __tablename__ = "games"
    __table_args__ = (
        Index("ix_games_tournament_status", "tournament_id", "status"),
        # every read of a tournament's games in schedule order (a page of them, the newest first)
        Index("ix_games_tournament_id", "tournament_id", "id"),
        Index("ix_games_tournament_stage", "tournament_id", "stage", "id"),
    )
    stage: Mapped[int] = mapped_column(Integer)
    pool: Mapped[int] = mapped_column(Integer)
    round: Mapped[int] = mapped_column(Integer)
    number: Mapped[int] = mapped_column(Integer)
    #: how many seats the game has
    players: Mapped[int] = mapped_column(Integer, default=2, server_default="2")
    seed: Mapped[int] = mapped_column(Int64)
    status: Mapped[str] = mapped_column(CleanString(20), default="pending")
    winner: Mapped[int | None] = mapped_column(Integer)
    termination: Mapped[str | None] = mapped_column(CleanString(20))
    offender: Mapped[int | None] = mapped_column(Integer)
    detail: Mapped[str | None] = mapped_column(CleanText)
    plies: Mapped[int | None] = mapped_column(Integer)
    started_at: Mapped[float | None] = mapped_column(Float)
    finished_at: Mapped[float | None] = mapped_column(Float)
    replays: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    #: the machine it was played on (host name, CPU model), its clock (``wall``, ``cpu``) and
    #: the factor its time limits were scaled by for that machine's speed
    node: Mapped[str | None] = mapped_column(CleanString(200))
    cpu: Mapped[str | None] = mapped_column(CleanString(200))
    clock: Mapped[str | None] = mapped_column(CleanString(10))
    time_scale: Mapped[float | None] = mapped_column(Float)


class GameSeat(Base):
    """A seat of a game: the team (entry) that plays it, and once the game is finished, the
    points it scored as the game reports them (``None``: the game reports none), the tail of
    what its bot wrote to stderr, its moves and their time (so that a tournament's think
    times are read without reading its moves), and its team's rating after it."""

    __tablename__ = "game_seats"
    __table_args__ = (Index("ix_game_seats_entry", "entry_id"),)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    entry_id: Mapped[int] = mapped_column(ForeignKey("entries.id"))
    points: Mapped[float | None] = mapped_column(Float)
    stderr: Mapped[str | None] = mapped_column(CleanText)
    #: once the game is stored: the seat's moves, their total and longest wall time (ms)
    moves: Mapped[int | None] = mapped_column(Integer)
    think_ms: Mapped[float | None] = mapped_column(Float)
    longest_ms: Mapped[float | None] = mapped_column(Float)
    #: once the game is stored: its moves' CPU time (ms; ``None`` where a move's is unknown)
    cpu_ms: Mapped[float | None] = mapped_column(Float)
    #: the team's rating after the game (the tournament's rating system), once ratings are kept
    #: through it (arena/contests/rating.py: ``kept_ratings``)
    mu: Mapped[float | None] = mapped_column(Float)
    sigma: Mapped[float | None] = mapped_column(Float)


class GameVoid(Base):
    """A game voided while it was played, and played again: the machine was too busy to time
    a bot fairly (``reason`` says who, when, and the times measured)."""

    __tablename__ = "game_voids"
    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    attempt: Mapped[int] = mapped_column(Integer)
    reason: Mapped[str] = mapped_column(Text)
    plies: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[float] = mapped_column(Float, default=time.time)


class MoveRow(Base):
    """One move of a stored game, with its wall and CPU time in milliseconds, how long of that
    wall time the bot waited for a CPU other programs held (``wait_ms``), and whether the clock
    cut the bot's search short of its own budget (``cut``: the bot said so), and an engine's
    ``info`` on its search."""

    __tablename__ = "moves"
    __table_args__ = (
        Index("ix_moves_game_ply", "game_id", "ply", unique=True),
        # the few moves the clock cut, found without reading every move (``cut_moves``)
        Index("ix_moves_cut", "game_id", sqlite_where=text("cut = 1"), postgresql_where=text("cut")),
    )
    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"))
    ply: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int] = mapped_column(Integer)
    move: Mapped[str] = mapped_column(CleanString(20))
    wall_ms: Mapped[float] = mapped_column(Float)
    cpu_ms: Mapped[float | None] = mapped_column(Float)
    wait_ms: Mapped[float | None] = mapped_column(Float)
    cut: Mapped[bool] = mapped_column(default=False, server_default=false())
    #: what an engine said of its search for this move (JSON text: score, depth, nodes)
    info: Mapped[str | None] = mapped_column(CleanText)


class Pace(Base):
    """A bot's pace on one machine (``arena.runners.pace``): the CPU seconds a step of its search took
    under a cpu clock of ``limit`` seconds a move (``pace`` ``None``: its searches do not
    budget by the clock). ``key`` names the bot's code, parameters and game."""

    __tablename__ = "paces"
    __table_args__ = (Index("ix_paces_machine_key", "machine", "key", unique=True),)
    id: Mapped[int] = mapped_column(primary_key=True)
    machine: Mapped[str] = mapped_column(CleanString(200))
    key: Mapped[str] = mapped_column(String(64))
    bot: Mapped[str] = mapped_column(CleanString(200))
    limit: Mapped[float] = mapped_column(Float)
    pace: Mapped[float | None] = mapped_column(Float)
    created_at: Mapped[float] = mapped_column(Float, default=time.time)


class KeptRatings(Base):
    """A tournament's ratings kept as its games are stored: every team's (mu, sigma) after the
    games rated, those of ids up to ``through`` (every game up to it was finished or left
    unfinished then), by the rating ``settings`` (JSON); ``rated`` games whose ``check`` (a CRC
    of their ids, teams and places) lets a read find that they are still the games stored. A
    read goes on from them over the games stored since, and gives what a replay of every game
    gives (arena/contests/rating.py: ``kept_ratings``)."""

    __tablename__ = "kept_ratings"
    __table_args__ = (UniqueConstraint("tournament_id", "settings"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"))
    settings: Mapped[str] = mapped_column(Text)
    through: Mapped[int] = mapped_column(Integer)
    rated: Mapped[int] = mapped_column(Integer)
    check: Mapped[int] = mapped_column(Int64)
    teams: Mapped[dict[str, Any]] = mapped_column(JSON)


class KeptSums(Base):
    """A tournament's settled games summed (every game up to ``through`` finished), kept as its
    games are stored: the sums a read goes on from over the games stored since
    (arena/contests/game_sums.py), while its settled games are still ``games`` finished games
    played again ``replays`` times in all. ``data``: the sums, as JSON."""

    __tablename__ = "kept_sums"
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"), primary_key=True)
    through: Mapped[int] = mapped_column(Integer)
    games: Mapped[int] = mapped_column(Integer)
    replays: Mapped[int] = mapped_column(Integer)
    data: Mapped[str] = mapped_column(Text)


class SchemaVersion(Base):
    """The schema version this database is at (one row)."""

    __tablename__ = "schema_version"
    version: Mapped[int] = mapped_column(primary_key=True)


Row = TypeVar("Row", bound="Base")


def count(session: Session, model: type[Base], *where: ColumnElement[bool]) -> int:
    """How many rows of ``model`` match every condition of ``where``."""
    return session.scalar(select(func.count()).select_from(model).where(*where)) or 0


class SeatRow(NamedTuple):
    """A game's seat as reads take it (``game_seats``): its team's entry, its points, the tail
    of its stderr, its moves and their total and longest wall time."""

    game_id: int
    seat: int
    entry_id: int
    points: float | None
    stderr: str | None
    moves: int | None
    think_ms: float | None
    longest_ms: float | None


def game_seats(session: Session, *where: ColumnElement[bool]) -> dict[int, list[SeatRow]]:
    """The seats of each game matching every condition of ``where`` (on ``GameRow``), in seat
    order, by game id (rows, not objects: a tournament's seats are read whole)."""
    query = (
        select(
            GameSeat.game_id,
            GameSeat.seat,
            GameSeat.entry_id,
            GameSeat.points,
            GameSeat.stderr,
            GameSeat.moves,
            GameSeat.think_ms,
            GameSeat.longest_ms,
        )
        .join(GameRow, GameRow.id == GameSeat.game_id)
        .where(*where)
        .order_by(GameRow.id, GameSeat.seat)  # (by the games' index: no sort)
    )
    seats: dict[int, list[SeatRow]] = {}
    make = SeatRow._make
    for row in session.connection().execute(query).all():  # (plain rows, fetched at once: no ORM work on each)
        seat = make(row)
        seats.setdefault(seat.game_id, []).append(seat)
    return seats


def not_aborted() -> ColumnElement[bool]:
    """A game not left unfinished (``aborted``: it has no result, and is never rated or counted)."""
    return or_(GameRow.termination.is_(None), GameRow.termination != "aborted")


def reported_points(seats: Sequence[SeatRow]) -> tuple[float, ...] | None:
    """The points a finished game reported for each of its ``seats`` (``None``: it reports
    none, or not for every seat)."""
    points = [seat.points for seat in seats]
    if not points or any(value is None for value in points):
        return None
    return tuple(value for value in points if value is not None)


def get_row(session: Session, model: type[Row], key: int) -> Row:
    """The row of ``model`` whose id is ``key``; ``StoreError`` if there is none (removed while
    it was used)."""
    row = session.get(model, key)
    if row is None:
        raise StoreError(f"{model.__tablename__} row {key} is not in the database any more")
    return row
