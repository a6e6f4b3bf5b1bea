"""The database's contents: SQLAlchemy 2 models and the few writes the harness makes (opening
it, and its schema's migrations, are arena/store/database.py's).

Only the parent process of a run writes; each finished game is one transaction, so whatever
stops a run (a kill, a full disk) leaves every game either stored whole or still pending.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, TypeVar

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
    bindparam,
    delete,
    exists,
    func,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column
from sqlalchemy.sql import ColumnElement

from arena.core.records import GameRecord
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


class Game(OfTournament, Base):
    """A scheduled game; its result fields are filled when it is finished."""

    __tablename__ = "games"
    __table_args__ = (Index("ix_games_tournament_status", "tournament_id", "status"),)
    stage: Mapped[int] = mapped_column(Integer)
    pool: Mapped[int] = mapped_column(Integer)
    round: Mapped[int] = mapped_column(Integer)
    number: Mapped[int] = mapped_column(Integer)
    seat0: Mapped[int] = mapped_column(ForeignKey("entries.id"))
    seat1: Mapped[int] = mapped_column(ForeignKey("entries.id"))
    seed: Mapped[int] = mapped_column(Int64)
    status: Mapped[str] = mapped_column(CleanString(20), default="pending")
    winner: Mapped[int | None] = mapped_column(Integer)
    points0: Mapped[float | None] = mapped_column(Float)
    points1: Mapped[float | None] = mapped_column(Float)
    termination: Mapped[str | None] = mapped_column(CleanString(20))
    offender: Mapped[int | None] = mapped_column(Integer)
    detail: Mapped[str | None] = mapped_column(CleanText)
    stderr0: Mapped[str | None] = mapped_column(CleanText)
    stderr1: Mapped[str | None] = mapped_column(CleanText)
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

    @property
    def points(self) -> tuple[float, float] | None:
        """The points each seat scored as the game reported them (``None``: it reports none)."""
        if self.points0 is None or self.points1 is None:
            return None
        return (self.points0, self.points1)


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


class Move(Base):
    """One move of a stored game, with its wall and CPU time in milliseconds, and how long of
    that wall time the bot waited for a CPU other programs held (``wait_ms``)."""

    __tablename__ = "moves"
    __table_args__ = (Index("ix_moves_game_ply", "game_id", "ply", unique=True),)
    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"))
    ply: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int] = mapped_column(Integer)
    move: Mapped[str] = mapped_column(CleanString(20))
    wall_ms: Mapped[float] = mapped_column(Float)
    cpu_ms: Mapped[float | None] = mapped_column(Float)
    wait_ms: Mapped[float | None] = mapped_column(Float)


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


class SchemaVersion(Base):
    """The schema version this database is at (one row)."""

    __tablename__ = "schema_version"
    version: Mapped[int] = mapped_column(primary_key=True)


#: the statements a finished game is stored with, built once
_MOVES = insert(Move)
_FINISH = update(Game).where(Game.id == bindparam("game_id"), Game.status != "finished")


def save_record(session: Session, record: GameRecord) -> bool:
    """Store a finished game: its result and every move (the caller commits); whether it did.
    A game already finished is left as it is: a record that comes twice (a game a cluster played
    again after losing track of a worker) is stored once.

    Plain Core statements, compiled once: this runs once a game in the only writer, and the
    ORM's unit of work would cost several times more than SQLite itself.
    """
    connection = session.connection()
    game_id = record.game_id
    if connection.execute(select(Game.status).where(Game.id == game_id)).scalar_one_or_none() == "finished":
        return False
    moves = record.moves
    if moves:
        connection.execute(
            _MOVES,
            [
                {
                    "game_id": game_id,
                    "ply": ply,
                    "seat": m.seat,
                    "move": m.move,
                    "wall_ms": m.wall_ms,
                    "cpu_ms": m.cpu_ms,
                    "wait_ms": m.wait_ms,
                }
                for ply, m in enumerate(moves, 1)
            ],
        )
    points = record.points or (None, None)
    connection.execute(
        _FINISH,
        {
            "game_id": game_id,
            "status": "finished",
            "winner": record.winner,
            "points0": points[0],
            "points1": points[1],
            "termination": record.termination.value,
            "offender": record.offender,
            "detail": record.detail,
            "stderr0": record.stderr[0] or None,
            "stderr1": record.stderr[1] or None,
            "plies": len(moves),
            "started_at": record.started_at,
            "finished_at": record.finished_at,
            "node": record.node,
            "cpu": record.cpu,
            "clock": record.clock,
            "time_scale": record.time_scale,
        },
    )
    return True


def save_void(session: Session, record: GameRecord) -> int:
    """Store that the game of ``record`` was voided (``record.voided``) and is to be played
    again; how many times it has been voided now."""
    game = session.get_one(Game, record.game_id)
    game.replays = (game.replays or 0) + 1
    session.add(
        GameVoid(game_id=record.game_id, attempt=game.replays, reason=record.voided or "", plies=len(record.moves))
    )
    return game.replays


Row = TypeVar("Row", bound="Base")


def count(session: Session, model: type[Base], *where: ColumnElement[bool]) -> int:
    """How many rows of ``model`` match every condition of ``where``."""
    return session.scalar(select(func.count()).select_from(model).where(*where)) or 0


def get_row(session: Session, model: type[Row], key: int) -> Row:
    """The row of ``model`` whose id is ``key``; ``StoreError`` if there is none (removed while
    it was used)."""
    row = session.get(model, key)
    if row is None:
        raise StoreError(f"{model.__tablename__} row {key} is not in the database any more")
    return row


def forget_unfinished_moves(session: Session, tournament_id: int) -> int:
    """Remove moves of games not finished (left by nothing, but guard anyway); how many."""
    unfinished = select(Game.id).where(Game.tournament_id == tournament_id, Game.status != "finished")
    result = session.execute(delete(Move).where(Move.game_id.in_(unfinished)))
    return int(getattr(result, "rowcount", 0) or 0)


def integrity_problems(session: Session) -> list[str]:
    """What is inconsistent in the database (empty when all is well)."""
    problems = []
    if session.get_bind().dialect.name == "sqlite":  # a server checks its own pages
        problems = [row[0] for row in session.execute(text("PRAGMA integrity_check")) if row[0] != "ok"]
    orphan = session.execute(
        text("SELECT count(*) FROM moves m JOIN games g ON g.id = m.game_id WHERE g.status != 'finished'")
    ).scalar_one()
    if orphan:
        problems.append(f"{orphan} moves belong to unfinished games")
    short = session.execute(
        text(
            "SELECT count(*) FROM games g WHERE g.status = 'finished' AND "
            "g.plies != (SELECT count(*) FROM moves m WHERE m.game_id = g.id)"
        )
    ).scalar_one()
    if short:
        problems.append(f"{short} finished games do not have all their moves")
    return problems


@dataclass(frozen=True)
class Contents:
    """What a tournament holds in the database, in rows: its games, their moves and voided
    attempts, its entries (teams), their places in pools, and the bot versions no one else has:
    declared by it alone (neither registered nor entered in another tournament)."""

    games: int
    moves: int
    voids: int
    entries: int
    pool_places: int
    bots: int

    def describe(self) -> str:
        """The contents in words: ``12 games (80 moves), 4 entries, 4 pool places, 1 bot version
        declared only by it``."""
        voids = f", {_counted(self.voids, 'voided attempt')}" if self.voids else ""
        return (
            f"{_counted(self.games, 'game')} ({_counted(self.moves, 'move')}{voids}), "
            f"{_counted(self.entries, 'entry', 'entries')}, {_counted(self.pool_places, 'pool place')}, "
            f"{_counted(self.bots, 'bot version')} declared only by it"
        )


def _counted(number: int, one: str, many: str | None = None) -> str:
    """``number`` and its noun, singular or plural: ``1 game``, ``3 entries``."""
    return f"{number} {one if number == 1 else (many or one + 's')}"


def _own_bots(tournament_id: int) -> Any:
    """The ids of the bot versions that only tournament ``tournament_id`` has: entered in it,
    entered in no other, and not registered."""
    elsewhere = exists().where(Entry.bot_id == Bot.id, Entry.tournament_id != tournament_id)
    entered = select(Entry.bot_id).where(Entry.tournament_id == tournament_id)
    return select(Bot.id).where(Bot.id.in_(entered), Bot.registered.is_(False), ~elsewhere)


def tournament_contents(session: Session, tournament_id: int) -> Contents:
    """What tournament ``tournament_id`` holds (what ``delete_tournament`` would remove)."""
    games = select(Game.id).where(Game.tournament_id == tournament_id)
    return Contents(
        games=count(session, Game, Game.tournament_id == tournament_id),
        moves=count(session, Move, Move.game_id.in_(games)),
        voids=count(session, GameVoid, GameVoid.game_id.in_(games)),
        entries=count(session, Entry, Entry.tournament_id == tournament_id),
        pool_places=count(session, PoolEntry, PoolEntry.tournament_id == tournament_id),
        bots=count(session, Bot, Bot.id.in_(_own_bots(tournament_id))),
    )


def delete_tournament(session: Session, name: str) -> Contents | None:
    """Remove the tournament called ``name`` and everything only it holds (its games, moves,
    voided attempts, entries, pool places and the bot versions only it declared), in the
    caller's transaction; what it removed (``None``: there is no such tournament)."""
    tournament_id = session.scalar(select(Tournament.id).where(Tournament.name == name))
    if tournament_id is None:
        return None
    games = select(Game.id).where(Game.tournament_id == tournament_id).scalar_subquery()
    own_bots = [bot_id for (bot_id,) in session.execute(_own_bots(tournament_id))]

    def removed(statement: Any) -> int:
        # no ORM bookkeeping: nothing deleted is loaded in the session, and a tournament's
        # moves may be a million rows
        result = session.execute(statement.execution_options(synchronize_session=False))
        return int(getattr(result, "rowcount", 0) or 0)

    moves = removed(delete(Move).where(Move.game_id.in_(games)))
    voids = removed(delete(GameVoid).where(GameVoid.game_id.in_(games)))
    contents = Contents(
        games=removed(delete(Game).where(Game.tournament_id == tournament_id)),
        moves=moves,
        voids=voids,
        pool_places=removed(delete(PoolEntry).where(PoolEntry.tournament_id == tournament_id)),
        entries=removed(delete(Entry).where(Entry.tournament_id == tournament_id)),
        bots=removed(delete(Bot).where(Bot.id.in_(own_bots))) if own_bots else 0,
    )
    session.execute(delete(Tournament).where(Tournament.id == tournament_id))
    return contents
