"""Flat Monte Carlo: random playouts spread round robin over the legal moves; the best average wins.

Every legal move gets one playout in turn (round robin) until the budget runs out; each playout
scores, from the bot's side, ``win`` points for a win, ``loss`` for a loss and ``draw`` for a
draw (default +1, -10, 0: a cautious player that avoids moves which can lose). The move with
the best average is played, ties broken with the bot's generator. A move that ends the game
is scored by its result without a playout.

Parameters: ``playouts`` (a fixed total budget, deterministic; default: think until the clock's
safety margin), ``win``, ``loss``, ``draw`` (the points of each result).
"""

from __future__ import annotations

import random
from typing import Any

from arena.games import Game, State
from bots.common import Budget, Param, best_by, no_gc_pauses, rehearse, setup

GAMES = ("tictactoe", "uttt", "xtreme", "othello")
PARAMETERS: dict[str, Param] = {
    "playouts": Param(
        None,
        int,
        "playouts per move, over all moves (fewer if the clock would run out first)",
        low=1,
        optional=True,
        none_means="think until the clock's safety margin",
    ),
    "win": Param(1.0, float, "points of a playout won"),
    "loss": Param(-10.0, float, "points of a playout lost"),
    "draw": Param(0.0, float, "points of a drawn playout"),
}
#: playouts per move when there is neither a budget nor a time limit
UNTIMED_PLAYOUTS = 1000


class FlatMonteCarloBot:
    """Round-robin random playouts over the legal moves."""

    def __init__(self, seat: int, rng: random.Random, params: dict[str, Any]) -> None:
        self.rng = rng
        self.playouts = params["playouts"]
        self.points = (params["win"], params["loss"], params["draw"])

    def move(self, state: State, clock: Any) -> int:
        """The legal move with the best average playout score."""
        with no_gc_pauses():
            return self._search(state, clock)

    def _search(self, state: State, clock: Any) -> int:
        seat = state.to_move
        win, loss, draw = self.points
        moves = state.legal_moves()
        children = [state.play(move) for move in moves]
        count = len(moves)
        totals = [0.0] * count
        runs = [0] * count
        budget = Budget(clock, self.playouts, UNTIMED_PLAYOUTS)
        rng = self.rng
        i = 0
        while budget.more():
            child = children[i]
            outcome = child.outcome
            if outcome is None:
                outcome = child.random_playout(rng)
            winner = outcome.winner
            totals[i] += draw if winner is None else win if winner == seat else loss
            runs[i] += 1
            i = i + 1 if i + 1 < count else 0
        tried = [j for j in range(count) if runs[j]] or list(range(count))
        best = best_by(tried, lambda j: totals[j] / runs[j] if runs[j] else 0.0, rng)
        return moves[best]


def make_bot(game: Game | str, seat: int, rng: random.Random, **params: Any) -> FlatMonteCarloBot:
    """A flat Monte-Carlo player; see the module docstring for the parameters."""
    game, values = setup("flatmc", GAMES, PARAMETERS, game, seat, rng, params)
    return FlatMonteCarloBot(seat, rng, values)


def warm_up(game: Game, **params: Any) -> None:
    """Play a few warm-up moves, so that nothing is built lazily in the first timed move."""
    rehearse(make_bot, game, params)
