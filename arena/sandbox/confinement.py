"""A bot started confined: the command line that runs it through the sandbox wrapper
(``arena/sandbox/wrapper.py``), and the settings it is confined with (what it may read, its
limits). What the bot's own command line is and what of its own it may read are its kind's to
say (``arena.entrants.kinds``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from arena.core.botspec import BotSpec
from arena.entrants.kinds import harness_paths, interpreter_paths, kind_of

#: the wrapper every bot starts through, run as a plain script (``python -I -S WRAPPER``)
WRAPPER = str(Path(__file__).with_name("wrapper.py"))


def readable(spec: BotSpec, command: list[str]) -> list[str]:
    """What the bot may read besides the system: its interpreter, arena's and the built-in
    bots' code, and its own code, but no other file (other bots, the database)."""
    paths = harness_paths() | interpreter_paths(command[0] if command else None)
    return sorted(paths | kind_of(spec.kind).readable(spec, command))


def confinement(spec: BotSpec) -> dict[str, Any]:
    """The sandbox's settings for ``spec`` (arguments of ``wrapper.confine``; the worker adds
    its own: ``parent_pid``, ``cgroups``, ``shared_memory``)."""
    return {
        "memory_mb": spec.memory_mb,
        "file_size_mb": spec.file_size_mb,
        "read": readable(spec, kind_of(spec.kind).command(spec, None)),
        "open_": not spec.sandbox,
        # a command bot may start programs that read their own /proc/self (a shell starting
        # Java finds its libraries through /proc/self/exe): it keeps the machine's /proc
        "own_proc": not kind_of(spec.kind).program,
    }


def confined_argv(
    spec: BotSpec, settings: dict[str, Any] | None = None, game: dict[str, Any] | None = None
) -> list[str]:
    """The command line that starts ``spec`` confined by the wrapper with ``settings`` (default:
    ``confinement(spec)`` and this process as its parent); ``game``: the game it will play, for
    which arena's Python host warms the bot up before its first game."""
    settings = settings or {**confinement(spec), "parent_pid": os.getpid()}
    limits = ["--parent-pid", str(settings["parent_pid"])] if settings.get("parent_pid") else []
    if spec.memory_mb is not None:
        limits += ["--memory-mb", str(spec.memory_mb)]
    if spec.file_size_mb is not None:
        limits += ["--file-size-mb", str(spec.file_size_mb)]
    if not spec.sandbox:
        limits.append("--open")
    for path in settings["read"]:
        limits += ["--read", path]
    for path in settings.get("cgroups", []):
        limits += ["--cgroup", path]
    if not settings.get("shared_memory", True):
        limits.append("--no-shared-memory")
    if settings.get("own_proc"):
        limits.append("--own-proc")
    return [sys.executable, "-I", "-S", WRAPPER, *limits, "--", *kind_of(spec.kind).command(spec, game)]
