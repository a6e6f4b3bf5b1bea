"""Xtreme tic-tac-toe, the game of the 2019 course tournament (rules: docs/games.md, ``xtreme``).

Two big boards ``k`` = 0 and 1, each a 3x3 grid of small 3x3 boards. A move is the int
``k * 81 + row * 9 + col`` (``row``, ``col`` 0-8 on big board ``k``'s 9x9 grid) and the text
``"k row col"``, e.g. ``"1 4 4"``.

Small boards are numbered ``k * 9 + b``, with ``b`` = ``(row // 3) * 3 + col // 3`` the small
board's place on its big board, row by row; a cell inside a small board is the bit index
``(row % 3) * 3 + col % 3``. ``board_of``, ``cell_of`` and ``move_at`` convert between the two.

The state keeps each player's cells as 18 9-bit masks (``State.masks``); the board's tables are
in arena/games/xtreme_board.py. Random playouts use their own representation, built from the
state (arena/games/xtreme_playout.py).
"""

from __future__ import annotations

import random
import re
from typing import Any

from arena.games.base import DRAWN, ONGOING, Game, IllegalMoveError, Move, Outcome, ResultState
from arena.games.tictactoe import FULL, WINS, line_cells
from arena.games.xtreme_board import (
    ALL_BOARDS,
    BOARD_MOVES,
    BOARD_OF,
    CELL_OF,
    MOVE_AT,
    WIN_OUTCOMES,
    board_name,
    draw_points,
)

#: _ROW_TEXT[x][o]: a small board's 3-cell row as text, from the row's 3-bit x and o masks
_ROW_TEXT = tuple(
    tuple("".join("x" if x >> i & 1 else "o" if o >> i & 1 else "." for i in range(3)) for o in range(8))
    for x in range(8)
)

#: _MOVE_TEXT[move]: each move's text, ``k row col``
_MOVE_TEXT = tuple(f"{move // 81} {move % 81 // 9} {move % 9}" for move in range(162))
#: _BOARD_GRID[board]: the cells ``row * 9 + col`` of small board ``k * 9 + b`` on big board k's grid
_BOARD_GRID = tuple(tuple(sorted(move % 81 for move in MOVE_AT[board])) for board in range(18))


def course_points(state: XtremeState) -> tuple[int, int]:
    """What each player's small boards won so far are worth: its points if the game were a draw
    now (a finished game's actual points are ``state.outcome.points``)."""
    return draw_points(*state.won)


class Xtreme(Game):
    """Xtreme tic-tac-toe: two big boards, correspondence to either, bonus moves, course points."""

    name = "xtreme"
    PROTOCOL = 1
    MAX_LENGTH = 162
    NOTATION = (
        "a move is 'k row col': big board k (0-1), then row and column 0-8 on its "
        "9x9 grid (e.g. '1 4 4' for the centre of big board 1)"
    )

    _TEXT = re.compile(r"([0-9]+)\s*(?:,\s*|\s+)([0-9]+)\s*(?:,\s*|\s+)([0-9]+)")

    def initial_state(self) -> XtremeState:
        empty = (0,) * 18
        return XtremeState(self, (empty, empty), 0, (0, 0), 0, False, None, 0, ONGOING)

    def parse_move(self, text: str) -> Move:
        """Lenient: ``1 4 4``, ``1,4,4``, ``(1, 4, 4)``, ``[1, 4, 4]`` are the same move."""
        if not isinstance(text, str):
            raise self.syntax_error(text)
        inner = text.strip()
        if inner[:1] + inner[-1:] in ("()", "[]"):
            inner = inner[1:-1].strip()
        match = self._TEXT.fullmatch(inner)
        if match is None:
            raise self.syntax_error(text)
        k, row, col = (int(group) for group in match.groups())
        if k > 1 or row > 8 or col > 8:
            raise self.syntax_error(text)
        return k * 81 + row * 9 + col

    def format_move(self, move: Move) -> str:
        if type(move) is not int or not 0 <= move < 162:
            raise ValueError(f"{move!r} is not an xtreme move (moves are 0-161)")
        return f"{move // 81} {move % 81 // 9} {move % 9}"


