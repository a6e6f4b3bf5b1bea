"""What a played game leaves behind: its moves, timings, result and how it ended; and the two
ways a game can stop early: a bot's fault (``BotFault``) or a machine too busy to time it
(``Overloaded``)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


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
    have changed the move)."""

    seat: int
    move: str
    wall_ms: float
    cpu_ms: float | None
    wait_ms: float | None = None
    cut: bool = False


@dataclass(slots=True)
class GameRecord:
    """A game as the worker hands it to the writer: plain data, picklable. A ``voided`` game
    (the reason) was stopped because the machine was overloaded, and is to be played again."""

    game_id: int
    moves: list[MoveRecord] = field(default_factory=list)
    winner: int | None = None
    points: tuple[float, float] | None = None
    termination: Termination = Termination.NORMAL
    offender: int | None = None
    detail: str | None = None
    stderr: tuple[str, str] = ("", "")
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
