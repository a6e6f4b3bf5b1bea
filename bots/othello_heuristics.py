"""Othello's game knowledge for the bots (bots/heuristics.py dispatches to it): the classic one,
corners and edges (square weights, made for each board size by ``square_weights``), mobility, and
stable discs; and the moves that win at once."""

from __future__ import annotations

from typing import Any

from arena.games.othello import SIZES


def square_weights(size: int) -> tuple[int, ...]:
    """The weight of each square of a ``size`` board, by where it lies, so that 8x8 gets the
    classic table: a corner 100; next to it on the edge (a C square) -20 and diagonally (an X
    square) -50; the edge square after a C square 10, the edge's middle squares 5; the rest of
    the second ring -2; inside it 1, and the four centre squares 0."""
    centre = size // 2 - 1  # how far the centre squares are from the edges

    def weight(square: int) -> int:
        row, col = divmod(square, size)
        # the square's distances from the nearest side edge and from the nearest top or bottom
        # one, the smaller first: (0, 0) is a corner, (0, k) an edge square k from a corner
        near, far = sorted((min(row, size - 1 - row), min(col, size - 1 - col)))
        if near == 0:
            return (100, -20, 10)[far] if far < 3 else 5
        if near == 1:
            return -50 if far == 1 else -2
        return 0 if near == centre else 1

    return tuple(weight(square) for square in range(size * size))


class OthelloTables:
    """What the othello heuristics know of one board size's squares.

    ``weights``: ``square_weights(size)``; ``corners``; ``corner_of``: per X or C square (next
    to a corner, diagonally or along the edge: bad to take while the corner is empty), that
    corner; ``edge_runs``: per corner, the two edges leaving it as lists of squares (stable runs
    start at corners).
    """

    def __init__(self, size: int) -> None:
        self.weights = square_weights(size)
        last = size - 1
        self.corners = (0, last, last * size, size * size - 1)
        self.corner_of: dict[int, int] = {}
        self.edge_runs: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = {}
        for corner in self.corners:
            row, col = divmod(corner, size)
            across = 1 if col == 0 else -1  # the step along the corner's row, into the board
            down = size if row == 0 else -size  # the step along its column
            for square in (corner + down + across, corner + across, corner + down):
                self.corner_of[square] = corner
            self.edge_runs[corner] = (
                tuple(corner + across * i for i in range(size)),
                tuple(corner + down * i for i in range(size)),
            )


#: the heuristics' tables of each board size
OTHELLO_TABLES = {size: OthelloTables(size) for size in SIZES}
#: evaluation weights: square weights, mobility (per move of difference), stable discs, corners
W_SQUARES, W_MOBILITY, W_STABLE, W_CORNER = 1, 8, 20, 50


def othello_masks(state: Any, seat: int) -> tuple[int, int]:
    """(``seat``'s discs, the opponent's) as bitboards."""
    return (state.white, state.black) if seat else (state.black, state.white)


def _square_sum(discs: int, empty_corners: set[int], tables: OthelloTables) -> int:
    total = 0
    weights, corner_of = tables.weights, tables.corner_of
    while discs:
        low = discs & -discs
        square = low.bit_length() - 1
        weight = weights[square]
        if weight < 0 and corner_of.get(square) not in empty_corners:
            weight = 0  # next to a taken corner, an X or C square is harmless
        total += weight
        discs ^= low
    return total


def stable_discs(discs: int, tables: OthelloTables) -> int:
    """How many of ``discs`` are stable along the edges: unbroken runs from a corner they hold
    (a lower bound of the truly stable discs, cheap to count)."""
    stable = 0
    for corner, runs in tables.edge_runs.items():
        if not discs >> corner & 1:
            continue
        for run in runs:
            for square in run:
                if discs >> square & 1:
                    stable |= 1 << square
                else:
                    break
    return stable.bit_count()


def othello_evaluate(state: Any, seat: int) -> float:
    """Square weights, mobility, edge-stable discs and corners for ``seat`` minus the
    opponent's; in the last 12 empty squares the disc difference dominates."""
    geometry = state.game.geometry
    tables = OTHELLO_TABLES[geometry.size]
    own, opp = othello_masks(state, seat)
    occupied = own | opp
    empty_corners = {c for c in tables.corners if not occupied >> c & 1}
    value = W_SQUARES * (_square_sum(own, empty_corners, tables) - _square_sum(opp, empty_corners, tables))
    legal_mask = geometry.legal_mask
    value += W_MOBILITY * (legal_mask(own, opp).bit_count() - legal_mask(opp, own).bit_count())
    value += W_STABLE * (stable_discs(own, tables) - stable_discs(opp, tables))
    empties = geometry.pass_move - occupied.bit_count()
    if empties <= 12:
        value += 30 * (own.bit_count() - opp.bit_count())
    return value


def othello_move_scores(state: Any) -> dict[int, int]:
    """Per legal move: its square weight (corners high; an X or C square next to an empty
    corner low, next to a taken one 0), minus ``W_MOBILITY`` for each reply it leaves the
    opponent, plus ``W_STABLE`` for each edge-stable disc it gains."""
    geometry = state.game.geometry
    tables = OTHELLO_TABLES[geometry.size]
    corners = tables.corners
    own, opp = othello_masks(state, state.to_move)
    occupied = own | opp
    empty_corners = {c for c in corners if not occupied >> c & 1}
    holds_corner = any(own >> c & 1 for c in corners)
    stable_before = stable_discs(own, tables) if holds_corner else 0
    scores = {}
    for move in state.legal_moves():
        if move == geometry.pass_move:
            scores[move] = 0
            continue
        weight = tables.weights[move]
        if weight < 0 and tables.corner_of.get(move) not in empty_corners:
            weight = 0
        flipped = geometry.flips(own, opp, move)
        mine, theirs = own | flipped | 1 << move, opp ^ flipped
        weight -= W_MOBILITY * geometry.legal_mask(theirs, mine).bit_count()
        if holds_corner or move in corners:
            weight += W_STABLE * (stable_discs(mine, tables) - stable_before)
        scores[move] = weight
    return scores


def othello_winning_moves(state: Any) -> list[int]:
    """The moves that end the game with the player to move ahead (exact, by playing each)."""
    seat = state.to_move
    wins = []
    for move in state.legal_moves():
        outcome = state.play(move).outcome
        if outcome is not None and outcome.winner == seat:
            wins.append(move)
    return wins
