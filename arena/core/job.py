"""The unit of work: one game to play (``GameJob``, under a ``TimeControl`` of
arena/core/timing.py), its seeds, and the seam where games are played (``GameRunner``). Plain data,
picklable both ways: a local worker process or a cluster node plays a job and hands back a
``GameRecord``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from arena.core.records import GameRecord
from arena.core.timing import TimeControl

if TYPE_CHECKING:
    from arena.core.botspec import BotSpec


def derive_seed(*parts: Any) -> int:
    """A 63-bit seed from ``parts``, the same on every machine and Python version."""
    digest = hashlib.blake2b(":".join(map(str, parts)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


@dataclass(frozen=True, slots=True)
class GameJob:
    """Everything a worker needs to play one stored game."""

    game_id: int
    game: dict[str, Any]
    #: the bot of each seat, in seat order
    bots: tuple[BotSpec, ...]
    seed: int
    control: TimeControl
    #: the moves the game starts from, played before the bots take over (an opening: its texts)
    opening: tuple[str, ...] = ()


class GameRunner(Protocol):
    """Where games are played: yields each job's record as it finishes, in any order. The
    caller is the only one to store them."""

    def run(self, jobs: Iterable[GameJob]) -> Iterator[GameRecord]:
        """Play ``jobs``; yield each one's record as it finishes."""
        ...
