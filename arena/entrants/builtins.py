"""The built-in bots (the ``bots`` package) as data: each module's dotted name, the games it
plays, its parameters with their defaults and its description; and which of them, if any, a
bot's code file is.

They are arena's own code, read by importing their modules in arena's process (as the host
program imports them in a bot's); no other bot's code is ever imported here.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bots
from arena.host.loader import description
from bots.common import Param

#: the package the built-in bots are modules of
PACKAGE = Path(bots.__file__).resolve().parent


@dataclass(frozen=True)
class BuiltinBot:
    """One built-in bot module: its dotted name (``bots.uct``), the games it plays, its
    parameters (name: ``Param``, with its default) and its description (the first paragraph
    of its docstring)."""

    module: str
    games: tuple[str, ...]
    parameters: Mapping[str, Param]
    description: str

    @property
    def defaults(self) -> dict[str, Any]:
        """Each parameter's default, in the module's order."""
        return {name: param.default for name, param in self.parameters.items()}


def names() -> tuple[str, ...]:
    """The built-in bot modules' names in the ``bots`` package: the strategies, weakest first,
    then the learning bots, then those that run OpenSpiel's."""
    return bots.BOTS + bots.LEARNED + bots.OUTSIDE


@functools.cache
def builtin(name: str) -> BuiltinBot:
    """The built-in bot module ``bots.<name>``, read from the module itself."""
    module = importlib.import_module(f"bots.{name}")
    return BuiltinBot(
        module=module.__name__,
        games=tuple(module.GAMES),
        parameters=dict(module.PARAMETERS),
        description=description(module),
    )


def builtin_bots() -> list[BuiltinBot]:
    """Every built-in bot, in the order of ``names()``."""
    return [builtin(name) for name in names()]


def builtin_at(path: Path) -> BuiltinBot | None:
    """The built-in bot whose module file is ``path``, or ``None`` (any other file)."""
    path = path.resolve()
    if path.parent != PACKAGE or path.suffix != ".py" or path.stem not in names():
        return None
    return builtin(path.stem)
