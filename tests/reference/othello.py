"""Reference othello: a size x size list of lists, walking the eight directions square by square.

The rules are those of the engine's module docstring (arena/games/othello.py), written out
plainly, with its parameters: ``size`` 6, 8 or 10, ``opening`` standard or free, ``scoring``
count or wof. Moves are ``row * size + col``, and ``size * size`` is the pass, as in the engine.
"""

from __future__ import annotations

from arena.games import Outcome

DIRECTIONS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]
DISC = ["b", "w"]  # the disc of seat 0 (black) and seat 1 (white)


class RefState:
    def __init__(self, board: list[list[str]], to_move: int, opening: str = "standard", scoring: str = "count") -> None:
        self.board = board  # board[row][col]: "b", "w" or "."
        self.size = len(board)
        self.to_move = to_move
        self.opening = opening
        self.scoring = scoring
        self.pass_move = self.size * self.size
        #: each seat's placements, worked out once: every other question needs them
        self.moves = [self.placements(0), self.placements(1)]

    def on_board(self, row: int, col: int) -> bool:
        return 0 <= row < self.size and 0 <= col < self.size

    def centre(self) -> list[tuple[int, int]]:
        """The four centre squares."""
        low, high = self.size // 2 - 1, self.size // 2
        return [(low, low), (low, high), (high, low), (high, high)]

    def in_free_opening(self) -> bool:
        """Whether the free opening is still filling the centre."""
        return self.opening == "free" and any(self.board[r][c] == "." for r, c in self.centre())

    def flips(self, row: int, col: int, player: int) -> list[tuple[int, int]]:
        """The discs ``player`` would flip by placing at (row, col); empty if none."""
        if self.board[row][col] != ".":
            return []
        mine, theirs = DISC[player], DISC[1 - player]
        flipped = []
        for drow, dcol in DIRECTIONS:
            line = []
            r, c = row + drow, col + dcol
            while self.on_board(r, c) and self.board[r][c] == theirs:
                line.append((r, c))
                r, c = r + drow, c + dcol
            if line and self.on_board(r, c) and self.board[r][c] == mine:
                flipped.extend(line)
        return flipped

    def placements(self, player: int) -> list[int]:
        """The squares where ``player`` may place a disc, increasing."""
        if self.in_free_opening():
            return sorted(r * self.size + c for r, c in self.centre() if self.board[r][c] == ".")
        return [
            row * self.size + col
            for row in range(self.size)
            for col in range(self.size)
            if self.flips(row, col, player)
        ]

    def outcome(self) -> Outcome | None:
        if self.moves[0] or self.moves[1]:
            return None
        black = sum(row.count("b") for row in self.board)
        white = sum(row.count("w") for row in self.board)
        empty = self.size * self.size - black - white
        if black > white:
            winner = 0
            points = (black + empty, white)
        elif white > black:
            winner = 1
            points = (black, white + empty)
        else:
            winner = None
            points = (black + empty // 2, white + empty // 2)
        if self.scoring == "wof":
            return Outcome(winner, points)
        return Outcome(winner)

    def legal_moves(self) -> list[int]:
        if self.outcome() is not None:
            return []
        return self.moves[self.to_move] or [self.pass_move]

    def play(self, move: int) -> RefState:
        assert move in self.legal_moves()
        board = [list(row) for row in self.board]
        if move != self.pass_move:
            row, col = divmod(move, self.size)
            board[row][col] = DISC[self.to_move]
            if not self.in_free_opening():
                for r, c in self.flips(row, col, self.to_move):
                    board[r][c] = DISC[self.to_move]
        return RefState(board, 1 - self.to_move, self.opening, self.scoring)


def initial(size: int = 8, opening: str = "standard", scoring: str = "count") -> RefState:
    board = [["."] * size for _ in range(size)]
    if opening == "standard":
        low, high = size // 2 - 1, size // 2
        board[low][low] = board[high][high] = "w"
        board[low][high] = board[high][low] = "b"
    return RefState(board, 0, opening, scoring)
