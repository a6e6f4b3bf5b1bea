"""Heavy playouts: games played to the end by a policy that favours what the heuristics like.

Not a bot itself; hmcts uses it. Where a random playout picks every legal move alike, a heavy
playout picks each move with a probability proportional to its weight:

- uttt and xtreme: a move that wins the game is always played, and a move that stops the
  opponent winning a small board that would win it the game is played when there is no win;
  otherwise a cell's weight is ``1 + WIN_WEIGHT`` if it wins its small board, plus
  ``TWO_WEIGHT`` for each two-in-a-line with the third cell empty it makes, plus
  ``BLOCK_WEIGHT`` if it stops an opponent's two (the small-board patterns of
  ``bots.heuristics``). Small boards are base-3 numbers and each number's weighted moves come
  from a table, so a move costs a lookup, a random number and a bisection.
- tic-tac-toe: win if possible, else block, else a random cell.
- othello: a square's weight follows ``bots.othello_heuristics.square_weights`` for the board's size
  (corners most, the squares next to corners least).

Each function takes the state (not changed) and a ``random.Random``, and returns the
``Outcome`` of the finished game, as ``State.random_playout`` does.
"""

from __future__ import annotations

import random
from bisect import bisect
from collections.abc import Callable
from typing import Any

from arena.games import DRAW, WIN, Outcome, State
from arena.games.tictactoe import CELLS, FULL, WINS
from arena.games.xtreme_board import CELL_OF, WIN_OUTCOMES, draw_points
from bots.heuristics import THREATS, new_twos
from bots.othello_heuristics import OTHELLO_TABLES

#: cell weights of the uttt/xtreme playout policy (see the module docstring)
WIN_WEIGHT, TWO_WEIGHT, BLOCK_WEIGHT = 12, 2, 4

_POWERS = tuple(3**c for c in range(9))
#: TERNARY[mask]: the base-3 number with a 1 at each set bit of ``mask``
TERNARY = tuple(sum(_POWERS[c] for c in CELLS[mask]) for mask in range(512))
_CODES = 3**9
#: the code of a closed small board (its table entry is ``None``)
CLOSED = _CODES
#: what a move does to its small board, in place of the next code: wins it, fills it
_WON, _FILLED = -1, -2

_TABLES: tuple[list[Any], list[Any]] | None = None


def _entry(own: int, opp: int, seat: int, code: int) -> tuple[Any, ...]:
    """The weighted moves of ``seat`` (holding ``own``) on one open small board:
    ``(cells, cumulative weights, total, next codes, index of a winning cell or -1, index of
    a cell blocking an opponent's two or -1)``."""
    empty = FULL & ~(own | opp)
    threats = THREATS[opp] & empty
    cells = CELLS[empty]
    cumulative = []
    after = []
    total = 0
    win_at = block_at = -1
    for i, c in enumerate(cells):
        wins = WINS[own | 1 << c]
        blocks = threats >> c & 1
        weight = 1 + WIN_WEIGHT * wins + TWO_WEIGHT * new_twos(own, opp, c) + BLOCK_WEIGHT * blocks
        total += weight
        cumulative.append(total)
        if wins:
            after.append(_WON)
            if win_at < 0:
                win_at = i
        elif (own | opp | 1 << c) == FULL:
            after.append(_FILLED)
        else:
            after.append(code + (seat + 1) * _POWERS[c])
        if blocks and block_at < 0:
            block_at = i
    return (cells, tuple(cumulative), total, tuple(after), win_at, block_at)


def ultimate_tables() -> tuple[list[Any], list[Any]]:
    """Per seat, a list indexed by a small board's base-3 code (``CLOSED`` for a closed board):
    that seat's weighted moves there (see ``_entry``), or ``None`` for a closed board. Built on
    first use (a few tenths of a second)."""
    global _TABLES
    if _TABLES is None:
        tables: tuple[list[Any], list[Any]] = ([None] * (_CODES + 1), [None] * (_CODES + 1))
        for x in range(512):
            if WINS[x]:
                continue
            rest = FULL & ~x
            o = rest
            while True:  # every o inside the cells x leaves empty
                if not WINS[o] and x | o != FULL:
                    code = TERNARY[x] + 2 * TERNARY[o]
                    tables[0][code] = _entry(x, o, 0, code)
                    tables[1][code] = _entry(o, x, 1, code)
                if not o:
                    break
                o = (o - 1) & rest
        _TABLES = tables
    return _TABLES


