"""Connect Four: a game written against arena's game contract, as a user writes one.

Two players drop discs in turn into the columns of an upright board (``rows`` x ``cols``,
default 6 x 7); a disc falls to the lowest empty cell of its column. Four of a player's discs in
a line (a row, a column or a diagonal) win; a full board without such a line is a draw.

Moves: the column, ``0`` (left) to ``cols - 1``, both as the int and as its text: the default
``parse_move``/``format_move`` of ``arena.games.Game`` read and write a move as its number, so
this game writes neither. Cells are numbered row by row from the top-left corner,
``row * cols + col``, row 0 being the top row.

Play it in a tournament with ``game: {module: connect4.py}`` (examples/games/connect4.yaml).
It imports nothing but ``arena.games`` and the standard library, like any game of a user.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from arena.games import Game, IllegalMoveError, Move, State

#: the four directions a line runs in, as (row step, column step): across, down, and the two diagonals
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))
#: a cell's content: empty, or the disc of seat 0 or seat 1
EMPTY = -1


class Connect4(Game):
    """Connect Four on a board of ``rows`` x ``cols`` cells."""

    name = "connect4"
    # the board must hold a line of four each way
    PARAMETERS: ClassVar[Mapping[str, tuple[Any, Sequence[Any]]]] = {
        "rows": (6, range(4, 11)),
        "cols": (7, range(4, 11)),
    }
    # the class's bound, for the largest board; ``max_length`` gives each board's own
    MAX_LENGTH = 10 * 10

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.rows: int = self.params["rows"]
        self.cols: int = self.params["cols"]
        self.NOTATION = f"a move is the column 0-{self.cols - 1}, left to right (e.g. '{self.cols // 2}')"

    def max_length(self) -> int:
        """Every cell filled: one disc a move."""
        return self.rows * self.cols

    def initial_state(self) -> Connect4State:
        return Connect4State(self, (EMPTY,) * (self.rows * self.cols), 0, None, None)


class Connect4State(State):
    """A position: each cell's content (``EMPTY`` or the seat of its disc), row by row from the top."""

    game: Connect4

    __slots__ = ("cells", "game", "last_move", "line", "ply", "winner")

    def __init__(
        self, game: Connect4, cells: tuple[int, ...], ply: int, last_move: Move | None, line: tuple[int, ...] | None
    ) -> None:
        self.game = game
        self.cells = cells
        self.ply = ply
        self.last_move = last_move
        #: the cells of the winning line (all of them, where it is longer than four), or None
        self.line = line
        #: the seat that made the line; ``None`` while the game goes on, or after a draw
        self.winner = None if line is None else cells[line[0]]

    @property
    def to_move(self) -> int:  # type: ignore[override]
        """Seat 0 after an even number of moves (each move is one disc)."""
        return self.ply % 2

    @property
    def is_terminal(self) -> bool:
        return self.line is not None or self.ply == len(self.cells)

    def legal_moves(self) -> list[Move]:
        if self.is_terminal:
            return []
        # a column has room while its top cell is empty
        return [col for col in range(self.game.cols) if self.cells[col] == EMPTY]

    def play(self, move: Move) -> Connect4State:
        game = self.game
        if self.is_terminal:
            raise IllegalMoveError(f"{move!r} is illegal in connect4: the game is over")
        if type(move) is not int or not 0 <= move < game.cols:
            raise IllegalMoveError(f"{move!r} is illegal in connect4: there is no such column (0-{game.cols - 1})")
        if self.cells[move] != EMPTY:
            raise IllegalMoveError(f"{move!r} is illegal in connect4: column {move} is full")
        # the disc falls to the lowest empty cell of the column
        row = game.rows - 1
        while self.cells[row * game.cols + move] != EMPTY:
            row -= 1
        cell = row * game.cols + move
        cells = list(self.cells)
        cells[cell] = self.to_move
        # only a line through the new disc can be new
        return Connect4State(game, tuple(cells), self.ply + 1, move, self._line_through(cells, row, move))

    def _line_through(self, cells: list[int], row: int, col: int) -> tuple[int, ...] | None:
        """The cells of a line of four or more through (row, col) of its disc's seat, or None."""
        rows, cols = self.game.rows, self.game.cols
        seat = cells[row * cols + col]
        for dr, dc in DIRECTIONS:
            line = [row * cols + col]
            for sign in (1, -1):
                r, c = row + sign * dr, col + sign * dc
                while 0 <= r < rows and 0 <= c < cols and cells[r * cols + c] == seat:
                    line.append(r * cols + c)
                    r, c = r + sign * dr, c + sign * dc
            if len(line) >= 4:
                return tuple(sorted(line))
        return None

    def returns(self) -> tuple[float, ...]:
        """1 for the winner and 0 for the loser; 0.5 each for a draw."""
        if not self.is_terminal:
            raise ValueError("the game is not over: it has no returns yet")
        if self.winner is None:
            return (0.5, 0.5)
        return (1.0, 0.0) if self.winner == 0 else (0.0, 1.0)

    def board(self) -> dict[str, Any]:
        """One board: the discs by their seats' marks, the last disc and the winning line marked;
        clicking any cell of a column that has room plays that column."""
        game = self.game
        marks = game.MARKS
        playable = set(self.legal_moves())
        last = [self._last_cell()] if self.last_move is not None else []
        return {
            "boards": [
                {
                    "rows": game.rows,
                    "cols": game.cols,
                    "cells": ["" if seat == EMPTY else marks[seat] for seat in self.cells],
                    "highlight": list(self.line or ()),
                    "last": last,
                    "moves": [
                        str(i % game.cols) if i % game.cols in playable else None for i in range(len(self.cells))
                    ],
                }
            ]
        }

    def _last_cell(self) -> int:
        """The cell of the last disc: the highest filled cell of the last move's column."""
        game = self.game
        assert self.last_move is not None
        row = 0
        while self.cells[row * game.cols + self.last_move] == EMPTY:
            row += 1
        return row * game.cols + self.last_move

    def render(self) -> str:
        """The board as text, the columns numbered above it; the discs of a winning line are in
        capitals."""
        game = self.game
        line = set(self.line or ())
        text = [" ".join(str(col) for col in range(game.cols))]
        for row in range(game.rows):
            marks = []
            for col in range(game.cols):
                cell = row * game.cols + col
                seat = self.cells[cell]
                mark = "." if seat == EMPTY else game.MARKS[seat]
                marks.append(mark.upper() if cell in line else mark)
            text.append(" ".join(marks))
        return "\n".join(text)
