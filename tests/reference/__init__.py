"""Plain, obviously correct reference implementations of the games, to check the fast engines.

Each module has ``initial(**params)`` returning a reference state with ``to_move``,
``legal_moves()`` (sorted ints, the engine's move encoding), ``play(move)`` (a new state),
and ``outcome()`` (``None`` while the game goes on, else an ``arena.games.Outcome``).
They favour clarity over speed: lists of cells and the rules as written in docs/games.md.
"""

import importlib
from types import ModuleType


def reference(name: str) -> ModuleType:
    """The reference module of the game ``name``."""
    return importlib.import_module(f"tests.reference.{name}")
