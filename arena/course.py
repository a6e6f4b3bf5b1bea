"""Running 2019 course bot files: the command line of their host program, and its interpreter.

A course bot (``teamN.py`` with class ``TeamN``, see ``COURSE2019.md``) runs under the
interpreter it was registered with, Python 2.7 included, so its host program
(``arena/course_host.py``) is a standalone script that imports nothing from arena; this module
is the harness's side of it.
"""

from __future__ import annotations

import functools
import json
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from arena.errors import ArenaError

if TYPE_CHECKING:
    from arena.botspec import BotSpec

#: the host program, a file of the installed package (so it works from any installation)
HOST = Path(__file__).with_name("course_host.py")
#: the only parameter a course bot takes: which class of the file plays
PARAMETERS = ("class",)


class CourseBotError(ArenaError, ValueError):
    """A course bot's parameters that the host program cannot use."""


class InterpreterError(ArenaError, ValueError):
    """A Python interpreter, named for a bot, that is missing or does not run."""


def check_params(params: dict[str, object]) -> str | None:
    """The class a course bot's parameters name (or ``None``); ``CourseBotError`` for any other
    parameter or a class that is not a name."""
    unknown = sorted(set(params) - set(PARAMETERS))
    if unknown:
        raise CourseBotError(f"a course bot takes no parameter but 'class' (the bot class in its "
                             f"file), not {', '.join(map(repr, unknown))}")  # fmt: skip
    name = params.get("class")
    if name is None:
        return None
    if not isinstance(name, str) or not name.isidentifier():
        raise CourseBotError(f"the parameter class must be a class name, e.g. class=Team7, not {name!r}")
    return name


@functools.lru_cache(maxsize=32)
def check_interpreter(python: str) -> str:
    """The version line of ``python`` (``Python 2.7.18``); ``InterpreterError`` if it cannot be
    run. Cached: each interpreter is tried once per process."""
    how = ("give the path or name of an installed Python (2.7 or 3.x), e.g. --python python2.7 "
           "or --python \"$(pyenv prefix 2.7.18)/bin/python2.7\"")  # fmt: skip
    try:
        done = subprocess.run([python, "--version"], capture_output=True, timeout=20, text=True,
                              errors="replace", stdin=subprocess.DEVNULL)  # fmt: skip
    except FileNotFoundError:
        raise InterpreterError(f"interpreter {python!r} not found; {how}") from None
    except PermissionError:
        raise InterpreterError(f"interpreter {python!r} cannot be executed (permission denied); {how}") from None
    except subprocess.TimeoutExpired:
        raise InterpreterError(f"interpreter {python!r} did not answer --version within 20 s; {how}") from None
    except OSError as error:
        raise InterpreterError(f"interpreter {python!r} cannot be run: {error.strerror or error}; {how}") from None
    # Python 2 prints its version on stderr, Python 3 on stdout
    version = (done.stdout.strip() or done.stderr.strip()).splitlines()
    if done.returncode != 0 or not version or not version[-1].startswith("Python "):
        said = (done.stderr or done.stdout).strip()[-200:]
        raise InterpreterError(f"{python!r} is not a working Python interpreter "
                               f"(--version gave status {done.returncode}: {said!r}); {how}")  # fmt: skip
    return version[-1]


def host_argv(python: str, spec: BotSpec) -> list[str]:
    """The command line that runs the course bot file ``spec.target`` under ``python`` (the
    sandbox wrapper confines the process before executing it)."""
    check_interpreter(python)
    name = check_params(json.loads(spec.params or "{}"))
    choice = ["--class", name] if name else []
    return [python, str(HOST), *choice, spec.target]
