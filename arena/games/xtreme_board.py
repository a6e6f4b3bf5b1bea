"""Xtreme tic-tac-toe's board as numbers: moves, small boards and cells, the points small boards
score, as the tables that the rules (arena/games/xtreme.py) and the fast random playouts
(arena/games/xtreme_playout.py) share. A move is the int ``k * 81 + row * 9 + col``; a small
board ``k * 9 + b``, with ``b`` = ``(row // 3) * 3 + col // 3``; a cell inside a small board the
bit index ``(row % 3) * 3 + col % 3``."""

from __future__ import annotations

from arena.games.base import Move, Outcome
from arena.games.tictactoe import CELLS, FULL

#: points of a big board's 9 small boards in a drawn game, by place, row by row:
#: corners 4, edges 6, centre 3 (86 over both big boards)
BOARD_POINTS = (4, 6, 4, 6, 3, 6, 4, 6, 4)
#: what the winner of a game (or the opponent of a player who forfeits) scores
WIN_POINTS = 86
#: the outcome of a game won by seat 0 or 1, with its course points
WIN_OUTCOMES = (Outcome(0, (WIN_POINTS, 0)), Outcome(1, (0, WIN_POINTS)))

#: POINTS9[mask]: draw points of the small boards whose places are the set bits of a 9-bit mask
POINTS9 = tuple(sum(BOARD_POINTS[i] for i in CELLS[mask]) for mask in range(512))
ALL_BOARDS = (1 << 18) - 1

_MOVES = range(162)
#: BOARD_OF[move], CELL_OF[move]: the small board index k*9+b of a move and its cell bit index
BOARD_OF = tuple(m // 81 * 9 + m % 81 // 27 * 3 + m % 9 // 3 for m in _MOVES)
CELL_OF = tuple(m % 81 // 9 % 3 * 3 + m % 3 for m in _MOVES)
#: MOVE_AT[board][cell]: the move at cell bit ``cell`` of small board ``board``
MOVE_AT = tuple(
    tuple(board // 9 * 81 + (board % 9 // 3 * 3 + cell // 3) * 9 + board % 3 * 3 + cell % 3 for cell in range(9))
    for board in range(18)
)
#: BOARD_MOVES[board][empty]: the moves at the set bits of the 9-bit mask ``empty``, increasing
BOARD_MOVES = tuple(
    tuple(tuple(MOVE_AT[board][cell] for cell in CELLS[empty]) for empty in range(512)) for board in range(18)
)


def board_of(move: Move) -> int:
    """The small board ``k * 9 + b`` that ``move`` lies in."""
    return BOARD_OF[move]


def cell_of(move: Move) -> int:
    """The cell of ``move`` inside its small board: bit index ``(row % 3) * 3 + col % 3``."""
    return CELL_OF[move]


def move_at(board: int, cell: int) -> Move:
    """The move at cell bit index ``cell`` (0-8) of small board ``board`` (``k * 9 + b``)."""
    return MOVE_AT[board][cell]


def board_name(board: int) -> str:
    """How messages name small board ``k * 9 + b``: its (row, col) place and big board."""
    place = board % 9
    return f"small board ({place // 3}, {place % 3}) of big board {board // 9}"


def draw_points(won_x: int, won_o: int) -> tuple[int, int]:
    """Course points of each player in a draw, from the 18-bit masks of the small boards each
    won (bit ``k * 9 + b``); drawn small boards score nothing."""
    return (POINTS9[won_x & FULL] + POINTS9[won_x >> 9], POINTS9[won_o & FULL] + POINTS9[won_o >> 9])
