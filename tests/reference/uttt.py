"""Reference ultimate tic-tac-toe: nine small boards, each a list of nine cells."""

from __future__ import annotations

from arena.games import Outcome

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def line_owner(cells: list[str]) -> str | None:
    """The letter holding three in a row among nine cells, if any."""
    for a, b, c in LINES:
        if cells[a] in ("x", "o") and cells[a] == cells[b] == cells[c]:
            return cells[a]
    return None


class RefState:
    def __init__(self, boards: list[list[str]], last_cell: int | None, tiebreak: str) -> None:
        self.boards = boards  # boards[b][c]: "x", "o" or "."
        self.last_cell = last_cell  # the cell (inside its small board) of the last move
        self.tiebreak = tiebreak
        x_count = sum(board.count("x") for board in boards)
        o_count = sum(board.count("o") for board in boards)
        self.to_move = 0 if x_count == o_count else 1

    def small_winner(self, b: int) -> str | None:
        return line_owner(self.boards[b])

    def is_closed(self, b: int) -> bool:
        return self.small_winner(b) is not None or "." not in self.boards[b]

    def outcome(self) -> Outcome | None:
        big = [self.small_winner(b) or "." for b in range(9)]
        winner = line_owner(big)
        if winner is not None:
            return Outcome(0 if winner == "x" else 1)
        if all(self.is_closed(b) for b in range(9)):
            if self.tiebreak == "boards" and big.count("x") != big.count("o"):
                return Outcome(0 if big.count("x") > big.count("o") else 1)
            return Outcome(None)
        return None

    def legal_moves(self) -> list[int]:
        if self.outcome() is not None:
            return []
        if self.last_cell is None or self.is_closed(self.last_cell):
            boards = [b for b in range(9) if not self.is_closed(b)]
        else:
            boards = [self.last_cell]
        return [b * 9 + c for b in boards for c in range(9) if self.boards[b][c] == "."]

    def play(self, move: int) -> RefState:
        assert move in self.legal_moves()
        b, c = move // 9, move % 9
        boards = [list(board) for board in self.boards]
        boards[b][c] = "xo"[self.to_move]
        return RefState(boards, c, self.tiebreak)


def initial(tiebreak: str = "none") -> RefState:
    return RefState([["."] * 9 for _ in range(9)], None, tiebreak)
