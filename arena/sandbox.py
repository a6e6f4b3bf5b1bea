"""Confining a bot process: resource limits, no core dumps, death with its parent.

``confine`` runs inside the bot process before any bot code: Python bots get it from the host
program, any other bot from ``python -m arena.sandbox [limits] -- COMMAND ...``, which confines
itself and then executes the command in its place (same process, same limits).
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import os
import resource
import signal
import sys

_PR_SET_PDEATHSIG = 1


def confine(memory_mb: int | None, file_size_mb: int | None, parent_pid: int | None) -> None:
    """Limit this process's memory and file sizes, forbid core dumps, die when the parent does."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if memory_mb is not None:
        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    if file_size_mb is not None:
        limit = file_size_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    if parent_pid is not None:
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # not Linux: the harness still kills by process group
            pass
        if os.getppid() != parent_pid:  # the parent died before the signal was armed
            os._exit(1)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The confinement options, shared by this wrapper and the host program."""
    parser.add_argument("--memory-mb", type=int, default=None)
    parser.add_argument("--file-size-mb", type=int, default=None)
    parser.add_argument("--parent-pid", type=int, default=None)


def limit_arguments(memory_mb: int | None, file_size_mb: int | None) -> list[str]:
    """The command-line options that ask for these limits."""
    args = ["--parent-pid", str(os.getpid())]
    if memory_mb is not None:
        args += ["--memory-mb", str(memory_mb)]
    if file_size_mb is not None:
        args += ["--file-size-mb", str(file_size_mb)]
    return args


def main(argv: list[str] | None = None) -> None:
    """Confine this process, then become the command after ``--``."""
    argv = sys.argv[1:] if argv is None else argv
    if "--" not in argv:
        sys.exit("usage: python -m arena.sandbox [--memory-mb N] [--file-size-mb N] -- COMMAND ...")
    split = argv.index("--")
    parser = argparse.ArgumentParser(prog="python -m arena.sandbox")
    add_arguments(parser)
    options = parser.parse_args(argv[:split])
    command = argv[split + 1 :]
    if not command:
        sys.exit("arena.sandbox: no command given after --")
    confine(options.memory_mb, options.file_size_mb, options.parent_pid)
    try:
        os.execvp(command[0], command)
    except OSError as error:
        sys.stderr.write(f"arena.sandbox: cannot run {command[0]!r}: {error}\n")
        os._exit(127)


if __name__ == "__main__":
    main()
