"""What a played game leaves behind: its moves, timings, result and how it ended; and the two
ways a game can stop early: a bot's fault (``BotFault``) or a machine too busy to time it
(``Overloaded``)."""

from __future__ import annotations

import enum
import json
import math
from dataclasses import dataclass, field
from typing import Any


class Termination(str, enum.Enum):
    """How a game ended. Every kind but ``NORMAL`` is a forfeit by the offending seat."""

    NORMAL = "normal"
    TIMEOUT = "timeout"
    ILLEGAL_MOVE = "illegal_move"
    CRASH = "crash"
    PROTOCOL_ERROR = "protocol_error"
    RESOURCE_LIMIT = "resource_limit"
    RESIGNATION = "resignation"
    ABORTED = "aborted"

    @property
    def is_forfeit(self) -> bool:
        """Whether the game was lost by a fault rather than played to its end."""
        return self not in (Termination.NORMAL, Termination.RESIGNATION, Termination.ABORTED)


FORFEITS = tuple(t for t in Termination if t.is_forfeit)


class BotFault(Exception):
    """A bot broke a rule: the game is forfeited with ``termination`` and ``detail``."""

    def __init__(self, termination: Termination, detail: str) -> None:
        super().__init__(detail)
        self.termination = termination
        self.detail = detail


class Overloaded(Exception):
    """A bot could not be timed fairly: other programs kept it from a CPU for most of the time
    its move took (``job.OVERLOAD_FACTOR``). Nobody's fault: the game is voided."""


@dataclass(frozen=True, slots=True)
class MoveRecord:
    """One move: who played it, its notation, the time it took (wall and CPU), how long of that
    wall time the bot was ready to run but kept from a CPU by other programs, and whether the
    clock cut its search short of the bot's own budget (the bot says so: a busy machine may
    have changed the move), and what an engine said of its search (``info``: JSON text of its
    score, depth, nodes, ...; docs/engines.md)."""

    #: the seat that played it, or ``CHANCE`` (-1) for an outcome the game drew
    seat: int
    move: str
    wall_ms: float
    cpu_ms: float | None
    wait_ms: float | None = None
    cut: bool = False
    info: str | None = None

    def __reduce__(self) -> tuple[type[MoveRecord], tuple[object, ...]]:
        # made again by its constructor: a worker pickles every move of a game, its parent
        # unpickles them, and a frozen dataclass's own state handling is four times slower
        return MoveRecord, (self.seat, self.move, self.wall_ms, self.cpu_ms, self.wait_ms, self.cut, self.info)


@dataclass(slots=True)
class GameRecord:
    """A game as the worker hands it to the writer: plain data, picklable. A ``voided`` game
    (the reason) was stopped because the machine was overloaded, and is to be played again."""

    game_id: int
    moves: list[MoveRecord] = field(default_factory=list)
    winner: int | None = None
    #: what each seat scored as the game reports it (xtreme's course points; a game's returns)
    points: tuple[float, ...] | None = None
    termination: Termination = Termination.NORMAL
    offender: int | None = None
    detail: str | None = None
    stderr: tuple[str, ...] = ("", "")
    started_at: float = 0.0
    finished_at: float = 0.0
    voided: str | None = None
    #: where and how it was played: the machine's host name and CPU model (arena/runners/machine.py), the
    #: clock its bots were timed by (``wall`` or ``cpu``), and the factor its time limits were
    #: scaled by for that machine's speed (1.0: as the tournament says)
    node: str | None = None
    cpu: str | None = None
    clock: str | None = None
    time_scale: float = 1.0


class BadRecord(ValueError):
    """Data that is not a game record (a cluster node sent it): the message says what is wrong."""


#: the most a record from elsewhere may hold: moves, seats, and characters of a text
MAX_MOVES, MAX_SEATS, MAX_TEXT = 100_000, 64, 1 << 20
#: the most characters of an engine's info on a move
MAX_INFO = 500


def record_to_json(record: GameRecord) -> str:
    """``record`` as JSON text: plain data that any program can read and none can run."""
    data = {name: getattr(record, name) for name in GameRecord.__slots__}
    data["termination"] = record.termination.value
    data["moves"] = [[m.seat, m.move, m.wall_ms, m.cpu_ms, m.wait_ms, m.cut, m.info] for m in record.moves]
    return json.dumps(data)


def record_from_json(text: str) -> GameRecord:
    """The record ``text`` holds (``record_to_json``), every field checked for its type and
    bounds; ``BadRecord`` saying what is wrong."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise BadRecord(f"not JSON: {error}") from None
    if not isinstance(data, dict) or set(data) != set(GameRecord.__slots__):
        raise BadRecord("not an object with a game record's fields")
    try:
        moves = [_move(move) for move in _bounded(data["moves"], list, MAX_MOVES)]
        stderr = tuple(_text(s) for s in _bounded(data["stderr"], list, MAX_SEATS))
        if len(stderr) < 1:
            raise BadRecord("stderr: a text for each seat")
        points = data["points"]
        if points is not None:
            points = tuple(_number(p) for p in _bounded(points, list, MAX_SEATS))
            if len(points) != len(stderr):
                raise BadRecord("points: a number for each seat")
        return GameRecord(
            game_id=_integer(data["game_id"]),
            moves=moves,
            winner=_seat(data["winner"], optional=True),
            points=points,
            termination=Termination(data["termination"]),
            offender=_seat(data["offender"], optional=True),
            detail=_text(data["detail"], optional=True),
            stderr=stderr,
            started_at=_number(data["started_at"]),
            finished_at=_number(data["finished_at"]),
            voided=_text(data["voided"], optional=True),
            node=_text(data["node"], optional=True),
            cpu=_text(data["cpu"], optional=True),
            clock=_text(data["clock"], optional=True),
            time_scale=_number(data["time_scale"]),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise BadRecord(str(error)) from None


def _move(data: Any) -> MoveRecord:
    seat, move, wall_ms, cpu_ms, wait_ms, cut, *info = _bounded(data, list, 7)
    if not isinstance(cut, bool):
        raise BadRecord("a move's cut: true or false")
    numbers = (_number(wall_ms), _number(cpu_ms, optional=True), _number(wait_ms, optional=True))
    said = _text(info[0], optional=True, limit=MAX_INFO) if info else None
    return MoveRecord(-1 if seat == -1 else _seat(seat), _text(move, limit=200), *numbers, cut=cut, info=said)


def _bounded(value: Any, kind: type[list[Any]] | type[str], limit: int) -> Any:
    if not isinstance(value, kind) or len(value) > limit:
        raise BadRecord(f"{value!r:.60}: a {kind.__name__} of at most {limit}")
    return value


def _integer(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadRecord(f"{value!r:.60}: an integer")
    return value


def _seat(value: Any, optional: bool = False) -> Any:
    if value is None and optional:
        return None
    if not 0 <= _integer(value) < MAX_SEATS:
        raise BadRecord(f"{value!r}: a seat, 0 to {MAX_SEATS - 1}")
    return value


def _number(value: Any, optional: bool = False) -> Any:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise BadRecord(f"{value!r:.60}: a finite number")
    return float(value)


def _text(value: Any, optional: bool = False, limit: int = MAX_TEXT) -> Any:
    if value is None and optional:
        return None
    return _bounded(value, str, limit)
