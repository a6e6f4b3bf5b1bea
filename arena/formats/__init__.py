"""Tournament formats beyond the round robin, as pure functions on plain data (names, scores,
lists of games): Swiss rounds, seeded knockout brackets and gauntlets."""

from __future__ import annotations

from arena.formats.base import FormatError
from arena.formats.gauntlet import gauntlet
from arena.formats.knockout import (
    Bracket,
    KnockoutResult,
    MatchResult,
    bracket_order,
    knockout,
    match_status,
    play_knockout,
)
from arena.formats.swiss import BYE_POINTS, SwissResult, SwissRound, play_swiss, swiss_round

__all__ = [
    "BYE_POINTS",
    "Bracket",
    "FormatError",
    "KnockoutResult",
    "MatchResult",
    "SwissResult",
    "SwissRound",
    "bracket_order",
    "gauntlet",
    "knockout",
    "match_status",
    "play_knockout",
    "play_swiss",
    "swiss_round",
]
