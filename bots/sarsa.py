"""SARSA on a tree-shaped Q table: on-policy updates from epsilon-greedy simulated games.

The same table, episodes and greedy play as ``bots.qlearning``; only the update differs. The
reward comes only at the end of the game, and each step learns from the value of the step the
policy actually took next:

    Q(s, a) <- Q(s, a) + alpha * (r - Q(s, a) + gamma * Q(s', a')),   alpha = A * exp(-k * x)

with ``r`` = 0 except at the end and ``x`` the plies from ``s`` to the end. ``Q(s', a')`` is
the next step's value seen from the side of the player who moved at ``s`` (negated when the
other player moves at ``s'``; in xtreme a bonus move keeps the same player). The last step in
the table is followed by random moves outside it; its target is the final result discounted
by ``gamma`` for each of those plies. The steps are updated from the last to the first, so a
result reaches the root in one episode.

Parameters: ``A``, ``k``, ``epsilon``, ``episodes`` as in qlearning, and ``gamma`` (discount,
default 0.99).
"""

from __future__ import annotations

import random
from typing import Any

from arena.games import Game
from bots.common import Param, rehearse, setup
from bots.qlearning import PARAMETERS as QLEARNING_PARAMETERS
from bots.qlearning import QLearningBot, QNode, signed_reward

GAMES = ("tictactoe", "uttt", "xtreme", "othello")
PARAMETERS: dict[str, Param] = {
    **QLEARNING_PARAMETERS,
    "gamma": Param(0.99, float, "discount per ply", low=0.0, high=1.0),
}


class SarsaBot(QLearningBot):
    """Q-learning's table and episodes with the on-policy SARSA update."""

    name = "sarsa"

    def __init__(self, game: Game, seat: int, rng: random.Random, params: dict[str, Any]) -> None:
        super().__init__(game, seat, rng, params)
        self.gamma = params["gamma"]

    def update(self, path: list[tuple[QNode, int]], outcome: Any, tail: int) -> None:
        """The SARSA update of each step, last step first."""
        gamma = self.gamma
        r0 = signed_reward(outcome, 0)
        steps = len(path)
        node, i = path[-1]
        mover = node.state.to_move
        target = (r0 if mover == 0 else -r0) * gamma**tail
        q = node.q
        q[i] += self.alpha(1 + tail) * (target - q[i])
        next_value, next_mover = q[i], mover
        for j in range(steps - 2, -1, -1):
            node, i = path[j]
            mover = node.state.to_move
            target = gamma * (next_value if mover == next_mover else -next_value)
            q = node.q
            q[i] += self.alpha(steps - j + tail) * (target - q[i])
            next_value, next_mover = q[i], mover


def make_bot(game: Game | str, seat: int, rng: random.Random, **params: Any) -> SarsaBot:
    """A SARSA player; see the module docstring for the parameters."""
    game, values = setup("sarsa", GAMES, PARAMETERS, game, seat, rng, params)
    return SarsaBot(game, seat, rng, values)


def warm_up(game: Game, **params: Any) -> None:
    """Play a few warm-up moves, so that nothing is built lazily in the first timed move."""
    rehearse(make_bot, game, params)
