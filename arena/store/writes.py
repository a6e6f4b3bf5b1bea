"""Every write the harness makes to a tournament: the rows of a contest (its tournament, its
entries, its games: one way for a tournament's run, a match, a person's game, a season's ladder
and a stage's plan), a game's record or its void, and a tournament deleted whole.

Only the parent process of a run writes; each finished game is one transaction, so whatever
stops a run (a kill, a full disk) leaves every game either stored whole or still pending.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import bindparam, delete, exists, insert, select, text, update
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from arena.core.records import GameRecord, MoveRecord
from arena.core.text import clean
from arena.store.models import (
    Bot,
    Entry,
    GameRow,
    GameSeat,
    GameVoid,
    KeptRatings,
    KeptSums,
    MoveRow,
    PoolEntry,
    Tournament,
    count,
)


def add_tournament(
    session: Session,
    name: str,
    game: dict[str, Any],
    config: dict[str, Any],
    config_text: str,
    config_hash: str,
    *,
    seed: int = 0,
    stages: int = 1,
    status: str = "pending",
    started_at: float | None = None,
) -> Tournament:
    """A new tournament row (flushed: it has its id): ``game`` its spec, ``config`` its
    configuration as data and ``config_text`` as written, ``config_hash`` what guards resuming
    it (or a mark: a person's games, a season's ladder)."""
    tournament = Tournament(
        name=name,
        game=game,
        config_text=config_text,
        config_hash=config_hash,
        config=config,
        seed=seed,
        stages=stages,
        status=status,
        started_at=started_at,
    )
    session.add(tournament)
    session.flush()
    return tournament


def add_entry(session: Session, tournament_id: int, team: str, bot_id: int) -> Entry:
    """A new team of a tournament playing bot version ``bot_id``, numbered after the others
    (flushed: it has its id)."""
    number = count(session, Entry, Entry.tournament_id == tournament_id) + 1
    entry = Entry(tournament_id=tournament_id, team=team, bot_id=bot_id, number=number)
    session.add(entry)
    session.flush()
    return entry


def add_pool(session: Session, tournament_id: int, stage: int, pool: int, entry_ids: Iterable[int]) -> None:
    """The teams of a pool of ``stage``, in seeding order."""
    session.add_all(
        PoolEntry(tournament_id=tournament_id, stage=stage, pool=pool, entry_id=entry_id, seed=order)
        for order, entry_id in enumerate(entry_ids)
    )
    session.flush()


@dataclass(frozen=True, slots=True)
class PlannedGame:
    """A game to store as pending: where it stands in its tournament (stage, pool, round, its
    number there), who plays which seat (entry ids) and its seed."""

    stage: int
    pool: int
    round: int
    number: int
    #: the entry of each seat, in seat order
    seats: tuple[int, ...]
    seed: int


def add_games(session: Session, tournament_id: int, games: Iterable[PlannedGame]) -> None:
    """Store ``games`` as pending, their ids in the order given (schedule order), and their
    seats. Two statements for them all: a match may plan tens of thousands."""
    planned = list(games)
    if not planned:
        return
    rows = [_game_row(tournament_id, game) for game in planned]
    ids = session.scalars(insert(GameRow).returning(GameRow.id, sort_by_parameter_order=True), rows).all()
    session.execute(
        insert(GameSeat),
        [
            {"game_id": game_id, "seat": seat, "entry_id": entry_id}
            for game_id, game in zip(ids, planned, strict=True)
            for seat, entry_id in enumerate(game.seats)
        ],
    )


def add_game(session: Session, tournament_id: int, game: PlannedGame) -> int:
    """Store ``game`` as pending; its id."""
    row = GameRow(**_game_row(tournament_id, game))
    session.add(row)
    session.flush()
    session.add_all(GameSeat(game_id=row.id, seat=seat, entry_id=entry) for seat, entry in enumerate(game.seats))
    session.flush()
    return row.id


def _game_row(tournament_id: int, game: PlannedGame) -> dict[str, Any]:
    data = asdict(game)
    del data["seats"]
    return {"tournament_id": tournament_id, "players": len(game.seats), **data}


#: the statements a finished game is stored with, built once
_FINISH = update(GameRow).where(GameRow.id == bindparam("game_id"), GameRow.status != "finished")
_SEAT_END = (
    update(GameSeat)
    .where(GameSeat.game_id == bindparam("game"), GameSeat.seat == bindparam("at"))
    .values(
        points=bindparam("scored"),
        stderr=bindparam("wrote"),
        moves=bindparam("moved"),
        think_ms=bindparam("thought"),
        longest_ms=bindparam("longest"),
        cpu_ms=bindparam("cpu"),
    )
)
#: a move's columns, in the order ``_insert_moves`` writes them
_MOVE_COLUMNS = ("game_id", "ply", "seat", "move", "wall_ms", "cpu_ms", "wait_ms", "cut", "info")
#: the placeholder of a positional parameter, by the driver's ``paramstyle``
_PLACEHOLDERS = {"qmark": "?", "format": "%s", "pyformat": "%s"}


def save_record(session: Session, record: GameRecord) -> bool:
    """Store a finished game: its result and every move (the caller commits); whether it did.
    A game already finished is left as it is: a record that comes twice (a game a cluster played
    again after losing track of a worker) is stored once.

    Three statements, compiled once (the moves through the driver itself): this runs once a
    game in the only writer, and the ORM's unit of work would cost several times more than
    SQLite itself.
    """
    connection = session.connection()
    game_id, moves = record.game_id, record.moves
    finished = connection.execute(
        _FINISH,
        {
            "game_id": game_id,
            "status": "finished",
            "winner": record.winner,
            "termination": record.termination.value,
            "offender": record.offender,
            "detail": record.detail,
            "plies": len(moves),
            "started_at": record.started_at,
            "finished_at": record.finished_at,
            "node": record.node,
            "cpu": record.cpu,
            "clock": record.clock,
            "time_scale": record.time_scale,
        },
    )
    if finished.rowcount == 0:  # finished already (or no such game): nothing of it changes
        return False
    if moves:
        _insert_moves(connection, game_id, moves)
    points = record.points or (None,) * len(record.stderr)
    times: list[list[float]] = [[] for _ in record.stderr]
    cpu: list[list[float | None]] = [[] for _ in record.stderr]
    for m in moves:
        if m.seat >= 0:  # (not a chance outcome)
            times[m.seat].append(m.wall_ms)
            cpu[m.seat].append(m.cpu_ms)
    connection.execute(
        _SEAT_END,
        [
            {
                "game": game_id,
                "at": seat,
                "scored": scored,
                "wrote": wrote or None,
                "moved": len(walls),
                "thought": _total(walls),
                "longest": max(walls, default=0.0),
                "cpu": None if None in used else _total(used),  # type: ignore[arg-type]
            }
            for seat, (scored, wrote, walls, used) in enumerate(zip(points, record.stderr, times, cpu, strict=True))
        ],
    )
    return True


def _insert_moves(connection: Connection, game_id: int, moves: list[MoveRecord]) -> None:
    """Insert a game's moves with one ``executemany`` of the driver: SQLAlchemy's handling of
    each row's parameters cost more than SQLite's insert. Their text is ``clean`` as the
    columns' types would make it (``CleanString``)."""
    rows = [
        (game_id, ply, m.seat, clean(m.move), m.wall_ms, m.cpu_ms, m.wait_ms, m.cut, m.info and clean(m.info))
        for ply, m in enumerate(moves, 1)
    ]
    placeholder = _PLACEHOLDERS.get(connection.dialect.paramstyle)
    if placeholder is None:  # a driver with named parameters only: through SQLAlchemy
        connection.execute(insert(MoveRow), [dict(zip(_MOVE_COLUMNS, row, strict=True)) for row in rows])
        return
    marks = ", ".join([placeholder] * len(_MOVE_COLUMNS))
    statement = f"INSERT INTO {MoveRow.__tablename__} ({', '.join(_MOVE_COLUMNS)}) VALUES ({marks})"
    connection.exec_driver_sql(statement, rows)


