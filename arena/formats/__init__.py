"""Tournament formats beyond the round robin, as pure functions on plain data (names, scores,
lists of games): Swiss rounds."""

from __future__ import annotations

from arena.formats.base import FormatError
from arena.formats.swiss import BYE_POINTS, SwissResult, SwissRound, play_swiss, swiss_round

__all__ = [
    "BYE_POINTS",
    "FormatError",
    "SwissResult",
    "SwissRound",
    "play_swiss",
    "swiss_round",
]
