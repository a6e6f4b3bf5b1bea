"""The line protocol between the harness and a bot process (documented in docs/protocol.md).

One JSON object per line each way, UTF-8, ending in ``\\n``. The harness sends ``new_game``,
``move``, ``game_over``, ``quit`` and optionally ``describe``; the bot answers ``new_game`` with
``ready``, ``move`` with ``move``, ``describe`` with ``description`` (or ``error`` when it failed).
Arena's own Python host also answers ``check`` with ``checked`` (the pre-flight check of
``arena run``) and ``pace`` with ``pace`` (``arena.runners.pace``); no other bot is sent them.
Everything a bot sends is untrusted: ``parse_reply`` turns anything malformed into a
``ProtocolError`` with a short description, and gives the fields arena uses as clean text
(``arena.core.text.clean``), so that no reply can fail a write to the database or a print.
"""

from __future__ import annotations

import json
import math
import re
from json.encoder import encode_basestring_ascii
from typing import TYPE_CHECKING, Any

from arena.core.text import clean

if TYPE_CHECKING:
    from arena.core.timing import TimeControl

VERSION = 1
#: the version games other than arena's classic four are played with: ``new_game`` names the
#: seats, a move request carries the seat's view, the seats acting and its legal moves, and
#: ``game_over`` the returns (``Game.PROTOCOL``; docs/protocol.md)
VERSION_2 = 2
#: the longest line a bot may send; anything longer is a protocol error
MAX_LINE = 64 * 1024
#: the deepest a reply may nest arrays and objects; deeper is a protocol error (Python's JSON
#: parser recurses, and a line of 64 KiB of brackets would exhaust its stack)
MAX_DEPTH = 32
#: the most characters kept of an error reply's ``message`` and ``kind`` (the rest is dropped),
#: and of a description (cut with ``...``)
MAX_MESSAGE = 2000
MAX_KIND = 40
MAX_DESCRIPTION = 2000
#: the most characters kept of each name in a description's ``games`` and ``parameters``
MAX_NAME = 100


class ProtocolError(ValueError):
    """A reply that does not follow the protocol."""


#: compact JSON (one encoder for every message)
_encode = json.JSONEncoder(separators=(",", ":")).encode
#: a string as that encoder writes it
_string = encode_basestring_ascii


def encode(message: dict[str, Any]) -> bytes:
    """One message as a protocol line."""
    return _encode(message).encode() + b"\n"


def move_reply(move: str, cut: bool = False) -> bytes:
    """A bot's move reply, the line ``encode`` writes for it, at a tenth of the cost (a Python
    bot's host sends one every turn); ``cut``: the clock ended its search short of its budget."""
    return b'{"type":"move","move":%s%s}\n' % (_string(move).encode(), b',"cut":true' if cut else b"")


def new_game(
    game: dict[str, Any],
    seat: int,
    seed: int,
    control: TimeControl,
    pace: float | None = None,
    players: int | None = None,
) -> bytes:
    """Start a game: which game, which seat the bot plays, its seed and the time control (and
    for arena's Python host under a cpu clock, the bot's measured ``pace``). With ``players``
    (version 2), the number of seats too."""
    sent = {"move": control.move, "bank": control.bank, "increment": control.increment, "clock": control.clock}
    message: dict[str, Any] = {
        "type": "new_game",
        "protocol": VERSION if players is None else VERSION_2,
        "game": game,
        "seat": seat,
        "seed": seed,
        "move_time": control.move,
        "time_control": sent,
    }
    if players is not None:
        message["players"] = players
    if pace is not None:
        message["pace"] = pace
    return encode(message)


def move_request(
    ply: int, moves: list[str], time: float | None, clock: str = "wall", bank: float | None = None
) -> bytes:
    """Ask for a move: the moves played since the bot last heard, the ply now, the seconds of
    ``clock`` time it has for this move (its bank included), and what is left in its bank. The
    line ``encode`` writes for it, written directly: one goes to a bot every turn, and the JSON
    encoder's set-up for a dict costs more than the rest of it."""
    if not (type(ply) is int and _plain_number(time) and _plain_number(bank)):
        return encode({"type": "move", "ply": ply, "moves": moves, "time": time, "clock": clock, "bank": bank})
    texts = ",".join(map(_string, moves))
    return b'{"type":"move","ply":%d,"moves":[%s],"time":%s,"clock":%s,"bank":%s}\n' % (
        ply,
        texts.encode(),
        b"null" if time is None else repr(time).encode(),
        _string(clock).encode(),
        b"null" if bank is None else repr(bank).encode(),
    )


def _plain_number(value: float | None) -> bool:
    """Whether JSON writes ``value`` as Python writes it: ``None`` (``null``) or a finite int or float."""
    return value is None or (type(value) in (int, float) and math.isfinite(value))