def _total(values: list[float]) -> float:
    """``values`` added up in order, as SQL's ``sum`` adds a seat's move times."""
    total = 0.0
    for value in values:
        total += value
    return total


def save_void(session: Session, record: GameRecord) -> int:
    """Store that the game of ``record`` was voided (``record.voided``) and is to be played
    again; how many times it has been voided now."""
    game = session.get_one(GameRow, record.game_id)
    game.replays = (game.replays or 0) + 1
    session.add(
        GameVoid(game_id=record.game_id, attempt=game.replays, reason=record.voided or "", plies=len(record.moves))
    )
    return game.replays


def forget_unfinished_moves(session: Session, tournament_id: int) -> int:
    """Remove moves of games not finished (left by nothing, but guard anyway); how many."""
    unfinished = select(GameRow.id).where(GameRow.tournament_id == tournament_id, GameRow.status != "finished")
    result = session.execute(delete(MoveRow).where(MoveRow.game_id.in_(unfinished)))
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
    games = select(GameRow.id).where(GameRow.tournament_id == tournament_id)
    return Contents(
        games=count(session, GameRow, GameRow.tournament_id == tournament_id),
        moves=count(session, MoveRow, MoveRow.game_id.in_(games)),
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
    games = select(GameRow.id).where(GameRow.tournament_id == tournament_id).scalar_subquery()
    own_bots = [bot_id for (bot_id,) in session.execute(_own_bots(tournament_id))]

    def removed(statement: Any) -> int:
        # no ORM bookkeeping: nothing deleted is loaded in the session, and a tournament's
        # moves may be a million rows
        result = session.execute(statement.execution_options(synchronize_session=False))
        return int(getattr(result, "rowcount", 0) or 0)

    moves = removed(delete(MoveRow).where(MoveRow.game_id.in_(games)))
    voids = removed(delete(GameVoid).where(GameVoid.game_id.in_(games)))
    removed(delete(GameSeat).where(GameSeat.game_id.in_(games)))
    removed(delete(KeptRatings).where(KeptRatings.tournament_id == tournament_id))
    removed(delete(KeptSums).where(KeptSums.tournament_id == tournament_id))
    contents = Contents(
        games=removed(delete(GameRow).where(GameRow.tournament_id == tournament_id)),
        moves=moves,
        voids=voids,
        pool_places=removed(delete(PoolEntry).where(PoolEntry.tournament_id == tournament_id)),
        entries=removed(delete(Entry).where(Entry.tournament_id == tournament_id)),
        bots=removed(delete(Bot).where(Bot.id.in_(own_bots))) if own_bots else 0,
    )
    session.execute(delete(Tournament).where(Tournament.id == tournament_id))
    return contents
