"""2019 course bot files: their one parameter.

A course bot (``teamN.py`` with class ``TeamN``, see docs/course2019.md) runs under the
interpreter it was registered with, Python 2.7 included, so its host program
(``arena/host/course_host.py``) is a standalone script that imports nothing from arena; the rest of
the harness's side of it is the ``course2019`` kind in ``arena/entrants/kinds.py``.
"""

from __future__ import annotations

from arena.errors import ArenaError

#: the only parameter a course bot takes: which class of the file plays
PARAMETERS = ("class",)


class CourseBotError(ArenaError, ValueError):
    """A course bot's parameters that the host program cannot use."""


def check_params(params: dict[str, object]) -> str | None:
    """The class a course bot's parameters name (or ``None``); ``CourseBotError`` for any other
    parameter or a class that is not a name."""
    unknown = sorted(set(params) - set(PARAMETERS))
    if unknown:
        raise CourseBotError(
            f"a course bot takes no parameter but 'class' (the bot class in its "
            f"file), not {', '.join(map(repr, unknown))}"
        )
    name = params.get("class")
    if name is None:
        return None
    if not isinstance(name, str) or not name.isidentifier():
        raise CourseBotError(f"the parameter class must be a class name, e.g. class=Team7, not {name!r}")
    return name
