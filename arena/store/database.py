"""Opening the database: SQLite made safe for a run (WAL, a busy timeout, foreign keys), read
only for the commands that only look, and its schema brought up to date.

A fresh database gets the current schema and is stamped with the newest version; an older
one is brought up to date by the steps in ``MIGRATIONS``, in order. A database that cannot be
written (locked past ``BUSY_TIMEOUT``, full, read-only) is a ``StoreError`` saying so.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from urllib.parse import quote

from sqlalchemy import Connection, Engine, MetaData, create_engine, delete, event, insert, inspect, select, update
from sqlalchemy.engine import make_url
from sqlalchemy.engine.interfaces import ExceptionContext
from sqlalchemy.exc import ArgumentError, DatabaseError, NoSuchModuleError, OperationalError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import QueuePool, StaticPool
from sqlalchemy.schema import CreateIndex, CreateTable

from arena.store.models import (
    Base,
    GameRow,
    GameSeat,
    GameVoid,
    KeptRatings,
    KeptSums,
    MoveRow,
    Pace,
    SchemaVersion,
    StoreError,
    Tournament,
)
from arena.store.seasons import Season, SeasonTeam, Submission

DEFAULT_URL = "sqlite:///db/arena.sqlite3"
#: seconds a write waits for another process's write transaction to end before giving up
BUSY_TIMEOUT = 30.0
#: connections a read-only database keeps for the threads that read it at once (as many again
#: are opened for a burst, then closed)
READERS = 8


#: (version, what it changes, the step from version - 1); a fresh database starts at the last
def _voids_and_waits(connection: Connection) -> None:
    connection.exec_driver_sql("ALTER TABLE games ADD COLUMN replays INTEGER NOT NULL DEFAULT 0")
    connection.exec_driver_sql("ALTER TABLE moves ADD COLUMN wait_ms FLOAT")
    GameVoid.__table__.create(connection)  # type: ignore[attr-defined]


def _nodes(connection: Connection) -> None:
    for column in ("node VARCHAR(200)", "cpu VARCHAR(200)", "clock VARCHAR(10)", "time_scale FLOAT"):
        connection.exec_driver_sql(f"ALTER TABLE games ADD COLUMN {column}")


def _paces(connection: Connection) -> None:
    Pace.__table__.create(connection)  # type: ignore[attr-defined]


def _seasons(connection: Connection) -> None:
    for table in (Season, SeasonTeam, Submission):
        table.__table__.create(connection)  # type: ignore[attr-defined]


def _cut_moves(connection: Connection) -> None:
    connection.exec_driver_sql("ALTER TABLE moves ADD COLUMN cut BOOLEAN NOT NULL DEFAULT false")


def _retired_at(connection: Connection) -> None:
    # (step 5 makes the seasons' tables as they are now, so a database from before it has it)
    if "retired_at" not in {column["name"] for column in inspect(connection).get_columns("submissions")}:
        connection.exec_driver_sql("ALTER TABLE submissions ADD COLUMN retired_at FLOAT")
    # versions retired before: their days before their files go count from now
    connection.execute(update(Submission).where(Submission.status == "retired").values(retired_at=time.time()))


#: the columns of a game's two seats before a game had seats of its own (schema 8)
_TWO_SEATS = ("seat0", "seat1", "points0", "points1", "stderr0", "stderr1")


def _game_seats(connection: Connection) -> None:
    GameSeat.__table__.create(connection)  # type: ignore[attr-defined]
    for seat in (0, 1):
        connection.exec_driver_sql(
            "INSERT INTO game_seats (game_id, seat, entry_id, points, stderr) "
            f"SELECT id, {seat}, seat{seat}, points{seat}, stderr{seat} FROM games"
        )
    if connection.dialect.name != "sqlite":
        connection.exec_driver_sql("ALTER TABLE games ADD COLUMN players INTEGER NOT NULL DEFAULT 2")
        connection.exec_driver_sql("ALTER TABLE games " + ", ".join(f"DROP COLUMN {c}" for c in _TWO_SEATS))
        return
    # SQLite drops no column a foreign key uses: the table is made again without them (with the
    # keys off: its children's keys are checked once the new table has its name: ``migrate``)
    table = GameRow.__table__
    metadata = MetaData()
    Tournament.__table__.to_metadata(metadata)  # type: ignore[attr-defined]  # (its key refers to it)
    copy = table.to_metadata(metadata, name="games_new")  # type: ignore[attr-defined]
    for index in table.indexes:  # type: ignore[attr-defined]
        connection.exec_driver_sql(f"DROP INDEX IF EXISTS {index.name}")
    connection.execute(CreateTable(copy))
    kept = [column.name for column in table.columns if column.name != "players"]
    names = ", ".join(kept)
    connection.exec_driver_sql(f"INSERT INTO games_new ({names}, players) SELECT {names}, 2 FROM games")
    connection.exec_driver_sql("DROP TABLE games")
    connection.exec_driver_sql("ALTER TABLE games_new RENAME TO games")
    for index in table.indexes:  # type: ignore[attr-defined]
        connection.execute(CreateIndex(index))


#: each seat's moves and their time, from its moves (schema 9)
_SEAT_THINK = {
    "moves": ("INTEGER", "count(*)"),
    "think_ms": ("FLOAT", "sum(wall_ms)"),
    "longest_ms": ("FLOAT", "max(wall_ms)"),
}


def _kept_ratings(connection: Connection) -> None:
    KeptRatings.__table__.create(connection)  # type: ignore[attr-defined]
    for index in GameRow.__table__.indexes:  # type: ignore[attr-defined]
        index.create(connection, checkfirst=True)
    # (a database from before step 8 has its seats' table made as it is now, these columns too)
    have = {column["name"] for column in inspect(connection).get_columns("game_seats")}
    for column, (kind, _) in _SEAT_THINK.items():
        if column not in have:
            connection.exec_driver_sql(f"ALTER TABLE game_seats ADD COLUMN {column} {kind}")
    finished = "SELECT id FROM games WHERE status = 'finished'"
    moves = "FROM moves m WHERE m.game_id = game_seats.game_id AND m.seat = game_seats.seat"
    filled = ", ".join(f"{column} = (SELECT {of} {moves})" for column, (_, of) in _SEAT_THINK.items())
    connection.exec_driver_sql(f"UPDATE game_seats SET {filled} WHERE game_id IN ({finished})")
    connection.exec_driver_sql(
        f"UPDATE game_seats SET think_ms = 0, longest_ms = 0 WHERE moves = 0 AND game_id IN ({finished})"
    )


def _seat_cpu_and_ratings(connection: Connection) -> None:
    have = {column["name"] for column in inspect(connection).get_columns("game_seats")}
    for column in ("cpu_ms", "mu", "sigma"):
        if column not in have:  # (a database from before step 8 has its seats' table made as it is now)
            connection.exec_driver_sql(f"ALTER TABLE game_seats ADD COLUMN {column} FLOAT")
    fill_seat_cpu(connection)
    for index in MoveRow.__table__.indexes:  # type: ignore[attr-defined]
        index.create(connection, checkfirst=True)
    # (each seat's rating after its game is written when the tournament's ratings are next kept:
    # the ratings kept until now are rated again then, their check being worked out anew)


def fill_seat_cpu(connection: Connection) -> None:
    """Each seat of a finished game its moves' CPU time, from its moves (``None`` where one of
    them has none)."""
    moves = "FROM moves m WHERE m.game_id = game_seats.game_id AND m.seat = game_seats.seat"
    unknown = f"EXISTS (SELECT 1 {moves} AND m.cpu_ms IS NULL)"
    known = f"CASE WHEN {unknown} THEN NULL ELSE coalesce((SELECT sum(cpu_ms) {moves}), 0) END"
    finished = "SELECT id FROM games WHERE status = 'finished'"
    connection.exec_driver_sql(f"UPDATE game_seats SET cpu_ms = {known} WHERE game_id IN ({finished})")


def _move_info(connection: Connection) -> None:
    connection.exec_driver_sql("ALTER TABLE moves ADD COLUMN info TEXT")


def _kept_sums(connection: Connection) -> None:
    KeptSums.__table__.create(connection)  # type: ignore[attr-defined]


MIGRATIONS: list[tuple[int, str, Callable[[Connection], None]]] = [
    (1, "the first schema", lambda connection: None),
    (2, "games voided for an overloaded machine; each move's wait for a CPU", _voids_and_waits),
    (3, "the machine each game was played on, its clock and its time scale", _nodes),
    (4, "bots' measured paces, per machine", _paces),
    (5, "seasons: their teams and submissions", _seasons),
    (6, "each move: whether the clock cut the bot's search short of its own budget", _cut_moves),
    (7, "submissions: when a version retired (its files are removed some days later)", _retired_at),
    (8, "a game's seats in a table of their own (any number of seats), no longer two columns each", _game_seats),
    (9, "ratings kept as games are stored; games indexed in schedule order; each seat's think time", _kept_ratings),
    (
        10,
        "each seat's CPU time and its team's rating after the game; the moves the clock cut indexed",
        _seat_cpu_and_ratings,
    ),
    (11, "each move: what an engine said of its search (score, depth, nodes)", _move_info),
    (12, "a tournament's settled games summed, kept as its games are stored", _kept_sums),
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
    sqlite = engine.dialect.name == "sqlite"
    with engine.connect() as connection:
        if sqlite:  # a step that makes a table again needs SQLite's keys off; they are checked before the commit
            connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
            connection.commit()
        try:
            with connection.begin():
                if sqlite:
                    connection.exec_driver_sql("BEGIN IMMEDIATE")
                _upgrade(connection)
        finally:
            if sqlite:
                connection.rollback()  # (nothing left to undo: the pragma is no part of a transaction)
                connection.exec_driver_sql("PRAGMA foreign_keys=ON")
                connection.commit()


def _upgrade(connection: Connection) -> None:
    """Make the schema (an empty database) or take it through every step after its version."""
    version = _current_version(connection)
    if version is None:
        Base.metadata.create_all(connection)
        connection.execute(insert(SchemaVersion).values(version=SCHEMA_VERSION))
        return
    for number, _, step in MIGRATIONS:
        if number > version:
            step(connection)
            connection.execute(update(SchemaVersion).values(version=number))
    connection.execute(delete(KeptSums))  # (a step may change what games hold: their sums are made again)
    if connection.dialect.name == "sqlite":
        broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
        if broken:
            raise StoreError(f"upgrading the database would break {len(broken)} references between its tables")


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


def open_store(url: str = DEFAULT_URL, read_only: bool = False, create: bool = True) -> sessionmaker[Session]:
    """A session factory for the database at ``url``, created and migrated if needed.

    ``read_only``: for commands that only look. An SQLite file is opened read-only and never
    created, switched to WAL or migrated, so a database on a read-only mount can be read; one
    that does not exist reads as an empty database. ``create`` False: an SQLite file that does
    not exist yet is not created either, and reads as an empty database."""
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
    if not create and sqlite_file and not database.exists():
        return _empty_store()
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
        said = " ".join(str(error.orig).split())  # a server's message spans lines
        raise StoreError(f"cannot use the database {parsed.render_as_string(hide_password=True)}: {said}") from None
    if read_only and parsed.get_backend_name() == "postgresql":
        # a read's many sums see one snapshot, as SQLite's do, though a run commits meanwhile
        engine = engine.execution_options(isolation_level="REPEATABLE READ")
    return sessionmaker(engine, expire_on_commit=False)


def close_store(sessions: sessionmaker[Session]) -> None:
    """Close what the sessions of ``sessions`` hold open (its engine's pooled connections): the
    last connection to an SQLite file closed by a writer folds its ``-wal`` file back in."""
    bind = sessions.kw.get("bind")
    if isinstance(bind, Engine):
        bind.dispose()


def commits_counter(sessions: sessionmaker[Session]) -> Callable[[], int] | None:
    """For an SQLite file: a function whose number changes whenever a connection other than its
    own commits to the database, any process's (SQLite's ``data_version``, read in a few
    microseconds on a connection kept for it), so that a reader can tell that nothing changed
    without a query over its tables; ``None`` for another database, or SQLite in memory."""
    bind = sessions.kw.get("bind")
    if not isinstance(bind, Engine) or bind.dialect.name != "sqlite" or isinstance(bind.pool, StaticPool):
        return None
    # a connection of its own, taken out of the pool for good: SQLite does not count a commit made
    # on the connection that asks, so the sessions must never commit through this one
    held = bind.raw_connection()
    connection = held.driver_connection
    held.detach()
    assert connection is not None
    lock = threading.Lock()

    def count() -> int:
        with lock:
            assert held is not None  # (kept with the counter: the connection lives as long as it)
            return int(connection.execute("PRAGMA data_version").fetchone()[0])

    return count


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
    # a pool of connections each used by one thread at a time: the pool SQLAlchemy picks for a
    # "sqlite://" address keeps one a thread and closes those of other threads beyond five,
    # under their feet (a server of many threads then crashed)
    engine = create_engine(
        "sqlite://",
        creator=lambda: sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT, check_same_thread=False),
        poolclass=QueuePool,
        pool_size=READERS,
        max_overflow=READERS,
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