def move_request_2(
    ply: int,
    moves: list[str] | None,
    view: dict[str, Any],
    acting: list[int],
    legal: list[str],
    time: float | None,
    clock: str = "wall",
    bank: float | None = None,
) -> bytes:
    """Ask for a move (version 2): as ``move_request``, with the bot's ``view`` of the state,
    the seats ``acting`` now and its ``legal`` moves; ``moves`` is ``None`` (not sent) in a game
    with hidden information, where a seat is never told the others' moves."""
    message: dict[str, Any] = {"type": "move", "ply": ply}
    if moves is not None:
        message["moves"] = moves
    message.update(view=view, acting=acting, legal=legal, time=time, clock=clock, bank=bank)
    return encode(message)


def game_over(
    moves: list[str] | None, winner: int | None, termination: str, returns: list[float] | None = None
) -> bytes:
    """Tell the bot how the game ended (no reply expected); version 2 adds each seat's
    ``returns`` (and sends no ``moves`` in a game with hidden information)."""
    message: dict[str, Any] = {"type": "game_over"}
    if moves is not None:
        message["moves"] = moves
    message.update(winner=winner, termination=termination)
    if returns is not None:
        message["returns"] = returns
    return encode(message)


QUIT = encode({"type": "quit"})
#: optional: ask what the bot is (``description`` reply: description, games, parameters)
DESCRIBE = encode({"type": "describe"})


def check(game: dict[str, Any], params: dict[str, Any]) -> bytes:
    """Ask arena's Python host whether its bot can be made for ``game`` with ``params``
    (``checked`` reply: ``problem``, the reason it cannot, or ``null``)."""
    return encode({"type": "check", "game": game, "params": params})


def pace(game: dict[str, Any], limit: float, plies: int, searches: int) -> bytes:
    """Ask arena's Python host to measure its bot's pace: ``plies`` moves of a game against
    itself under a cpu clock of ``limit`` seconds a move (``pace`` reply: ``pace``, the CPU
    seconds a step of its search took, or ``null`` if fewer than ``searches`` searches were
    ended by the clock)."""
    return encode({"type": "pace", "game": game, "limit": limit, "plies": plies, "searches": searches})


def short(data: bytes | str, limit: int = 120) -> str:
    """A printable excerpt of untrusted data for an error message."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    text = text.strip()
    return repr(text if len(text) <= limit else text[:limit] + "...")


_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(rb"[\[\]{}]")


def too_deep(line: bytes) -> bool:
    """Whether ``line`` nests JSON arrays and objects deeper than ``MAX_DEPTH`` (brackets inside
    strings not counted). Cheap: a line with few opening brackets is not scanned at all."""
    if line.count(b"[") + line.count(b"{") <= MAX_DEPTH:
        return False
    level = 0
    for bracket in _BRACKET.findall(_STRING.sub(b"", line)):
        level += 1 if bracket in b"[{" else -1
        if level > MAX_DEPTH:
            return True
    return False


def _names(value: Any, field: str, line: bytes) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ProtocolError(f"a description's {field!r} must be a list of strings, got {short(line)}")
    return [clean(item, MAX_NAME) for item in value]


def parse_reply(line: bytes, expected: str) -> dict[str, Any]:
    """The bot's reply ``line`` of type ``expected`` (or ``error``); ``ProtocolError`` otherwise.

    The fields arena uses (``move``, an error's ``message`` and ``kind``, a description's
    ``description``, ``games`` and ``parameters``, a check's ``problem``) come back as clean text, long ones cut
    (``MAX_MESSAGE``, ...)."""
    if too_deep(line):
        raise ProtocolError(f"reply nests arrays or objects deeper than {MAX_DEPTH} levels: {short(line)}")
    try:
        message = json.loads(line)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise ProtocolError(f"reply is not JSON: {short(line)}") from None
    if not isinstance(message, dict):
        raise ProtocolError(f"reply is not a JSON object: {short(line)}")
    kind = message.get("type")
    if kind == "error":
        return {
            "type": "error",
            "message": clean(message.get("message", ""))[:MAX_MESSAGE],
            "kind": clean(message.get("kind", ""))[:MAX_KIND],
        }
    if kind != expected:
        raise ProtocolError(f"expected a {expected!r} reply, got {short(line)}")
    if expected == "move":
        if not isinstance(message.get("move"), str):
            raise ProtocolError(f"a move reply needs a 'move' string, got {short(line)}")
        message["move"] = clean(message["move"])
        message["cut"] = message.get("cut") is True  # the clock ended its search before its budget
    elif expected == "checked":
        problem = message.get("problem")
        if problem is not None and not isinstance(problem, str):
            raise ProtocolError(f"a checked reply's 'problem' must be a string or null, got {short(line)}")
        message["problem"] = None if problem is None else clean(problem)[:MAX_MESSAGE]
    elif expected == "pace":
        value = message.get("pace")
        if value is not None and (type(value) not in (int, float) or not 0 < value < 1e3):
            raise ProtocolError(f"a pace reply's 'pace' must be a positive number or null, got {short(line)}")
    elif expected == "description":
        message["description"] = clean(message.get("description") or "", MAX_DESCRIPTION)
        for field in ("games", "parameters"):
            if message.get(field) is not None:
                message[field] = _names(message[field], field, line)
    return message
