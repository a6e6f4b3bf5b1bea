"""Shared fixtures."""

from __future__ import annotations

import pytest

from arena.games import GAMES, get_game

#: every registered game, with each non-default parameter setting worth covering
GAME_SPECS = [(name, {}) for name in GAMES] + [
    ("uttt", {"tiebreak": "boards"}),
    ("othello", {"size": 6}),
    ("othello", {"size": 10}),
    ("othello", {"opening": "free"}),
    ("othello", {"scoring": "wof"}),
]


@pytest.fixture(params=GAME_SPECS, ids=lambda spec: spec[0] + "".join(f"-{v}" for v in spec[1].values()))
def game(request):
    """Each registered game in turn."""
    name, params = request.param
    return get_game(name, **params)
