"""The time model, from the tournament file to the bot's reply.

A ``TimeControl`` says how much time a bot has and what a second is (wall or CPU time); each
seat of a game keeps a ``SeatClock`` (its bank); each request to a bot process is bounded by a
``Limit`` and costs a ``Usage``: its wall time, the CPU time of all the bot's processes, and
the time the bot (or the harness waiting for it) was ready to run but kept from a CPU by other
programs. A bot is charged the wall time less that wait (``wall`` clock) or its CPU time
(``cpu`` clock, with a wall-time backstop), and a request the machine kept from running for
many times its limit is ``Overloaded``: nobody's fault, the game is played again.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal

from arena.core.records import BotFault, Overloaded, Termination

ClockKind = Literal["wall", "cpu"]
#: a move that takes this many times its limit (plus ``OVERLOAD_EXTRA`` seconds) of wall time
#: without its bot having used its limit was kept from the CPU by other programs: the game is
#: voided and played again (``TimeControl.on_overload``)
OVERLOAD_FACTOR = 10.0
OVERLOAD_EXTRA = 1.0


@dataclass(frozen=True, slots=True)
class TimeControl:
    """How much time a bot has, and what a second is.

    - ``move``: seconds each move may take (``None``: no per-move allowance);
    - ``bank``: seconds a seat has for the whole game on top of that, and ``increment``: seconds
      added to its bank after each of its moves (a chess clock; with ``move`` as well, the bank
      only pays for what a move takes beyond ``move``, as Kaggle's overage time);
    - ``clock``: ``wall`` (elapsed time, less the time the bot was kept from a CPU by other
      programs) or ``cpu`` (CPU time of all the bot's processes and threads; a move may then
      take at most ``backstop`` times its limit of wall time, so that a sleeping or blocked
      bot still forfeits);
    - ``grace``: seconds past the limit before a reply is late (the pipe, the scheduler);
    - ``startup``: seconds a bot has to start and be ready for a game (the same clock);
    - ``on_overload``: what happens to a game in which a bot could not get a CPU for so long
      (``OVERLOAD_FACTOR``) that its time cannot be told: ``replay`` it (at most ``max_replays``
      times, then it stays unplayed) or ``forfeit`` (a timeout, as if the bot were at fault);
    - ``pace``: with the cpu clock, the bots that budget by the clock run at their measured pace
      (arena/runners/pace.py), so that a seed plays the same moves on a busy machine.

    Neither ``move`` nor ``bank``: no time limit at all.
    """

    move: float | None = 1.0
    bank: float | None = None
    increment: float = 0.0
    clock: ClockKind = "wall"
    grace: float = 0.05
    startup: float = 10.0
    backstop: float = 3.0
    on_overload: Literal["replay", "forfeit"] = "replay"
    max_replays: int = 3
    pace: bool = True

    def seat(self, clock: ClockKind | None = None) -> SeatClock:
        """A fresh clock for one seat of one game (``clock``: another kind for this seat)."""
        return SeatClock(self, clock or self.clock)

    def scaled(self, factor: float) -> TimeControl:
        """This time control with every allowance (per move, bank, increment) ``factor`` times
        as long: a node half as fast as the reference gets ``factor`` 2.0."""
        return dataclasses.replace(
            self,
            move=None if self.move is None else self.move * factor,
            bank=None if self.bank is None else self.bank * factor,
            increment=self.increment * factor,
        )

    def describe(self) -> str:
        """The time control in a few words: ``0.1 s a move (cpu)``, ``bank 10 s + 0.1 s``."""
        parts = []
        if self.move is not None:
            parts.append(f"{self.move:g} s a move")
        if self.bank is not None:
            parts.append(f"bank {self.bank:g} s" + (f" + {self.increment:g} s a move" if self.increment else ""))
        return (", ".join(parts) or "no time limit") + f" ({self.clock} clock)"


class SeatClock:
    """One seat's clock during one game: the limit of its next move, and what is left in its
    bank. ``kind`` is the clock it is timed by (a course bot keeps ``wall``)."""

    __slots__ = ("bank", "control", "kind")

    def __init__(self, control: TimeControl, kind: ClockKind) -> None:
        self.control = control
        self.kind = kind
        self.bank = control.bank

    def limit(self) -> float | None:
        """Seconds (of ``kind``) the next move may take before ``grace``; ``None``: no limit."""
        control = self.control
        if control.move is None and self.bank is None:
            return None
        return (control.move or 0.0) + (self.bank or 0.0)

    def spend(self, used: float) -> None:
        """Charge a move that took ``used`` seconds: what went beyond the per-move allowance
        comes out of the bank (never below zero: a move within grace empties it), then the
        increment is added."""
        if self.bank is not None:
            over = max(0.0, used - (self.control.move or 0.0))
            self.bank = max(0.0, self.bank - over) + self.control.increment


@dataclass(frozen=True, slots=True)
class Usage:
    """What one stretch of a bot's time cost: ``wall`` seconds, ``cpu`` seconds of all its
    processes (``None``: unknown), and ``waited`` seconds in which it (or the harness, to read
    its reply) was ready to run but kept from a CPU by other programs."""

    wall: float
    cpu: float | None
    waited: float

    def charged(self, clock: ClockKind) -> float:
        """The seconds of ``clock`` the bot is charged: its CPU time, or the wall time less
        what it waited for a CPU."""
        if clock == "cpu" and self.cpu is not None:
            return self.cpu
        return max(0.0, self.wall - self.waited)

    def describe(self) -> str:
        """The usage in words, for a timeout's detail."""
        cpu = "" if self.cpu is None else f", {self.cpu:.3f} s of CPU"
        return f"{self.wall:.3f} s elapsed{cpu}, {self.waited:.3f} s waiting for a CPU"


@dataclass(frozen=True, slots=True)
class Limit:
    """How long a request may take: ``seconds`` of ``clock`` time plus ``grace``. With the
    ``cpu`` clock the wall time less the wait for a CPU may be at most ``backstop`` times
    ``seconds`` (plus grace): a sleeping bot uses no CPU. A request still unanswered after
    ``OVERLOAD_FACTOR`` times its time of wall time, the bot not having been charged its
    limit, is ``Overloaded`` if ``overload`` says so, else a timeout."""

    seconds: float
    clock: ClockKind = "wall"
    grace: float = 0.05
    backstop: float = 3.0
    overload: bool = True

    @property
    def total(self) -> float:
        """The seconds of its clock a request may take, grace included."""
        return self.seconds + self.grace

    def first_check(self, cpus: int) -> float:
        """Wall seconds before which the request cannot be late."""
        return self.total / max(1, cpus) if self.clock == "cpu" else self.total

    def judge(self, usage: Usage, cpus: int) -> float:
        """Seconds to wait before looking again; ``BotFault`` (a timeout) or ``Overloaded``."""
        charged = usage.charged(self.clock)
        if charged >= self.total:
            raise BotFault(Termination.TIMEOUT, self.late(usage))
        left = [(self.total - charged) / (max(1, cpus) if self.clock == "cpu" else 1)]
        if self.clock == "cpu":
            awake = usage.wall - usage.waited
            limit = self.backstop * self.seconds + self.grace
            if awake >= limit:
                raise BotFault(
                    Termination.TIMEOUT,
                    f"no reply within {limit:.3f} s of wall time (the backstop of "
                    f"the cpu clock: {self.backstop:g} x {self.seconds:.3f} s + grace; "
                    f"{usage.describe()})",
                )
            left.append(limit - awake)
        cap = OVERLOAD_FACTOR * self.total + OVERLOAD_EXTRA
        if usage.wall >= cap:
            detail = (
                f"the machine was too busy to time it: after {usage.wall:.3f} s it had been charged only "
                f"{charged:.3f} s of its {self.total:.3f} s ({usage.describe()})"
            )
            if self.overload:
                raise Overloaded(detail)
            raise BotFault(Termination.TIMEOUT, detail)
        left.append(cap - usage.wall)
        return max(0.001, min(left))

    def late(self, usage: Usage) -> str:
        """The detail of a reply that came, or did not come, too late."""
        return (
            f"no reply within {self.seconds:.3f} s + {self.grace:.3f} s grace of {self.clock} time ({usage.describe()})"
        )
