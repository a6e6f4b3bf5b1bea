"""Fast random playouts of Xtreme tic-tac-toe (``XtremeState.random_playout``).

Playouts use their own representation, built from the state: each small board is one base-3
number, and a table lists, for every small-board position and player, the position after each
empty cell.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from arena.games.base import Outcome
from arena.games.tictactoe import CELLS, FULL, WINS
from arena.games.xtreme_board import CELL_OF, WIN_OUTCOMES, draw_points

if TYPE_CHECKING:
    from arena.games.xtreme import XtremeState

# A small board is one base-3 number s = sum(cell value * 3**i), cell value 0 empty, 1 x, 2 o:
# 3**9 = 19,683 positions, so whole-board facts are one table lookup. A closed board is
# replaced by a sentinel (_WON or _FULL) with no empty cell, so "is it open" is "has it moves".

_POSITIONS = 3**9
_WON = _POSITIONS  # sentinel: a board the mover just won
_FULL = _POSITIONS + 1  # sentinel: a board drawn (full without a line)
#: TERNARY[mask]: the base-3 number with a 1 at each set bit of the 9-bit ``mask``
TERNARY = tuple(sum(3**i for i in CELLS[mask]) for mask in range(512))

_TABLES: tuple[list[tuple[tuple[int, int], ...]], list[tuple[tuple[int, int], ...]], list[int]] | None = None


def _playout_tables() -> tuple[list[tuple[tuple[int, int], ...]], list[tuple[tuple[int, int], ...]], list[int]]:
    """(children for x, children for o, number of empty cells), indexed by board position.

    children[s] lists, for each empty cell i of an open board s in increasing order, the pair
    (position after the player takes i, i); the position is _WON or _FULL when the move closes
    the board. Sentinels and closed positions have no children and count 0 empty cells.
    Built on first use (about 0.1 s)."""
    global _TABLES
    if _TABLES is None:
        kids: tuple[list[Any], list[Any]] = ([()] * (_POSITIONS + 2), [()] * (_POSITIONS + 2))
        counts = [0] * (_POSITIONS + 2)
        masks = [(0, 0)] * _POSITIONS
        for s in range(_POSITIONS):
            x = o = 0
            rest = s
            for i in range(9):
                rest, value = divmod(rest, 3)
                if value == 1:
                    x |= 1 << i
                elif value == 2:
                    o |= 1 << i
            masks[s] = (x, o)
        for s in range(_POSITIONS):
            x, o = masks[s]
            if WINS[x] or WINS[o] or x | o == FULL:
                continue
            empty = CELLS[FULL ^ (x | o)]
            counts[s] = len(empty)
            for seat, table in enumerate(kids):
                children = []
                for i in empty:
                    child = s + (seat + 1) * 3**i
                    cx, co = masks[child]
                    children.append((_WON if WINS[cx] or WINS[co] else _FULL if cx | co == FULL else child, i))
                table[s] = tuple(children)
        _TABLES = (kids[0], kids[1], counts)
    return _TABLES


def _playout_start(state: XtremeState) -> tuple[tuple[int, ...], tuple[int, ...], int, int]:
    """The playout's view of ``state``: the base-3 positions of big board 0's and big board 1's
    small boards by place (closed ones as _FULL, plus a _FULL sentinel at place 9), the number of
    empty cells in open boards, and the number of closed boards. Cached on the state, so
    repeated playouts from one state (flat Monte Carlo) skip it."""
    start = state._start
    if start is None:
        counts = _playout_tables()[2]
        xs, os = state.masks
        closed = state.closed
        boards = [_FULL if closed >> b & 1 else TERNARY[xs[b]] + 2 * TERNARY[os[b]] for b in range(18)]
        big0 = (*boards[:9], _FULL)
        big1 = (*boards[9:], _FULL)
        start = big0, big1, sum(counts[s] for s in boards), closed.bit_count()
        state._start = start
    return start


def playout(state: XtremeState, rng: random.Random) -> Outcome:
    """A uniformly random game from the (unfinished) ``state``; its outcome.

    The hot loop is written for CPython's specialising interpreter: locals only, list
    subscripts with small ints, literal constants (19683 is _WON), one pair unpacked per move,
    and no function call but the random number."""
    kids_x, kids_o, counts = _playout_tables()
    start0, start1, free, closed_count = _playout_start(state)
    # The small boards of big board 0 and of big board 1 by place; place 9 is a closed
    # sentinel, so "no correspondence" (the first move) is c = 9, which makes a free move.
    big0 = list(start0)
    big1 = list(start1)
    won_x, won_o = state.won
    # small boards won, a 9-bit mask per seat and big board, at index seat * 2 + k
    won = [won_x & FULL, won_x >> 9, won_o & FULL, won_o >> 9]
    mine, theirs = (kids_x, kids_o) if state.to_move == 0 else (kids_o, kids_x)
    last = state.last_move
    c = 9 if last is None else CELL_OF[last]
    bonus = state.bonus
    # getrandbits(30) % n rather than int(random() * n): no float and no int() call, about
    # 20% of a move's cost saved; the bias, under n / 2**30, is as invisible as the float's
    rand = rng.getrandbits
    wins = WINS
    while True:
        a = big0[c]
        b = big1[c]
        na = counts[a]
        n = na + counts[b]
        place = c
        free -= 1  # the running count of empty cells in open boards, for free moves
        if n:
            r = rand(30) % n
            if r < na:
                s, c = mine[a][r]
                big0[place] = s
                if s < 19683:  # the board stays open: the usual case, the other player moves
                    mine, theirs = theirs, mine
                    bonus = False
                    continue
                k = 0
            else:
                s, c = mine[b][r - na]
                big1[place] = s
                if s < 19683:
                    mine, theirs = theirs, mine
                    bonus = False
                    continue
                a = b
                k = 1
        else:
            # free move: uniform over every empty cell of every open board; walk to the r-th
            r = rand(30) % (free + 1)
            k = 0
            grid = big0
            for place in range(9):
                a = big0[place]
                if r < counts[a]:
                    break
                r -= counts[a]
            else:
                k = 1
                grid = big1
                for place in range(9):
                    a = big1[place]
                    if r < counts[a]:
                        break
                    r -= counts[a]
            s, c = mine[a][r]
            grid[place] = s
            if s < 19683:
                mine, theirs = theirs, mine
                bonus = False
                continue
        # the move closed its board (a is the board before it): its empty cells are gone
        closed_count += 1
        free -= counts[a] - 1
        if s == 19683:
            seat = 0 if mine is kids_x else 1
            i = seat * 2 + k
            w = won[i] | 1 << place
            won[i] = w
            if wins[w]:
                return WIN_OUTCOMES[seat]
            if closed_count == 18:
                break
            if not bonus:  # a bonus move: the same player again, and only once
                bonus = True
                continue
        elif closed_count == 18:
            break
        mine, theirs = theirs, mine
        bonus = False
    return Outcome(None, draw_points(won[0] | won[1] << 9, won[2] | won[3] << 9))
