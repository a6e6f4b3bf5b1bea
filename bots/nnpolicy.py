"""Neural policy: plays the move a network trained on stored games predicts a strong player makes.

A small multilayer perceptron (``arena.learning.network``, numpy only), trained by ``arena train
nnpolicy`` on the moves of played games (``arena dataset``), gives each legal move of a
position a probability (a softmax over the game's moves, masked to the legal ones). The bot
plays the most probable legal move (ties broken with its generator) or, with a
``temperature`` above 0, draws one with probabilities proportional to p ** (1 / temperature),
with its generator: 1 samples the network's own distribution, higher is more adventurous.

Parameters: ``model`` (the model file ``arena train nnpolicy`` wrote, for the game played;
required: without one the bot refuses to play; in a tournament keep it in the bot's package,
docs/learning.md), ``temperature`` (default 0: always the most probable move).
"""

from __future__ import annotations

import random
from typing import Any

from arena.games import Game, State
from arena.learning.features import Encoding, encoding_for
from arena.learning.network import Network
from arena.learning.numeric import np
from bots.common import Param, best_by, no_gc_pauses, rehearse, setup
from bots.nnvalue import FileParam, load_network

GAMES = ("tictactoe", "uttt", "xtreme", "othello")
PARAMETERS: dict[str, Param] = {
    "model": FileParam(None, str, "the model file 'arena train nnpolicy' wrote"),
    "temperature": Param(
        0.0, float, "0 plays the most probable move, above 0 samples p ** (1 / temperature)", low=0.0, high=100.0
    ),
}


class NnPolicyBot:
    """The policy network's most probable legal move, or a draw from its distribution."""

    def __init__(self, game: Game, rng: random.Random, network: Network, temperature: float) -> None:
        self.rng = rng
        self.network = network
        self.temperature = temperature
        self.encoding: Encoding = encoding_for(game)

    def probabilities(self, state: State) -> dict[int, float]:
        """Each legal move of ``state`` and the network's probability that it is played."""
        moves = state.legal_moves()
        legal = np.zeros((1, self.encoding.moves), dtype=bool)
        legal[0, moves] = True
        row = self.network.policy(self.encoding.encode(state)[None, :], legal)[0]
        return dict(zip(moves, row[moves].tolist()))

    def move(self, state: State, clock: Any) -> int:
        """The most probable legal move, or one drawn at the temperature."""
        with no_gc_pauses():
            chances = self.probabilities(state)
            moves = list(chances)
            if self.temperature == 0:
                return best_by(moves, chances.__getitem__, self.rng)
            # in log space: p ** (1 / t) of small probabilities at a low temperature underflows
            logs = np.log(np.maximum(np.array([chances[m] for m in moves]), 1e-300)) / self.temperature
            weights = np.exp(logs - logs.max()).tolist()
            return self.rng.choices(moves, weights)[0]


def make_bot(game: Game | str, seat: int, rng: random.Random, **params: Any) -> NnPolicyBot:
    """A policy-network player; ``model`` (required) names its model file."""
    game, values = setup("nnpolicy", GAMES, PARAMETERS, game, seat, rng, params)
    return NnPolicyBot(game, rng, load_network("nnpolicy", values["model"], game), values["temperature"])


def warm_up(game: Game, **params: Any) -> None:
    """Read the model and play a few warm-up moves, so that nothing is built lazily in the first timed move."""
    rehearse(make_bot, game, params)
