"""Reference othello: an 8x8 list of lists, walking the eight directions square by square.

The rules are those of GAMES.md, written out plainly. Moves are ``row * 8 + col``, and 64 is
the pass, as in the engine.
"""

from __future__ import annotations

from arena.games import Outcome

PASS = 64
DIRECTIONS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]
DISC = ["b", "w"]  # the disc of seat 0 (black) and seat 1 (white)


def on_board(row: int, col: int) -> bool:
    return 0 <= row < 8 and 0 <= col < 8


class RefState:
    def __init__(self, board: list[list[str]], to_move: int) -> None:
        self.board = board  # board[row][col]: "b", "w" or "."
        self.to_move = to_move
        #: each seat's placements, worked out once: every other question needs them
        self.moves = [self.placements(0), self.placements(1)]

    def flips(self, row: int, col: int, player: int) -> list[tuple[int, int]]:
        """The discs ``player`` would flip by placing at (row, col); empty if none."""
        if self.board[row][col] != ".":
            return []
        mine, theirs = DISC[player], DISC[1 - player]
        flipped = []
        for drow, dcol in DIRECTIONS:
            line = []
            r, c = row + drow, col + dcol
            while on_board(r, c) and self.board[r][c] == theirs:
                line.append((r, c))
                r, c = r + drow, c + dcol
            if line and on_board(r, c) and self.board[r][c] == mine:
                flipped.extend(line)
        return flipped

    def placements(self, player: int) -> list[int]:
        """The squares where ``player`` may place a disc, increasing."""
        return [
            row * 8 + col
            for row in range(8)
            for col in range(8)
            if self.flips(row, col, player)
        ]

    def outcome(self) -> Outcome | None:
        if self.moves[0] or self.moves[1]:
            return None
        black = sum(row.count("b") for row in self.board)
        white = sum(row.count("w") for row in self.board)
        if black > white:
            return Outcome(0)
        if white > black:
            return Outcome(1)
        return Outcome(None)

    def legal_moves(self) -> list[int]:
        if self.outcome() is not None:
            return []
        return self.moves[self.to_move] or [PASS]

    def play(self, move: int) -> RefState:
        assert move in self.legal_moves()
        board = [list(row) for row in self.board]
        if move != PASS:
            row, col = divmod(move, 8)
            board[row][col] = DISC[self.to_move]
            for r, c in self.flips(row, col, self.to_move):
                board[r][c] = DISC[self.to_move]
        return RefState(board, 1 - self.to_move)


def initial() -> RefState:
    board = [["."] * 8 for _ in range(8)]
    board[3][3] = board[4][4] = "w"
    board[3][4] = board[4][3] = "b"
    return RefState(board, 0)