def _codes(state: Any) -> list[int]:
    """Each small board's base-3 code, ``CLOSED`` for a closed one."""
    codes = []
    for x, o in zip(*state.masks):
        closed = WINS[x] or WINS[o] or x | o == FULL
        codes.append(CLOSED if closed else TERNARY[x] + 2 * TERNARY[o])
    return codes


def _won(state: Any) -> list[int]:
    """Per seat, the mask of the small boards it has won (bit = board index)."""
    won = [0, 0]
    for i, (x, o) in enumerate(zip(*state.masks)):
        if WINS[x]:
            won[0] |= 1 << i
        elif WINS[o]:
            won[1] |= 1 << i
    return won


def uttt_heavy(state: Any, rng: random.Random, trace: list[int] | None = None) -> Outcome:
    """A heavy playout of ultimate tic-tac-toe from ``state``; ``trace`` (if given) gets the
    moves played, except a game-winning last move (so tests can replay them)."""
    if state.is_terminal:
        return state.outcome
    tables = ultimate_tables()
    codes = _codes(state)
    won = _won(state)
    open_count = sum(code != CLOSED for code in codes)
    seat = state.to_move
    forced = state.forced_board
    rand = rng.random
    wins = WINS
    tiebreak = state.game.params.get("tiebreak") == "boards"
    while True:
        table = tables[seat]
        if forced is not None:
            board = forced
            entry = table[codes[board]]
            if entry[4] >= 0 and wins[won[seat] | 1 << board]:
                return WIN[seat]
            i = entry[5] if entry[5] >= 0 and wins[won[1 - seat] | 1 << board] else bisect(entry[1], rand() * entry[2])
        else:
            total = 0
            for board in range(9):
                entry = table[codes[board]]
                if entry is not None:
                    if entry[4] >= 0 and wins[won[seat] | 1 << board]:
                        return WIN[seat]
                    total += entry[2]
            r = rand() * total
            for board in range(9):
                entry = table[codes[board]]
                if entry is not None:
                    if r < entry[2]:
                        break
                    r -= entry[2]
            i = bisect(entry[1], r)  # type: ignore[index]
        cell = entry[0][i]  # type: ignore[index]
        after = entry[3][i]  # type: ignore[index]
        if trace is not None:
            trace.append(board * 9 + cell)
        if after >= 0:
            codes[board] = after
        else:
            codes[board] = CLOSED
            open_count -= 1
            if after == _WON:
                mine = won[seat] | 1 << board
                won[seat] = mine
                if wins[mine]:
                    return WIN[seat]
            if not open_count:
                if tiebreak:
                    x, o = won[0].bit_count(), won[1].bit_count()
                    if x != o:
                        return WIN[0 if x > o else 1]
                return DRAW
        forced = None if codes[cell] == CLOSED else cell
        seat = 1 - seat


def xtreme_heavy(state: Any, rng: random.Random, trace: list[int] | None = None) -> Outcome:
    """A heavy playout of Xtreme tic-tac-toe from ``state`` (bonus moves included); ``trace``
    (if given) gets the moves played as ``(board, cell)`` codes ``board * 9 + cell``, except a
    game-winning last move found by the win check."""
    if state.is_terminal:
        return state.outcome
    tables = ultimate_tables()
    codes = _codes(state)
    won_x, won_o = state.won
    # won[seat][k]: 9-bit mask of the small boards seat has won on big board k
    won = [[won_x & FULL, won_x >> 9], [won_o & FULL, won_o >> 9]]
    closed_count = state.closed.bit_count()
    seat = state.to_move
    bonus = state.bonus
    last = state.last_move
    target = None if last is None else CELL_OF[last]
    rand = rng.random
    wins = WINS
    candidates: list[int] = []
    while True:
        table = tables[seat]
        mine, theirs = won[seat], won[1 - seat]
        candidates.clear()
        if target is not None:
            if codes[target] != CLOSED:
                candidates.append(target)
            if codes[target + 9] != CLOSED:
                candidates.append(target + 9)
        if not candidates:
            candidates.extend(b for b in range(18) if codes[b] != CLOSED)
        total = 0
        block = None
        for board in candidates:
            entry = table[codes[board]]
            k, place = (0, board) if board < 9 else (1, board - 9)
            if entry[4] >= 0 and wins[mine[k] | 1 << place]:
                return WIN_OUTCOMES[seat]
            if entry[5] >= 0 and block is None and wins[theirs[k] | 1 << place]:
                block = board
            total += entry[2]
        if block is not None:
            board = block
            entry = table[codes[board]]
            i = entry[5]
        else:
            r = rand() * total
            for board in candidates:
                entry = table[codes[board]]
                if r < entry[2]:
                    break
                r -= entry[2]
            i = bisect(entry[1], r)
        cell = entry[0][i]
        after = entry[3][i]
        target = cell
        if trace is not None:
            trace.append(board * 9 + cell)
        if after >= 0:
            codes[board] = after
        else:
            codes[board] = CLOSED
            closed_count += 1
            if after == _WON:
                k, place = (0, board) if board < 9 else (1, board - 9)
                mask = mine[k] | 1 << place
                mine[k] = mask
                if wins[mask]:
                    return WIN_OUTCOMES[seat]
                if closed_count == 18:
                    break
                if not bonus:  # a small board won by a normal move: the same player again
                    bonus = True
                    continue
            elif closed_count == 18:
                break
        bonus = False
        seat = 1 - seat
    return Outcome(None, draw_points(won[0][0] | won[0][1] << 9, won[1][0] | won[1][1] << 9))


