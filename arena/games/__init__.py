"""The games and their registry: ``get_game(name, **params)`` finds one by name (arena's own,
then those installed packages offer), ``get_game_from_spec`` one from its stored spec (a user's
game from its module, checked by its hash: arena/games/loading.py)."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from arena.games.base import (
    CHANCE,
    DRAW,
    RESULTS,
    SIMULTANEOUS,
    WIN,
    Game,
    GameParameterError,
    IllegalMoveError,
    Move,
    MoveSyntaxError,
    Outcome,
    State,
    UnknownGameError,
    View,
)

__all__ = [
    "CHANCE",
    "DRAW",
    "GAMES",
    "RESULTS",
    "SIMULTANEOUS",
    "WIN",
    "Game",
    "GameParameterError",
    "IllegalMoveError",
    "Move",
    "MoveSyntaxError",
    "Outcome",
    "State",
    "UnknownGameError",
    "View",
    "class_from_spec",
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
    """The class of the game registered as ``name``: one of arena's, or one an installed package
    offers (the ``arena.games`` entry points)."""
    target = GAMES.get(name) if isinstance(name, str) else None
    if target is None:
        from arena.games.loading import installed, installed_source, load_class

        source = installed_source(name) if isinstance(name, str) else None
        if source is None:
            names = ", ".join(sorted({*GAMES, *installed()}))
            raise UnknownGameError(
                f"unknown game {name!r}; the games are: {names}; for a game of your own, give its file: "
                "game: {module: path/to/game.py}"
            )
        return load_class(source)
    module, _, cls = target.partition(":")
    found: type[Game] = getattr(importlib.import_module(module), cls)
    return found


def get_game(name: str, **params: Any) -> Game:
    """The game registered as ``name`` with ``params``; a clear error for either unknown."""
    return game_class(name)(**params)


#: the keys of a spec that say where a game from outside arena is loaded from: a user's module,
#: one of OpenSpiel's games, a referee program
OUTSIDE = ("module", "openspiel", "command")


def from_outside(spec: Mapping[str, Any]) -> bool:
    """Whether the game ``spec`` describes comes from outside arena (not one of its own)."""
    return any(spec.get(key) for key in OUTSIDE)


def get_game_from_spec(spec: dict[str, Any]) -> Game:
    """The game described by ``Game.spec()`` data (a user's game: loaded from its module, which
    must still have the code it had when the spec was made)."""
    if spec.get("module"):
        from arena.games.loading import load_game

        return load_game(spec, spec.get("params", {}))
    if spec.get("openspiel"):
        from arena.games.openspiel import openspiel_from_spec

        return openspiel_from_spec(spec)
    if spec.get("command"):
        from arena.games.referee import load_referee

        return load_referee(spec, spec.get("params", {}))
    return get_game(spec["name"], **spec.get("params", {}))


def class_from_spec(spec: dict[str, Any]) -> type[Game]:
    """The class of the game ``spec`` describes (a stored tournament's ``game``)."""
    if spec.get("module"):
        from arena.games.loading import load_class

        return load_class(spec)
    if spec.get("openspiel"):
        from arena.games.openspiel import game_string, openspiel_class

        return openspiel_class(game_string(spec["openspiel"], spec.get("params") or None))
    if spec.get("command"):
        from arena.games.referee import load_referee

        return type(load_referee(spec, spec.get("params", {})))
    return game_class(spec["name"])
