"""Random: a uniformly random legal move, the weakest sensible player and the baseline of every test.

It plays every game: arena's four and any game written to the game contract (docs/games.md,
"Writing a game"), one loaded from a path included. In a game with simultaneous steps or hidden
information its ``move`` is given a view of its seat whose ``legal_moves()`` are its own moves;
in the others, the state.

Parameters: none.
"""

from __future__ import annotations

import random
from typing import Any

from arena.games import Game, State
from bots.common import Param, random_move, rehearse, setup


class EveryGame(tuple[str, ...]):
    """The games of a bot that plays every game. Asked whether it holds a game's name (``in``:
    how ``setup`` and the harness check a bot's ``GAMES``) it holds any; listed, it is arena's
    built-in games, the ones bot listings and the browser's game page offer it for."""

    __slots__ = ()

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str)


#: arena's own games, each of two seats taking turns
BUILT_IN = ("tictactoe", "uttt", "xtreme", "othello")
GAMES = EveryGame(BUILT_IN)
PARAMETERS: dict[str, Param] = {}


class RandomBot:
    """Plays a uniformly random legal move drawn with its own generator."""

    __slots__ = ("rng",)

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def move(self, state: State, clock: Any) -> int:
        """A uniformly random legal move of ``state`` (or of the view of its seat it is given:
        the same draw from its ``legal_moves()``)."""
        return random_move(state, self.rng)


def make_bot(game: Game | str, seat: int, rng: random.Random, **params: Any) -> RandomBot:
    """A random player; it takes no parameters."""
    setup("randombot", GAMES, PARAMETERS, game, seat, rng, params, knowledge=False)
    return RandomBot(rng)


def warm_up(game: Game, **params: Any) -> None:
    """Play a few warm-up moves, so that nothing is built lazily in the first timed move. A game
    not of arena's own may have chance, simultaneous steps or more seats, which the two-seat
    rehearsal does not play; there making the bot is the warm-up (``setup`` plays a random game
    of it), as a random player builds nothing of its own."""
    if game.source is None and game.name in BUILT_IN:
        rehearse(make_bot, game, params)
    else:
        make_bot(game, 0, random.Random(0), **params)
