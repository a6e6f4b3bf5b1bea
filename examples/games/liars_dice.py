"""Liar's dice, one round: a game with chance and hidden information, written against arena's
game contract as a user writes one.

Each of ``players`` players (2 to 6, default 3) rolls ``dice`` six-sided dice (default 2), seen
by itself alone. Then the players take turns, seat 0 first: each either bids, or calls the last
bid a lie. A bid ``QxF`` claims that at least ``Q`` of all the dice on the table show the face
``F`` (no face is wild); every bid must be higher than the one before it: a greater quantity,
or the same quantity of a greater face. The first player must bid. A call ends the game: all
dice are shown, and if the bid holds (at least ``Q`` dice show ``F``) the caller loses,
otherwise the bidder does. The loser's return is 0, every other player's 1 (with two players:
a win and a loss; with more, the others share first place). The highest bid (every die showing
6) can only be called, so a game has at most ``players * dice`` rolls, ``6 * players * dice``
bids and one call.

Information: ``HIDDEN`` is True. A seat's ``view`` holds its own dice, the bids so far, who acts
and how many dice each player has, and never another seat's dice while the game goes on (nor a
roll of another seat's die as the last move); once the call has ended the game every die is
shown to all. ``view(None)``, a spectator's, holds everything.

Moves as ints, and their text:

- ``0``: the call, ``liar``;
- ``6 * (Q - 1) + F`` (1 and up): the bid of ``Q`` dice showing ``F``, written ``QxF`` (``2x5``,
  two fives: 11). Bids increase exactly as their ints do, so a bid is legal when its int is
  greater than the last bid's;
- ``ROLL + F`` (1001 to 1006): a chance outcome, a die rolled showing ``F``, written ``roll F``.
  Each die is one chance outcome: seat 0's dice first, then seat 1's, and so on.

Play it with ``game: {module: liars_dice.py}`` (examples/games/liars_dice.yaml).
"""

from __future__ import annotations

import re
from collections.abc import Container, Mapping, Sequence
from typing import Any, ClassVar

from arena.games import CHANCE, Game, IllegalMoveError, Move, State

#: the call of the last bid
LIAR = 0
#: a rolled die's chance outcome is ROLL + its face (above every bid: at most 30 dice, bid 180)
ROLL = 1000
FACES = 6
#: the most dice a quantity in the notation may claim (a bid of more is written but illegal)
MOST_QUANTITY = 99
NAMES = ("", "ones", "twos", "threes", "fours", "fives", "sixes")
BID = re.compile(r"(\d{1,2})\s*x\s*([1-6])")
ROLL_TEXT = re.compile(r"roll\s+([1-6])")


def bid(quantity: int, face: int) -> Move:
    """The move that bids ``quantity`` dice showing ``face``."""
    return FACES * (quantity - 1) + face


def quantity_and_face(move: Move) -> tuple[int, int]:
    """The quantity and face of the bid ``move``."""
    return (move - 1) // FACES + 1, (move - 1) % FACES + 1


class LiarsDice(Game):
    """One round of liar's dice for 2 to 6 players with ``dice`` dice each."""

    name = "liars_dice"
    PLAYERS = (2, 6)
    PARAMETERS: ClassVar[Mapping[str, tuple[Any, Sequence[Any]]]] = {
        "players": (3, range(2, 7)),
        "dice": (2, range(1, 6)),
    }
    HIDDEN = True
    # seats are called p1, p2, ... and marked 1, 2, ...
    SEATS = ("p1", "p2", "p3", "p4", "p5", "p6")
    MARKS = "123456"
    NOTATION = "a move is a bid QxF (Q dice showing face F, e.g. '2x5'), 'liar', or a die's roll ('roll 3')"
    # the class's bound, for the most players and dice; ``max_length`` gives each game's own
    MAX_LENGTH = 6 * 5 * (1 + FACES) + 1

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.dice: int = self.params["dice"]

    def max_length(self) -> int:
        """Every die rolled, every bid made in turn from ``1x1`` to the highest, and the call."""
        total = self.players * self.dice
        return total + FACES * total + 1

    def initial_state(self) -> LiarsDiceState:
        return LiarsDiceState(self, ((),) * self.players, (), False, None)

    def parse_move(self, text: str) -> Move:
        words = " ".join(text.strip().lower().split()) if isinstance(text, str) else ""
        if words == "liar":
            return LIAR
        found = BID.fullmatch(words)
        if found and 1 <= int(found[1]) <= MOST_QUANTITY:
            return bid(int(found[1]), int(found[2]))
        found = ROLL_TEXT.fullmatch(words)
        if found:
            return ROLL + int(found[1])
        raise self.syntax_error(text)

    def format_move(self, move: Move) -> str:
        if type(move) is int:
            if move == LIAR:
                return "liar"
            if 1 <= move <= bid(MOST_QUANTITY, FACES):
                quantity, face = quantity_and_face(move)
                return f"{quantity}x{face}"
            if ROLL < move <= ROLL + FACES:
                return f"roll {move - ROLL}"
        raise ValueError(f"{move!r} is not a liars_dice move")


