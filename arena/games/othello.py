"""Othello (reversi) on an 8x8 board.

Moves are ints: a square is ``row * 8 + col`` (``a1`` = row 0, column 0 = 0, the top-left
corner; ``h8`` = 63), and ``PASS`` (64) is the pass a player with no placement must play. Text
notation is the column letter then the row number, ``a1``-``h8``, or ``pass``.

Positions are two 64-bit bitboards (bit ``row * 8 + col``), so a state is a few ints and
``play`` is a cheap copy. ``flips`` and ``legal_mask`` work on bitboards and are public for bots
(mobility, move ordering). Random playouts run on a separate, mutable 10x10 mailbox board: in
pure Python, testing a few candidate squares by walking lists beats computing the full legal
set with bit-parallel shifts (see ``OthelloState.random_playout``).
"""

from __future__ import annotations

import random
from typing import Any

from arena.games.base import DRAW, WIN, Game, IllegalMoveError, Move, Outcome, State

#: the pass, the only legal move of a player who cannot place a disc
PASS = 64

FULL = (1 << 64) - 1
#: every square except columns a and h: a run of opponent discs sideways or diagonally never
#: crosses them, which stops shifted bitboards from wrapping round from one row to the next
_INNER_COLUMNS = 0x7E7E7E7E7E7E7E7E
_COLUMN_A = 0x0101010101010101
_COLUMN_H = 0x8080808080808080
_START_BLACK = 1 << 28 | 1 << 35  # e4 (3, 4) and d5 (4, 3)
_START_WHITE = 1 << 27 | 1 << 36  # d4 (3, 3) and e5 (4, 4)
_PASS_BIT = 1 << PASS
_COLUMNS = "abcdefgh"
_DIRECTIONS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))


def _rays() -> tuple[list[tuple[int, ...]], list[tuple[int, ...]]]:
    """Per square, the bitboards of its rays of two or more squares, split by whether the ray
    runs towards higher bits (its nearest square is its lowest bit) or lower ones."""
    up: list[tuple[int, ...]] = []
    down: list[tuple[int, ...]] = []
    for square in range(64):
        row, col = divmod(square, 8)
        rising, falling = [], []
        for drow, dcol in _DIRECTIONS:
            ray, r, c = 0, row + drow, col + dcol
            while 0 <= r < 8 and 0 <= c < 8:
                ray |= 1 << (r * 8 + c)
                r, c = r + drow, c + dcol
            if ray.bit_count() >= 2:  # a flip needs an opponent disc and an own one beyond it
                (rising if drow * 8 + dcol > 0 else falling).append(ray)
        up.append(tuple(rising))
        down.append(tuple(falling))
    return up, down


_UP_RAYS, _DOWN_RAYS = _rays()


def flips(own: int, opp: int, move: int) -> int:
    """The bitboard of ``opp`` discs that placing at square ``move`` (0-63) for ``own`` flips;
    0 if the square is taken or the placement flips nothing (so it is not legal)."""
    if (own | opp) >> move & 1:
        return 0
    flipped = 0
    not_opp = ~opp
    for ray in _UP_RAYS[move]:
        # the nearest square of the ray that is not the opponent's is its lowest such bit;
        # if it is ours, everything on the ray before it is a run of opponent discs
        blockers = ray & not_opp
        first = blockers & -blockers
        if first & own:
            flipped |= ray & (first - 1)
    for ray in _DOWN_RAYS[move]:
        # mirrored: the nearest blocker is the highest bit, and the run lies above it
        blockers = ray & not_opp
        if blockers:
            first = 1 << (blockers.bit_length() - 1)
            if first & own:
                flipped |= ray & -(first << 1)
    return flipped


def legal_mask(own: int, opp: int) -> int:
    """The bitboard of squares where ``own`` may place a disc against ``opp`` (0 if none).

    For each of the eight directions, a run of opponent discs is grown from our discs one
    shift at a time (at most six long), and the empty square just past it is a placement.
    """
    empty = ~(own | opp) & FULL
    inner = opp & _INNER_COLUMNS
    moves = 0
    for shift, runs in ((1, inner), (7, inner), (8, opp), (9, inner)):
        x = own << shift & runs
        x |= x << shift & runs
        x |= x << shift & runs
        x |= x << shift & runs
        x |= x << shift & runs
        x |= x << shift & runs
        moves |= x << shift
        x = own >> shift & runs
        x |= x >> shift & runs
        x |= x >> shift & runs
        x |= x >> shift & runs
        x |= x >> shift & runs
        x |= x >> shift & runs
        moves |= x >> shift
    return moves & empty


def _squares(mask: int) -> list[int]:
    """The indexes of the set bits of ``mask``, increasing."""
    squares = []
    while mask:
        low = mask & -mask
        squares.append(low.bit_length() - 1)
        mask ^= low
    return squares