class XtremeState(ResultState):
    """An Xtreme tic-tac-toe position.

    Public, read-only members for bots:

    - ``masks``: ``(x, o)``, each a tuple of 18 9-bit masks, one per small board ``k * 9 + b``,
      of the cells that seat 0 (``x``) and seat 1 (``o``) hold (cell bit ``(row%3)*3 + col%3``);
    - ``won``: ``(x, o)``, 18-bit masks of the small boards each has won (bit ``k * 9 + b``);
    - ``closed``: 18-bit mask of the closed (won or drawn) small boards;
    - ``bonus``: whether the move to make is a bonus move;
    - ``small_status()``, ``allowed_boards()``, and ``to_move``, ``last_move``, ``ply``.
    """

    game: Xtreme

    __slots__ = ("_result", "_start", "bonus", "closed", "game", "last_move", "masks", "ply", "to_move", "won")

    def __init__(
        self,
        game: Xtreme,
        masks: tuple[tuple[int, ...], tuple[int, ...]],
        closed: int,
        won: tuple[int, int],
        to_move: int,
        bonus: bool,
        last_move: Move | None,
        ply: int,
        result: int,
    ) -> None:
        self.game = game
        self.masks = masks
        self.closed = closed
        self.won = won
        self.to_move = to_move
        self.bonus = bonus
        self.last_move = last_move
        self.ply = ply
        self._result = result
        self._start: tuple[tuple[int, ...], tuple[int, ...], int, int] | None = None

    # -- what bots read ---------------------------------------------------------------------

    def small_status(self) -> str:
        """18 characters, one per small board ``k * 9 + b``: ``x`` or ``o`` (won by), ``d``
        (drawn: full without a line) or ``-`` (open)."""
        won_x, won_o = self.won
        return "".join(
            "x" if won_x >> i & 1 else "o" if won_o >> i & 1 else "d" if self.closed >> i & 1 else "-"
            for i in range(18)
        )

    def _allowed(self) -> int:
        """18-bit mask of the small boards the next move may use (0 when the game is over)."""
        if self._result != ONGOING:
            return 0
        open_boards = ALL_BOARDS ^ self.closed
        if self.last_move is None:
            return open_boards
        cell = CELL_OF[self.last_move]
        # correspondence: the small board at the cell's place, on either big board
        allowed = (1 << cell | 1 << cell + 9) & open_boards
        return allowed or open_boards

    def allowed_boards(self) -> list[int]:
        """The small boards ``k * 9 + b`` the next move may use, increasing; empty when over."""
        allowed = self._allowed()
        return [i for i in range(18) if allowed >> i & 1]

    # -- the protocol ------------------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        if self._result != ONGOING:
            return []
        xs, os = self.masks
        closed = self.closed
        last = self.last_move
        if last is not None:
            a = CELL_OF[last]
            b = a + 9
            # the two corresponding boards are on different big boards, so the moves of
            # board a (big board 0) all come before those of board b: no sort needed
            if not closed >> a & 1:
                moves = list(BOARD_MOVES[a][FULL ^ (xs[a] | os[a])])
                if not closed >> b & 1:
                    moves += BOARD_MOVES[b][FULL ^ (xs[b] | os[b])]
                return moves
            if not closed >> b & 1:
                return list(BOARD_MOVES[b][FULL ^ (xs[b] | os[b])])
        moves = []
        for board in range(18):
            if not closed >> board & 1:
                moves += BOARD_MOVES[board][FULL ^ (xs[board] | os[board])]
        moves.sort()
        return moves

    def is_legal(self, move: Move) -> bool:
        if self._result != ONGOING or type(move) is not int or not 0 <= move < 162:
            return False
        board = BOARD_OF[move]
        if not self._allowed() >> board & 1:
            return False
        xs, os = self.masks
        return not (xs[board] | os[board]) >> CELL_OF[move] & 1

    def play(self, move: Move) -> XtremeState:
        if not self.is_legal(move):
            raise IllegalMoveError(self._why_illegal(move))
        board = BOARD_OF[move]
        bit = 1 << CELL_OF[move]
        seat = self.to_move
        masks = self.masks
        mine = masks[seat]
        mask = mine[board] | bit
        mine = mine[:board] + (mask,) + mine[board + 1 :]
        masks = (mine, masks[1]) if seat == 0 else (masks[0], mine)
        closed, won, result = self.closed, self.won, ONGOING
        won_board = WINS[mask]
        if won_board:
            closed |= 1 << board
            mine_won = won[seat] | 1 << board
            won = (mine_won, won[1]) if seat == 0 else (won[0], mine_won)
            if WINS[mine_won >> (board // 9 * 9) & FULL]:
                result = seat
        elif mask | masks[1 - seat][board] == FULL:
            closed |= 1 << board
        if result == ONGOING and closed == ALL_BOARDS:
            result = DRAWN
        # a board won by a move that is not itself a bonus move earns a bonus move
        bonus = won_board and not self.bonus and result == ONGOING
        return XtremeState(
            self.game, masks, closed, won, seat if bonus else 1 - seat, bonus, move, self.ply + 1, result
        )

    def _why_illegal(self, move: object) -> str:
        if type(move) is not int or not 0 <= move < 162:
            return (
                f"move {move!r} is illegal in xtreme: there is no such cell (moves are 0-161, k * 81 + row * 9 + col)"
            )
        text = self.game.format_move(move)
        if self._result != ONGOING:
            return f"{text} is illegal in xtreme: the game is over"
        board, cell = BOARD_OF[move], CELL_OF[move]
        xs, os = self.masks
        if (xs[board] | os[board]) >> cell & 1:
            holder = "x" if xs[board] >> cell & 1 else "o"
            return f"{text} is illegal in xtreme: cell {text} is occupied (by {holder})"
        if self.closed >> board & 1:
            status = self.small_status()[board]
            how = "drawn" if status == "d" else f"won by {status}"
            return f"{text} is illegal in xtreme: {board_name(board)} is closed ({how})"
        allowed = " or ".join(board_name(b) for b in self.allowed_boards())
        return f"{text} is illegal in xtreme: wrong small board, {board_name(board)}; the move must be in {allowed}"

    @property
    def outcome(self) -> Outcome | None:
        result = self._result
        if result == ONGOING:
            return None
        if result == DRAWN:
            return Outcome(None, draw_points(*self.won))
        return WIN_OUTCOMES[result]

    def forfeit_outcome(self, seat: int) -> Outcome:
        """The opponent wins with 86 course points, the player who forfeits scores 0."""
        return WIN_OUTCOMES[1 - seat]

    # -- fast random playouts ----------------------------------------------------------------

    def random_playout(self, rng: random.Random) -> Outcome:
        """Uniformly random legal moves to the end (a free move is uniform over every empty
        cell of every open small board). The outcome is what ``outcome`` would be at the end:
        86 to 0 for a win, each player's small-board points for a draw."""
        if self._result != ONGOING:
            return self.outcome  # type: ignore[return-value]
        from arena.games.xtreme_playout import playout

        return playout(self, rng)

    # -- display -----------------------------------------------------------------------------

    def cells(self, k: int) -> str:
        """Big board ``k`` as 81 characters ``x``, ``o`` or ``.``, row by row of its 9x9 grid."""
        xs, os = self.masks
        first = k * 9
        # a grid row crosses three small boards, one 3-cell row of each: 27 table lookups
        return "".join(
            _ROW_TEXT[xs[board] >> shift & 7][os[board] >> shift & 7]
            for band in (first, first + 3, first + 6)
            for shift in (0, 3, 6)
            for board in (band, band + 1, band + 2)
        )

    def render(self) -> str:
        grids = [self.cells(0), self.cells(1)]
        small = self.small_status()
        gap = "    "
        rule = "-------+-------+-------"
        lines = [f"{'big board 0':<23}{gap}big board 1"]
        for row in range(9):
            if row and row % 3 == 0:
                lines.append(rule + gap + rule)
            halves = []
            for grid in grids:
                cells = grid[row * 9 : row * 9 + 9]
                halves.append(" | ".join(" ".join(cells[i : i + 3]) for i in (0, 3, 6)))
            lines.append(" " + halves[0] + " " + gap + " " + halves[1])
        lines.append("")
        lines.append(f"{'small boards 0':<23}{gap}small boards 1")
        for row in range(3):
            halves = [" ".join(small[k * 9 + row * 3 : k * 9 + row * 3 + 3]) for k in (0, 1)]
            lines.append(f" {halves[0]:<22}{gap} {halves[1]}")
        lines.append("")
        if self.last_move is not None:
            lines.append(f"last move: {self.game.format_move(self.last_move)}")
        outcome = self.outcome
        if outcome is not None:
            verdict = "draw" if outcome.winner is None else f"{'xo'[outcome.winner]} wins"
            x_points, o_points = outcome.points or (0, 0)
            lines.append(f"game over: {verdict}, course points {x_points}-{o_points}")
        else:
            allowed = self.allowed_boards()
            where = (
                "any open small board (free move)"
                if len(allowed) > 2 or self.last_move is None
                else " or ".join(board_name(b) for b in allowed)
            )
            lines.append(f"{'xo'[self.to_move]} to move{' (bonus move)' if self.bonus else ''}, in {where}")
        return "\n".join(lines)

    def board_data(self) -> dict[str, Any]:
        """``cells``: two 81-character strings (``x``, ``o``, ``.``), big board 0 then 1, each
        row by row of its 9x9 grid; ``small``: ``small_status()``; ``allowed``:
        ``allowed_boards()``; ``bonus``: whether the move to make is a bonus move."""
        return {
            "cells": [self.cells(0), self.cells(1)],
            "small": self.small_status(),
            "allowed": self.allowed_boards(),
            "bonus": self.bonus,
        }

    def board(self) -> dict[str, Any]:
        """Four boards (``State.board``). Big boards 0 and 1, each 9x9 and labelled, cell
        ``row * 9 + col`` (the move ``k row col``): the marks ``x`` and ``o``, the small boards the
        next move may go in highlighted, the last move, each legal cell's move. Then each big
        board's small boards, 3x3, labelled ``small boards k``: ``x``/``o`` won, ``d`` full
        without a line; the ones the next move may go in highlighted, once the game is won the
        winning line; the last move's marked. Notes: the course points so far (at the end, the
        game's), and a bonus move to make."""
        allowed = self._allowed()
        legal = set(self.legal_moves())
        status = self.small_status()
        last = self.last_move
        winner = self._result if self._result in (0, 1) else None
        grids = []
        smalls = []
        for k in (0, 1):
            first = k * 81
            grids.append(
                {
                    "rows": 9,
                    "cols": 9,
                    "cells": ["" if mark == "." else mark for mark in self.cells(k)],
                    "label": f"big board {k}",
                    "highlight": sorted(i for b in range(k * 9, k * 9 + 9) if allowed >> b & 1 for i in _BOARD_GRID[b]),
                    "last": [last - first] if last is not None and last // 81 == k else [],
                    "moves": [_MOVE_TEXT[move] if move in legal else None for move in range(first, first + 81)],
                }
            )
            if winner is None:
                small_highlight = [b for b in range(9) if allowed >> (k * 9 + b) & 1]
            else:
                small_highlight = line_cells(self.won[winner] >> k * 9 & FULL)
            smalls.append(
                {
                    "rows": 3,
                    "cols": 3,
                    "cells": ["" if mark == "-" else mark for mark in status[k * 9 : k * 9 + 9]],
                    "label": f"small boards {k}",
                    "highlight": small_highlight,
                    "last": [BOARD_OF[last] % 9] if last is not None and last // 81 == k else [],
                }
            )
        outcome = self.outcome
        if outcome is None:
            so_far = course_points(self)
            notes = [f"course points so far: x {so_far[0]}, o {so_far[1]}"]
            if self.bonus:
                notes.append(f"{'xo'[self.to_move]} plays a bonus move")
        else:
            points = outcome.points or (0, 0)
            notes = [f"course points: x {points[0]}, o {points[1]}"]
        return {"boards": grids + smalls, "notes": notes}
