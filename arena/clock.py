"""The time a player has for one move, on the clock it is timed by."""

from __future__ import annotations

import math
import time


class Clock:
    """How long a bot may think about the current move.

    ``limit`` is this move's limit in seconds (``None``: no limit), its bank included;
    ``kind`` is ``wall`` (elapsed time) or ``cpu`` (the CPU time of this process, all its
    threads); ``now()`` reads that clock and ``deadline`` is when the limit runs out on it;
    ``bank`` is what the bot's game bank held before this move (``None``: no bank). A bot
    should answer before ``remaining()`` reaches zero: the harness stops it a small margin
    after that.

    ``pace`` (cpu clock only) is the CPU seconds one step of the bot's search takes on this
    machine, as the harness measured it before the tournament (``arena.runners.pace``): a search that
    budgets by the clock may turn its time into that many steps, so that a seed plays the same
    moves however busy the machine is. A search that the clock ended tells it ``record(steps,
    seconds)`` (kept in ``searched``): that is how the pace is measured.

    A search with a budget of its own (iterations, a depth, a pace's steps) that the clock
    stopped before that budget was spent tells it ``cut()``: the move is marked as cut by the
    clock where it is stored, since on a less busy machine the bot might have played another.
    """

    __slots__ = ("bank", "deadline", "kind", "limit", "now", "pace", "searched", "was_cut")

    def __init__(
        self,
        limit: float | None = None,
        start: float | None = None,
        kind: str = "wall",
        bank: float | None = None,
        pace: float | None = None,
    ) -> None:
        self.limit = limit
        self.kind = kind
        self.now = time.process_time if kind == "cpu" else time.monotonic
        self.bank = bank
        self.pace = pace if kind == "cpu" else None
        self.searched: tuple[int, float] | None = None
        self.was_cut = False
        if limit is None:
            self.deadline = math.inf
        else:
            self.deadline = (self.now() if start is None else start) + limit

    def remaining(self) -> float:
        """Seconds left for this move (``inf`` without a limit)."""
        return self.deadline - self.now()

    def expired(self) -> bool:
        """Whether the time for this move is up."""
        return self.now() >= self.deadline

    def record(self, steps: int, seconds: float) -> None:
        """A search that this clock ended took ``steps`` steps in ``seconds``."""
        self.searched = (steps, seconds)

    def cut(self) -> None:
        """This clock stopped a search before its own budget was spent (``was_cut``)."""
        self.was_cut = True

    def __repr__(self) -> str:
        return f"Clock(limit={self.limit!r}, kind={self.kind!r}, remaining={self.remaining():.3f})"
