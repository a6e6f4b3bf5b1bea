"""Games from outside arena: a user's game module by path or dotted name, and the games of
installed packages (the ``arena.games`` entry-point group).

A game module is the organiser's code, trusted like arena itself (docs/security.md): it is
imported into arena's processes and into the bot processes of the games that play it. Its code
is hashed when a tournament is set up, and every later load checks the hash, so a tournament
never resumes, replays or reports with a game that changed under it.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import sys
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from arena.games.base import Game, GameParameterError, UnknownGameError

#: the entry-point group under which installed packages offer their games (name -> "module:Class")
ENTRY_POINTS = "arena.games"
#: the most bytes of a game module's file (a game is code, not data)
MAX_GAME_FILE = 4 << 20


class GameLoadError(UnknownGameError):
    """A user's game that cannot be loaded: no such file or module, no game class in it, an
    error while importing it, or code that changed since its tournament began."""


def is_path(target: str) -> bool:
    """Whether ``target`` names a file rather than an importable module."""
    return target.endswith(".py") or "/" in target or "\\" in target


def code_hash(path: Path) -> str:
    """The SHA-256 of a game module's file."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise GameLoadError(f"game file {str(path)!r} cannot be read: {error.strerror or error}") from None
    return hashlib.sha256(data).hexdigest()


def _module_file(module: ModuleType, target: str) -> Path:
    origin = getattr(module, "__file__", None)
    if not origin:
        raise GameLoadError(f"game module {target!r} has no file to hash (a namespace package?)")
    return Path(origin)


class NotAModule(ImportError):
    """A file Python cannot import as a module (not a ``.py`` file)."""


