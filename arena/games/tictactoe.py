"""Tic-tac-toe on a 3x3 board.

Moves are the cell index 0-8, row by row, both as ints and as text. The board is two 9-bit
masks; random playouts walk a table of every reachable position (5,478 of them), built once.
"""

from __future__ import annotations

import random
from typing import Any

from arena.games.base import DRAWN, ONGOING, Game, IllegalMoveError, Move, Outcome, ResultState

LINES = (0b000000111, 0b000111000, 0b111000000, 0b001001001, 0b010010010, 0b100100100, 0b100010001, 0b001010100)
FULL = 0b111111111
#: WINS[mask]: whether the cells in the 9-bit ``mask`` hold a line
WINS = tuple(any(mask & line == line for line in LINES) for mask in range(512))
#: CELLS[mask]: the cell indexes of the set bits of a 9-bit mask, increasing
CELLS = tuple(tuple(i for i in range(9) if mask >> i & 1) for mask in range(512))


def line_cells(mask: int) -> list[int]:
    """The cells of every line the 9-bit ``mask`` holds (a winning move may make two), increasing;
    empty if it holds none."""
    cells = 0
    for line in LINES:
        if mask & line == line:
            cells |= line
    return list(CELLS[cells])


def _result(x: int, o: int) -> int:
    """-1 while the game goes on, else the winning seat, or 2 for a draw."""
    if WINS[x]:
        return 0
    if WINS[o]:
        return 1
    return DRAWN if x | o == FULL else ONGOING


_PLAYOUT_TABLE: dict[int, tuple[tuple[int, ...], int]] | None = None


def _playout_table() -> dict[int, tuple[tuple[int, ...], int]]:
    """Position code (x | o << 9) -> (codes of its children, result code), every reachable one."""
    global _PLAYOUT_TABLE
    if _PLAYOUT_TABLE is None:
        table: dict[int, tuple[tuple[int, ...], int]] = {}
        stack = [(0, 0)]
        while stack:
            x, o = stack.pop()
            code = x | o << 9
            if code in table:
                continue
            result = _result(x, o)
            if result != ONGOING:
                table[code] = ((), result)
                continue
            x_moves = bin(x).count("1") == bin(o).count("1")
            children = []
            for cell in CELLS[FULL & ~(x | o)]:
                child = (x | 1 << cell, o) if x_moves else (x, o | 1 << cell)
                children.append(child[0] | child[1] << 9)
                stack.append(child)
            table[code] = (tuple(children), ONGOING)
        _PLAYOUT_TABLE = table
    return _PLAYOUT_TABLE


class TicTacToe(Game):
    """Tic-tac-toe: three in a row wins, a full board without a line is a draw."""

    name = "tictactoe"
    PROTOCOL = 1
    MAX_LENGTH = 9
    NOTATION = "a move is the cell index 0-8, row by row (e.g. '4' for the centre)"

    def initial_state(self) -> TicTacToeState:
        return TicTacToeState(self, 0, 0, None)

    def parse_move(self, text: str) -> Move:
        stripped = text.strip() if isinstance(text, str) else ""
        if len(stripped) != 1 or stripped not in "012345678":
            raise self.syntax_error(text)
        return int(stripped)

    def format_move(self, move: Move) -> str:
        if type(move) is not int or not 0 <= move < 9:
            raise ValueError(f"{move!r} is not a tictactoe move (cells are 0-8)")
        return str(move)


class TicTacToeState(ResultState):
    """A tic-tac-toe position: the cells of ``x`` (seat 0) and ``o`` (seat 1) as 9-bit masks."""

    game: TicTacToe

    __slots__ = ("_result", "game", "last_move", "o", "x")

    def __init__(self, game: TicTacToe, x: int, o: int, last_move: Move | None) -> None:
        self.game = game
        self.x = x
        self.o = o
        self.last_move = last_move
        self._result = _result(x, o)

    @property
    def ply(self) -> int:  # type: ignore[override]
        """The number of moves played (the stones on the board)."""
        return (self.x | self.o).bit_count()

    @property
    def to_move(self) -> int:  # type: ignore[override]
        """The seat to move: x (0) after an even number of moves."""
        return self.ply & 1

    def legal_moves(self) -> list[Move]:
        if self._result != ONGOING:
            return []
        return list(CELLS[FULL & ~(self.x | self.o)])

    def is_legal(self, move: Move) -> bool:
        return self._result == ONGOING and type(move) is int and 0 <= move < 9 and not (self.x | self.o) >> move & 1

    def play(self, move: Move) -> TicTacToeState:
        if not self.is_legal(move):
            raise IllegalMoveError(f"{move!r} is illegal in tictactoe: {self._why_illegal(move)}")
        bit = 1 << move
        if self.to_move == 0:
            return TicTacToeState(self.game, self.x | bit, self.o, move)
        return TicTacToeState(self.game, self.x, self.o | bit, move)

    def _why_illegal(self, move: object) -> str:
        if self._result != ONGOING:
            return "the game is over"
        if type(move) is not int or not 0 <= move < 9:
            return "there is no such cell (cells are 0-8)"
        return f"cell {move} is occupied"

    def random_playout(self, rng: random.Random) -> Outcome:
        table = _playout_table()
        rand = rng.random
        children, result = table[self.x | self.o << 9]
        while result < 0:
            children, result = table[children[int(rand() * len(children))]]
        return ResultState.OUTCOMES[result]

    def cells(self) -> str:
        """The board as nine characters ``x``, ``o`` or ``.``, row by row."""
        return "".join("x" if self.x >> i & 1 else "o" if self.o >> i & 1 else "." for i in range(9))

    def render(self) -> str:
        cells = self.cells()
        rows = [" " + " | ".join(cells[r * 3 : r * 3 + 3]) for r in range(3)]
        return "\n---+---+---\n".join(rows)

    def board_data(self) -> dict[str, Any]:
        return {"cells": self.cells()}

    def board(self) -> dict[str, Any]:
        """One 3x3 board (``State.board``): the marks ``x`` and ``o``, the last move's cell, the
        winning line highlighted, and each empty cell's move while the game goes on."""
        x, o = self.x, self.o
        playable = FULL & ~(x | o) if self._result == ONGOING else 0
        return {
            "boards": [
                {
                    "rows": 3,
                    "cols": 3,
                    "cells": ["x" if x >> i & 1 else "o" if o >> i & 1 else "" for i in range(9)],
                    "highlight": line_cells(x if self._result == 0 else o if self._result == 1 else 0),
                    "last": [] if self.last_move is None else [self.last_move],
                    "moves": [str(i) if playable >> i & 1 else None for i in range(9)],
                }
            ]
        }
