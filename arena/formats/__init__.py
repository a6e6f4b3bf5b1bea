"""Tournament formats beyond the round robin, as pure functions on plain data (names, scores,
lists of games): Swiss rounds, seeded knockout brackets, gauntlets, and adaptive pairings aimed
at the places a stage decides (the advancement cut and the podium)."""

from __future__ import annotations

from arena.formats.adaptive import AdaptiveRun, adaptive_pairings, play_adaptive
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
    "AdaptiveRun",
    "Bracket",
    "FormatError",
    "KnockoutResult",
    "MatchResult",
    "SwissResult",
    "SwissRound",
    "adaptive_pairings",
    "bracket_order",
    "gauntlet",
    "knockout",
    "match_status",
    "play_adaptive",
    "play_knockout",
    "play_swiss",
    "swiss_round",
]
