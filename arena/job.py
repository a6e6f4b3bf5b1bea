"""The unit of work: one game to play (``GameJob``), the time model it is played under
(``TimeControl``, one seat's ``SeatClock``), its seeds, and the seam where games are played
(``GameRunner``). Plain data, picklable both ways: a local worker process or a cluster node
plays a job and hands back a ``GameRecord``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from arena.records import GameRecord

if TYPE_CHECKING:
    from arena.botspec import BotSpec

ClockKind = Literal["wall", "cpu"]
#: a move that takes this many times its limit (plus ``OVERLOAD_EXTRA`` seconds) of wall time
#: without its bot having used its limit was kept from the CPU by other programs: the game is
#: voided and played again (``TimeControl.on_overload``)
OVERLOAD_FACTOR = 10.0
OVERLOAD_EXTRA = 1.0


def derive_seed(*parts: Any) -> int:
    """A 63-bit seed from ``parts``, the same on every machine and Python version."""
    digest = hashlib.blake2b(":".join(map(str, parts)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


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
      times, then it stays unplayed) or ``forfeit`` (a timeout, as if the bot were at fault).

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

    @property
    def limited(self) -> bool:
        """Whether moves have a time limit."""
        return self.move is not None or self.bank is not None

    def seat(self, clock: ClockKind | None = None) -> SeatClock:
        """A fresh clock for one seat of one game (``clock``: another kind for this seat)."""
        return SeatClock(self, clock or self.clock)

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
class GameJob:
    """Everything a worker needs to play one stored game."""

    game_id: int
    game: dict[str, Any]
    bots: tuple[BotSpec, BotSpec]
    seed: int
    clock: TimeControl


class GameRunner(Protocol):
    """Where games are played: yields each job's record as it finishes, in any order. The
    caller is the only one to store them."""

    def run(self, jobs: Iterable[GameJob]) -> Iterator[GameRecord]: ...
