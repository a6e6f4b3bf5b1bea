"""The line protocol between the harness and a bot process (documented in docs/protocol.md).

One JSON object per line each way, UTF-8, ending in ``\\n``. The harness sends ``new_game``,
``move``, ``game_over``, ``quit`` and optionally ``describe``; the bot answers ``new_game`` with
``ready``, ``move`` with ``move``, ``describe`` with ``description`` (or ``error`` when it failed). Everything a bot sends is untrusted: ``parse_reply``
turns anything malformed into a ``ProtocolError`` with a short description.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.job import TimeControl

VERSION = 1
#: the longest line a bot may send; anything longer is a protocol error
MAX_LINE = 64 * 1024


class ProtocolError(ValueError):
    """A reply that does not follow the protocol."""


def encode(message: dict[str, Any]) -> bytes:
    """One message as a protocol line."""
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def new_game(game: dict[str, Any], seat: int, seed: int, clock: TimeControl) -> bytes:
    """Start a game: which game, which seat the bot plays, its seed and the time control."""
    control = {"move": clock.move, "bank": clock.bank, "increment": clock.increment, "clock": clock.clock}
    return encode({"type": "new_game", "protocol": VERSION, "game": game, "seat": seat, "seed": seed,
                   "move_time": clock.move, "time_control": control})  # fmt: skip


def move_request(ply: int, moves: list[str], time: float | None, clock: str = "wall",
                 bank: float | None = None) -> bytes:  # fmt: skip
    """Ask for a move: the moves played since the bot last heard, the ply now, the seconds of
    ``clock`` time it has for this move (its bank included), and what is left in its bank."""
    return encode({"type": "move", "ply": ply, "moves": moves, "time": time, "clock": clock, "bank": bank})


def game_over(moves: list[str], winner: int | None, termination: str) -> bytes:
    """Tell the bot how the game ended (no reply expected)."""
    return encode({"type": "game_over", "moves": moves, "winner": winner,
                   "termination": termination})  # fmt: skip


QUIT = encode({"type": "quit"})
#: optional: ask what the bot is (``description`` reply: description, games, parameters)
DESCRIBE = encode({"type": "describe"})


def short(data: bytes | str, limit: int = 120) -> str:
    """A printable excerpt of untrusted data for an error message."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    text = text.strip()
    return repr(text if len(text) <= limit else text[:limit] + "...")


def parse_reply(line: bytes, expected: str) -> dict[str, Any]:
    """The bot's reply ``line`` of type ``expected`` (or ``error``); ``ProtocolError`` otherwise."""
    try:
        message = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        raise ProtocolError(f"reply is not JSON: {short(line)}") from None
    if not isinstance(message, dict):
        raise ProtocolError(f"reply is not a JSON object: {short(line)}")
    kind = message.get("type")
    if kind == "error":
        return {"type": "error", "message": str(message.get("message", ""))[:2000],
                "kind": str(message.get("kind", ""))[:40]}  # fmt: skip
    if kind != expected:
        raise ProtocolError(f"expected a {expected!r} reply, got {short(line)}")
    if expected == "move" and not isinstance(message.get("move"), str):
        raise ProtocolError(f"a move reply needs a 'move' string, got {short(line)}")
    return message
