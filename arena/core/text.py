"""Text that came from outside (bots, files, file names) made safe to store, encode and print.

A Python string may hold what no UTF-8 encoder accepts: a lone surrogate, which ``json.loads``
makes of the escape ``"\\udcff"`` and which a file name that is not UTF-8 decodes to. Written to
SQLite it fails the write (and every later write of the same text); printed, it fails the print.
A NUL cuts C strings short. ``clean`` makes any value a string without either, for the database
and JSON; ``printable`` also shows control characters escaped, for a terminal, where an escape
sequence (``\\x1b[2J``, ``\\x1b]0;title\\x07``) would otherwise clear the screen, retitle the
window or fake output. ``spreadsheet_text`` keeps a cell of a CSV file from being read as a
formula by the spreadsheet that opens it.
"""

from __future__ import annotations

import re
from typing import Any

#: the longest team, bot, stage or tournament name
MAX_NAME = 100
#: what a tournament's name may be: it names files (its log, its report's folder) and commands
TOURNAMENT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._+-]{0,99}$")
#: what stands for a character that cannot be stored (a lone surrogate)
REPLACEMENT = "\ufffd"
#: the mark at the end of text cut to a limit
CUT = "..."

_UNSAFE = re.compile("[\x00\ud800-\udfff]")
# besides C0: DEL, C1, the line and paragraph separators, and the bidirectional overrides and
# isolates (which reorder what a terminal shows: "Trojan source")
_CONTROLS = "\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_CONTROL = re.compile(f"[\x00-\x1f{_CONTROLS}]")
_CONTROL_BUT_LINES = re.compile(f"[\x00-\x08\x0b-\x1f{_CONTROLS}]")


def _as_text(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    try:
        return str(value)
    except Exception:  # an int of more digits than Python prints, a structure nested too deep
        return f"<{type(value).__name__}>"


def clean(text: object, limit: int | None = None) -> str:
    """``text`` (any value) as a string that can be stored and JSON-encoded: every lone surrogate
    replaced by U+FFFD, every NUL removed; cut to ``limit`` characters, ending in ``...``, if given."""
    text = _as_text(text)
    if not (text.isascii() and "\0" not in text):
        text = _UNSAFE.sub(lambda found: "" if found.group() == "\0" else REPLACEMENT, text)
    if limit is not None and len(text) > limit:
        text = text[: max(limit - len(CUT), 0)] + CUT[:limit]
    return text


_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _escape(found: re.Match[str]) -> str:
    char = found.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: object, limit: int | None = None, *, lines: bool = False) -> str:
    """``clean(text, limit)`` with every control character shown escaped (``\\x1b``), so that it
    cannot act on a terminal; ``lines``: keep newlines and tabs (a message of several lines)."""
    text = clean(text, limit)
    if text.isascii() and text.isprintable():
        return text
    return (_CONTROL_BUT_LINES if lines else _CONTROL).sub(_escape, text)


def clean_data(value: Any) -> Any:
    """JSON-like ``value`` (dicts, lists, scalars) with every string in it, keys too, ``clean``."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, dict):
        return {clean(key) if isinstance(key, str) else key: clean_data(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean_data(item) for item in value]
    return value


def is_plain(text: str) -> bool:
    """Whether ``text`` has no lone surrogate, NUL or control character: fit for a name."""
    return clean(text) == text and not _CONTROL.search(text)


#: what a spreadsheet reads as the start of a formula (OWASP, "CSV injection")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_text(text: str) -> str:
    """``text`` for a CSV cell: one that would start a formula (``=HYPERLINK(...)``, ``+1``,
    ``@SUM``) gets a leading ``'``, which spreadsheets show as text; other text is unchanged."""
    return "'" + text if text.startswith(_FORMULA_START) else text


def name_problem(name: str) -> str | None:
    """What is wrong with ``name`` as a team, bot or stage name (``None``: nothing)."""
    if not name.strip():
        return "a name cannot be empty"
    if not is_plain(name):
        return "a name cannot hold control characters or invalid text (a lone surrogate)"
    if len(name) > MAX_NAME:
        return f"a name has at most {MAX_NAME} characters; this one has {len(name)}"
    return None
