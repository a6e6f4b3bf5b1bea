"""A game whose rules are a program in any language, the *referee*, spoken to in JSON lines
(docs/referee.md): ``game: {command: "node pig.js --target 20"}`` in a tournament file.

The referee is stateless: every request carries the state it is about, an opaque JSON value
the referee made, so a ``RefereeState`` stays immutable and cheap to copy (it keeps that value
as the text the referee wrote and what the referee said of it), and any process of the same
command can answer for any state. Its process is ``arena.games.referee_process``'s; here, what
the requests and answers mean, each answer checked against the protocol.

A move is its text, as the referee lists it. Inside arena it is an int that arena derives from
the text alone, so it reads back without the referee and is the same in every process: a
number written in digits (no leading zero, at most 18 digits) is that number; any other text
is ``TEXT_BASE`` plus the number its ASCII bytes spell (after a leading 1 byte).
"""

from __future__ import annotations

import json
import math
import os
import re
import shlex
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, ClassVar

from arena.games.base import CHANCE, SIMULTANEOUS, Game, GameParameterError, IllegalMoveError, Move, State
from arena.games.referee_process import (
    RefereeError,
    RefereeLoadError,
    command_files,
    command_words,
    label,
    program_paths,
    referee_for,
    referee_hash,
    shorten,
)

#: the version of the referee protocol this module speaks (docs/referee.md)
PROTOCOL = 1
#: a move that is no number is at least this int
TEXT_BASE = 1 << 64
#: the characters a move's text may have (besides inner spaces), and its most characters
MOVE_CHARACTERS = "A-Za-z0-9\\-+=.,:;/_()\\[\\]#@*!?'~<>^"
MAX_MOVE_TEXT = 64
_MOVE_TEXT = re.compile(f"[{MOVE_CHARACTERS}](?:[ {MOVE_CHARACTERS}]{{0,{MAX_MOVE_TEXT - 2}}}[{MOVE_CHARACTERS}])?")
_NAME = re.compile(r"[a-z][a-z0-9_\-]{0,39}")
_NUMBER_LIMIT = 10**18


# ---------------------------------------------------------------- moves as ints


def move_int(text: str) -> Move:
    """The int of the move written ``text`` (already a move's text: see ``is_move_text``)."""
    if text.isdecimal() and text.isascii() and len(text) <= 18 and (text == "0" or text[0] != "0"):
        return int(text)
    return TEXT_BASE + int.from_bytes(b"\x01" + text.encode("ascii"), "big")


