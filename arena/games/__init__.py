"""The games and their registry: ``get_game(name, **params)`` finds one by name."""

from __future__ import annotations

import importlib
from typing import Any

from arena.games.base import (
    DRAW,
    RESULTS,
    WIN,
    Game,
    GameParameterError,
    IllegalMoveError,
    Move,
    MoveSyntaxError,
    Outcome,
    State,
    UnknownGameError,
)

__all__ = [
    "DRAW",
    "GAMES",
    "RESULTS",
    "WIN",
    "Game",
    "GameParameterError",
    "IllegalMoveError",
    "Move",
    "MoveSyntaxError",
    "Outcome",
    "State",
    "UnknownGameError",
    "game_class",
    "get_game",
    "get_game_from_spec",
]

#: game name -> "module:class"; modules are imported on first use
GAMES: dict[str, str] = {
    "tictactoe": "arena.games.tictactoe:TicTacToe",
    "uttt": "arena.games.uttt:UltimateTicTacToe",
    "xtreme": "arena.games.xtreme:Xtreme",
    "othello": "arena.games.othello:Othello",
}


def game_class(name: str) -> type[Game]:
    """The class of the game registered as ``name``."""
    try:
        target = GAMES[name]
    except (KeyError, TypeError):
        raise UnknownGameError(f"unknown game {name!r}; the games are: {', '.join(sorted(GAMES))}") from None
    module, _, cls = target.partition(":")
    found: type[Game] = getattr(importlib.import_module(module), cls)
    return found


def get_game(name: str, **params: Any) -> Game:
    """The game registered as ``name`` with ``params``; a clear error for either unknown."""
    return game_class(name)(**params)


def get_game_from_spec(spec: dict[str, Any]) -> Game:
    """The game described by ``Game.spec()`` data."""
    return get_game(spec["name"], **spec.get("params", {}))
