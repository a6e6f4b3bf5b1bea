"""Random: a uniformly random legal move, the weakest sensible player and the baseline of every test.

Parameters: none.
"""

from __future__ import annotations

import random
from typing import Any

from arena.games import Game, State
from bots.common import Param, random_move, rehearse, setup

GAMES = ("tictactoe", "uttt", "xtreme", "othello")
PARAMETERS: dict[str, Param] = {}


class RandomBot:
    """Plays a uniformly random legal move drawn with its own generator."""

    __slots__ = ("rng",)

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def move(self, state: State, clock: Any) -> int:
        """A uniformly random legal move of ``state``."""
        return random_move(state, self.rng)


def make_bot(game: Game | str, seat: int, rng: random.Random, **params: Any) -> RandomBot:
    """A random player; it takes no parameters."""
    setup("randombot", GAMES, PARAMETERS, game, seat, rng, params)
    return RandomBot(rng)


def warm_up(game: Game, **params: Any) -> None:
    """Play a few warm-up moves, so that nothing is built lazily in the first timed move."""
    rehearse(make_bot, game, params)
