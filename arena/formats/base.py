"""What the formats share: their error, and checking a field of players."""

from __future__ import annotations

from collections.abc import Iterable

from arena.errors import ArenaError


class FormatError(ArenaError, ValueError):
    """A field, a history or a setting no pairing can be made from (the message says which)."""


def check_players(players: Iterable[str], least: int = 1) -> list[str]:
    """``players`` as a list, checked: at least ``least`` of them, no name twice."""
    field = list(players)
    if len(field) < least:
        raise FormatError(f"this format needs at least {least} players, got {len(field)}")
    seen: set[str] = set()
    for name in field:
        if name in seen:
            raise FormatError(f"player {name!r} is in the field twice")
        seen.add(name)
    return field
