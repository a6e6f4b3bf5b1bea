"""What ``arena register`` shows of a smoke game as it goes."""

from __future__ import annotations

import time

from rich.live import Live
from rich.text import Text

from arena.commands.common import err
from arena.contests.registration import SmokeProgress
from arena.core.text import printable
from arena.core.timing import TimeControl


class SmokeDisplay(SmokeProgress):
    """The smoke game on standard error as it goes: a line a move of the bot (its number, the
    move, its time) and, on a terminal, a live line for the move it is thinking about."""

    def __init__(self) -> None:
        self.console = err()
        self.live: Live | None = None

    def started(self, game: str, seat: str, control: TimeControl) -> None:
        """A line saying what the game is."""
        self.console.print(
            f"smoke game of {game} against random, the bot as {seat}, {control.describe()}:",
            markup=False,
            highlight=False,
        )

    def thinking(self, number: int) -> None:
        """On a terminal, a live line counting the seconds the bot has been thinking."""
        if not self.console.is_terminal:
            return
        self._stop()
        self.live = Live(_Thinking(number), console=self.console, transient=True, refresh_per_second=4)
        self.live.start()

    def moved(self, number: int, move: str, wall: float, cpu: float | None) -> None:
        """A line for the move: its number, notation and time."""
        self._stop()
        used = f"{wall:.2f} s" + ("" if cpu is None else f" ({cpu:.2f} s of CPU)")
        self.console.print(f"  move {number}: {printable(move)} in {used}", markup=False, highlight=False)

    def ended(self) -> None:
        """The live line goes."""
        self._stop()

    def _stop(self) -> None:
        if self.live is not None:
            self.live.stop()
            self.live = None


class _Thinking:
    """The live line of a move the bot is thinking about: its number and the seconds so far."""

    def __init__(self, number: int) -> None:
        self.number = number
        self.start = time.monotonic()

    def __rich__(self) -> Text:
        return Text(f"  move {self.number}: thinking, {time.monotonic() - self.start:.1f} s")
