"""What it takes to start a bot: its kind, target, parameters and limits, as plain data."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import arena
import bots

KINDS = ("python", "command", "course2019")
SANDBOX = str(Path(__file__).with_name("sandbox.py"))


def command_line(command: str, base: str | None) -> list[str]:
    """A command bot's words, with every word that names a file or program relative to
    ``base`` (where it was declared) made absolute: the bot runs in a folder of its own."""
    words = shlex.split(command)
    folder = Path(base or ".")
    for index, word in enumerate(words):
        if os.path.isabs(word) or word.startswith("-"):
            continue
        candidate = folder / word
        if (os.sep in word or index > 0) and candidate.exists():
            words[index] = str(candidate.resolve())
    return words


def command_files(command: str, base: str | None) -> list[Path]:
    """The files a command bot's command line names (its program's code)."""
    return [Path(word) for word in command_line(command, base) if os.path.isabs(word) and os.path.isfile(word)]


@dataclass(frozen=True, slots=True)
class BotSpec:
    """A bot as the workers start it. Hashable, so warm processes can be kept per spec.

    ``kind`` is ``python`` (a module run by arena's host program), ``command`` (any program
    speaking the protocol) or ``course2019`` (a 2019 course bot file); ``params`` is JSON text;
    ``path`` the folder the bot was declared from (modules are imported from it, relative
    command paths resolved in it); ``sandbox`` False runs it without namespaces or Landlock.
    """

    name: str
    kind: str
    target: str
    params: str = "{}"
    python: str | None = None
    path: str | None = None
    memory_mb: int | None = 1024
    file_size_mb: int | None = 16
    sandbox: bool = True
    processes: int | None = None

    @property
    def parameters(self) -> dict[str, Any]:
        return json.loads(self.params)

    @property
    def clock_kind(self) -> str | None:
        """The clock this bot is timed by whatever the tournament says: a course bot keeps the
        wall clock (course bots time themselves); ``None``: the tournament's."""
        return "wall" if self.kind == "course2019" else None

    @property
    def answers_describe(self) -> bool:
        """Whether it surely answers ``describe`` (arena's own host programs do)."""
        return self.kind in ("python", "course2019")

    def command(self, game: dict[str, Any] | None = None) -> list[str]:
        """The bot's own command line, before confinement (``game``: the game it will play, for
        which arena's Python host warms the bot up before its first game)."""
        python = self.python or sys.executable
        if self.kind == "python":
            path = ["--path", self.path] if self.path else []
            warm_up = ["--warm-up", json.dumps(game, separators=(",", ":"))] if game else []
            return [python, "-m", "arena.host", *path, *warm_up, self.target, self.params]
        if self.kind == "course2019":
            from arena import course

            return course.host_argv(python, self)
        return command_line(self.target, self.path)

    def confinement(self) -> dict[str, Any]:
        """The sandbox's settings for this bot (arguments of ``sandbox.confine``; the worker
        adds its own: ``parent_pid``, ``cgroups``, ``shared_memory``)."""
        return {"memory_mb": self.memory_mb, "file_size_mb": self.file_size_mb,
                "read": self.readable(self.command()), "open_": not self.sandbox}  # fmt: skip

    def argv(self, settings: dict[str, Any] | None = None, game: dict[str, Any] | None = None) -> list[str]:
        """The command line that starts this bot, confined by the sandbox wrapper with
        ``settings`` (default: ``confinement()`` and this process as its parent)."""
        settings = settings or {**self.confinement(), "parent_pid": os.getpid()}
        limits = ["--parent-pid", str(settings["parent_pid"])] if settings.get("parent_pid") else []
        if self.memory_mb is not None:
            limits += ["--memory-mb", str(self.memory_mb)]
        if self.file_size_mb is not None:
            limits += ["--file-size-mb", str(self.file_size_mb)]
        if not self.sandbox:
            limits.append("--open")
        for path in settings["read"]:
            limits += ["--read", path]
        for path in settings.get("cgroups", []):
            limits += ["--cgroup", path]
        if not settings.get("shared_memory", True):
            limits.append("--no-shared-memory")
        return [sys.executable, "-I", "-S", SANDBOX, *limits, "--", *self.command(game)]

    def host_arguments(self, game: dict[str, Any] | None = None) -> list[str] | None:
        """The arguments of ``arena.host`` when this bot is a Python module that this very
        interpreter runs (it can then be forked from a warm launcher, arena/launcher.py);
        else ``None``."""
        if self.kind != "python" or (self.python is not None and self.python != sys.executable):
            return None
        return self.command(game)[3:]

    def readable(self, command: list[str]) -> list[str]:
        """What the bot may read besides the system: its interpreter, arena's and the built-in
        bots' code, and its own code, but no other file (other bots, the database)."""
        paths = {sys.prefix, sys.base_prefix, sys.exec_prefix,
                 str(Path(arena.__file__).parent), str(Path(bots.__file__).parent)}  # fmt: skip
        executable = shutil.which(command[0]) if command else None
        if executable:
            real = Path(executable).resolve()
            # an interpreter in a bin folder: its installation; any other program: its folder
            paths.add(str(real.parent.parent if real.parent.name == "bin" else real.parent))
            if "pyenv" in executable:  # a pyenv shim runs pyenv itself first
                paths.add(str(Path(executable).parent.parent))
        if self.kind == "python":
            paths |= self._module_paths()
        elif self.kind == "course2019":
            paths.add(self.target)
        else:  # a command bot: the files its command names, and their folders unless that is
            # the folder it was declared from (which may hold the database and other bots)
            declared = Path(self.path).resolve() if self.path else None
            for arg in command[1:]:
                if os.path.isabs(arg) and os.path.isfile(arg):
                    folder = Path(arg).parent
                    paths.add(arg if folder == declared else str(folder))
        return sorted(paths)

    def _module_paths(self) -> set[str]:
        target = self.target
        if target.endswith(".py") or os.sep in target:
            return {str(Path(self.path or ".", target).resolve())}
        top = target.split(".")[0]
        for folder in filter(None, [self.path]):
            for candidate in (Path(folder, top), Path(folder, top + ".py")):
                if candidate.exists():
                    return {str(candidate.resolve())}
        return set()
