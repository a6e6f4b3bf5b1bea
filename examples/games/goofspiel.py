"""Goofspiel (the game of pure strategy): a game with chance and simultaneous moves, written
against arena's game contract as a user writes one.

Each of ``players`` players (2 to 6, default 3) holds the cards 1 to ``cards`` (default 13),
and a prize deck holds the same cards. A round: a prize card is turned up at random from the
deck (a chance outcome), then every player bids one card of its hand at once (a simultaneous
step); the bids are revealed, and the highest bid that no other player also made wins the
prize: bids 5, 5 and 3 give it to the player of the 3. When no bid is unique (2, 2, or 5, 5, 3,
3), nobody wins it: the prize is discarded. Bid cards are spent either way. After ``cards``
rounds every card is played; each player's return is the total value of the prizes it won
(higher is better, equal totals tie).

Information: the standard game is one of perfect information, so ``HIDDEN`` is False. Every
hand is public (it is the starting hand less the bids already revealed), and a bid is hidden
only while the step is open; a simultaneous step takes every seat's bid before any is applied,
so no seat sees another's bid before it makes its own.

Moves: a card is its value, as the int and as its text (``7``), the default notation of
``arena.games.Game``; a chance outcome (the prize turned up) is the prize card's value too. A
record of a round is therefore the prize, then each player's bid in seat order:
``["7", "3", "9", "7"]`` is prize 7, bids 3, 9 and 7 (the 9 wins). Play it with
``game: {module: goofspiel.py}`` (examples/games/goofspiel.yaml).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from arena.games import CHANCE, SIMULTANEOUS, Game, IllegalMoveError, Move, State


class Goofspiel(Game):
    """Goofspiel for 2 to 6 players with the cards 1 to ``cards``."""

    name = "goofspiel"
    PLAYERS = (2, 6)
    PARAMETERS: ClassVar[Mapping[str, tuple[Any, Sequence[Any]]]] = {
        "players": (3, range(2, 7)),
        "cards": (13, (3, 5, 8, 10, 13)),
    }
    # seats are called p1, p2, ... and marked 1, 2, ...
    SEATS = ("p1", "p2", "p3", "p4", "p5", "p6")
    MARKS = "123456"
    # the class's bound, for the most cards and players; ``max_length`` gives each game's own
    MAX_LENGTH = 13 * (1 + 6)

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.cards: int = self.params["cards"]
        self.NOTATION = f"a move is a card 1-{self.cards} (e.g. '{self.cards}')"

    def max_length(self) -> int:
        """Each round is one prize card and one bid of each player."""
        return self.cards * (1 + self.players)

    def initial_state(self) -> GoofspielState:
        deck = tuple(range(1, self.cards + 1))
        return GoofspielState(self, deck, None, (deck,) * self.players, (0,) * self.players, 0, None, None)


class GoofspielState(State):
    """A position: the prize cards still in the deck, the prize turned up (``None`` before it is
    drawn), each player's hand and prize points, and the last round (its prize and bids)."""

    game: Goofspiel

    __slots__ = ("deck", "game", "hands", "last_move", "last_round", "ply", "prize", "scores")

    def __init__(
        self,
        game: Goofspiel,
        deck: tuple[int, ...],
        prize: int | None,
        hands: tuple[tuple[int, ...], ...],
        scores: tuple[int, ...],
        ply: int,
        last_move: Move | None,
        last_round: tuple[int, tuple[int, ...]] | None,
    ) -> None:
        self.game = game
        self.deck = deck
        self.prize = prize
        self.hands = hands
        self.scores = scores
        self.ply = ply
        self.last_move = last_move
        #: the last round played: its prize and each seat's bid (None before the first)
        self.last_round = last_round

    @property
    def to_move(self) -> int:  # type: ignore[override]
        """``SIMULTANEOUS`` while a prize waits for the bids, else ``CHANCE`` (the next prize)."""
        return SIMULTANEOUS if self.prize is not None else CHANCE

    @property
    def is_terminal(self) -> bool:
        return self.prize is None and not self.deck

    def actors(self) -> tuple[int, ...]:
        """Every player bids at once when a prize is up; nobody acts otherwise."""
        return tuple(range(self.game.players)) if self.prize is not None else ()

    def legal_moves(self) -> list[Move]:
        """At a chance node the prizes the deck can turn up; none otherwise (at a simultaneous
        step no single seat moves: each seat's bids are ``moves_of(seat)``)."""
        if self.prize is None:
            return list(self.deck)
        return []

    def chance_outcomes(self) -> list[tuple[Move, float]]:
        """Each prize card left in the deck, equally likely."""
        if self.prize is not None or not self.deck:
            return []
        return [(card, 1 / len(self.deck)) for card in self.deck]

    def moves_of(self, seat: int) -> list[Move]:
        """The cards of ``seat``'s hand while a prize is up."""
        return list(self.hands[seat]) if self.prize is not None and 0 <= seat < self.game.players else []

    def play(self, move: Move) -> GoofspielState:
        """Turn up the prize ``move`` (a chance outcome); the bids go through ``play_joint``."""
        if self.is_terminal:
            raise IllegalMoveError(f"{move!r} is illegal in goofspiel: the game is over")
        if self.prize is not None:
            raise IllegalMoveError(f"{move!r} is illegal in goofspiel: every player bids at once now (play_joint)")
        if type(move) is not int or move not in self.deck:
            raise IllegalMoveError(f"{move!r} is illegal in goofspiel: it is not a prize card left in the deck")
        deck = tuple(card for card in self.deck if card != move)
        return GoofspielState(self.game, deck, move, self.hands, self.scores, self.ply + 1, move, self.last_round)

    def play_joint(self, moves: Sequence[Move]) -> GoofspielState:
        """Every player's bid, in seat order: the highest unique bid wins the prize."""
        game = self.game
        if self.prize is None:
            raise IllegalMoveError(f"{list(moves)!r} is illegal in goofspiel: no prize is up for bids")
        if len(moves) != game.players:
            raise IllegalMoveError(f"{list(moves)!r} is illegal in goofspiel: each of the {game.players} players bids")
        for seat, bid in enumerate(moves):
            if type(bid) is not int or bid not in self.hands[seat]:
                raise IllegalMoveError(f"{bid!r} is illegal in goofspiel: {game.SEATS[seat]} holds no card {bid!r}")
        scores = list(self.scores)
        winner = round_winner(moves)
        if winner is not None:
            scores[winner] += self.prize
        hands = tuple(tuple(card for card in hand if card != bid) for hand, bid in zip(self.hands, moves))
        return GoofspielState(
            game,
            self.deck,
            None,
            hands,
            tuple(scores),
            self.ply + len(moves),
            moves[-1],
            (self.prize, tuple(moves)),
        )

    def returns(self) -> tuple[float, ...]:
        """Each player's prize points."""
        if not self.is_terminal:
            raise ValueError("the game is not over: it has no returns yet")
        return tuple(float(score) for score in self.scores)

    def board(self) -> dict[str, Any]:
        """Two boards: the prize cards (those still in the deck, the one up marked) and one row a
        player of the cards in its hand (the bids of the last round marked); notes: the prize up,
        the last round and the points."""
        game = self.game
        n = game.cards
        prizes = [str(card) if card in self.deck or card == self.prize else "" for card in range(1, n + 1)]
        hands = [str(card) if card in hand else "" for hand in self.hands for card in range(1, n + 1)]
        last = [] if self.last_round is None else [seat * n + bid - 1 for seat, bid in enumerate(self.last_round[1])]
        return {
            "boards": [
                {
                    "rows": 1,
                    "cols": n,
                    "cells": prizes,
                    "label": "prizes",
                    "highlight": [] if self.prize is None else [self.prize - 1],
                },
                {"rows": game.players, "cols": n, "cells": hands, "label": "hands", "last": last},
            ],
            "notes": self._notes(),
        }

    def _notes(self) -> list[str]:
        """The prize up, the last round and each player's points, as lines of text."""
        names = self.game.seat_names(self.game.players)
        notes = []
        if self.prize is not None:
            notes.append(f"prize {self.prize} is up")
        if self.last_round is not None:
            prize, bids = self.last_round
            winner = round_winner(bids)
            said = ", ".join(f"{name} {bid}" for name, bid in zip(names, bids))
            won = "nobody wins it (no unique bid)" if winner is None else f"{names[winner]} wins it"
            notes.append(f"last round: prize {prize}; bids {said}: {won}")
        notes.append("points: " + ", ".join(f"{name} {score}" for name, score in zip(names, self.scores)))
        return notes

    def render(self) -> str:
        """The deck, the prize up, each hand and points, and the last round, as text."""
        names = self.game.seat_names(self.game.players)
        lines = [f"deck: {' '.join(map(str, self.deck)) or '-'}"]
        lines += [f"{name}: {' '.join(map(str, hand)) or '-'}" for name, hand in zip(names, self.hands)]
        return "\n".join(lines + self._notes())


def round_winner(bids: Sequence[int]) -> int | None:
    """The seat of the highest bid no other seat made, or ``None`` if every bid is shared."""
    unique = [bid for bid in bids if bids.count(bid) == 1]
    return None if not unique else list(bids).index(max(unique))
