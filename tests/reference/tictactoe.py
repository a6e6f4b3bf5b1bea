"""Reference tic-tac-toe: a list of nine cells."""

from __future__ import annotations

from arena.games import Outcome

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


class RefState:
    def __init__(self, cells: list[str]) -> None:
        self.cells = cells
        self.to_move = 0 if cells.count("x") == cells.count("o") else 1

    def winner(self) -> int | None:
        for a, b, c in LINES:
            if self.cells[a] != "." and self.cells[a] == self.cells[b] == self.cells[c]:
                return 0 if self.cells[a] == "x" else 1
        return None

    def outcome(self) -> Outcome | None:
        winner = self.winner()
        if winner is not None:
            return Outcome(winner)
        if "." not in self.cells:
            return Outcome(None)
        return None

    def legal_moves(self) -> list[int]:
        if self.outcome() is not None:
            return []
        return [i for i in range(9) if self.cells[i] == "."]

    def play(self, move: int) -> RefState:
        assert move in self.legal_moves()
        cells = list(self.cells)
        cells[move] = "xo"[self.to_move]
        return RefState(cells)


def initial() -> RefState:
    return RefState(["."] * 9)
