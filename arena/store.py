"""The database: SQLAlchemy 2 models, schema migrations, and the few writes the harness makes.

A fresh database gets the current schema and is stamped with the newest version; an older
one is brought up to date by the steps in ``MIGRATIONS``, in order. Only the parent process
of a run writes; each finished game is one transaction, so whatever stops a run (a kill, a full
disk) leaves every game either stored whole or still pending. A database that cannot be
written (locked past ``BUSY_TIMEOUT``, full, read-only) is a ``StoreError`` saying so.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

from sqlalchemy import (
    JSON,
    Connection,
    Engine,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
    bindparam,
    create_engine,
    delete,
    event,
    func,
    insert,
    inspect,
    select,
    text,
    update,
)
from sqlalchemy.engine import Dialect, make_url
from sqlalchemy.engine.interfaces import ExceptionContext
from sqlalchemy.exc import ArgumentError, DatabaseError, NoSuchModuleError, OperationalError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker
from sqlalchemy.pool import StaticPool
from sqlalchemy.sql import ColumnElement

from arena.errors import ArenaError
from arena.records import GameRecord
from arena.text import clean, clean_data

DEFAULT_URL = "sqlite:///db/arena.sqlite3"
#: seconds a write waits for another process's write transaction to end before giving up
BUSY_TIMEOUT = 30.0


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


class Tournament(Base):
    """A tournament: its config as written, the hash that guards resuming it, its status."""

    __tablename__ = "tournaments"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(CleanString(200), unique=True)
    game: Mapped[dict[str, Any]] = mapped_column(CleanJSON)
    config_text: Mapped[str] = mapped_column(CleanText)
    config_hash: Mapped[str] = mapped_column(CleanString(64))
    config: Mapped[dict[str, Any]] = mapped_column(CleanJSON)
    seed: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(CleanString(20), default="pending")
    stages: Mapped[int] = mapped_column(Integer, default=1)
    created_at: Mapped[float] = mapped_column(Float, default=time.time)
    started_at: Mapped[float | None] = mapped_column(Float)
    finished_at: Mapped[float | None] = mapped_column(Float)
    run_seconds: Mapped[float] = mapped_column(Float, default=0.0)


class Entry(Base):
    """A team of a tournament and the bot version it plays with."""

    __tablename__ = "entries"
    __table_args__ = (UniqueConstraint("tournament_id", "team"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"))
    team: Mapped[str] = mapped_column(CleanString(200))
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"))
    number: Mapped[int] = mapped_column(Integer)


class PoolEntry(Base):
    """A team's place in a pool of a stage (``seed``: its order when the pool was drawn)."""

    __tablename__ = "pool_entries"
    __table_args__ = (UniqueConstraint("tournament_id", "stage", "entry_id"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"))
    stage: Mapped[int] = mapped_column(Integer)
    pool: Mapped[int] = mapped_column(Integer)
    entry_id: Mapped[int] = mapped_column(ForeignKey("entries.id"))
    seed: Mapped[int] = mapped_column(Integer)


class Game(Base):
    """A scheduled game; its result fields are filled when it is finished."""

    __tablename__ = "games"
    __table_args__ = (Index("ix_games_tournament_status", "tournament_id", "status"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"))
    stage: Mapped[int] = mapped_column(Integer)
    pool: Mapped[int] = mapped_column(Integer)
    round: Mapped[int] = mapped_column(Integer)
    number: Mapped[int] = mapped_column(Integer)
    seat0: Mapped[int] = mapped_column(ForeignKey("entries.id"))
    seat1: Mapped[int] = mapped_column(ForeignKey("entries.id"))
    seed: Mapped[int] = mapped_column(Integer)
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


class SchemaVersion(Base):
    """The schema version this database is at (one row)."""

    __tablename__ = "schema_version"
    version: Mapped[int] = mapped_column(primary_key=True)


#: (version, what it changes, the step from version - 1); a fresh database starts at the last
def _voids_and_waits(connection: Connection) -> None:
    connection.exec_driver_sql("ALTER TABLE games ADD COLUMN replays INTEGER NOT NULL DEFAULT 0")
    connection.exec_driver_sql("ALTER TABLE moves ADD COLUMN wait_ms FLOAT")
    GameVoid.__table__.create(connection)  # type: ignore[attr-defined]


MIGRATIONS: list[tuple[int, str, Callable[[Connection], None]]] = [
    (1, "the first schema", lambda connection: None),
    (2, "games voided for an overloaded machine; each move's wait for a CPU", _voids_and_waits),
]
SCHEMA_VERSION = MIGRATIONS[-1][0]


def _current_version(connection: Connection) -> int | None:
    """The schema version stored in the database (``None``: an empty database)."""
    tables = set(inspect(connection).get_table_names())
    if "schema_version" not in tables:
        if tables & {"tournaments", "games"}:
            raise StoreError("this database was not made by arena (it has no schema_version)")
        return None
    return connection.execute(select(SchemaVersion.version)).scalar_one_or_none()


def migrate(engine: Engine) -> None:
    """Bring the database's schema to ``SCHEMA_VERSION``.

    Looking needs no lock (a read-only database can be read); changing takes SQLite's write
    lock first and looks again, so that two processes opening a new database at the same time
    do not both create it (the second finds it made)."""
    with engine.connect() as connection:
        version = _current_version(connection)
        if version == SCHEMA_VERSION:
            return
    if version is not None and version > SCHEMA_VERSION:
        raise StoreError(
            f"the database is at schema version {version}, newer than this arena ({SCHEMA_VERSION}); upgrade arena"
        )
    with engine.begin() as connection:
        if engine.dialect.name == "sqlite":
            connection.exec_driver_sql("BEGIN IMMEDIATE")
        version = _current_version(connection)
        if version is None:
            Base.metadata.create_all(connection)
            connection.execute(insert(SchemaVersion).values(version=SCHEMA_VERSION))
            return
        for number, _, step in MIGRATIONS:
            if number > version:
                step(connection)
                connection.execute(update(SchemaVersion).values(version=number))


def _sqlite_pragmas(dbapi_connection: sqlite3.Connection, _record: object) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT * 1000)}")  # wait for another writer, do not fail
    _wal(cursor)  # readers never block the writer
    cursor.execute("PRAGMA synchronous=NORMAL")  # WAL keeps committed games on a crash
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _wal(cursor: sqlite3.Cursor) -> None:
    """Put the database in WAL mode. Two processes switching a new database at the same moment
    can get "database is locked" at once, without SQLite's busy wait: wait here instead, as
    long as for any other lock."""
    deadline = time.monotonic() + BUSY_TIMEOUT
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def _database_error(url: str) -> Callable[[ExceptionContext], None]:
    """An engine's ``handle_error`` hook: SQLite's failures to write, said as a ``StoreError``
    naming the database and what to do (instead of SQLAlchemy's traceback)."""
    path = make_url(url).database or url

    def translate(context: ExceptionContext) -> None:
        error = context.original_exception
        if isinstance(error, OverflowError):  # e.g. a game id typed with 25 digits
            raise StoreError(
                f"a number given is too large for the database ({error}); SQLite's integers "
                "go up to 9223372036854775807"
            ) from None
        if not isinstance(error, Exception) or type(error).__name__ not in ("OperationalError", "DatabaseError"):
            return
        text = str(error)
        lowered = text.lower()
        if "database is locked" in lowered or "database table is locked" in lowered:
            raise StoreError(
                f"the database {path} is locked by another process, and stayed locked for "
                f"{BUSY_TIMEOUT:g} s; wait for that process to finish (or stop it), then run "
                "again"
            ) from None
        if "disk is full" in lowered or "disk i/o error" in lowered:
            raise StoreError(
                f"cannot write to the database {path}: {text} (is the disk full, or a file-size "
                "limit reached?); every game stored before is intact: make room, then run again "
                "to continue"
            ) from None
        if "readonly" in lowered or "read-only" in lowered:
            raise StoreError(
                f"the database {path} is read-only ({text}); make it and its folder writable, "
                "or choose another with --db"
            ) from None
        if "unable to open" in lowered:
            raise StoreError(
                f"cannot open the database {path} ({text}); check that its folder exists and "
                "is writable, or choose another with --db"
            ) from None
        if "malformed" in lowered or "not a database" in lowered:
            raise StoreError(
                f"the database {path} is damaged or not an SQLite database ({text}); "
                "restore it from a copy, or choose another with --db"
            ) from None

    return translate


def open_store(url: str = DEFAULT_URL, read_only: bool = False) -> sessionmaker[Session]:
    """A session factory for the database at ``url``, created and migrated if needed.

    ``read_only``: for commands that only look. An SQLite file is opened read-only and never
    created, switched to WAL or migrated, so a database on a read-only mount can be read; one
    that does not exist reads as an empty database."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise StoreError(f"{url!r} is not a database URL (e.g. {DEFAULT_URL})") from None
    sqlite_file = parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:")
    database = Path(parsed.database or "")
    if sqlite_file and database.is_dir():
        raise StoreError(f"the database {parsed.database!r} is a folder, not a file; choose another path with --db")
    if sqlite_file and database.exists() and not database.is_file():
        # SQLite would wait for ever for a writer to open a FIFO, or read a device as a database
        raise StoreError(
            f"the database {parsed.database!r} is not a regular file (a device, FIFO or socket); "
            "choose another path with --db"
        )
    if read_only and sqlite_file:
        return _open_read_only(url, database)
    if sqlite_file:
        make_folder(database.parent)
    try:
        engine = create_engine(url)
    except (ImportError, NoSuchModuleError) as error:
        raise StoreError(
            f"cannot use the database {url}: no driver for {parsed.drivername!r} is installed "
            f"({error}); use SQLite (e.g. {DEFAULT_URL}) or install the driver"
        ) from None
    if parsed.get_backend_name() == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
        event.listen(engine, "handle_error", _database_error(url))
    try:
        migrate(engine)
    except (OperationalError, DatabaseError) as error:
        raise StoreError(f"cannot use the database {url}: {error.orig}") from None
    return sessionmaker(engine, expire_on_commit=False)


def _empty_store() -> sessionmaker[Session]:
    """An empty database of the current schema, in memory: what a database not made yet reads as."""
    engine = create_engine("sqlite://", poolclass=StaticPool)
    with engine.begin() as connection:
        Base.metadata.create_all(connection)
    return sessionmaker(engine, expire_on_commit=False)


def _open_read_only(url: str, path: Path) -> sessionmaker[Session]:
    """The SQLite file ``path`` opened read-only; checked, not migrated."""
    if not path.exists():
        return _empty_store()
    uri = _read_only_uri(path)
    engine = create_engine(
        "sqlite://", creator=lambda: sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT, check_same_thread=False)
    )
    event.listen(engine, "handle_error", _database_error(url))
    try:
        with engine.connect() as connection:
            version = _current_version(connection)
    except (OperationalError, DatabaseError) as error:
        raise StoreError(f"cannot read the database {url}: {error.orig}") from None
    if version is None:
        return _empty_store()
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"the database is at schema version {version}, newer than this arena ({SCHEMA_VERSION}); upgrade arena"
        )
    if version < SCHEMA_VERSION:
        raise StoreError(
            f"the database {path} is at schema version {version} and needs upgrading to "
            f"{SCHEMA_VERSION}, which takes writing: run 'arena run' or 'arena register' on it "
            "where it can be written (or on a copy), then read it again"
        )
    return sessionmaker(engine, expire_on_commit=False)


def _read_only_uri(path: Path) -> str:
    """How to open ``path`` read-only: ``mode=ro``, or where SQLite cannot make the ``-shm``
    file a database in WAL mode needs (a read-only mount), ``immutable=1`` (no locks; what
    only the write-ahead log holds is not seen)."""
    location = "file:" + quote(str(path.resolve()))
    try:
        with closing(sqlite3.connect(f"{location}?mode=ro", uri=True, timeout=BUSY_TIMEOUT)) as connection:
            connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.OperationalError as error:
        name = getattr(error, "sqlite_errorname", "")
        if name.startswith(("SQLITE_READONLY", "SQLITE_CANTOPEN")):
            return f"{location}?mode=ro&immutable=1"
    except sqlite3.DatabaseError:
        pass  # not a database: the engine's error says so
    return f"{location}?mode=ro"


def make_folder(folder: Path) -> None:
    """Create the database's folder if needed; ``StoreError`` naming it if it cannot be."""
    if folder.exists() and not folder.is_dir():
        raise StoreError(
            f"cannot put the database in {str(folder)!r}: it is a file, not a folder; choose another path with --db"
        )
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise StoreError(
            f"cannot create the database folder {str(folder)!r}: {error.strerror}; choose another path with --db"
        ) from None


_MOVES: Any = None
_FINISH: Any = None


def save_record(session: Session, record: GameRecord) -> bool:
    """Store a finished game: its result and every move (the caller commits); whether it did.
    A game already finished is left as it is: a record that comes twice (a game a cluster played
    again after losing track of a worker) is stored once.

    Plain Core statements, compiled once: this runs once a game in the only writer, and the
    ORM's unit of work would cost several times more than SQLite itself.
    """
    global _MOVES, _FINISH
    if _MOVES is None:
        _MOVES = insert(Move)
        _FINISH = update(Game).where(Game.id == bindparam("game_id"), Game.status != "finished")
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
