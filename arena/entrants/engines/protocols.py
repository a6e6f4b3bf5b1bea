"""What arena says to an engine and how it reads the answers: UCI (``uci``/``uciok``,
``position ... moves``, ``go``, ``bestmove``), UGI (the same words for any game: ``ugi``/``ugiok``,
``go p1time ... p2inc``) and GTP (``protocol_version``, ``boardsize``, ``komi``,
``clear_board``, ``play``, ``genmove``, ``time_settings``/``time_left``; replies ``=``/``?``
ending in an empty line).

Each request is a ``Talk``: the bytes to send and a reader that is given the engine's lines one
by one and says when the reply is complete. A reader raises ``BotFault`` for a reply the
protocol does not allow (a GTP ``?`` to a move arena checked, a ``bestmove`` that is no word);
unknown lines are skipped, as UCI asks. Everything an engine writes is untrusted: lines are
decoded leniently, cut before they are parsed, and nothing of them is sent back to it.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.core.records import BotFault, Termination
from arena.core.text import clean
from arena.entrants.engines import VARIANTS

#: the engine settings a declaration may give, besides its command
SETTINGS = ("variant", "variants", "options", "depth", "nodes")
#: an option's name or value: printable words, no line breaks (they would start a command)
_WORD = re.compile(r"[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?")
_VARIANT = re.compile(r"[\w.+-]{1,100}", re.ASCII)
#: the figures of a UCI ``info`` line arena keeps with each move
_INFO_NUMBERS = ("depth", "seldepth", "nodes", "time")
#: the longest line of an engine that is parsed (the rest is ignored)
_PARSED = 4096


@dataclass(frozen=True)
class EngineSettings:
    """How an engine is set up: its ``variant`` (UCI's ``UCI_Variant``) from the ``variants``
    file (``VariantPath``; arena's own when a variant is given without one), its ``options``
    (``setoption``), and search limits besides the clock (``depth``, ``nodes``)."""

    variant: str | None = None
    variants: str | None = None
    options: tuple[tuple[str, str], ...] = ()
    depth: int | None = None
    nodes: int | None = None

    @property
    def variant_path(self) -> str | None:
        """The variants file the engine loads, if any."""
        if self.variants is not None:
            return self.variants
        return str(VARIANTS) if self.variant is not None else None


def engine_settings(protocol: str, params: Mapping[str, Any]) -> EngineSettings:
    """The settings ``params`` give an engine of ``protocol``; ``ValueError`` saying what is wrong."""
    unknown = sorted(set(params) - set(SETTINGS))
    if unknown:
        raise ValueError(f"an engine takes {', '.join(SETTINGS)}; not {', '.join(unknown)}")
    if protocol == "gtp":
        given = sorted(key for key in params if params[key] is not None)
        if given:
            raise ValueError(f"a GTP engine is set up by its command line alone; it takes no {', '.join(given)}")
    variant, variants = params.get("variant"), params.get("variants")
    if variant is not None and (not isinstance(variant, str) or not _VARIANT.fullmatch(variant)):
        raise ValueError(f"variant must be a word (letters, digits, - _ . +), got {variant!r}")
    if variants is not None and (not isinstance(variants, str) or not _WORD.fullmatch(variants)):
        raise ValueError(f"variants must be a file name on one line, got {variants!r}")
    if variants is not None and variant is None:
        raise ValueError("variants (a variants file) needs variant: the variant to play from it")
    options = params.get("options") or {}
    if not isinstance(options, dict):
        raise ValueError(f"options must be a mapping of option names to values, got {options!r}")
    pairs = []
    for name, value in sorted(options.items()):
        text = _option_value(value)
        if not _WORD.fullmatch(str(name)) or " value " in f" {name} " or text is None:
            raise ValueError(
                f"option {name!r}: {value!r} is not an option value (a number, true/false or one line of text)"
            )
        pairs.append((str(name), text))
    limits = {}
    for name in ("depth", "nodes"):
        value = params.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 2**53):
            raise ValueError(f"{name} must be a positive whole number, got {value!r}")
        limits[name] = value
    return EngineSettings(variant, variants, tuple(pairs), limits["depth"], limits["nodes"])


def _option_value(value: Any) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) or (isinstance(value, float) and math.isfinite(value)):
        return str(value)
    if isinstance(value, str) and (value == "" or _WORD.fullmatch(value)):
        return value
    return None


def text_of(line: bytes) -> str:
    """An engine's line as text: decoded leniently, cut, without its carriage return."""
    return line[:_PARSED].decode("utf-8", "replace").rstrip("\r").strip()


class Reader:
    """Reads the lines of one reply; ``__call__`` says when the reply is complete."""

    def __call__(self, line: bytes) -> bool:
        raise NotImplementedError


@dataclass
class UntilWord(Reader):
    """A reply that ends with a line that is ``word`` (UCI's ``uciok``, ``readyok``); keeps the
    variant an engine says it plays (Fairy-Stockfish's ``info string variant NAME ...``)."""

    word: str
    variant: str | None = None

    def __call__(self, line: bytes) -> bool:
        text = text_of(line)
        words = text.split()
        if words[:3] == ["info", "string", "variant"] and len(words) > 3:
            self.variant = clean(words[3], 100)
        return text == self.word


@dataclass
class BestMove(Reader):
    """A UCI/UGI search: ``info`` lines, then ``bestmove MOVE``; keeps the last ``info`` with a
    score (its score, depth, nodes, ...)."""

    move: str | None = None
    info: dict[str, Any] = field(default_factory=dict)

    def __call__(self, line: bytes) -> bool:
        words = text_of(line).split()
        if not words:
            return False
        if words[0] == "info" and "score" in words:
            self.info = parse_info(words)
        if words[0] != "bestmove":
            return False
        if len(words) < 2:
            raise BotFault(Termination.PROTOCOL_ERROR, "said 'bestmove' without a move")
        self.move = clean(words[1], 40)
        return True

    def info_text(self) -> str | None:
        """The kept figures as compact JSON (``None``: the engine gave none)."""
        return json.dumps(self.info, sort_keys=True, separators=(",", ":")) if self.info else None


def parse_info(words: Sequence[str]) -> dict[str, Any]:
    """The figures of a UCI ``info`` line: ``score`` (``cp 31``, ``mate -2``), ``depth``,
    ``seldepth``, ``nodes``, ``time`` (ms); what cannot be read is left out."""
    found: dict[str, Any] = {}
    for index, word in enumerate(words[:-1]):
        following = words[index + 1]
        if word in _INFO_NUMBERS and following.isdigit() and len(following) < 19:
            found.setdefault(word, int(following))
        elif word == "score" and following in ("cp", "mate") and index + 2 < len(words):
            value = words[index + 2]
            if re.fullmatch(r"-?\d{1,9}", value):
                found.setdefault("score", f"{following} {int(value)}")
    return found


@dataclass
class GtpReplies(Reader):
    """``count`` GTP responses (``= text`` or ``? text``, each ending with an empty line); a
    ``?`` is the engine refusing a command arena knows to be right: a protocol error."""

    count: int
    commands: list[str]
    answers: list[str] = field(default_factory=list)
    _open: bool = False

    def __call__(self, line: bytes) -> bool:
        text = text_of(line)
        if not self._open:
            if not text:
                return False  # (blank lines between responses)
            if text[0] not in "=?":
                raise BotFault(Termination.PROTOCOL_ERROR, f"a GTP response starts with = or ?, got {text[:80]!r}")
            command = self.commands[len(self.answers)]
            if text[0] == "?":
                raise BotFault(
                    Termination.PROTOCOL_ERROR, f"refused {command!r}: {clean(text[1:].strip(), 200) or 'no reason'}"
                )
            self._open = True
            self.answers.append(re.sub(r"^=\d*", "", text).strip())
            return False
        if text:
            return False  # (a response of several lines: only its first is used)
        self._open = False
        return len(self.answers) == self.count


@dataclass(frozen=True)
class Talk:
    """One request to an engine: what is sent and how its reply is read."""

    data: bytes
    reader: Reader


def lines(*commands: str) -> bytes:
    """Commands as the bytes sent."""
    return "".join(f"{command}\n" for command in commands).encode()


# -- UCI and UGI ---------------------------------------------------------------------


def hello(protocol: str) -> Talk:
    """The first words: ``uci``/``uciok``, ``ugi``/``ugiok``, or GTP's ``protocol_version``."""
    if protocol == "gtp":
        return Talk(lines("protocol_version"), GtpReplies(1, ["protocol_version"]))
    return Talk(lines(protocol), UntilWord(f"{protocol}ok"))


def setup(protocol: str, settings: EngineSettings) -> Talk | None:
    """The engine's options (the variants file first, then the variant), then ``isready``."""
    if protocol == "gtp":
        return None
    commands = []
    if settings.variant_path is not None:
        commands.append(f"setoption name VariantPath value {settings.variant_path}")
    if settings.variant is not None:
        commands.append(f"setoption name UCI_Variant value {settings.variant}")
    commands += [f"setoption name {name} value {value}" for name, value in settings.options]
    return Talk(lines(*commands, "isready"), UntilWord("readyok"))


def new_game(protocol: str, gtp_game: tuple[int, float] | None = None, seconds: tuple[int, int] | None = None) -> Talk:
    """A new game: ``ucinewgame``/``uginewgame`` then ``isready``; for GTP the board's size and
    komi (``gtp_game``), an empty board and the time settings (``seconds``: main time and
    seconds a move, whole seconds) if any."""
    if protocol != "gtp":
        return Talk(lines(f"{protocol}newgame", "isready"), UntilWord("readyok"))
    size, komi = gtp_game or (19, 7.5)
    commands = [f"boardsize {size}", "clear_board", f"komi {komi:g}"]
    if seconds is not None:
        main, byo_yomi = seconds
        commands.append(f"time_settings {main} {byo_yomi} {1 if byo_yomi else 0}")
    return Talk(lines(*commands), GtpReplies(len(commands), commands))


def go(
    protocol: str,
    moves: Sequence[str],
    seat: int,
    limit: float | None,
    bank: float | None,
    increment: float,
    settings: EngineSettings,
) -> Talk:
    """Ask for a move after ``moves`` (the engine's notation) as ``seat``: the position from the
    start and ``go`` with the time it has (``movetime`` when there is no bank; with one, both
    sides' time and increment in milliseconds, this seat's time for both, as its clock is all
    the seat knows) and the declaration's ``depth``/``nodes``."""
    position = "position startpos" + (" moves " + " ".join(moves) if moves else "")
    words = ["go"]
    if limit is not None:
        ms = max(1, int(limit * 1000))
        if bank is None:
            words += ["movetime", str(ms)]
        else:
            inc = str(int(increment * 1000))
            names = ("wtime", "btime", "winc", "binc") if protocol == "uci" else ("p1time", "p2time", "p1inc", "p2inc")
            words += [names[0], str(ms), names[1], str(ms), names[2], inc, names[3], inc]
    if settings.depth is not None:
        words += ["depth", str(settings.depth)]
    if settings.nodes is not None:
        words += ["nodes", str(settings.nodes)]
    return Talk(lines(position, " ".join(words)), BestMove())


# -- GTP -----------------------------------------------------------------------------

COLOURS = ("black", "white")


def gtp_move(plays: Sequence[tuple[int, str]], seat: int, left: tuple[int, int] | None) -> Talk:
    """The moves the engine was not told, as (seat, vertex) (``play``), the time left
    (``time_left``: seconds and stones) and ``genmove`` for ``seat`` (black is seat 0)."""
    commands = [f"play {COLOURS[mover]} {vertex}" for mover, vertex in plays]
    if left is not None:
        commands.append(f"time_left {COLOURS[seat]} {left[0]} {left[1]}")
    commands.append(f"genmove {COLOURS[seat]}")
    return Talk(lines(*commands), GtpReplies(len(commands), commands))
