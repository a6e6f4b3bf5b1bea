"""How an engine's protocol writes a game's moves, and back: tic-tac-toe cells and Connect Four
columns as Fairy-Stockfish's drops (``P@b2``), Go points as GTP vertices (``D4``), and any
other game's moves as the game writes them (UGI).

A notation works on moves as the game's ints and on the moves played before (a Connect Four
drop names the square the stone lands on, which depends on the column's stones so far). Text
from an engine that names no move of the game is a ``ValueError`` (the seat's illegal move).
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

from arena.games import Game, Move

FILES = "abcdefghijklmnopqrstuvwxyz"
#: GTP's column letters: A to T without I
GTP_COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
_DROP = re.compile(r"[A-Za-z]@([a-z])(\d{1,2})")
_VERTEX = re.compile(r"([A-HJ-Za-hj-z])(\d{1,2})")


class NotationError(LookupError):
    """A game an engine's protocol has no notation for here."""


class Notation(ABC):
    """The moves of one game in one protocol's words."""

    @abstractmethod
    def to_engine(self, played: Sequence[Move], move: Move) -> str:
        """``move``, played after ``played``, as the engine writes it."""

    @abstractmethod
    def from_engine(self, played: Sequence[Move], text: str) -> Move:
        """The move the engine wrote as ``text`` after ``played``; ``ValueError`` if none."""


class GameNotation(Notation):
    """The game's own notation (``Game.format_move``), one word a move: UGI's."""

    def __init__(self, game: Game) -> None:
        self.game = game

    def to_engine(self, played: Sequence[Move], move: Move) -> str:
        text = self.game.format_move(move)
        if not text or any(char.isspace() for char in text):
            raise NotationError(f"the move {text!r} of {self.game.name} is not one word: UGI cannot send it")
        return text

    def from_engine(self, played: Sequence[Move], text: str) -> Move:
        return self.game.parse_move(text)


class CellDrops(Notation):
    """A board game of ``cols`` x ``rows`` cells numbered row by row from the top (tic-tac-toe's
    0-8) as Fairy-Stockfish's drops on squares ``a1``... from the bottom left."""

    def __init__(self, cols: int, rows: int) -> None:
        self.cols, self.rows = cols, rows

    def to_engine(self, played: Sequence[Move], move: Move) -> str:
        row, col = divmod(move, self.cols)
        return f"P@{FILES[col]}{self.rows - row}"

    def from_engine(self, played: Sequence[Move], text: str) -> Move:
        col, rank = _square(text, self.cols, self.rows)
        return (self.rows - rank) * self.cols + col


class ColumnDrops(Notation):
    """Connect Four's columns (moves ``0``...) as Fairy-Stockfish's drops on the square where the
    stone lands: the column's file, the rank above its stones so far."""

    def __init__(self, cols: int, rows: int) -> None:
        self.cols, self.rows = cols, rows

    def to_engine(self, played: Sequence[Move], move: Move) -> str:
        return f"P@{FILES[move]}{played.count(move) + 1}"

    def from_engine(self, played: Sequence[Move], text: str) -> Move:
        col, rank = _square(text, self.cols, self.rows)
        landing = played.count(col) + 1
        if rank != landing:
            raise ValueError(f"{text!r} is not where a stone dropped in column {FILES[col]} lands (rank {landing})")
        return col


class GoVertices(Notation):
    """Go on a board of ``size`` (OpenSpiel's moves: ``row * size + col`` from the bottom left,
    ``size * size`` a pass) as GTP vertices (``A1``..., no ``I``) and ``pass``."""

    def __init__(self, size: int) -> None:
        self.size = size

    def to_engine(self, played: Sequence[Move], move: Move) -> str:
        if move == self.size * self.size:
            return "pass"
        row, col = divmod(move, self.size)
        return f"{GTP_COLUMNS[col]}{row + 1}"

    def from_engine(self, played: Sequence[Move], text: str) -> Move:
        if text.lower() == "pass":
            return self.size * self.size
        found = _VERTEX.fullmatch(text)
        if found is None:
            raise ValueError(f"{text!r} is not a GTP vertex (a letter A-T without I, a number) or pass")
        col, row = GTP_COLUMNS.index(found[1].upper()), int(found[2]) - 1
        if not (col < self.size and 0 <= row < self.size):
            raise ValueError(f"{text!r} is off the {self.size}x{self.size} board")
        return row * self.size + col


def _square(text: str, cols: int, rows: int) -> tuple[int, int]:
    """(file index, rank) of a drop ``P@b2`` on a board of ``cols`` x ``rows``."""
    found = _DROP.fullmatch(text)
    if found is None:
        raise ValueError(f"{text!r} is not a drop on a square (like P@b2)")
    col, rank = FILES.index(found[1]), int(found[2])
    if not (col < cols and 1 <= rank <= rows):
        raise ValueError(f"{text!r} is off the {cols}x{rows} board")
    return col, rank


def _params(game: Game) -> dict[str, Any]:
    params = getattr(game, "params", None)
    return params if isinstance(params, dict) else {}


def _openspiel_name(game: Game) -> str:
    """An OpenSpiel game's short name (``go`` of ``go(board_size=9)``), else the game's name."""
    spec = game.spec()
    name = spec.get("openspiel") if isinstance(spec.get("openspiel"), str) else game.name
    return str(name).split("(", 1)[0]


def go_size(game: Game) -> int:
    """The board size of a Go game (its ``board_size`` parameter, or from its number of moves)."""
    size = _params(game).get("board_size")
    if isinstance(size, int):
        return size
    found = re.search(r"board_size=(\d+)", str(game.spec()))
    return int(found[1]) if found else 19


#: which games each protocol has a notation for here (UGI: every game, in its own notation)
SUPPORTED = {
    "uci": "tictactoe, connect4 (6 rows, 7 columns) and OpenSpiel's connect_four",
    "gtp": "Go (OpenSpiel's go)",
    "ugi": "every game of two seats taking turns, nothing hidden, moves of one word",
}


def notation_for(protocol: str, game: Game) -> Notation:
    """How ``protocol`` (``uci``, ``ugi``, ``gtp``) writes ``game``'s moves; ``NotationError``
    if it has no notation for it here."""
    if game.players != 2 or game.HIDDEN:
        raise NotationError(f"an engine plays games of two seats with nothing hidden; {game.name} is not one")
    name = _openspiel_name(game)
    params = _params(game)
    if protocol == "ugi":
        return GameNotation(game)
    if protocol == "uci":
        if name == "tictactoe":
            return CellDrops(3, 3)
        if name in ("connect4", "connect_four") and (params.get("rows", 6), params.get("cols", 7)) == (6, 7):
            return ColumnDrops(7, 6)
    if protocol == "gtp" and name == "go":
        return GoVertices(go_size(game))
    raise NotationError(
        f"{protocol.upper()} has no notation for {game.name} here; it plays {SUPPORTED.get(protocol, 'nothing')}"
    )