def import_file(path: Path, prefix: str, again: bool = False) -> ModuleType:
    """The module of the ``.py`` file ``path`` under a name of its own (``prefix`` and a hash of
    the path; bots' modules and games' are imported so): imported once a process, or each time
    with ``again``. An error of its code is raised as it is, the half-made module forgotten."""
    name = f"{prefix}_{hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:12]}"
    if name in sys.modules and not again:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise NotAModule(f"{str(path)!r} is not a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _import(target: str) -> ModuleType:
    """The module ``target`` (a ``.py`` path or a dotted name), imported once a process."""
    if is_path(target):
        path = Path(target).resolve()
        if not path.is_file():
            raise GameLoadError(f"game file {target!r} does not exist")
        if path.stat().st_size > MAX_GAME_FILE:
            raise GameLoadError(f"game file {target!r} is larger than {MAX_GAME_FILE >> 20} MiB")
        try:
            return import_file(path, "arena_game")
        except NotAModule:
            raise GameLoadError(f"game file {target!r} is not a Python module") from None
        except Exception as error:
            raise GameLoadError(f"game file {target!r} failed to import: {type(error).__name__}: {error}") from None
    try:
        return importlib.import_module(target)
    except ModuleNotFoundError as error:
        if error.name and target.startswith(error.name):
            raise GameLoadError(
                f"no game module {target!r}: give a path to a .py file (e.g. games/connect4.py) or a dotted module name"
            ) from None
        raise GameLoadError(f"game module {target!r} failed to import: {type(error).__name__}: {error}") from None
    except Exception as error:
        raise GameLoadError(f"game module {target!r} failed to import: {type(error).__name__}: {error}") from None


def game_classes(module: ModuleType) -> list[type[Game]]:
    """The game classes a module defines (not those it imports), in the order they are written."""
    found = [
        value
        for value in vars(module).values()
        if inspect.isclass(value)
        and issubclass(value, Game)
        and not inspect.isabstract(value)
        and value.__module__ == module.__name__
    ]
    return sorted(found, key=lambda cls: inspect.getsourcelines(cls)[1] if _has_source(cls) else 0)


def _has_source(cls: type) -> bool:
    try:
        inspect.getsourcelines(cls)
    except (OSError, TypeError):
        return False
    return True


def _pick(module: ModuleType, target: str, name: str | None) -> type[Game]:
    if name is not None:
        found = getattr(module, name, None)
        if not (inspect.isclass(found) and issubclass(found, Game)):
            raise GameLoadError(f"game module {target!r} has no game class {name!r}")
        return found
    classes = game_classes(module)
    if not classes:
        raise GameLoadError(
            f"game module {target!r} defines no game: write a subclass of arena.games.Game (docs/games.md)"
        )
    if len(classes) > 1:
        names = ", ".join(cls.__name__ for cls in classes)
        raise GameLoadError(f"game module {target!r} defines several games ({names}): say which with class: NAME")
    return classes[0]


def _checked_class(cls: type[Game], target: str) -> None:
    """A clear error for a game class that breaks the contract where it is declared."""
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not name.strip():
        raise GameLoadError(f"game class {cls.__name__} of {target!r} has no name (set name = 'mygame')")
    low, high = cls.PLAYERS
    if not (isinstance(low, int) and isinstance(high, int) and 1 <= low <= high <= 64):
        raise GameLoadError(f"game {name!r}: PLAYERS must be (fewest, most) seats, 1 to 64, not {cls.PLAYERS!r}")
    if not isinstance(cls.MAX_LENGTH, int) or cls.MAX_LENGTH < 0:
        raise GameLoadError(f"game {name!r}: MAX_LENGTH must be the most moves a game can have, not {cls.MAX_LENGTH!r}")


def load_class(source: Mapping[str, Any]) -> type[Game]:
    """The game class ``source`` names (``module``, optional ``class`` and ``code_hash``),
    marked with where it came from; ``GameLoadError`` if it cannot be loaded or its code changed."""
    target = str(source["module"])
    module = _import(target)
    cls = _pick(module, target, source.get("class"))
    _checked_class(cls, target)
    digest = code_hash(_module_file(module, target))
    expected = source.get("code_hash")
    if expected is not None and expected != digest:
        raise GameLoadError(
            f"game {cls.name!r} ({target}) changed since its tournament began: its code is not the code "
            "the tournament's games were played with (restore it, or start a new tournament)"
        )
    located = {"module": str(Path(target).resolve()) if is_path(target) else target, "class": cls.__name__}
    if cls.source is None or dict(cls.source) != {**located, "code_hash": digest}:
        cls.source = {**located, "code_hash": digest}
        cls.__reduce__ = _reduce_loaded  # type: ignore[method-assign,assignment]
    return cls


def _reduce_loaded(game: Game) -> tuple[Any, ...]:
    """How a user's game pickles: its source and parameters, loaded again (and checked by its
    hash) where it is unpickled."""
    assert game.source is not None
    return (load_game, (dict(game.source), dict(game.params)))


def load_game(source: Mapping[str, Any], params: Mapping[str, Any] | None = None) -> Game:
    """The game ``source`` names (see ``load_class``) made with ``params``."""
    cls = load_class(source)
    try:
        return cls(**dict(params or {}))
    except GameParameterError:
        raise
    except Exception as error:
        raise GameLoadError(f"game {cls.name!r} cannot be made: {type(error).__name__}: {error}") from None


def game_files(game: Game) -> list[str]:
    """The files of a user's game that the bot processes playing it must read (its module's
    file); none for arena's own games, which every bot may read already."""
    source = game.source
    if source is not None and "command" in source:  # a referee, which a bot's host may start
        from arena.games.referee import referee_files

        return referee_files(game)
    if source is None or "module" not in source:  # arena's own, or OpenSpiel's (installed)
        return []
    target = source["module"]
    if is_path(target):
        return [target]
    module = sys.modules.get(target)
    origin = getattr(module, "__file__", None) if module is not None else None
    return [str(Path(origin).resolve())] if origin else []


def installed() -> dict[str, str]:
    """The games installed packages offer: name -> ``module:Class``."""
    from importlib.metadata import entry_points

    return {point.name: point.value for point in entry_points(group=ENTRY_POINTS)}


def installed_source(name: str) -> dict[str, str] | None:
    """Where the installed game ``name`` is loaded from, or ``None`` if no package offers it."""
    value = installed().get(name)
    if value is None:
        return None
    module, _, cls = value.partition(":")
    return {"module": module.strip(), "class": cls.strip()} if cls else {"module": module.strip()}
