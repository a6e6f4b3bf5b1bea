"""Othello (reversi) on a 6x6, 8x8 (the default) or 10x10 board.

Parameters: ``size`` (6, 8 or 10); ``opening``: ``standard`` (the four centre discs are set,
white on d4 and e5, black on e4 and d5 on 8x8, the same in the centre of the other sizes) or
``free`` (Reversi's original rule: the board starts empty and the first four moves each place
a disc of the mover's colour on a free centre square, flipping nothing); ``scoring``: ``count``
(the most discs wins) or ``wof`` (World Othello Federation: the same winner, and the outcome's
points are the disc counts with the empty squares given to the winner, split on a draw).

Moves are ints: a square is ``row * size + col`` (``a1`` = row 0, column 0 = 0, the top-left
corner; on 8x8 ``h8`` = 63), and the pass a player with no placement must play is
``size * size`` (``PASS`` = 64 on 8x8). Text notation is the column letter then the row number,
``a1``-``f6``, ``a1``-``h8`` or ``a1``-``j10``, or ``pass``.

Positions are two bitboards (bit ``row * size + col``; Python ints, so 10x10's 100 bits are no
different), so a state is a few ints and ``play`` is a cheap copy. Each size's masks and tables
are made once, in its ``Geometry``, whose ``flips`` and ``legal_mask`` are public for bots
(mobility, move ordering); ``flips``, ``legal_mask`` and ``PASS`` at module level are the 8x8
board's. Random playouts run on a separate, mutable mailbox board: in pure Python, testing a
few candidate squares by walking lists beats computing the full legal set with bit-parallel
shifts (see ``OthelloState.random_playout``).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar

from arena.games.base import DRAW, WIN, Game, IllegalMoveError, Move, MoveSyntaxError, Outcome, State

SIZES = (6, 8, 10)
_COLUMNS = "abcdefghij"
#: row number text -> row index, for every size
_ROWS = {str(row + 1): row for row in range(max(SIZES))}
_DIRECTIONS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))
# The playout board is a mailbox: the board inside a one-square border, so walking a ray stops
# on the border by itself, with no bounds test.
_BORDER, _EMPTY, _FRONTIER = 3, 0, 4  # discs are 1 (black) and 2 (white)


class Geometry:
    """The fixed tables of one board size: masks, rays, the start and the playout board.

    ``size``; ``pass_move`` (``size * size``) and ``pass_bit``; ``full`` (every square);
    ``centre`` (the four centre squares); ``start_black`` and ``start_white`` (the standard
    opening's discs); ``flips`` and ``legal_mask`` for bots.
    """

    def __init__(self, size: int) -> None:
        n = size
        self.size = n
        self.pass_move = n * n
        self.pass_bit = 1 << n * n
        self.full = (1 << n * n) - 1
        column_a = sum(1 << row * n for row in range(n))
        self._not_first_column = self.full & ~column_a
        self._not_last_column = self.full & ~(column_a << n - 1)
        #: every square except the first and last columns: a run of opponent discs sideways or
        #: diagonally never crosses them, which stops shifted bitboards from wrapping round from
        #: one row to the next
        self._inner_columns = self._not_first_column & self._not_last_column
        #: whether a run of opponent discs can be longer than 7 (it is at most ``size - 2``)
        self._longer_runs = n - 2 > 7
        top_left = (n // 2 - 1) * (n + 1)  # of the centre: d4 on 8x8
        self.start_black = 1 << top_left + 1 | 1 << top_left + n  # e4 and d5 on 8x8
        self.start_white = 1 << top_left | 1 << top_left + n + 1  # d4 and e5 on 8x8
        self.centre = self.start_black | self.start_white
        self._up_rays, self._down_rays = self._rays()
        # the playout board, (size + 2) squared cells
        width = n + 2
        self.mailbox = tuple((square // n + 1) * width + square % n + 1 for square in range(n * n))
        self.blank = tuple(_EMPTY if i in self.mailbox else _BORDER for i in range(width * width))
        steps = (-width - 1, -width, -width + 1, -1, 1, width - 1, width, width + 1)
        #: per mailbox index: the steps whose ray holds two squares or more (the others cannot flip)
        self.ray_steps = tuple(
            tuple(s for s in steps if self.blank[i + s] == _EMPTY and self.blank[i + 2 * s] == _EMPTY)
            if cell == _EMPTY
            else ()
            for i, cell in enumerate(self.blank)
        )
        #: per mailbox index: the mailbox indexes of its neighbours on the board
        self.neighbours = tuple(
            tuple(i + s for s in steps if self.blank[i + s] == _EMPTY) if cell == _EMPTY else ()
            for i, cell in enumerate(self.blank)
        )

    def _rays(self) -> tuple[list[tuple[int, ...]], list[tuple[int, ...]]]:
        """Per square, the bitboards of its rays of two or more squares, split by whether the ray
        runs towards higher bits (its nearest square is its lowest bit) or lower ones."""
        n = self.size
        up: list[tuple[int, ...]] = []
        down: list[tuple[int, ...]] = []
        for square in range(n * n):
            row, col = divmod(square, n)
            rising: list[int] = []
            falling: list[int] = []
            for drow, dcol in _DIRECTIONS:
                ray, r, c = 0, row + drow, col + dcol
                while 0 <= r < n and 0 <= c < n:
                    ray |= 1 << (r * n + c)
                    r, c = r + drow, c + dcol
                if ray.bit_count() >= 2:  # a flip needs an opponent disc and an own one beyond it
                    (rising if drow * n + dcol > 0 else falling).append(ray)
            up.append(tuple(rising))
            down.append(tuple(falling))
        return up, down

    def flips(self, own: int, opp: int, move: int) -> int:
        """The bitboard of ``opp`` discs that placing at square ``move`` for ``own`` flips; 0 if
        the square is taken or the placement flips nothing."""
        if (own | opp) >> move & 1:
            return 0
        flipped = 0
        not_opp = ~opp
        for ray in self._up_rays[move]:
            # the nearest square of the ray that is not the opponent's is its lowest such bit;
            # if it is ours, everything on the ray before it is a run of opponent discs
            blockers = ray & not_opp
            first = blockers & -blockers
            if first & own:
                flipped |= ray & (first - 1)
        for ray in self._down_rays[move]:
            # mirrored: the nearest blocker is the highest bit, and the run lies above it
            blockers = ray & not_opp
            if blockers:
                first = 1 << (blockers.bit_length() - 1)
                if first & own:
                    flipped |= ray & -(first << 1)
        return flipped

    def legal_mask(self, own: int, opp: int) -> int:
        """The bitboard of squares where ``own`` may place a disc against ``opp`` (0 if none).

        For each of the eight directions, the runs of opponent discs next to our discs are
        followed by doubling (a Kogge-Stone fill): steps of 1, 2 and 4 discs reach runs of up to
        7, as long as a run can be on 8x8; 10x10 takes a step of 8 more. The empty square just
        past a run is a placement.
        """
        empty = ~(own | opp) & self.full
        inner = opp & self._inner_columns
        longer_runs = self._longer_runs
        moves = 0
        n = self.size
        for shift, runs in ((1, inner), (n - 1, inner), (n, opp), (n + 1, inner)):
            double = shift + shift
            quadruple = double + double
            # towards higher bits: ``reach`` holds our discs and the run discs found so far,
            # ``chain`` the run discs with 1, then 3, then 7 more run discs right behind them
            reach = own | runs & own << shift
            chain = runs & runs << shift
            reach |= chain & reach << double
            chain &= chain << double
            reach |= chain & reach << quadruple
            if longer_runs:
                chain &= chain << quadruple
                reach |= chain & reach << quadruple + quadruple
            moves |= (reach & runs) << shift
            # towards lower bits, mirrored
            reach = own | runs & own >> shift
            chain = runs & runs >> shift
            reach |= chain & reach >> double
            chain &= chain >> double
            reach |= chain & reach >> quadruple
            if longer_runs:
                chain &= chain >> quadruple
                reach |= chain & reach >> quadruple + quadruple
            moves |= (reach & runs) >> shift
        return moves & empty

    def neighbours_of(self, mask: int) -> int:
        """The squares next to (but not in) some square of ``mask``."""
        n = self.size
        west = mask & self._not_first_column  # squares with a west neighbour
        east = mask & self._not_last_column  # squares with an east neighbour
        near = mask << n | mask >> n | east << 1 | east << n + 1 | east >> n - 1
        near |= west >> 1 | west << n - 1 | west >> n + 1
        return near & self.full & ~mask


GEOMETRIES = {size: Geometry(size) for size in SIZES}
#: the standard 8x8 board's pass and helpers, for bots written for it
PASS = GEOMETRIES[8].pass_move
flips = GEOMETRIES[8].flips
legal_mask = GEOMETRIES[8].legal_mask


def _squares(mask: int) -> list[int]:
    """The indexes of the set bits of ``mask``, increasing."""
    squares = []
    while mask:
        low = mask & -mask
        squares.append(low.bit_length() - 1)
        mask ^= low
    return squares


class Othello(Game):
    """Othello: bracket lines of opponent discs to flip them; the most discs at the end wins."""

    name = "othello"
    PROTOCOL = 1
    SEATS = ("black", "white")
    MARKS = "bw"
    PARAMETERS: ClassVar[Mapping[str, tuple[Any, tuple[Any, ...]]]] = {
        "size": (8, SIZES),
        "opening": ("standard", ("standard", "free")),
        "scoring": ("count", ("count", "wof")),
    }

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.size: int = self.params["size"]
        self.geometry = GEOMETRIES[self.size]
        #: the squares the free opening fills first (0 in the standard opening, which starts with
        #: them taken): while one is empty, the empty ones are the only legal moves
        self.opening_squares = self.geometry.centre if self.params["opening"] == "free" else 0
        self.wof = self.params["scoring"] == "wof"
        last = _COLUMNS[self.size - 1]
        self.NOTATION = (
            f"a move is a square, column letter a-{last} then row number 1-{self.size}, a1 the "
            "top-left corner (e.g. 'd3'), or 'pass' when there is no placement"
        )

    def max_length(self) -> int:
        """Every square filled, and a pass before each placement at the most."""
        return 2 * self.size * self.size

    def initial_state(self) -> OthelloState:
        if self.opening_squares:
            return OthelloState(self, 0, 0, 0, 0, None)
        return OthelloState(self, self.geometry.start_black, self.geometry.start_white, 0, 0, None)

    def parse_move(self, text: str) -> Move:
        stripped = text.strip().lower() if isinstance(text, str) else ""
        if stripped == "pass":
            return self.geometry.pass_move
        col = _COLUMNS.find(stripped[0]) if stripped else -1
        row = _ROWS.get(stripped[1:])
        if col < 0 or row is None:
            raise self.syntax_error(text)
        n = self.size
        if col >= n or row >= n:
            raise MoveSyntaxError(f"{text!r} is off the {n}x{n} othello board; {self.NOTATION}")
        return row * n + col

    def format_move(self, move: Move) -> str:
        pass_move = self.geometry.pass_move
        if move == pass_move:
            return "pass"
        if type(move) is not int or not 0 <= move < pass_move:
            raise ValueError(f"{move!r} is not an othello move (0-{pass_move - 1} or {pass_move} for the pass)")
        return f"{_COLUMNS[move % self.size]}{move // self.size + 1}"

    def result(self, black: int, white: int) -> Outcome:
        """The outcome of a finished game with ``black`` and ``white`` discs on the board: the
        most discs wins; under ``wof`` the points are the counts with the empty squares added
        to the winner's (half to each on a draw)."""
        if not self.wof:
            return WIN[0] if black > white else WIN[1] if white > black else DRAW
        empty = self.size * self.size - black - white
        if black > white:
            return Outcome(0, (black + empty, white))
        if white > black:
            return Outcome(1, (black, white + empty))
        return Outcome(None, (black + empty // 2, white + empty // 2))


class OthelloState(State):
    """An othello position.

    Read-only members for bots: ``black`` and ``white``, each a bitboard (bit
    ``row * size + col``); ``discs(seat)`` and ``count(seat)``, with seat 0 black.
    """

    game: Othello

    __slots__ = ("_legal", "black", "game", "last_move", "ply", "to_move", "white")

    def __init__(self, game: Othello, black: int, white: int, to_move: int, ply: int, last_move: Move | None) -> None:
        self.game = game
        self.black = black
        self.white = white
        self.to_move = to_move
        self.ply = ply
        self.last_move = last_move
        #: the legal moves as a bitmask (bit ``size * size`` is the pass; 0 = game over), or -1
        #: until needed
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
            game = self.game
            own, opp = (self.white, self.black) if self.to_move else (self.black, self.white)
            opening = game.opening_squares
            legal = opening & ~(own | opp) if opening else 0
            if not legal:
                geometry = game.geometry
                legal = geometry.legal_mask(own, opp)
                if not legal and geometry.legal_mask(opp, own):
                    legal = geometry.pass_bit
            self._legal = legal
        return legal

    def legal_moves(self) -> list[Move]:
        return _squares(self._legal_bits())

    def is_legal(self, move: Move) -> bool:
        return type(move) is int and 0 <= move <= self.game.geometry.pass_move and bool(self._legal_bits() >> move & 1)

    def play(self, move: Move) -> OthelloState:
        game = self.game
        geometry = game.geometry
        black, white = self.black, self.white
        if type(move) is int and 0 <= move < geometry.pass_move:
            opening = game.opening_squares  # 0 in the standard opening: the test is then cheap
            if opening and opening & ~(black | white):
                if self._legal_bits() >> move & 1:  # a free-opening placement: it flips nothing
                    if self.to_move:
                        return OthelloState(game, black, white | 1 << move, 0, self.ply + 1, move)
                    return OthelloState(game, black | 1 << move, white, 1, self.ply + 1, move)
            elif self.to_move:
                flipped = geometry.flips(white, black, move)
                if flipped:
                    return OthelloState(game, black ^ flipped, white | flipped | 1 << move, 0, self.ply + 1, move)
            else:
                flipped = geometry.flips(black, white, move)
                if flipped:
                    return OthelloState(game, black | flipped | 1 << move, white ^ flipped, 1, self.ply + 1, move)
        elif move == geometry.pass_move and type(move) is int and self._legal_bits() == geometry.pass_bit:
            return OthelloState(game, black, white, 1 - self.to_move, self.ply + 1, move)
        raise IllegalMoveError(self._why_illegal(move))

    def _why_illegal(self, move: object) -> str:
        legal = self._legal_bits()
        game = self.game
        pass_move = game.geometry.pass_move
        if type(move) is not int or not 0 <= move <= pass_move:
            return (
                f"{move!r} is illegal in othello: there is no such square "
                f"(squares are 0-{pass_move - 1}, {pass_move} is the pass)"
            )
        text = game.format_move(move)
        player = ("black", "white")[self.to_move]
        if not legal:
            why = "the game is over"
        elif move == pass_move:
            why = f"{player} cannot pass while a move exists"
        elif (self.black | self.white) >> move & 1:
            why = f"{text} is occupied"
        elif legal == game.geometry.pass_bit:
            why = f"{player} has no placement and must pass"
        elif game.opening_squares & ~(self.black | self.white):
            centre = ", ".join(game.format_move(square) for square in _squares(game.opening_squares))
            why = f"the first four discs go on the centre squares ({centre})"
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
        return self.game.result(self.black.bit_count(), self.white.bit_count())

    def forfeit_outcome(self, seat: int) -> Outcome:
        """The opponent wins; under ``wof`` with every square (e.g. 64-0), the usual score of a
        game lost by default."""
        if not self.game.wof:
            return WIN[1 - seat]
        squares = self.game.size * self.game.size
        return Outcome(1 - seat, (0, squares) if seat == 0 else (squares, 0))

    def random_playout(self, rng: random.Random) -> Outcome:
        """Uniformly random legal moves to the end, on a throw-away mailbox board.

        The free opening's placements come first, each on a uniformly drawn free centre square.
        Then, at each turn the candidate squares (empty squares next to a disc, kept in a list
        as the game goes) are drawn one at a time without replacement (a partial Fisher-Yates
        shuffle) and each is tried in turn; the first that flips something is played. Every
        legal move is a candidate and the draw order is a uniformly random permutation, so the
        move played is uniform over the legal moves, yet we usually test only a few squares
        instead of generating them all. A turn where no candidate flips is a pass; two in a
        row end the game.
        """
        game = self.game
        geometry = game.geometry
        rand = rng.random
        black, white, seat = self.black, self.white, self.to_move
        free = _squares(game.opening_squares & ~(black | white))
        while free:
            square = free.pop(int(rand() * len(free)))
            if seat:
                white |= 1 << square
            else:
                black |= 1 << square
            seat = 1 - seat
        board = list(geometry.blank)
        mailbox = geometry.mailbox
        for square in _squares(black):
            board[mailbox[square]] = 1
        for square in _squares(white):
            board[mailbox[square]] = 2
        frontier = [mailbox[square] for square in _squares(geometry.neighbours_of(black | white))]
        for index in frontier:
            board[index] = _FRONTIER
        ray_steps, neighbours = geometry.ray_steps, geometry.neighbours
        me, opp = (2, 1) if seat else (1, 2)
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
        return game.result(board.count(1), board.count(2))

    def cells(self) -> str:
        """The board as ``size * size`` characters, row by row from a1: ``b`` black, ``w``
        white, ``.`` empty."""
        black, white = self.black, self.white
        return "".join(
            "b" if black >> i & 1 else "w" if white >> i & 1 else "." for i in range(self.game.geometry.pass_move)
        )

    def render(self) -> str:
        """The board with column letters and row numbers: ``x`` black, ``o`` white, ``*`` a
        legal placement; then the disc counts and who is to move (or the result)."""
        legal = self._legal_bits()
        cells = self.cells()
        n = self.game.size
        width = len(str(n))  # row numbers are right-aligned: 10x10 has a row 10
        lines = [" " * (width + 1) + " ".join(_COLUMNS[:n])]
        for row in range(n):
            marks = []
            for col in range(n):
                square = row * n + col
                cell = cells[square]
                marks.append("x" if cell == "b" else "o" if cell == "w" else "*" if legal >> square & 1 else ".")
            lines.append(f"{row + 1:>{width}} {' '.join(marks)}")
        counts = f"black (x) {self.count(0)}, white (o) {self.count(1)}"
        outcome = self.outcome
        if outcome is None:
            status = f"{('black', 'white')[self.to_move]} to move"
            if legal == self.game.geometry.pass_bit:
                status += " (must pass)"
        else:
            winner = "draw" if outcome.winner is None else f"{('black', 'white')[outcome.winner]} wins"
            status = f"game over: {winner}"
            if outcome.points is not None:
                status += f", {outcome.points[0]}-{outcome.points[1]} with the empty squares"
        return "\n".join(lines + [f"{counts}; {status}"])

    def board_data(self) -> dict[str, Any]:
        """``cells``: ``size * size`` characters row by row from a1 (index ``row * size + col``),
        ``b`` black, ``w`` white, ``.`` empty; ``black`` and ``white``: the disc counts."""
        return {"cells": self.cells(), "black": self.count(0), "white": self.count(1)}

    def board(self) -> dict[str, Any]:
        """One ``size`` x ``size`` board (``State.board``), cell ``row * size + col`` (the square's
        int): the discs ``b`` and ``w``, the last placement, the legal placements highlighted
        with their moves. Notes: the disc counts; a pass the player to move must play; under
        ``wof``, the final points."""
        game = self.game
        n = game.size
        black, white = self.black, self.white
        legal = self._legal_bits()
        pass_bit = game.geometry.pass_bit
        placements = legal & ~pass_bit
        last = self.last_move
        notes = [f"black {black.bit_count()}, white {white.bit_count()}"]
        if legal == pass_bit:
            notes.append(f"{game.SEATS[self.to_move]} has no placement and must pass")
        outcome = self.outcome
        if outcome is not None and outcome.points is not None:
            notes.append(f"with the empty squares: black {outcome.points[0]}, white {outcome.points[1]}")
        return {
            "boards": [
                {
                    "rows": n,
                    "cols": n,
                    "cells": ["b" if black >> i & 1 else "w" if white >> i & 1 else "" for i in range(n * n)],
                    "highlight": _squares(placements),
                    "last": [] if last is None or last == game.geometry.pass_move else [last],
                    "moves": [game.format_move(i) if placements >> i & 1 else None for i in range(n * n)],
                }
            ],
            "notes": notes,
        }
