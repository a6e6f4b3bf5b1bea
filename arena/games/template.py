"""template: Nim, a small game to make your own (``arena game new`` copies this file).

Three heaps of 3, 4 and 5 matches. Two seats take turns; a turn takes one or more matches from
one heap. Whoever takes the last match wins (with the parameter ``misere: true``, loses).

A move is an int inside a process and its text everywhere else: the heap's letter and the
number taken, ``b3`` for three matches from heap b; as an int, ``heap * 10 + taken`` (``b3`` is
13). Play it in a tournament with ``game: {module: path/to/this.py}``; check it with
``arena game check path/to/this.py`` (its test file runs the same checks). The contract it
follows is docs/games.md, "Writing a game": add ``chance_outcomes`` for dice or cards dealt,
``view(seat)`` and ``HIDDEN = True`` for what a seat may not see, ``actors``, ``moves_of`` and
``play_joint`` for seats that move at once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from arena.games import Game, IllegalMoveError, Move, State

#: the matches in each heap at the start
HEAPS = (3, 4, 5)
LETTERS = "abc"


class TemplateGame(Game):
    """Nim with three heaps; the last match wins (or loses: ``misere``)."""

    name = "template"
    PARAMETERS: ClassVar[Mapping[str, tuple[Any, Sequence[Any]]]] = {"misere": (False, (False, True))}
    PLAYERS = (2, 2)
    MAX_LENGTH = sum(HEAPS)  # every move takes a match at least
    NOTATION = "a move is a heap a-c and the matches taken from it (e.g. 'b3')"

    def initial_state(self) -> TemplateState:
        return TemplateState(self, HEAPS, 0, None)

    def parse_move(self, text: str) -> Move:
        word = text.strip().lower() if isinstance(text, str) else ""
        if len(word) != 2 or word[0] not in LETTERS or word[1] not in "123456789":
            raise self.syntax_error(text)
        return LETTERS.index(word[0]) * 10 + int(word[1])

    def format_move(self, move: Move) -> str:
        heap, taken = divmod(move, 10) if type(move) is int and move > 0 else (-1, 0)
        if not (0 <= heap < len(HEAPS) and 1 <= taken <= 9):
            raise ValueError(f"{move!r} is not a {self.name} move")
        return f"{LETTERS[heap]}{taken}"


class TemplateState(State):
    """A position: the matches left in each heap, the records so far and the last move."""

    game: TemplateGame

    __slots__ = ("game", "heaps", "last_move", "ply")

    def __init__(self, game: TemplateGame, heaps: tuple[int, ...], ply: int, last_move: Move | None) -> None:
        self.game = game
        self.heaps = heaps
        self.ply = ply
        self.last_move = last_move

    @property
    def to_move(self) -> int:  # type: ignore[override]
        """Seat 0 after an even number of moves."""
        return self.ply % 2

    @property
    def is_terminal(self) -> bool:
        return not any(self.heaps)

    def legal_moves(self) -> list[Move]:
        return [heap * 10 + taken for heap, left in enumerate(self.heaps) for taken in range(1, left + 1)]

    def play(self, move: Move) -> TemplateState:
        if self.is_terminal:
            raise IllegalMoveError(f"{move!r} is illegal: the game is over")
        heap, taken = divmod(move, 10) if type(move) is int and move > 0 else (-1, 0)
        if not (0 <= heap < len(self.heaps) and 1 <= taken <= self.heaps[heap]):
            raise IllegalMoveError(f"{move!r} is illegal: {self.game.NOTATION}, no more than the heap holds")
        heaps = list(self.heaps)
        heaps[heap] -= taken
        return TemplateState(self.game, tuple(heaps), self.ply + 1, move)

    def returns(self) -> tuple[float, ...]:
        """1 for the winner, 0 for the loser."""
        if not self.is_terminal:
            raise ValueError("the game is not over: it has no returns yet")
        last = (self.ply - 1) % 2  # who took the last match
        winner = 1 - last if self.game.params["misere"] else last
        return (1.0, 0.0) if winner == 0 else (0.0, 1.0)

    def board(self) -> dict[str, Any]:
        """The heaps as rows of matches (``|``); clicking a match takes it and those right of it."""
        width = max(HEAPS)
        cells: list[str] = []
        moves: list[str | None] = []
        for heap, left in enumerate(self.heaps):
            for place in range(width):
                cells.append("|" if place < left else "")
                moves.append(f"{LETTERS[heap]}{left - place}" if place < left else None)
        marks = self.game.MARKS
        if self.is_terminal:
            note = f"{marks[0] if self.returns()[0] else marks[1]} wins"
        else:
            note = f"{marks[self.to_move]} to move"
        return {"boards": [{"rows": len(HEAPS), "cols": width, "cells": cells, "moves": moves}], "notes": [note]}

    def render(self) -> str:
        return "\n".join(f"{LETTERS[heap]}: {'|' * left}" for heap, left in enumerate(self.heaps))
