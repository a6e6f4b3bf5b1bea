"""What it takes to start a bot: its kind, target, parameters and limits, as plain data."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from arena.entrants.kinds import SANDBOX, BotKind, harness_paths, interpreter_paths, kind_of

if TYPE_CHECKING:
    from arena.core.timing import ClockKind


def canonical_params(params: Mapping[str, Any]) -> str:
    """A bot's parameters as the one JSON text they are stored, compared and sent to the bot
    as: keys sorted, no spaces (``{"c":1.4,"iterations":400}``), so that two spellings of the
    same parameters are one bot version and one warm process."""
    return json.dumps(params, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True, slots=True)
class BotSpec:
    """A bot as the workers start it. Hashable, so warm processes can be kept per spec.

    ``kind`` names its ``arena.entrants.kinds`` kind: ``python`` (a module run by arena's host
    program), ``command`` (any program speaking the protocol) or ``course2019`` (a 2019 course
    bot file); ``params`` is JSON text in its canonical form
    (``canonical_params``); ``path`` the folder a Python module is imported from (its
    bundle) or a command's relative paths are resolved in; ``sandbox`` False runs it without
    namespaces, Landlock or seccomp. ``code`` is the bot's own file or package to copy into a
    bundle before it runs (the worker does, checking ``code_hash``, and sets ``path`` to it);
    ``support`` a folder of links through which another interpreter imports arena's host.
    ``pace``: the CPU seconds a step of its search takes on this machine (``arena.runners.pace``), sent
    to it with each game under a cpu clock.
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
    code: str | None = None
    code_hash: str | None = None
    support: str | None = None
    pace: float | None = None

    @property
    def parameters(self) -> dict[str, Any]:
        """The parameters, as data."""
        params: dict[str, Any] = json.loads(self.params)
        return params

    @property
    def bot_kind(self) -> BotKind:
        """The kind of bot it is (arena/entrants/kinds.py): how it is resolved, hashed and started."""
        return kind_of(self.kind)

    @property
    def clock_kind(self) -> ClockKind | None:
        """The clock this bot is timed by whatever the tournament says (a course bot keeps the
        wall clock: course bots time themselves); ``None``: the tournament's."""
        return self.bot_kind.clock

    @property
    def answers_describe(self) -> bool:
        """Whether it surely answers ``describe`` (arena's own host programs do)."""
        return self.bot_kind.answers_describe

    def command(self, game: dict[str, Any] | None = None) -> list[str]:
        """The bot's own command line, before confinement (``game``: the game it will play, for
        which arena's Python host warms the bot up before its first game)."""
        return self.bot_kind.command(self, game)

    def confinement(self) -> dict[str, Any]:
        """The sandbox's settings for this bot (arguments of ``sandbox.confine``; the worker
        adds its own: ``parent_pid``, ``cgroups``, ``shared_memory``)."""
        return {
            "memory_mb": self.memory_mb,
            "file_size_mb": self.file_size_mb,
            "read": self.readable(self.command()),
            "open_": not self.sandbox,
        }

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
        """The arguments of ``arena.host.python_host`` when this bot is a Python module that this very
        interpreter runs (it can then be forked from a warm launcher, arena/sandbox/launcher.py);
        else ``None``."""
        return self.bot_kind.host_arguments(self, game)

    def environment(self) -> dict[str, str]:
        """Variables its process needs besides the scrubbed environment."""
        return self.bot_kind.environment(self)

    def readable(self, command: list[str]) -> list[str]:
        """What the bot may read besides the system: its interpreter, arena's and the built-in
        bots' code, and its own code, but no other file (other bots, the database)."""
        paths = harness_paths() | interpreter_paths(command[0] if command else None)
        return sorted(paths | self.bot_kind.readable(self, command))
