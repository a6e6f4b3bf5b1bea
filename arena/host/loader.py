"""Loading bot modules and checking that they keep the bot contract (the README, "Writing a bot")."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path
from types import ModuleType
from typing import Any

from arena.errors import ArenaError
from arena.games.loading import NotAModule, import_file


class BotLoadError(ArenaError):
    """A bot that cannot be imported or does not keep the bot contract."""


def is_path(target: str) -> bool:
    """Whether ``target`` names a file rather than an importable module."""
    return target.endswith(".py") or "/" in target or "\\" in target


def load_module(target: str) -> ModuleType:
    """Import the bot module ``target``: a ``.py`` file path or a dotted module name."""
    if is_path(target):
        path = Path(target)
        if not path.is_file():
            raise BotLoadError(f"bot file {target!r} does not exist")
        try:
            return import_file(path, "arena_bot", again=True)
        except NotAModule:
            raise BotLoadError(f"bot file {target!r} is not a Python module") from None
        except Exception as error:
            raise BotLoadError(f"bot file {target!r} failed to import: {_describe(error)}") from error
    try:
        return importlib.import_module(target)
    except ModuleNotFoundError as error:
        if error.name and target.startswith(error.name):
            raise BotLoadError(
                f"no bot module {target!r}: give a dotted module name (e.g. bots.uct) or a path to a .py file"
            ) from None
        raise BotLoadError(f"bot module {target!r} failed to import: {_describe(error)}") from error
    except Exception as error:
        raise BotLoadError(f"bot module {target!r} failed to import: {_describe(error)}") from error


def _describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


def check_contract(module: ModuleType, target: str, game: str | None = None) -> None:
    """Raise ``BotLoadError`` unless ``module`` offers ``make_bot`` or ``move`` (and ``game``)."""
    factory = getattr(module, "make_bot", None)
    move = getattr(module, "move", None)
    if not callable(factory) and not callable(move):
        raise BotLoadError(
            f"bot {target!r} has neither make_bot(game, seat, rng, **params) nor move(state, clock); define one of them"
        )
    if callable(factory) and len(inspect.signature(factory).parameters) < 3:
        raise BotLoadError(f"bot {target!r}: make_bot must take (game, seat, rng, **params)")
    games = getattr(module, "GAMES", None)
    if game is not None and games is not None and game not in games:
        raise BotLoadError(f"bot {target!r} does not play {game!r}; it plays {', '.join(games)}")


def check_parameters(module: ModuleType, target: str, params: dict[str, Any]) -> None:
    """Raise ``BotLoadError`` if ``make_bot`` cannot be called with ``params`` as keywords: a
    parameter it does not name (and it takes no ``**params``), or one it needs that is not
    given. Their values are the bot's to check (the built-in bots do, in ``make_bot``)."""
    factory = getattr(module, "make_bot", None)
    if not callable(factory):
        return
    try:
        signature = inspect.signature(factory)
        signature.bind(None, 0, None, **params)
    except ValueError:  # no signature to read (a builtin): the call itself will tell
        return
    except TypeError as error:
        keywords = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        named = [p for p in list(signature.parameters.values())[3:] if p.kind in keywords]
        listed = ", ".join(p.name if p.default is p.empty else f"{p.name}={p.default!r}" for p in named) or "none"
        unknown = sorted(set(params) - {p.name for p in named})
        missing = [p.name for p in named if p.default is p.empty and p.name not in params]
        if unknown:
            what = f"has no parameter {', '.join(map(repr, unknown))}"
        elif missing:
            what = f"needs the parameter {', '.join(map(repr, missing))}"
        else:
            what = f"cannot take the parameters {sorted(params)} ({error})"
        raise BotLoadError(f"bot {target!r} {what}; its parameters: {listed}") from None


def make_player(module: ModuleType, game: Any, seat: int, rng: Any, params: dict[str, Any]) -> Any:
    """The bot object of ``module`` for one game: ``make_bot(...)`` or the module itself."""
    if callable(getattr(module, "make_bot", None)):
        return module.make_bot(game, seat, rng, **params)
    if params:
        raise BotLoadError(f"a plain move(state, clock) bot takes no parameters; got {sorted(params)}")
    return module


def description(module: ModuleType) -> str:
    """What a bot module says of itself: the first paragraph of its docstring, on one line
    (``""`` without one)."""
    return first_paragraph(module.__doc__)


def first_paragraph(doc: object) -> str:
    """The first paragraph of docstring ``doc`` (up to its first blank line), its lines joined
    with single spaces; ``""`` if it is not text."""
    if not isinstance(doc, str):
        return ""
    paragraph = []
    for line in doc.strip().splitlines():
        if not line.strip():
            break
        paragraph.append(line.strip())
    return " ".join(paragraph)