class LiarsDiceState(State):
    """A position: each seat's dice rolled so far, the bids in the order made (seat 0's first,
    then each next seat's), and whether the last bid was called."""

    game: LiarsDice

    __slots__ = ("bids", "called", "dice", "game", "last_move")

    def __init__(
        self,
        game: LiarsDice,
        dice: tuple[tuple[int, ...], ...],
        bids: tuple[Move, ...],
        called: bool,
        last_move: Move | None,
    ) -> None:
        self.game = game
        self.dice = dice
        self.bids = bids
        self.called = called
        self.last_move = last_move

    @property
    def rolled(self) -> int:
        """The dice rolled so far."""
        return sum(len(dice) for dice in self.dice)

    @property
    def ply(self) -> int:  # type: ignore[override]
        """Rolls, bids and the call so far."""
        return self.rolled + len(self.bids) + self.called

    @property
    def to_move(self) -> int:  # type: ignore[override]
        """``CHANCE`` while dice are to be rolled, then the seats in turn from seat 0."""
        if self.rolled < self.game.players * self.game.dice:
            return CHANCE
        return (len(self.bids) + self.called) % self.game.players

    @property
    def is_terminal(self) -> bool:
        return self.called

    def legal_moves(self) -> list[Move]:
        """While rolling, the faces a die can show; then every bid above the last one (up to all
        the dice on the table showing 6), and the call once there is a bid to call."""
        if self.called:
            return []
        if self.to_move == CHANCE:
            return [ROLL + face for face in range(1, FACES + 1)]
        highest = bid(self.game.players * self.game.dice, FACES)
        last = self.bids[-1] if self.bids else LIAR
        return ([LIAR] if self.bids else []) + list(range(last + 1, highest + 1))

    def is_legal(self, move: Move) -> bool:
        if self.called or type(move) is not int:
            return False
        if self.to_move == CHANCE:
            return ROLL < move <= ROLL + FACES
        if move == LIAR:
            return bool(self.bids)
        last = self.bids[-1] if self.bids else LIAR
        return last < move <= bid(self.game.players * self.game.dice, FACES)

    def chance_outcomes(self) -> list[tuple[Move, float]]:
        """A die shows each face with probability 1/6."""
        if self.to_move != CHANCE or self.called:
            return []
        return [(ROLL + face, 1 / FACES) for face in range(1, FACES + 1)]

    def play(self, move: Move) -> LiarsDiceState:
        game = self.game
        if not self.is_legal(move):
            raise IllegalMoveError(f"{move!r} is illegal in liars_dice: {self._why_illegal(move)}")
        if self.to_move == CHANCE:
            # the dice are rolled in seat order: the first seat short of its dice gets this one
            seat = self.rolled // game.dice
            dice = tuple(d + (move - ROLL,) if s == seat else d for s, d in enumerate(self.dice))
            return LiarsDiceState(game, dice, self.bids, False, move)
        if move == LIAR:
            return LiarsDiceState(game, self.dice, self.bids, True, move)
        return LiarsDiceState(game, self.dice, (*self.bids, move), False, move)

    def _why_illegal(self, move: object) -> str:
        if self.called:
            return "the game is over"
        if self.to_move == CHANCE:
            return "a die is being rolled (roll 1 to roll 6)"
        if move == LIAR:
            return "there is no bid to call yet"
        if self.bids:
            return f"a bid must be higher than {self.game.format_move(self.bids[-1])}, at most all the dice"
        return "a bid is QxF, at most all the dice on the table"

    def loser(self) -> int | None:
        """The seat that lost the call (``None`` before it): the caller if the bid holds, else the
        bidder."""
        if not self.called:
            return None
        players = self.game.players
        caller = len(self.bids) % players
        bidder = (len(self.bids) - 1) % players
        quantity, face = quantity_and_face(self.bids[-1])
        return caller if self.showing(face) >= quantity else bidder

    def showing(self, face: int) -> int:
        """How many dice on the table show ``face``."""
        return sum(dice.count(face) for dice in self.dice)

    def returns(self) -> tuple[float, ...]:
        """0 for the loser of the call, 1 for every other player."""
        loser = self.loser()
        if loser is None:
            raise ValueError("the game is not over: it has no returns yet")
        return tuple(0.0 if seat == loser else 1.0 for seat in range(self.game.players))

    # --- what each seat may know -------------------------------------------------------------

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may know: its own dice, the bids, who acts and the dice counts (and every
        die once the game is over); ``None``: a spectator's, everything (``to_dict()``)."""
        if seat is None or self.called:
            return self.to_dict()
        game = self.game
        shown = (seat,)
        last = self.last_move
        # the last move may be a roll of another seat's die: that is hidden from this seat
        if last is not None and last > ROLL and (self.rolled - 1) // game.dice != seat:
            last = None
        return {
            "game": game.name,
            "seat": seat,
            "ply": self.ply,
            "to_move": self.to_move,
            "actors": list(self.actors()),
            "last_move": None if last is None else game.format_move(last),
            "legal": [game.format_move(move) for move in self.legal_moves()],
            "terminal": False,
            "winner": None,
            "points": None,
            "returns": None,
            **self._public(shown),
        }

    def board_data(self) -> dict[str, Any]:
        """The game's part of ``to_dict()``, a spectator's: every die, the bids, the counts, the board."""
        return self._public(range(self.game.players))

    def _public(self, shown: Container[int]) -> dict[str, Any]:
        """The dice of the seats in ``shown`` (``None`` for each other seat's), the bids, the dice
        counts and the board, with only those seats' dice."""
        return {
            "dice": [list(dice) if seat in shown else None for seat, dice in enumerate(self.dice)],
            "counts": [self.game.dice] * self.game.players,
            "bids": [self.game.format_move(move) for move in self.bids],
            **self._board(shown),
        }

    def board(self) -> dict[str, Any]:
        """A spectator's board: every die."""
        return self._board(range(self.game.players))

    def _board(self, shown: Container[int]) -> dict[str, Any]:
        """One row of dice a player, ``?`` for a die of a seat not in ``shown``, ``""`` for one
        not rolled yet; at the end, the dice that show the called bid's face are marked. Notes:
        the bids, who acts, and the result."""
        game = self.game
        names = game.seat_names(game.players)
        cells = []
        for seat, dice in enumerate(self.dice):
            faces = [str(face) if seat in shown else "?" for face in dice]
            cells += faces + [""] * (game.dice - len(dice))
        highlight = []
        notes = []
        if self.bids:
            bidders = [names[index % game.players] for index in range(len(self.bids))]
            notes.append(
                "bids: " + ", ".join(f"{name} {game.format_move(move)}" for name, move in zip(bidders, self.bids))
            )
        loser = self.loser()
        if loser is not None:
            quantity, face = quantity_and_face(self.bids[-1])
            highlight = [i for i, cell in enumerate(cells) if cell == str(face)]
            caller = names[len(self.bids) % game.players]
            notes.append(
                f"{caller} called liar: {self.showing(face)} {NAMES[face]} on the table for a bid of {quantity}; "
                f"{names[loser]} loses"
            )
        elif self.to_move == CHANCE:
            notes.append("the dice are being rolled")
        else:
            notes.append(f"{names[self.to_move]} to bid or call")
        return {
            "boards": [
                {"rows": game.players, "cols": game.dice, "cells": cells, "label": "dice", "highlight": highlight}
            ],
            "notes": notes,
        }

    def render(self) -> str:
        """Every die (a spectator's view), the bids and who acts, as text."""
        board = self.board()
        names = self.game.seat_names(self.game.players)
        dice = self.game.dice
        cells = board["boards"][0]["cells"]
        rows = [
            f"{name}: {' '.join(cell or '.' for cell in cells[i * dice : (i + 1) * dice])}"
            for i, name in enumerate(names)
        ]
        return "\n".join(rows + board["notes"])
