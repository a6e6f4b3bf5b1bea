"""Reference Xtreme tic-tac-toe: a list of 162 cells and the rules of docs/games.md, written out.

A move is ``k * 81 + row * 9 + col``, the engine's encoding: big board ``k`` (0 or 1), ``row``
and ``col`` 0-8 on that big board's 9x9 grid; its small board is ``(row // 3, col // 3)``.
"""

from __future__ import annotations

from arena.games import Outcome

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
#: course points of a small board won in a draw, by its place on the big board, row by row
BOARD_POINTS = [4, 6, 4, 6, 3, 6, 4, 6, 4]
WIN_POINTS = 86


def line_of(marks: list[str]) -> str | None:
    """The mark (``x`` or ``o``) holding three in a row among nine ``marks``, if any."""
    for a, b, c in LINES:
        if marks[a] in ("x", "o") and marks[a] == marks[b] == marks[c]:
            return marks[a]
    return None


class RefState:
    """A position: the 162 cells (``.``, ``x``, ``o``), who moves, the last move, bonus or not."""

    def __init__(self, cells: list[str], to_move: int, last: tuple[int, int, int] | None, bonus: bool) -> None:
        self.cells = cells
        self.to_move = to_move
        self.last = last
        self.bonus = bonus
        #: the status of every small board (k, big_row, big_col), worked out once
        self.status = {(k, i, j): self.small_status(k, i, j) for k in (0, 1) for i in range(3) for j in range(3)}

    def cell(self, k: int, row: int, col: int) -> str:
        return self.cells[k * 81 + row * 9 + col]

    def small_cells(self, k: int, big_row: int, big_col: int) -> list[tuple[int, int, int]]:
        """The nine cells ``(k, row, col)`` of small board ``(big_row, big_col)`` of big board ``k``."""
        return [(k, big_row * 3 + i, big_col * 3 + j) for i in range(3) for j in range(3)]

    def small_status(self, k: int, big_row: int, big_col: int) -> str:
        """``x`` or ``o`` if won, ``d`` if full without a line, ``-`` while open."""
        marks = [self.cell(*cell) for cell in self.small_cells(k, big_row, big_col)]
        winner = line_of(marks)
        if winner is not None:
            return winner
        if "." not in marks:
            return "d"
        return "-"

    def big_statuses(self, k: int) -> list[str]:
        return [self.status[k, i, j] for i in range(3) for j in range(3)]

    def outcome(self) -> Outcome | None:
        for k in (0, 1):
            winner = line_of(self.big_statuses(k))
            if winner == "x":
                return Outcome(0, (WIN_POINTS, 0))
            if winner == "o":
                return Outcome(1, (0, WIN_POINTS))
        statuses = self.big_statuses(0) + self.big_statuses(1)
        if "-" in statuses:
            return None
        points = [0, 0]
        for index, status in enumerate(statuses):
            if status == "x":
                points[0] += BOARD_POINTS[index % 9]
            elif status == "o":
                points[1] += BOARD_POINTS[index % 9]
        return Outcome(None, (points[0], points[1]))

    def legal_moves(self) -> list[int]:
        if self.outcome() is not None:
            return []
        open_boards = [board for board, status in self.status.items() if status == "-"]
        if self.last is None:
            boards = open_boards
        else:
            _, row, col = self.last
            corresponding = [(k, row % 3, col % 3) for k in (0, 1)]
            boards = [board for board in corresponding if board in open_boards]
            if not boards:
                boards = open_boards
        moves = []
        for board in boards:
            for k, row, col in self.small_cells(*board):
                if self.cell(k, row, col) == ".":
                    moves.append(k * 81 + row * 9 + col)
        return sorted(moves)

    def play(self, move: int) -> RefState:
        assert move in self.legal_moves()
        k, row, col = move // 81, move % 81 // 9, move % 9
        mark = "xo"[self.to_move]
        board = (k, row // 3, col // 3)
        was_open = self.status[board] == "-"
        cells = list(self.cells)
        cells[move] = mark
        after = RefState(cells, 1 - self.to_move, (k, row, col), False)
        won_small_board = was_open and after.status[board] == mark
        if won_small_board and not self.bonus and after.outcome() is None:
            after.to_move = self.to_move
            after.bonus = True
        return after


def initial() -> RefState:
    return RefState(["."] * 162, 0, None, False)
