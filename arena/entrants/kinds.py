"""The kinds of bot arena runs, each a small class: a Python module or file run by arena's host
program (``python``), a program in any language speaking the protocol (``command``), and a 2019
course bot file (``course2019``). Each kind checks its parameters, resolves its target, finds
its code without running any of it (``Code``: hashed, and copied into a bundle of its own),
builds its command line and names the paths it may read.

No bot code runs outside the sandbox: a dotted module is found by searching folders the way
the import system would (``importlib.machinery.PathFinder``), never by importing it or its
package; an interpreter named for a bot is asked its version inside the sandbox.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shlex
import shutil
import sys
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.machinery import PathFinder
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import arena
import bots
from arena.errors import ArenaError, BotParameterError
from arena.host.loader import is_path
from bots.common import resolve_parameters

if TYPE_CHECKING:
    from arena.core.botspec import BotSpec
    from arena.core.timing import ClockKind

#: the course host program, a file of the installed package (so it works from any installation)
COURSE_HOST = Path(arena.__file__).parent / "host" / "course_host.py"
#: the longest file name and path the file system takes, in bytes (Linux's NAME_MAX and PATH_MAX)
MAX_FILE_NAME = 255
MAX_PATH = 4096
#: a bot's own code may be at most this large, in this many files (a package with its data)
MAX_CODE_BYTES = 64 << 20
MAX_CODE_FILES = 5000


class BotKindError(ArenaError, ValueError):
    """A bot that cannot be found, or whose target or parameters its kind cannot use."""


@dataclass(frozen=True)
class Code:
    """A bot's own code: ``root`` (its file, or the folder of its package) and every file in it.
    ``bundle`` says whether the harness copies it into a folder of its own to run it from (a
    module in the tournament's folder: the sandbox lets the bot read that copy, not the folder
    beside it, which may hold the database and other bots)."""

    root: Path
    files: tuple[Path, ...]
    bundle: bool = False

    def digest(self) -> str:
        """SHA-256 of the code: a single file's bytes, or every file's path and bytes."""
        if self.files == (self.root,):
            return hashlib.sha256(self.root.read_bytes()).hexdigest()
        digest = hashlib.sha256()
        for path in self.files:
            digest.update(str(path.relative_to(self.root.parent)).encode() + b"\0")
            digest.update(path.read_bytes())
        return digest.hexdigest()

    def copy_to(self, folder: Path) -> None:
        """Copy the code into ``folder`` (its files, as regular files, nothing else)."""
        for path in self.files:
            target = folder / path.relative_to(self.root.parent)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)


def package_files(root: Path) -> tuple[Path, ...]:
    """Every regular file of a bot's file or package folder (no symbolic link is followed: one
    could point at the database), within ``MAX_CODE_FILES`` and ``MAX_CODE_BYTES``."""
    if not root.is_dir():
        return (root,)
    found, size = [], 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not os.path.islink(os.path.join(folder, d)))
        for name in sorted(files):
            path = Path(folder, name)
            if path.is_symlink() or not path.is_file() or name.endswith((".pyc", ".pyo")):
                continue
            found.append(path)
            size += path.stat().st_size
            if len(found) > MAX_CODE_FILES or size > MAX_CODE_BYTES:
                raise BotKindError(
                    f"the bot package {str(root)!r} is too large to be a bot's code (more than "
                    f"{MAX_CODE_FILES} files or {MAX_CODE_BYTES >> 20} MB)"
                )
    return tuple(found)


def find_module(name: str, folders: list[str] | None = None) -> Path | None:
    """The file of module ``name`` (``a.b.c``: ``a/b/c.py`` or ``a/b/c/__init__.py``) in
    ``folders``, or (``None``) wherever this interpreter would import it from, found without
    importing anything (a top-level name is looked up, never run; below it, folders are searched)."""
    parts = name.split(".")
    try:
        spec = importlib.util.find_spec(parts[0]) if folders is None else PathFinder.find_spec(parts[0], folders)
        for index in range(1, len(parts)):
            if spec is None or not spec.submodule_search_locations:
                return None
            spec = PathFinder.find_spec(".".join(parts[: index + 1]), list(spec.submodule_search_locations))
    except (ImportError, ValueError, OSError):
        return None
    return Path(spec.origin) if spec is not None and spec.origin and spec.has_location else None


def resolve_interpreter(python: str | None, base: Path) -> str | None:
    """An interpreter named for a bot as stored: a path made absolute from the folder it was
    named in (not resolved: a virtual environment's interpreter is a link out of it), a bare
    name left to the ``PATH``."""
    if python is None or os.sep not in python:
        return python
    return os.path.normpath(base / python)


def interpreter_paths(executable: str | None) -> set[str]:
    """What running ``executable`` needs to read: an interpreter in a ``bin`` folder, its
    installation (and, for a virtual environment's, the environment: its ``pyvenv.cfg`` and
    packages); any other program, its folder."""
    found = shutil.which(executable) if executable else None
    if not found:
        return set()
    paths = set()
    real = Path(found).resolve()
    paths.add(str(real.parent.parent if real.parent.name == "bin" else real.parent))
    venv = Path(found).absolute().parent.parent
    if (venv / "pyvenv.cfg").is_file():
        paths.add(str(venv))
    if "pyenv" in found:  # a pyenv shim runs pyenv itself first
        paths.add(str(Path(found).parent.parent))
    return paths


def harness_paths() -> set[str]:
    """What every bot may read of the harness's installation: its interpreter, arena's code
    and the built-in bots (the host program runs them)."""
    paths = {
        sys.prefix,
        sys.base_prefix,
        sys.exec_prefix,
        str(Path(arena.__file__).parent),
        str(Path(bots.__file__).parent),
    }
    return paths


def harness_links(folder: Path) -> str:
    """A folder in ``folder`` with links to arena's package and the built-in bots' alone: what
    another interpreter puts on its path to run arena's host program. A folder of its own, as
    the import system lists the folders on the path and the sandbox lets a bot list only what
    it may read."""
    links = folder / "links"
    if not links.is_dir():
        links.mkdir()
        for package in (arena, bots):
            os.symlink(Path(str(package.__file__)).parent, links / package.__name__)
    return str(links)


def foreign_python(spec: BotSpec) -> bool:
    """Whether ``spec`` is a Python bot run by an interpreter other than the harness's."""
    return spec.kind == "python" and spec.python is not None and spec.python != sys.executable


def _within(path: Path, folders: set[str]) -> bool:
    return any(path.resolve().is_relative_to(Path(folder).resolve()) for folder in folders)


class BotKind(ABC):
    """What arena needs to know to run bots of one kind."""

    name: ClassVar[str]
    #: the clock its bots are timed by whatever the tournament says (``None``: the tournament's)
    clock: ClassVar[ClockKind | None] = None
    #: whether its bots surely answer ``describe`` (arena's own host programs do)
    answers_describe: ClassVar[bool] = True
    #: whether its bots are programs started by their command line (relative words resolved in
    #: the folder they were declared in), which may read their machine's whole /proc
    program: ClassVar[bool] = False

    def check_params(self, params: dict[str, Any]) -> None:
        """``BotKindError`` if this kind cannot take ``params``."""

    def normalize_params(self, target: str, base: Path, params: Mapping[str, Any]) -> dict[str, Any]:
        """``params`` as a version of the bot ``target`` stores them: as given, unless arena
        knows the bot's parameters without running it (a built-in bot's; see ``PythonBot``)."""
        return dict(params)

    def uses_folder(self, target: str, base: Path) -> bool:
        """Whether bot ``target`` declared from folder ``base`` depends on that folder (a module
        imported from it, a command's relative paths): declared from another folder, it is
        another version. An installed module or a file does not."""
        return False

    @abstractmethod
    def resolve(self, target: str, base: Path) -> str:
        """``target`` as stored: a file made absolute (``BotKindError`` if it is missing)."""

    @abstractmethod
    def code(self, target: str, base: Path) -> Code | None:
        """The bot's own code, found without running it (``None``: nothing to hash)."""

    def digest(self, target: str, base: Path) -> str | None:
        """The hash of the bot's code, as stored with each bot version."""
        code = self.code(target, base)
        return None if code is None else code.digest()

    @abstractmethod
    def command(self, spec: BotSpec, game: dict[str, Any] | None) -> list[str]:
        """The bot's own command line, before confinement (``game``: the game it will play, for
        a warm-up before its first request, where the kind has one)."""

    @abstractmethod
    def readable(self, spec: BotSpec, command: list[str]) -> set[str]:
        """The paths of its own the bot may read (besides the system and the harness)."""

    def host_arguments(self, spec: BotSpec, game: dict[str, Any] | None) -> list[str] | None:
        """The arguments of ``arena.host.python_host`` when this interpreter runs the bot (it can then be
        forked from a warm launcher, arena/sandbox/launcher.py); else ``None``."""
        return None

    def environment(self, spec: BotSpec) -> dict[str, str]:
        """Variables the bot's process needs besides the scrubbed environment."""
        return {}


def bot_file(target: str, base: Path) -> str:
    """The absolute path of the bot file ``target`` (relative to ``base``); ``BotKindError`` if
    there is no such file."""
    path = (base / target).resolve()
    if not path.is_file():
        raise BotKindError(f"no bot file {target!r} (looked in {base})")
    return str(path)


class PythonBot(BotKind):
    """A bot module run by arena's host program: a dotted module name (importable from the
    folder it was declared in, or installed) or a ``.py`` file."""

    name = "python"

    def resolve(self, target: str, base: Path) -> str:
        if is_path(target):
            return bot_file(target, base)
        if not all(part.isidentifier() for part in target.split(".")):
            raise BotKindError(
                f"{target!r} is not a module name: give a dotted module name (e.g. bots.uct) or a path to a .py file"
            )
        return target

    def normalize_params(self, target: str, base: Path, params: Mapping[str, Any]) -> dict[str, Any]:
        """A built-in bot's parameters (``bots.uct``, or its file) are checked against its
        ``PARAMETERS`` (``BotKindError`` naming the parameter), given as it takes them (an int
        for a float parameter is a float), and those equal to their default left out: a
        parameter not given is its default, so ``{}`` and ``{reuse: true}`` are one version.
        Any other module's parameters are kept as given: only running it would tell its defaults."""
        from arena.entrants.builtins import builtin_at

        found = builtin_at(self.code(target, base).root)
        if found is None:
            return dict(params)
        try:
            # named as the bot names itself ('uct'), so the message is the one its games would give
            values = resolve_parameters(found.module.rsplit(".", 1)[-1], found.parameters, params)
        except BotParameterError as error:
            raise BotKindError(str(error)) from None
        defaults = found.defaults
        return {
            name: value
            for name, value in values.items()
            if not (value == defaults[name] and type(value) is type(defaults[name]))
        }

    def uses_folder(self, target: str, base: Path) -> bool:
        return not is_path(target) and self.code(target, base).bundle

    def code(self, target: str, base: Path) -> Code:
        if is_path(target):
            path = (base / target).resolve()
            return Code(path, (path,))
        top = target.split(".")[0]
        local = find_module(top, [str(base)])
        if local is not None and not _within(local, harness_paths()):  # (arena's own bots are not a bundle)
            root = local.parent if local.name == "__init__.py" else local
            if find_module(target, [str(base)]) is None:
                raise BotKindError(f"no bot module {target!r} in package {str(root)!r}")
            return Code(root, package_files(root), bundle=True)
        found = find_module(target)
        if found is None:
            raise BotKindError(
                f"no bot module {target!r}: give a dotted module name (e.g. bots.uct) importable "
                "from the tournament's folder, or a path to a .py file"
            )
        return Code(found, (found,))

    def command(self, spec: BotSpec, game: dict[str, Any] | None) -> list[str]:
        python = spec.python or sys.executable
        path = ["--path", spec.path] if spec.path else []
        warm_up = ["--warm-up", json.dumps(game, separators=(",", ":"))] if game else []
        return [python, "-m", "arena.host.python_host", *path, *warm_up, spec.target, spec.params]

    def readable(self, spec: BotSpec, command: list[str]) -> set[str]:
        paths = {spec.support} if spec.support else set()  # the links another interpreter imports arena through
        if is_path(spec.target):
            return paths | {str(Path(spec.path or ".", spec.target).resolve())}
        return paths | ({spec.path} if spec.path else set())

    def host_arguments(self, spec: BotSpec, game: dict[str, Any] | None) -> list[str] | None:
        if spec.python is not None and spec.python != sys.executable:
            return None
        return self.command(spec, game)[3:]

    def environment(self, spec: BotSpec) -> dict[str, str]:
        """Another interpreter (a virtual environment's, with the bot's packages) finds arena's
        host program and the built-in bots in a folder of links to them alone (``support``)."""
        return {"PYTHONPATH": spec.support} if spec.support else {}


class CommandBot(BotKind):
    """Any program speaking the protocol, started by its command line."""

    name = "command"
    answers_describe = False
    program = True

    def resolve(self, target: str, base: Path) -> str:
        command_line(target, str(base))  # a line the shell would refuse is refused now
        return target

    def code(self, target: str, base: Path) -> Code | None:
        return None

    def uses_folder(self, target: str, base: Path) -> bool:
        return True

    def digest(self, target: str, base: Path) -> str:
        """The command line and the files it names (a program found on the PATH is not hashed)."""
        digest = hashlib.sha256(target.encode())
        for path in command_files(target, str(base)):
            if path.stat().st_size <= MAX_CODE_BYTES:
                digest.update(path.read_bytes())
        return digest.hexdigest()

    def command(self, spec: BotSpec, game: dict[str, Any] | None) -> list[str]:
        return command_line(spec.target, spec.path)

    def readable(self, spec: BotSpec, command: list[str]) -> set[str]:
        """The files its command names, and their folders unless that is the folder it was
        declared from (which may hold the database and other bots)."""
        declared = Path(spec.path).resolve() if spec.path else None
        paths = set()
        for arg in command[1:]:
            if os.path.isabs(arg) and os.path.isfile(arg):
                folder = Path(arg).parent
                paths.add(arg if folder == declared else str(folder))
        return paths


class CourseBot(BotKind):
    """A 2019 course bot file (``teamN.py`` with class ``TeamN``), run by the course host
    program under the interpreter it was registered with (Python 2.7 included). Course bots
    time themselves, as in the course: they are timed by the wall clock."""

    name = "course2019"
    clock = "wall"

    def check_params(self, params: dict[str, Any]) -> None:
        from arena.entrants.course import check_params

        check_params(params)

    def resolve(self, target: str, base: Path) -> str:
        return bot_file(target, base)

    def code(self, target: str, base: Path) -> Code:
        path = (base / target).resolve()
        return Code(path, (path,))

    def command(self, spec: BotSpec, game: dict[str, Any] | None) -> list[str]:
        from arena.entrants.course import check_params

        name = check_params(json.loads(spec.params or "{}"))
        choice = ["--class", name] if name else []
        return [spec.python or sys.executable, str(COURSE_HOST), *choice, spec.target]

    def readable(self, spec: BotSpec, command: list[str]) -> set[str]:
        return {spec.target}


#: where Debian installs game engines (``fairy-stockfish``, ``gnugo``), which is not on every PATH
ENGINE_FOLDERS = ("/usr/games",)


def engine_program(word: str) -> str | None:
    """The program an engine's command names (on the PATH, or in ``ENGINE_FOLDERS``), or ``None``."""
    return shutil.which(word, path=os.pathsep.join([os.environ.get("PATH", ""), *ENGINE_FOLDERS]))


class EngineBot(CommandBot):
    """A program speaking a standard engine protocol (``protocol``: UCI, UGI or GTP), which the
    harness speaks to it (arena/runners/engine_seat.py), started by its command line; its
    settings (a variant, options, search limits) are its parameters (docs/engines.md)."""

    protocol: ClassVar[str]

    def check_params(self, params: dict[str, Any]) -> None:
        from arena.entrants.engines.protocols import engine_settings

        try:
            engine_settings(self.name, params)
        except ValueError as error:
            raise BotKindError(f"{self.name} engine: {error}") from None

    def normalize_params(self, target: str, base: Path, params: Mapping[str, Any]) -> dict[str, Any]:
        """Its settings without the unset ones, a variants file made absolute from ``base``."""
        found = {key: value for key, value in params.items() if value not in (None, {})}
        if isinstance(found.get("variants"), str):
            found["variants"] = str((base / found["variants"]).resolve())
        return found

    def command(self, spec: BotSpec, game: dict[str, Any] | None) -> list[str]:
        words = command_line(spec.target, spec.path)
        if os.sep not in words[0]:
            words[0] = engine_program(words[0]) or words[0]
        return words

    def readable(self, spec: BotSpec, command: list[str]) -> set[str]:
        """Besides what its command names, a variants file of its own (arena's is in arena's code)."""
        variants = spec.parameters.get("variants")
        return super().readable(spec, command) | ({variants} if isinstance(variants, str) else set())


class UciEngine(EngineBot):
    """An engine speaking UCI (Fairy-Stockfish: tic-tac-toe and Connect Four with arena's variants)."""

    name = protocol = "uci"


class UgiEngine(EngineBot):
    """An engine speaking UGI, UCI's words for any game (moves in the game's own notation)."""

    name = protocol = "ugi"


class GtpEngine(EngineBot):
    """A Go engine speaking GTP (GNU Go)."""

    name = protocol = "gtp"


KINDS: dict[str, BotKind] = {
    kind.name: kind for kind in (PythonBot(), CommandBot(), CourseBot(), UciEngine(), UgiEngine(), GtpEngine())
}
#: the kinds whose protocol the harness speaks to the program (arena/runners/engine_seat.py)
ENGINES = ("uci", "ugi", "gtp")


def kind_of(name: str) -> BotKind:
    """The kind called ``name``."""
    try:
        return KINDS[name]
    except KeyError:
        raise BotKindError(f"unknown kind of bot {name!r}; the kinds: {', '.join(KINDS)}") from None


def check_command(command: str) -> list[str]:
    """The words of a command bot's command line; ``ValueError`` if it cannot be split."""
    try:
        words = shlex.split(command)
    except ValueError as error:
        raise ValueError(
            f"the command line {command!r} cannot be split into words ({error}); check its quotes"
        ) from None
    if not words:
        raise ValueError("the command line is empty")
    for number, word in enumerate(words, 1):
        # arena looks each word up as a file; a name the file system cannot hold fails that look
        longest = max(len(os.fsencode(part)) for part in word.split("/"))
        if len(os.fsencode(word)) >= MAX_PATH or longest > MAX_FILE_NAME:
            raise ValueError(
                f"word {number} of the command line is longer than a file name or path may be "
                f"({MAX_FILE_NAME} and {MAX_PATH - 1} bytes); pass long data in a file"
            )
    return words


def command_line(command: str, base: str | None) -> list[str]:
    """A command bot's words, with every word that names a file or program relative to
    ``base`` (where it was declared) made absolute: the bot runs in a folder of its own."""
    try:
        words = shlex.split(command)
    except ValueError as error:
        raise BotKindError(f"cannot read the command {command!r}: {error} (quote as a shell would)") from None
    if not words:
        raise BotKindError("the command is empty")
    folder = Path(base or ".")
    for index, word in enumerate(words):
        if os.path.isabs(word) or word.startswith("-"):
            continue
        candidate = folder / word
        try:
            exists = candidate.exists()
        except OSError:  # a word too long to be a file name is not one
            exists = False
        if (os.sep in word or index > 0) and exists:
            words[index] = str(candidate.resolve())
    return words


def command_files(command: str, base: str | None) -> list[Path]:
    """The files a command bot's command line names (its program's code)."""
    return [Path(word) for word in command_line(command, base) if os.path.isabs(word) and os.path.isfile(word)]
