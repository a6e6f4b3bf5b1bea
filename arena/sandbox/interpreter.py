"""A Python interpreter named for a bot (``python:``, ``--python``), asked its version inside the
sandbox before any game: it may be anything, so it runs confined like the bot it is for."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys

from arena.entrants.kinds import harness_paths, interpreter_paths
from arena.errors import ArenaError
from arena.sandbox import scratch
from arena.sandbox.confinement import WRAPPER
from arena.sandbox.process import bot_environment


class InterpreterError(ArenaError, ValueError):
    """A Python interpreter, named for a bot, that is missing or does not run."""


@functools.lru_cache(maxsize=32)
def check_interpreter(python: str, timeout: float = 20.0) -> str:
    """The version line of ``python`` (``Python 2.7.18``), asked inside the sandbox (a bot's
    interpreter may be anything: it runs confined like the bot); ``InterpreterError`` if it
    cannot be run. Cached: each interpreter is tried once."""
    how = (
        "give the path or name of an installed Python (2.7 or 3.x), e.g. --python python2.7 "
        'or --python "$(pyenv prefix 2.7.18)/bin/python2.7"'
    )
    executable = shutil.which(python)
    if executable is None:
        raise InterpreterError(f"interpreter {python!r} not found; {how}")
    if not os.access(executable, os.X_OK):
        raise InterpreterError(f"interpreter {python!r} cannot be executed (permission denied); {how}")
    reads = sorted(interpreter_paths(python) | harness_paths())
    argv = [
        sys.executable,
        "-I",
        "-S",
        WRAPPER,
        *(arg for path in reads for arg in ("--read", path)),
        "--",
        executable,
        "--version",
    ]
    home = scratch.make("check")
    try:
        try:
            done = subprocess.run(
                argv,
                capture_output=True,
                timeout=timeout,
                text=True,
                errors="replace",
                stdin=subprocess.DEVNULL,
                cwd=home,
                env=bot_environment(str(home)),
                start_new_session=True,
            )
        except subprocess.TimeoutExpired:
            raise InterpreterError(
                f"interpreter {python!r} did not answer --version within {timeout:g} s; {how}"
            ) from None
    finally:
        shutil.rmtree(home, ignore_errors=True)
    # Python 2 prints its version on stderr, Python 3 on stdout; the sandbox says what it enforced
    lines = [
        line
        for line in (done.stdout + done.stderr).splitlines()
        if not (line.startswith("arena sandbox:") and "no core dumps" in line)
    ]
    version = [line for line in lines if line.startswith("Python ")]
    if done.returncode != 0 or not version:
        said = " ".join(lines)[-200:]
        raise InterpreterError(
            f"{python!r} is not a working Python interpreter (--version gave status {done.returncode}: {said!r}); {how}"
        )
    return version[-1]