def tictactoe_heavy(state: Any, rng: random.Random, trace: list[int] | None = None) -> Outcome:
    """A tic-tac-toe playout that wins when it can and blocks when it must; ``trace`` (if
    given) gets the moves played."""
    x, o = state.x, state.o
    seat = state.to_move
    while True:
        if WINS[x]:
            return WIN[0]
        if WINS[o]:
            return WIN[1]
        empty = FULL & ~(x | o)
        if not empty:
            return DRAW
        own, opp = (x, o) if seat == 0 else (o, x)
        choice = THREATS[own] & empty or THREATS[opp] & empty or empty
        cells = CELLS[choice]
        cell = cells[int(rng.random() * len(cells))]
        if trace is not None:
            trace.append(cell)
        bit = 1 << cell
        if seat == 0:
            x |= bit
        else:
            o |= bit
        seat = 1 - seat


#: othello playout weights per board size and square: the square weights shifted and squeezed
#: to 1..40
OTHELLO_WEIGHTS = {
    size: tuple(max(1, (w + 60) // 4) for w in tables.weights) for size, tables in OTHELLO_TABLES.items()
}


def othello_heavy(state: Any, rng: random.Random, trace: list[int] | None = None) -> Outcome:
    """An othello playout whose moves are drawn in proportion to their square weights (the
    free opening's centre squares weigh alike); ``trace`` (if given) gets the moves played,
    passes included."""
    game = state.game
    geometry = game.geometry
    flips, legal_mask = geometry.flips, geometry.legal_mask
    opening = game.opening_squares
    black, white = state.black, state.white
    own, opp = (white, black) if state.to_move else (black, white)
    seat = state.to_move
    weights = OTHELLO_WEIGHTS[geometry.size]
    rand = rng.random
    passes = 0
    squares: list[int] = []
    cumulative: list[int] = []
    while passes < 2:
        free = opening & ~(own | opp)  # the free opening fills the centre first, flipping nothing
        legal = free or legal_mask(own, opp)
        if not legal:
            passes += 1
            if trace is not None and passes == 1 and legal_mask(opp, own):
                trace.append(geometry.pass_move)
        else:
            passes = 0
            squares.clear()
            cumulative.clear()
            total = 0
            while legal:
                low = legal & -legal
                square = low.bit_length() - 1
                total += weights[square]
                squares.append(square)
                cumulative.append(total)
                legal ^= low
            square = squares[bisect(cumulative, rand() * total)]
            if trace is not None:
                trace.append(square)
            flipped = 0 if free else flips(own, opp, square)
            own |= flipped | 1 << square
            opp ^= flipped
        own, opp = opp, own
        seat = 1 - seat
    mine, theirs = (own, opp) if seat == 0 else (opp, own)
    return game.result(mine.bit_count(), theirs.bit_count())


HEAVY_PLAYOUTS: dict[str, Callable[[Any, random.Random], Outcome]] = {
    "tictactoe": tictactoe_heavy,
    "uttt": uttt_heavy,
    "xtreme": xtreme_heavy,
    "othello": othello_heavy,
}


def heavy_playout(state: State, rng: random.Random) -> Outcome:
    """A heavy playout of ``state``'s game from ``state``."""
    return HEAVY_PLAYOUTS[state.game.name](state, rng)


def warm_up() -> None:
    """Build the playout tables now (call from ``make_bot``, before the clock runs)."""
    ultimate_tables()
