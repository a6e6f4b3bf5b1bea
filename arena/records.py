"""What a played game leaves behind: its moves, timings, result and how it ended."""

from __future__ import annotations

import enum
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


@dataclass(frozen=True, slots=True)
class MoveRecord:
    """One move: who played it, its notation, and the time it took."""

    seat: int
    move: str
    wall_ms: float
    cpu_ms: float | None


@dataclass(slots=True)
class GameRecord:
    """A finished game as the worker hands it to the writer: plain data, picklable."""

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

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON-ready data."""
        return {
            "game_id": self.game_id,
            "moves": [[m.seat, m.move, m.wall_ms, m.cpu_ms] for m in self.moves],
            "winner": self.winner,
            "points": list(self.points) if self.points is not None else None,
            "termination": self.termination.value,
            "offender": self.offender,
            "detail": self.detail,
            "stderr": list(self.stderr),
        }