# The playout board: a 10x10 mailbox, the 8x8 board inside a border, so walking a ray stops on
# the border by itself, with no bounds test.
_BORDER, _EMPTY, _FRONTIER = 3, 0, 4  # discs are 1 (black) and 2 (white)
#: mailbox index of each square
_MAILBOX = tuple((sq // 8 + 1) * 10 + sq % 8 + 1 for sq in range(64))
_BLANK_BOARD = tuple(_EMPTY if i in _MAILBOX else _BORDER for i in range(100))
_STEPS = (-11, -10, -9, -1, 1, 9, 10, 11)
#: per mailbox index: the steps whose ray holds two squares or more (the others cannot flip)
_RAY_STEPS = tuple(
    tuple(s for s in _STEPS if _BLANK_BOARD[i + s] == _EMPTY and _BLANK_BOARD[i + 2 * s] == _EMPTY)
    if _BLANK_BOARD[i] == _EMPTY else ()
    for i in range(100)
)  # fmt: skip
#: per mailbox index: the mailbox indexes of its neighbours on the board
_NEIGHBOURS = tuple(
    tuple(i + s for s in _STEPS if _BLANK_BOARD[i + s] == _EMPTY)
    if _BLANK_BOARD[i] == _EMPTY else ()
    for i in range(100)
)  # fmt: skip


def _neighbours(mask: int) -> int:
    """The squares next to (but not in) some square of ``mask``."""
    not_a = mask & ~_COLUMN_A  # discs with a west neighbour
    not_h = mask & ~_COLUMN_H  # discs with an east neighbour
    near = mask << 8 | mask >> 8 | not_h << 1 | not_h << 9 | not_h >> 7
    near |= not_a >> 1 | not_a << 7 | not_a >> 9
    return near & FULL & ~mask


class Othello(Game):
    """Othello: bracket lines of opponent discs to flip them; the most discs at the end wins."""

    name = "othello"
    NOTATION = (
        "a move is a square, column letter a-h then row number 1-8, a1 the top-left corner "
        "(e.g. 'd3'), or 'pass' when there is no placement"
    )

    def initial_state(self) -> OthelloState:
        return OthelloState(self, _START_BLACK, _START_WHITE, 0, 0, None)

    def parse_move(self, text: str) -> Move:
        stripped = text.strip().lower() if isinstance(text, str) else ""
        if stripped == "pass":
            return PASS
        if len(stripped) != 2 or stripped[0] not in _COLUMNS or stripped[1] not in "12345678":
            raise self.syntax_error(text)
        return (int(stripped[1]) - 1) * 8 + _COLUMNS.index(stripped[0])

    def format_move(self, move: Move) -> str:
        if move == PASS:
            return "pass"
        if type(move) is not int or not 0 <= move < 64:
            raise ValueError(f"{move!r} is not an othello move (0-63 or {PASS} for the pass)")
        return f"{_COLUMNS[move % 8]}{move // 8 + 1}"


class OthelloState(State):
    """An othello position.

    Read-only members for bots: ``black`` and ``white``, each a 64-bit bitboard (bit
    ``row * 8 + col``); ``discs(seat)`` and ``count(seat)``, with seat 0 black.
    """

    __slots__ = ("game", "black", "white", "to_move", "ply", "last_move", "_legal")

    def __init__(
        self, game: Othello, black: int, white: int, to_move: int, ply: int, last_move: Move | None
    ) -> None:
        self.game = game
        self.black = black
        self.white = white
        self.to_move = to_move
        self.ply = ply
        self.last_move = last_move
        #: the legal moves as a bitmask (bit 64 = the pass; 0 = game over), or -1 until needed
        self._legal = -1

    def discs(self, seat: int) -> int:
        """The bitboard of ``seat``'s discs (seat 0 is black)."""
        return self.white if seat else self.black

    def count(self, seat: int) -> int:
        """The number of ``seat``'s discs."""
        return (self.white if seat else self.black).bit_count()

    def _legal_bits(self) -> int:
        legal = self._legal
        if legal < 0:
            own, opp = (self.white, self.black) if self.to_move else (self.black, self.white)
            legal = legal_mask(own, opp)
            if not legal and legal_mask(opp, own):
                legal = _PASS_BIT
            self._legal = legal
        return legal

    def legal_moves(self) -> list[Move]:
        return _squares(self._legal_bits())

    def is_legal(self, move: Move) -> bool:
        return type(move) is int and 0 <= move <= PASS and bool(self._legal_bits() >> move & 1)

    def play(self, move: Move) -> OthelloState:
        if type(move) is int and 0 <= move < 64:
            if self.to_move:
                flipped = flips(self.white, self.black, move)
                if flipped:
                    return OthelloState(
                        self.game, self.black ^ flipped, self.white | flipped | 1 << move,
                        0, self.ply + 1, move,
                    )  # fmt: skip
            else:
                flipped = flips(self.black, self.white, move)
                if flipped:
                    return OthelloState(
                        self.game, self.black | flipped | 1 << move, self.white ^ flipped,
                        1, self.ply + 1, move,
                    )  # fmt: skip
        elif move == PASS and type(move) is int and self._legal_bits() == _PASS_BIT:
            return OthelloState(
                self.game, self.black, self.white, 1 - self.to_move, self.ply + 1, PASS
            )
        raise IllegalMoveError(self._why_illegal(move))

    def _why_illegal(self, move: object) -> str:
        legal = self._legal_bits()
        if type(move) is not int or not 0 <= move <= PASS:
            return (
                f"{move!r} is illegal in othello: there is no such square "
                f"(squares are 0-63, {PASS} is the pass)"
            )
        text = self.game.format_move(move)
        player = ("black", "white")[self.to_move]
        if not legal:
            why = "the game is over"
        elif move == PASS:
            why = f"{player} cannot pass while a move exists"
        elif (self.black | self.white) >> move & 1:
            why = f"{text} is occupied"
        elif legal == _PASS_BIT:
            why = f"{player} has no placement and must pass"
        else:
            why = f"{text} flips nothing"
        return f"{text} is illegal in othello: {why}"

    @property
    def is_terminal(self) -> bool:
        return not self._legal_bits()

    @property
    def outcome(self) -> Outcome | None:
        if self._legal_bits():
            return None
        black, white = self.black.bit_count(), self.white.bit_count()
        return WIN[0] if black > white else WIN[1] if white > black else DRAW

    def random_playout(self, rng: random.Random) -> Outcome:
        """Uniformly random legal moves to the end, on a throw-away mailbox board.

        At each turn the candidate squares (empty squares next to a disc, kept in a list as
        the game goes) are drawn one at a time without replacement (a partial Fisher-Yates
        shuffle) and each is tried in turn; the first that flips something is played. Every
        legal move is a candidate and the draw order is a uniformly random permutation, so the
        move played is uniform over the legal moves, yet we usually test only a few squares
        instead of generating them all. A turn where no candidate flips is a pass; two in a
        row end the game.
        """
        board = list(_BLANK_BOARD)
        mailbox = _MAILBOX
        for square in _squares(self.black):
            board[mailbox[square]] = 1
        for square in _squares(self.white):
            board[mailbox[square]] = 2
        frontier = [mailbox[square] for square in _squares(_neighbours(self.black | self.white))]
        for index in frontier:
            board[index] = _FRONTIER
        ray_steps, neighbours = _RAY_STEPS, _NEIGHBOURS
        rand = rng.random
        me, opp = (2, 1) if self.to_move else (1, 2)
        passes = 0
        while passes < 2:
            n = len(frontier)
            i = 0
            while i < n:
                j = i + int(rand() * (n - i))
                square = frontier[j]
                frontier[j] = frontier[i]
                frontier[i] = square
                flipped = False
                for step in ray_steps[square]:
                    at = square + step
                    if board[at] == opp:
                        at += step
                        while board[at] == opp:
                            at += step
                        if board[at] == me:
                            # flipping right away is safe: the other rays from this square
                            # do not cross this one
                            at -= step
                            while at != square:
                                board[at] = me
                                at -= step
                            flipped = True
                if flipped:
                    board[square] = me
                    frontier[i] = frontier[-1]
                    frontier.pop()
                    for near in neighbours[square]:
                        if board[near] == _EMPTY:
                            board[near] = _FRONTIER
                            frontier.append(near)
                    break
                i += 1
            passes = passes + 1 if i == n else 0
            me, opp = opp, me
        black, white = board.count(1), board.count(2)
        return WIN[0] if black > white else WIN[1] if white > black else DRAW

    def cells(self) -> str:
        """The board as 64 characters, row by row from a1: ``b`` black, ``w`` white, ``.`` empty."""
        black, white = self.black, self.white
        return "".join(
            "b" if black >> i & 1 else "w" if white >> i & 1 else "." for i in range(64)
        )

    def render(self) -> str:
        """The board with column letters and row numbers: ``x`` black, ``o`` white, ``*`` a
        legal placement; then the disc counts and who is to move."""
        legal = self._legal_bits()
        cells = self.cells()
        lines = ["  a b c d e f g h"]
        for row in range(8):
            marks = []
            for col in range(8):
                square = row * 8 + col
                cell = cells[square]
                marks.append("x" if cell == "b" else "o" if cell == "w" else
                             "*" if legal >> square & 1 else ".")  # fmt: skip
            lines.append(f"{row + 1} {' '.join(marks)}")
        counts = f"black (x) {self.count(0)}, white (o) {self.count(1)}"
        outcome = self.outcome
        if outcome is None:
            status = f"{('black', 'white')[self.to_move]} to move"
            if legal == _PASS_BIT:
                status += " (must pass)"
        elif outcome.winner is None:
            status = "game over: draw"
        else:
            status = f"game over: {('black', 'white')[outcome.winner]} wins"
        return "\n".join(lines + [f"{counts}; {status}"])

    def board_data(self) -> dict[str, Any]:
        """``cells``: 64 characters row by row from a1 (index ``row * 8 + col``), ``b`` black,
        ``w`` white, ``.`` empty; ``black`` and ``white``: the disc counts."""
        return {"cells": self.cells(), "black": self.count(0), "white": self.count(1)}
