"""The time a player has for one move."""

from __future__ import annotations

import math
import time


class Clock:
    """How long a bot may think about the current move.

    ``limit`` is the per-move limit in seconds (``None``: no limit); ``deadline`` is when it
    runs out on the ``time.monotonic()`` clock of the bot's own process. A bot should answer
    before ``remaining()`` reaches zero: the harness kills it a small margin after that.
    """

    __slots__ = ("limit", "deadline")

    def __init__(self, limit: float | None = None, start: float | None = None) -> None:
        self.limit = limit
        if limit is None:
            self.deadline = math.inf
        else:
            self.deadline = (time.monotonic() if start is None else start) + limit

    def remaining(self) -> float:
        """Seconds left for this move (``inf`` without a limit)."""
        return self.deadline - time.monotonic()

    def expired(self) -> bool:
        """Whether the time for this move is up."""
        return time.monotonic() >= self.deadline

    def __repr__(self) -> str:
        return f"Clock(limit={self.limit!r}, remaining={self.remaining():.3f})"