def move_text(move: Move) -> str:
    """The text of the move ``move`` (``move_int``'s inverse); ``ValueError`` for an int that is
    no move's."""
    if type(move) is not int or move < 0:
        raise ValueError(f"{move!r} is not a move")
    if move < _NUMBER_LIMIT:
        return str(move)
    if move <= TEXT_BASE:
        raise ValueError(f"{move!r} is not a move")
    raw = (move - TEXT_BASE).to_bytes(((move - TEXT_BASE).bit_length() + 7) // 8, "big")
    text = raw[1:].decode("ascii", "replace")
    if raw[:1] != b"\x01" or not is_move_text(text):
        raise ValueError(f"{move!r} is not a move")
    return text


def is_move_text(text: str) -> bool:
    """Whether ``text`` may be a move's text: 1 to 64 ASCII letters, digits, inner spaces and
    the punctuation of ``MOVE_CHARACTERS``."""
    return _MOVE_TEXT.fullmatch(text) is not None


# ---------------------------------------------------------------- requests


def _request(kind: str, state: str | None = None, **fields: Any) -> bytes:
    """A request line: its ``type``, its fields, and ``state`` (the state's JSON text, sent as the
    referee wrote it)."""
    body = json.dumps({"type": kind, **fields}, separators=(",", ":"))
    if state is not None:
        body = body[:-1] + ',"state":' + state + "}"
    return body.encode()


def _ask(game: RefereeGame, line: bytes, what: str) -> dict[str, Any]:
    """The referee's answer to ``line``; its error reply raised as ``RefereeError``."""
    reply = referee_for(game.words).ask(line, what)
    if "error" in reply:
        raise RefereeError(
            f"referee {label(game.words)!r}, asked {what}: it answered the error {shorten(reply['error'])}"
        )
    return reply


def _broken(game: RefereeGame, what: str, problem: str) -> RefereeError:
    """The error of an answer against the protocol; the referee that gave it is ended (the next
    request starts another), as after any failure."""
    referee_for(game.words).close()
    return RefereeError(f"referee {label(game.words)!r}, asked {what}: {problem} (docs/referee.md)")


# ---------------------------------------------------------------- info: the game's class


def ask_info(words: Sequence[str]) -> dict[str, Any]:
    """The referee's ``info`` (its name, seats, bound, notation, parameters), checked."""
    what = "info"
    reply = referee_for(words).ask(_request("info", protocol=PROTOCOL), what)
    name = label(words)
    if "error" in reply:
        raise RefereeError(f"referee {name!r}, asked {what}: it answered the error {shorten(reply['error'])}")
    problem = info_problem(reply)
    if problem is not None:
        raise RefereeError(f"referee {name!r}, asked {what}: {problem} (docs/referee.md)")
    keys = ("name", "players", "max_length", "hidden", "notation", "pattern", "seats", "marks", "parameters")
    return {key: reply[key] for key in keys if key in reply}


def info_problem(info: Mapping[str, Any]) -> str | None:
    """What is wrong with a referee's ``info`` answer, or ``None``."""
    name = info.get("name")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        return f"its name is {shorten(name)}: a word of lowercase letters, digits, '-' and '_' (at most 40)"
    players = info.get("players", 2)
    low, high = (players, players) if not isinstance(players, list) or len(players) != 2 else players
    if not (type(low) is int and type(high) is int and 1 <= low <= high <= 64):
        return f"players is {shorten(players)}: a number of seats, or [fewest, most], 1 to 64"
    length = info.get("max_length")
    if type(length) is not int or length <= 0:
        return f"max_length is {shorten(length)}: the most records (moves and chance outcomes) a game can have"
    if not isinstance(info.get("hidden", False), bool):
        return "hidden must be true or false"
    for key in ("notation", "pattern", "marks"):
        if not isinstance(info.get(key, ""), str):
            return f"{key} must be a string"
    if "pattern" in info:
        try:
            re.compile(info["pattern"])
        except re.error as error:
            return f"its pattern {info['pattern']!r} is no regular expression: {error}"
    seats = info.get("seats", [])
    if not (isinstance(seats, list) and all(isinstance(seat, str) and seat for seat in seats)):
        return "seats must be a list of the seats' names"
    parameters = info.get("parameters", {})
    if not isinstance(parameters, dict):
        return "parameters must be an object: name -> {default, choices} or {default, min, max}"
    for key, spec in parameters.items():
        if key == "players" or not isinstance(spec, dict) or "default" not in spec:
            return f"parameter {key!r} must be {{default, choices}} or {{default, min, max}} (players is arena's)"
        if "choices" in spec:
            if not isinstance(spec["choices"], list) or spec["default"] not in spec["choices"]:
                return f"parameter {key!r}: choices must be a list holding its default"
        elif not all(type(spec.get(end)) is int for end in ("min", "max", "default")) or not (
            spec["min"] <= spec["default"] <= spec["max"]
        ):
            return f"parameter {key!r}: min, max and default must be ints, min <= default <= max"
    return None


def _parameters(info: Mapping[str, Any]) -> dict[str, tuple[Any, Sequence[Any]]]:
    found: dict[str, tuple[Any, Sequence[Any]]] = {}
    for key, spec in info.get("parameters", {}).items():
        if "choices" in spec:
            found[key] = (spec["default"], tuple(spec["choices"]))
        else:
            found[key] = (spec["default"], range(spec["min"], spec["max"] + 1))
    return found


@cache
def referee_class(command: str, code_hash: str, info_text: str) -> type[RefereeGame]:
    """The ``Game`` class of the referee ``command`` (its words, made absolute, joined) whose code
    hashes to ``code_hash`` and whose ``info`` is ``info_text`` (JSON): made once a process."""
    info = json.loads(info_text)
    players = info.get("players", 2)
    bounds = (players, players) if isinstance(players, int) else (players[0], players[1])
    attributes: dict[str, Any] = {
        "name": info["name"],
        "PLAYERS": bounds,
        "MAX_LENGTH": info["max_length"],
        "HIDDEN": info.get("hidden", False),
        "PARAMETERS": _parameters(info),
        "NOTATION": info.get("notation") or "a move is written as the referee lists it (e.g. '3')",
        "SEATS": tuple(info["seats"]) if "seats" in info else ("x", "o"),
        "MARKS": info.get("marks", "" if "seats" in info else "xo"),
        "source": {"command": command, "code_hash": code_hash, "referee": info},
        "words": tuple(shlex.split(command)),
        "pattern": re.compile(info["pattern"]) if info.get("pattern") else None,
        "__module__": __name__,
        "__qualname__": f"RefereeGame[{info['name']}]",
    }
    return type(f"RefereeGame[{info['name']}]", (RefereeGame,), attributes)


def load_referee(source: Mapping[str, Any], params: Mapping[str, Any] | None = None) -> RefereeGame:
    """The game of the referee ``source`` names (``command``, its words absolute; where it comes
    from a stored tournament also ``code_hash``, checked, and ``referee``, its ``info``) made with
    ``params``. ``RefereeLoadError`` if it cannot be started or answers ``info`` wrongly, or its code
    changed since its tournament began."""
    words = command_words(str(source["command"]), None)
    digest = referee_hash(words)
    expected = source.get("code_hash")
    if expected is not None and expected != digest:
        raise RefereeLoadError(
            f"the referee {label(words)!r} changed since its tournament began: its code is not the code the "
            "tournament's games were played with (restore it, or start a new tournament)"
        )
    info = source.get("referee") if expected is not None else None
    if not isinstance(info, dict) or info_problem(info) is not None:
        try:
            info = ask_info(words)
        except RefereeError as error:
            raise RefereeLoadError(str(error)) from None
    cls = referee_class(shlex.join(words), digest, json.dumps(info, sort_keys=True))
    try:
        return cls(**dict(params or {}))
    except GameParameterError:
        raise
    except Exception as error:
        raise RefereeLoadError(f"game {cls.name!r} cannot be made: {type(error).__name__}: {error}") from None


def referee_game(command: str, base: str | Path | None = None, params: Mapping[str, Any] | None = None) -> RefereeGame:
    """The game of the referee started by ``command`` (its files relative to ``base``)."""
    return load_referee({"command": shlex.join(command_words(command, base))}, params)


def is_command(target: str) -> bool:
    """Whether ``target`` (what ``arena game check`` is given) is a referee's command: words
    with a space between, or a program, but not a Python module's file."""
    stripped = target.strip()
    if stripped.endswith(".py") and os.path.isfile(stripped):
        return False
    return " " in stripped or (os.path.isfile(stripped) and os.access(stripped, os.X_OK))


def referee_files(game: Game) -> list[str]:
    """What a bot's process must read to run ``game``'s referee itself (its host rebuilds the
    game): the files its command names and its program's installation."""
    words = shlex.split(str((game.source or {}).get("command", "")))
    if not words:
        return []
    return sorted(set(command_files(words)) | program_paths(words[0]))


# ---------------------------------------------------------------- the game and its states


class RefereeGame(Game):
    """A game whose rules a referee program keeps (made by ``referee_class``: one class a
    referee, its attributes from the referee's ``info``)."""

    name: ClassVar[str] = "referee"
    #: the referee's command line, as words
    words: ClassVar[tuple[str, ...]] = ()
    #: the referee's pattern of a move's text, if it gave one
    pattern: ClassVar[re.Pattern[str] | None] = None

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        if not self.words:
            raise RefereeLoadError("make a referee's game with load_referee(source) or referee_game(command)")
        self._start: RefereeState | None = None

    def __reduce__(self) -> tuple[Any, ...]:
        assert self.source is not None
        return (load_referee, (dict(self.source), dict(self.params)))

    def __repr__(self) -> str:
        args = "".join(f", {key}={value!r}" for key, value in self.params.items() if value != self._defaults().get(key))
        return f"referee_game({label(self.words)!r}{args})"

    def initial_state(self) -> RefereeState:
        if self._start is None:
            what = f"start ({self.players} seats)"
            reply = _ask(self, _request("start", players=self.players, params=dict(self.params)), what)
            self._start = RefereeState.answered(self, reply, what, 0, None)
        return self._start

    def parse_move(self, text: str) -> Move:
        stripped = text.strip() if isinstance(text, str) else ""
        if not is_move_text(stripped) or (self.pattern is not None and not self.pattern.fullmatch(stripped)):
            raise self.syntax_error(text)
        return move_int(stripped)

    def format_move(self, move: Move) -> str:
        try:
            return move_text(move)
        except ValueError:
            raise ValueError(f"{move!r} is not a {self.name} move") from None

    def read_moves(self, texts: object, what: str) -> list[Move]:
        """The moves a referee listed (texts), as ints in increasing order, each checked."""
        if not isinstance(texts, list) or not texts:
            raise _broken(self, what, f"its moves are {shorten(texts)}: a non-empty list of texts")
        moves = set()
        for text in texts:
            if not isinstance(text, str) or not is_move_text(text):
                raise _broken(self, what, f"it listed the move {shorten(text)}, which is no move's text")
            moves.add(move_int(text))
        if len(moves) != len(texts):
            raise _broken(self, what, f"it listed a move twice in {shorten(texts)}")
        return sorted(moves)


class RefereeState(State):
    """A state the referee made: its JSON value (kept as the text the referee wrote, sent back
    with every request about it) and what the referee said of it; its view and drawing asked
    when first needed."""

    __slots__ = (
        "_chance",
        "_legal",
        "_returns",
        "_shown",
        "_views",
        "_wire",
        "game",
        "last_move",
        "ply",
        "to_move",
    )

    game: RefereeGame

    def __init__(
        self,
        game: RefereeGame,
        wire: str,
        to_move: int,
        legal: dict[int, list[Move]],
        chance: list[tuple[Move, float]],
        returns: tuple[float, ...] | None,
        ply: int,
        last_move: Move | None,
    ) -> None:
        self.game = game
        self._wire = wire
        self.to_move = to_move
        self._legal = legal
        self._chance = chance
        self._returns = returns
        self.ply = ply
        self.last_move = last_move
        self._shown: tuple[str, dict[str, Any] | None] | None = None
        self._views: dict[int | None, dict[str, Any]] = {}

    def __reduce__(self) -> tuple[Any, ...]:
        args = (self.game, self._wire, self.to_move, self._legal, self._chance, self._returns, self.ply, self.last_move)
        return (RefereeState, args)

    @classmethod
    def answered(cls, game: RefereeGame, reply: dict[str, Any], what: str, ply: int, last: Move | None) -> RefereeState:
        """The state a ``start`` or ``apply`` reply describes, checked against the contract."""
        if "state" not in reply:
            raise _broken(game, what, "its answer has no state")
        try:
            wire = json.dumps(reply["state"], separators=(",", ":"), allow_nan=False)
        except ValueError:
            raise _broken(game, what, "its state holds a number JSON cannot write (NaN or infinity)") from None
        to_move = reply.get("to_move")
        players = game.players
        if to_move == "over":
            returns = reply.get("returns")
            if not (
                isinstance(returns, list)
                and len(returns) == players
                and all(isinstance(r, int | float) and not isinstance(r, bool) and math.isfinite(r) for r in returns)
            ):
                raise _broken(
                    game, what, f"the game is over, but returns is {shorten(returns)}: a number for each seat"
                )
            return cls(game, wire, 0, {}, [], tuple(float(r) for r in returns), ply, last)
        if to_move == "chance":
            outcomes = reply.get("outcomes")
            if not isinstance(outcomes, list) or not outcomes:
                raise _broken(
                    game, what, f"at a chance node outcomes is {shorten(outcomes)}: [[text, probability], ...]"
                )
            texts, weights = [], []
            for pair in outcomes:
                if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[1], int | float)):
                    raise _broken(game, what, f"the chance outcome {shorten(pair)} is not [text, probability]")
                if isinstance(pair[1], bool) or not (math.isfinite(pair[1]) and pair[1] > 0):
                    raise _broken(game, what, f"the chance outcome {shorten(pair)} has no positive probability")
                texts.append(pair[0])
                weights.append(float(pair[1]))
            moves = game.read_moves(texts, what)
            total = sum(weights)
            if abs(total - 1.0) > 1e-6:
                raise _broken(game, what, f"the chance outcomes' probabilities sum to {total!r}, not 1")
            by_move = {move_int(text): weight / total for text, weight in zip(texts, weights, strict=True)}
            return cls(game, wire, CHANCE, {}, [(move, by_move[move]) for move in moves], None, ply, last)
        legal = reply.get("legal")
        if type(to_move) is int and 0 <= to_move < players:
            return cls(game, wire, to_move, {to_move: game.read_moves(legal, what)}, [], None, ply, last)
        if to_move == "simultaneous":
            if not isinstance(legal, dict) or not legal:
                raise _broken(game, what, f"at a simultaneous step legal is {shorten(legal)}: {{seat: [texts]}}")
            seats: dict[int, list[Move]] = {}
            for key, texts in legal.items():
                seat = int(key) if isinstance(key, str) and key.isdecimal() else -1
                if not 0 <= seat < players:
                    raise _broken(game, what, f"legal names the seat {key!r}: seats are 0 to {players - 1}")
                seats[seat] = game.read_moves(texts, what)
            return cls(game, wire, SIMULTANEOUS, dict(sorted(seats.items())), [], None, ply, last)
        raise _broken(
            game,
            what,
            f"to_move is {shorten(to_move)}: a seat (0 to {players - 1}), 'chance', 'simultaneous' or 'over'",
        )

    @property
    def is_terminal(self) -> bool:
        return self._returns is not None

    def returns(self) -> tuple[float, ...]:
        if self._returns is None:
            raise ValueError("the game is not over: it has no returns yet")
        return self._returns

    def legal_moves(self) -> list[Move]:
        if self.to_move == CHANCE:
            return [move for move, _ in self._chance]
        return list(self._legal[self.to_move]) if self.to_move >= 0 and self._returns is None else []

    def actors(self) -> tuple[int, ...]:
        return () if self._returns is not None else tuple(self._legal)

    def moves_of(self, seat: int) -> list[Move]:
        return list(self._legal.get(seat, ())) if self._returns is None else []

    def chance_outcomes(self) -> list[tuple[Move, float]]:
        return list(self._chance)

    def is_legal(self, move: Move) -> bool:
        return move in self.legal_moves()

    def play(self, move: Move) -> RefereeState:
        if self._returns is not None:
            raise IllegalMoveError(f"{self._text(move)} cannot be played: the game is over")
        if self.to_move == SIMULTANEOUS:
            raise IllegalMoveError(f"{self._text(move)}: seats {list(self._legal)} move together (play_joint)")
        if move not in self.legal_moves():
            kind = "a chance outcome" if self.to_move == CHANCE else "a legal move"
            raise IllegalMoveError(f"{self._text(move)} is not {kind} here")
        return self._apply([move])

    def play_joint(self, moves: Sequence[Move]) -> RefereeState:
        if self.to_move != SIMULTANEOUS:
            if len(moves) == 1:
                return self.play(moves[0])
            raise IllegalMoveError(f"no simultaneous step here: one move, not {len(moves)}")
        actors = list(self._legal)
        if len(moves) != len(actors):
            raise IllegalMoveError(f"seats {actors} move together: {len(actors)} moves, not {len(moves)}")
        for seat, move in zip(actors, moves, strict=True):
            if move not in self._legal[seat]:
                raise IllegalMoveError(f"{self._text(move)} is not a legal move of seat {seat} here")
        return self._apply(list(moves))

    def _text(self, move: Move) -> str:
        try:
            return repr(move_text(move))
        except ValueError:
            return repr(move)

    def _apply(self, moves: list[Move]) -> RefereeState:
        texts = [move_text(move) for move in moves]
        what = f"apply {' '.join(texts)!r} at ply {self.ply}"
        reply = _ask(self.game, _request("apply", self._wire, moves=texts), what)
        return RefereeState.answered(self.game, reply, what, self.ply + len(moves), moves[-1])

    def view(self, seat: int | None) -> dict[str, Any]:
        found = self._views.get(seat)
        if found is None:
            what = f"view of {'the spectator' if seat is None else f'seat {seat}'} at ply {self.ply}"
            reply = _ask(self.game, _request("view", self._wire, seat=seat), what)
            found = reply.get("view")
            if not isinstance(found, dict):
                raise _broken(self.game, what, f"its view is {shorten(found)}: a JSON object")
            self._views[seat] = found
        copied: dict[str, Any] = json.loads(json.dumps(found))  # the caller's own copy
        return copied

    def _show(self) -> tuple[str, dict[str, Any] | None]:
        if self._shown is None:
            what = f"render at ply {self.ply}"
            reply = _ask(self.game, _request("render", self._wire), what)
            text, board = reply.get("text"), reply.get("board")
            if not isinstance(text, str):
                raise _broken(self.game, what, f"its text is {shorten(text)}: a string")
            problem = None if board is None else board_problem(board)
            if problem is not None:
                raise _broken(self.game, what, f"its board {problem}")
            self._shown = (text, board)
        return self._shown

    def render(self) -> str:
        return self._show()[0]

    def board(self) -> dict[str, Any] | None:
        board = self._show()[1]
        return None if board is None else json.loads(json.dumps(board))


def board_problem(board: object) -> str | None:
    """What is wrong with a referee's board (docs/games.md, "Boards"), or ``None``."""
    if not isinstance(board, dict) or not isinstance(board.get("boards"), list) or not board["boards"]:
        return 'is not {"boards": [...]}'
    for index, one in enumerate(board["boards"]):
        if not isinstance(one, dict):
            return f"{index} is not an object"
        rows, cols, cells = one.get("rows"), one.get("cols"), one.get("cells")
        if not (type(rows) is int and type(cols) is int and 0 < rows <= 64 and 0 < cols <= 64):
            return f"{index} has no rows and cols (1 to 64)"
        if not (isinstance(cells, list) and len(cells) == rows * cols and all(isinstance(c, str) for c in cells)):
            return f"{index} has not rows * cols cells of text"
    if not isinstance(board.get("notes", []), list):
        return "has notes that are not a list of lines"
    return None
