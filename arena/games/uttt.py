"""Ultimate tic-tac-toe: a 3x3 grid of small tic-tac-toe boards (rules in docs/games.md).

A move is the int ``B * 9 + C``: small board ``B`` and cell ``C`` inside it, each 0-8 row by
row; its text is ``"B C"`` (``"4 4"`` is the centre of the centre). A position is each seat's
nine 9-bit small-board masks plus a few ints of bookkeeping, so ``play`` is a cheap copy.
Random playouts run on base-3 codes of the small boards and a table of each code's moves.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from typing import Any, ClassVar

from arena.games.base import DRAWN, ONGOING, WIN, Game, IllegalMoveError, Move, Outcome, ResultState
from arena.games.tictactoe import CELLS, FULL, WINS, line_cells

_SEAT_LETTERS = "xo"

#: MOVES[b][empty]: the moves (b * 9 + cell) on the empty cells of small board b, increasing
MOVES = tuple(tuple(tuple(b * 9 + c for c in CELLS[mask]) for mask in range(512)) for b in range(9))
#: OPEN_BOARDS[closed]: the small boards not in the 9-bit ``closed`` mask, increasing
OPEN_BOARDS = tuple(CELLS[FULL & ~closed] for closed in range(512))

#: GRID_MOVE[i]: the move at cell ``i = row * 9 + col`` of the 9x9 grid (``board()``'s cell
#: index), ``B * 9 + C``; GRID_OF[move]: the grid cell of a move
GRID_MOVE = tuple((i // 27 * 3 + i % 9 // 3) * 9 + i // 9 % 3 * 3 + i % 3 for i in range(81))
GRID_OF = tuple(GRID_MOVE.index(move) for move in range(81))
#: GRID_TEXT[i]: the text of the move at grid cell ``i``; BOARD_GRID[b]: small board b's grid cells
GRID_TEXT = tuple(f"{move // 9} {move % 9}" for move in GRID_MOVE)
BOARD_GRID = tuple(tuple(sorted(GRID_OF[b * 9 + c] for c in range(9))) for b in range(9))

_MOVE_TEXT = re.compile(r"\s*([0-8])\s*(?:,|\s)\s*([0-8])\s*")


class UltimateTicTacToe(Game):
    """Ultimate tic-tac-toe; ``tiebreak="boards"`` gives a line-less full game to the player
    with more small boards won (equal counts still draw)."""

    name = "uttt"
    PROTOCOL = 1
    MAX_LENGTH = 81
    PARAMETERS: ClassVar[Mapping[str, tuple[Any, tuple[Any, ...]]]] = {"tiebreak": ("none", ("none", "boards"))}
    NOTATION = (
        "a move is 'B C': the small board B and the cell C inside it, each 0-8 row by row "
        "(e.g. '4 4' for the centre of the centre board)"
    )

    def initial_state(self) -> UltimateTicTacToeState:
        empty = (0,) * 9
        return UltimateTicTacToeState(self, (empty, empty), None, None, 0, (0, 0), 0, ONGOING)

    def parse_move(self, text: str) -> Move:
        """``"B C"``; any spaces around and between, or a comma between, are accepted."""
        match = _MOVE_TEXT.fullmatch(text) if isinstance(text, str) else None
        if match is None:
            raise self.syntax_error(text)
        return int(match[1]) * 9 + int(match[2])

    def format_move(self, move: Move) -> str:
        if type(move) is not int or not 0 <= move < 81:
            raise ValueError(f"{move!r} is not a uttt move (moves are the ints 0-80)")
        return f"{move // 9} {move % 9}"


class UltimateTicTacToeState(ResultState):
    """An ultimate tic-tac-toe position.

    Read-only members for bots:

    - ``masks``: ``(x, o)``, each a tuple of nine 9-bit masks, one per small board (bit ``C``
      set = that seat holds cell ``C``); seat 0 plays ``x``, seat 1 ``o``.
    - ``forced_board``: the small board the next move must go in, or ``None`` when the move
      is free (first move, or the named board is closed) or the game is over.
    - ``small_status()``: the nine small boards as ``x``/``o`` (won), ``d`` (full, no line)
      or ``-`` (open).
    """

    game: UltimateTicTacToe

    __slots__ = ("_closed", "_result", "_won", "forced_board", "game", "last_move", "masks", "ply")

    def __init__(
        self,
        game: UltimateTicTacToe,
        masks: tuple[tuple[int, ...], tuple[int, ...]],
        forced_board: int | None,
        last_move: Move | None,
        ply: int,
        won: tuple[int, int],
        closed: int,
        result: int,
    ) -> None:
        self.game = game
        self.masks = masks
        self.forced_board = forced_board
        self.last_move = last_move
        self.ply = ply
        #: per seat, the 9-bit mask of the small boards it won
        self._won = won
        #: the 9-bit mask of the closed small boards (won or full)
        self._closed = closed
        #: -1 while the game goes on, else the winning seat, or 2 for a draw
        self._result = result

    @property
    def to_move(self) -> int:  # type: ignore[override]
        """The seat to move: x (0) after an even number of moves."""
        return self.ply & 1

    def legal_moves(self) -> list[Move]:
        if self._result != ONGOING:
            return []
        x, o = self.masks
        board = self.forced_board
        if board is not None:
            return list(MOVES[board][FULL & ~(x[board] | o[board])])
        moves: list[Move] = []
        for board in OPEN_BOARDS[self._closed]:
            moves += MOVES[board][FULL & ~(x[board] | o[board])]
        return moves

    def is_legal(self, move: Move) -> bool:
        if self._result != ONGOING or type(move) is not int or not 0 <= move < 81:
            return False
        board, cell = divmod(move, 9)
        forced = self.forced_board
        return (
            (forced is None or board == forced)
            and not self._closed >> board & 1
            and not (self.masks[0][board] | self.masks[1][board]) >> cell & 1
        )

    def play(self, move: Move) -> UltimateTicTacToeState:
        if not self.is_legal(move):
            raise IllegalMoveError(f"uttt move {self._move_text(move)} is illegal: {self._why_illegal(move)}")
        board, cell = divmod(move, 9)
        seat = self.ply & 1
        mine, theirs = self.masks[seat], self.masks[1 - seat]
        small = mine[board] | 1 << cell
        mine = mine[:board] + (small,) + mine[board + 1 :]
        masks = (mine, theirs) if seat == 0 else (theirs, mine)
        won, closed, result = self._won, self._closed, ONGOING
        if WINS[small]:
            big = won[seat] | 1 << board
            won = (big, won[1]) if seat == 0 else (won[0], big)
            closed |= 1 << board
            if WINS[big]:
                result = seat
        elif small | theirs[board] == FULL:
            closed |= 1 << board
        if result == ONGOING and closed == FULL:
            result = _full_board_result(won, self.game.params["tiebreak"] == "boards")
        forced = None if result != ONGOING or closed >> cell & 1 else cell
        return UltimateTicTacToeState(self.game, masks, forced, move, self.ply + 1, won, closed, result)

    def _move_text(self, move: object) -> str:
        if type(move) is int and 0 <= move < 81:
            return repr(self.game.format_move(move))
        return repr(move)

    def _why_illegal(self, move: object) -> str:
        if self._result != ONGOING:
            return "the game is over"
        if type(move) is not int or not 0 <= move < 81:
            return "there is no such cell (moves are the ints 0-80, board * 9 + cell)"
        board, cell = divmod(move, 9)
        if self.forced_board is not None and board != self.forced_board:
            return f"the move must be played in small board {self.forced_board}"
        if self._closed >> board & 1:
            return f"small board {board} is closed ({self._board_state(board)})"
        return f"cell {cell} of small board {board} is occupied"

    def _board_state(self, board: int) -> str:
        status = self.small_status()[board]
        return "drawn" if status == "d" else f"won by {status}"

    def small_status(self) -> str:
        """The nine small boards, in order: ``x``/``o`` won, ``d`` full without a line,
        ``-`` open."""
        won_x, won_o = self._won
        closed = self._closed
        return "".join(
            "x" if won_x >> b & 1 else "o" if won_o >> b & 1 else "d" if closed >> b & 1 else "-" for b in range(9)
        )

    def cells(self) -> str:
        """The 81 cells as ``x``, ``o`` or ``.``, in move order (index ``B * 9 + C``)."""
        x, o = self.masks
        return "".join("x" if x[b] >> c & 1 else "o" if o[b] >> c & 1 else "." for b in range(9) for c in range(9))

    def render(self) -> str:
        """The 9x9 grid (small boards split by lines), the small boards' status and what
        comes next, e.g.::

             x . . | . . . | . . .
             ...
            -------+-------+-------
            small boards: x - - / - d - / - - -
            o to move in small board 4
        """
        cells = self.cells()
        rows = []
        for big_row in range(3):
            for small_row in range(3):
                parts = []
                for big_col in range(3):
                    start = (big_row * 3 + big_col) * 9 + small_row * 3
                    parts.append(" ".join(cells[start : start + 3]))
                rows.append(" " + " | ".join(parts))
            if big_row < 2:
                rows.append("-------+-------+-------")
        status = self.small_status()
        big_rows = (" ".join(status[r * 3 : r * 3 + 3]) for r in range(3))
        rows.append("small boards: " + " / ".join(big_rows))
        rows.append(self._next_text())
        return "\n".join(rows)

    def _next_text(self) -> str:
        if self._result == DRAWN:
            return "game over: draw"
        if self._result != ONGOING:
            return f"game over: {_SEAT_LETTERS[self._result]} wins"
        player = _SEAT_LETTERS[self.to_move]
        if self.forced_board is None:
            return f"{player} to move in any open small board"
        return f"{player} to move in small board {self.forced_board}"

    def board_data(self) -> dict[str, Any]:
        """``cells``: 81 characters ``x``/``o``/``.``, index ``B * 9 + C`` (small board B,
        cell C, each row by row); ``small``: ``small_status()``; ``forced``: ``forced_board``."""
        return {"cells": self.cells(), "small": self.small_status(), "forced": self.forced_board}

    def board(self) -> dict[str, Any]:
        """Two boards (``State.board``). The 9x9 grid, cell ``row * 9 + col`` (small board
        ``B = row // 3 * 3 + col // 3``, cell ``C = row % 3 * 3 + col % 3``, the move ``B C``): the
        marks ``x`` and ``o``, the small boards the next move may go in highlighted, the last
        move, each legal cell's move. Then the small boards, 3x3, labelled ``small boards``:
        ``x``/``o`` won, ``d`` full without a line; the ones the next move may go in
        highlighted, once the game is over the winning line; the last move's marked. Notes:
        the small boards each seat has won."""
        cells = self.cells()
        if self._result == ONGOING:
            forced = self.forced_board
            allowed = OPEN_BOARDS[self._closed] if forced is None else (forced,)
            small_highlight = list(allowed)
        else:
            allowed = ()
            small_highlight = line_cells(self._won[self._result]) if self._result in (0, 1) else []
        legal = set(self.legal_moves())
        status = self.small_status()
        last = self.last_move
        won_x, won_o = (won.bit_count() for won in self._won)
        drawn = status.count("d")
        notes = [f"small boards won: x {won_x}, o {won_o}" + (f"; {drawn} full without a line" if drawn else "")]
        return {
            "boards": [
                {
                    "rows": 9,
                    "cols": 9,
                    "cells": ["" if (mark := cells[move]) == "." else mark for move in GRID_MOVE],
                    "highlight": sorted(i for board in allowed for i in BOARD_GRID[board]),
                    "last": [] if last is None else [GRID_OF[last]],
                    "moves": [GRID_TEXT[i] if move in legal else None for i, move in enumerate(GRID_MOVE)],
                },
                {
                    "rows": 3,
                    "cols": 3,
                    "cells": ["" if mark == "-" else mark for mark in status],
                    "label": "small boards",
                    "highlight": small_highlight,
                    "last": [] if last is None else [last // 9],
                },
            ],
            "notes": notes,
        }

    def random_playout(self, rng: random.Random) -> Outcome:
        if self._result != ONGOING:
            return ResultState.OUTCOMES[self._result]
        tables = _move_tables()
        x_table = tables[0]
        seat = self.ply & 1
        table, other_table = tables[seat], tables[1 - seat]
        # One int per small board (its base-3 code) in a list: a move is one addition.
        boards = [TERNARY[x] + 2 * TERNARY[o] for x, o in zip(*self.masks)]
        won = list(self._won)
        closed = self._closed
        open_boards = OPEN_BOARDS[closed]
        slots = 9 * len(open_boards)
        tiebreak = self.game.params["tiebreak"] == "boards"
        # getrandbits(30) % n costs about half of int(rng.random() * n) (no int() call); its
        # bias, below n / 2**30, is far under any sampling noise.
        bits = rng.getrandbits
        # ``options``: the moves of the board to play in, empty when the move is free. The
        # tables map a closed board's code to (), so after a move sends the opponent to a
        # closed board, the lookup itself says the move is free: no separate test.
        forced = self.forced_board
        board = -1 if forced is None else forced  # the board played in: set before any use
        code = 0
        options: _Options = ()
        if forced is not None:
            code = boards[board]
            options = table[code]
        while True:
            if options:
                cell, delta, closes = options[bits(30) % len(options)]
            else:
                # Free move: draw a slot (open board, rank 0-8) uniformly and keep it if the
                # board has more than ``rank`` empty cells. Each empty cell of an open board
                # owns exactly one slot, so the kept choice is uniform over all of them.
                while True:
                    index, rank = _DIVMOD9[bits(30) % slots]
                    board = open_boards[index]
                    code = boards[board]
                    options = table[code]
                    if rank < len(options):
                        break
                cell, delta, closes = options[rank]
            boards[board] = code + delta
            if closes:  # rare (at most nine times a game): the slow bookkeeping lives here
                if closes == _CLOSES_WON:
                    mover = 0 if table is x_table else 1
                    won[mover] |= 1 << board
                    if WINS[won[mover]]:
                        return WIN[mover]
                closed |= 1 << board
                if closed == FULL:
                    return ResultState.OUTCOMES[_full_board_result((won[0], won[1]), tiebreak)]
                open_boards = OPEN_BOARDS[closed]
                slots = 9 * len(open_boards)
            # Swapping the two tables is how the turn passes: no seat variable to keep.
            table, other_table = other_table, table
            board = cell
            code = boards[cell]
            options = table[code]


def _full_board_result(won: tuple[int, int], tiebreak: bool) -> int:
    """The result code once every small board is closed without a line on the big board."""
    if tiebreak:
        x, o = won[0].bit_count(), won[1].bit_count()
        if x != o:
            return 0 if x > o else 1
    return DRAWN


# --- tables of the random playouts ------------------------------------------------------------

#: TERNARY[mask]: the base-3 number with a 1 at each set bit of ``mask``; a small board's code
#: is TERNARY[x] + 2 * TERNARY[o] (cell C's digit: 0 empty, 1 x, 2 o)
TERNARY = tuple(sum(3**c for c in CELLS[mask]) for mask in range(512))
_CODES = 3**9
_CLOSES_WON, _CLOSES_FULL = 1, 2
#: _DIVMOD9[slot] = divmod(slot, 9), a tuple lookup instead of a call
_DIVMOD9 = tuple(divmod(slot, 9) for slot in range(81))

#: a small board's moves for one seat in the playout tables: (cell, code increase, closes)
_Options = tuple[tuple[int, int, int], ...]
_MOVE_TABLES: tuple[list[_Options], list[_Options]] | None = None


def _move_tables() -> tuple[list[_Options], list[_Options]]:
    """Per seat, a list indexed by a small board's code: its moves for that seat, each
    ``(cell, code increase, closes)`` with ``closes`` 0, ``_CLOSES_WON`` or ``_CLOSES_FULL``;
    ``()`` for a closed board. Built once, on first use (about 20 ms).

    A move tuple depends only on the seat, the cell and how it closes the board, so the 54
    possible ones are shared, and equal move lists are shared too: the tables stay small.
    """
    global _MOVE_TABLES
    if _MOVE_TABLES is None:
        move = [[[(c, (seat + 1) * 3**c, closes) for closes in range(3)] for c in range(9)] for seat in range(2)]
        shared: dict[_Options, _Options] = {}
        tables: tuple[list[_Options], list[_Options]] = ([()] * _CODES, [()] * _CODES)
        for x in range(512):
            if WINS[x]:
                continue
            rest = FULL & ~x
            o = rest
            while True:  # every o inside the cells x leaves empty, ``rest`` down to 0
                if not WINS[o] and x | o != FULL:
                    code = TERNARY[x] + 2 * TERNARY[o]
                    for seat, mine in ((0, x), (1, o)):
                        options = []
                        for c in CELLS[FULL & ~(x | o)]:
                            if WINS[mine | 1 << c]:
                                closes = _CLOSES_WON
                            elif x | o | 1 << c == FULL:
                                closes = _CLOSES_FULL
                            else:
                                closes = 0
                            options.append(move[seat][c][closes])
                        key = tuple(options)
                        tables[seat][code] = shared.setdefault(key, key)
                if not o:
                    break
                o = (o - 1) & rest
        _MOVE_TABLES = tables
    return _MOVE_TABLES
