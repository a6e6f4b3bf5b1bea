"""Heuristic MCTS, the 2019 winner's recipe: UCT with heuristic move ordering, heavy playouts, tree reuse.

UCT (``bots.uct``) with these refinements:

- expansion in heuristic order: a node's moves are expanded best first by
  ``bots.heuristics.move_scores`` (uttt/xtreme: a small board won high, a two-in-a-line with the
  third cell empty medium, blocking the opponent's two low, the same on the big board ten times
  as much, the game won highest; moves that send the opponent to a free move or to a small
  board it can win count against; othello: corners high, squares next to an empty corner low,
  fewer replies left to the opponent (mobility) and edge-stable discs gained higher);
- heavy playouts (``bots.playouts``): moves drawn with probabilities weighted by the same
  patterns, a game-winning move always taken; the share ``heavy`` of playouts is heavy, the
  rest are the game's fast uniform playouts (heavy playouts are slower, so a mix can pay);
- tree reuse between moves (``reuse``), following the opponent's moves through ``observe``;
- and a move that wins at once (in xtreme also through a bonus move) is played without search.

Parameters: ``c`` (UCB1 exploration constant, default 0.4), ``iterations`` (fixed budget,
deterministic; default: the clock), ``reuse`` (default true), ``heavy`` (share of heavy
playouts, 0-1; default per game, see ``DEFAULT_HEAVY``).
"""

from __future__ import annotations

import random
from typing import Any

from arena.games import Game, State
from bots import playouts
from bots.common import Param, rehearse, reward, same_position, setup
from bots.heuristics import MOVE_SCORES, immediate_wins
from bots.uct import PARAMETERS as UCT_PARAMETERS
from bots.uct import Node, UctBot

GAMES = ("tictactoe", "uttt", "xtreme", "othello")
#: the share of heavy playouts that played best against uct at equal time, per game: in uttt
#: and xtreme heavy playouts cost about two random ones and pay; in othello they cost about
#: seven (legal-move generation on bitboards) and did not (0.05 s a move against uct, with
#: the square-weight ordering: heavy share 0 scored 78% and 0.25 scored 57% in 30 games, 1
#: scored 55% in 20)
DEFAULT_HEAVY = {"tictactoe": 1.0, "uttt": 1.0, "xtreme": 1.0, "othello": 0.0}
#: the exploration constant that played best against uct at equal time (uttt: c = 0.25, 0.4
#: and 0.7 scored 78%, 80% and 61% in 40 games each at 0.05 s a move): the heuristics
#: already steer the search, so it explores less than plain UCT's sqrt 2
DEFAULT_C = 0.4
PARAMETERS: dict[str, Param] = {
    **UCT_PARAMETERS,
    "c": Param(DEFAULT_C, float, "UCB1 exploration constant", low=0.0),
    "heavy": Param(
        None,
        float,
        "share of heavy playouts",
        low=0.0,
        high=1.0,
        optional=True,
        none_means="the game's default: " + ", ".join(f"{game} {share:g}" for game, share in DEFAULT_HEAVY.items()),
    ),
}


class HeuristicMctsBot(UctBot):
    """UCT whose expansion follows the heuristic and whose playouts are (partly) heavy."""

    name = "hmcts"

    def __init__(self, game: Game, seat: int, rng: random.Random, params: dict[str, Any]) -> None:
        super().__init__(game, seat, rng, params)
        heavy = params["heavy"]
        self.heavy = DEFAULT_HEAVY[game.name] if heavy is None else heavy
        self.move_scores = MOVE_SCORES[game.name]
        self.heavy_playout = playouts.HEAVY_PLAYOUTS[game.name]

    def move(self, state: State, clock: Any) -> int:
        """A move that wins at once if there is one (in xtreme also through a bonus move),
        else the search's choice."""
        wins = immediate_wins(state)
        if not wins:
            return super().move(state, clock)
        move = wins[0] if len(wins) == 1 else self.rng.choice(wins)
        if self.reuse:  # keep following the game: the bonus move of a chain starts from here
            root = self.root
            kept = root.child(move) if root is not None and same_position(root.state, state) else None
            if root is not None:
                self.discarded.append(root)
            self.root = kept or Node(state.play(move), move, state.to_move)
        return move

    def order(self, state: State) -> list[int]:
        """The moves, worst first (``pick_untried`` pops the best); equal scores in random
        order."""
        scores = self.move_scores(state)
        moves = list(scores)
        self.rng.shuffle(moves)
        moves.sort(key=scores.__getitem__)
        return moves

    def pick_untried(self, untried: list[int]) -> int:
        """The best move not expanded yet."""
        return untried.pop()

    def playout(self, state: State) -> float:
        """A heavy playout with probability ``heavy``, else a uniform one; reward to seat 0."""
        heavy = self.heavy
        if heavy >= 1.0 or (heavy > 0.0 and self.rng.random() < heavy):
            return reward(self.heavy_playout(state, self.rng), 0)
        return reward(state.random_playout(self.rng), 0)


def make_bot(game: Game | str, seat: int, rng: random.Random, **params: Any) -> HeuristicMctsBot:
    """A heuristic MCTS player; see the module docstring for the parameters."""
    game, values = setup("hmcts", GAMES, PARAMETERS, game, seat, rng, params, playouts.warm_up)
    return HeuristicMctsBot(game, seat, rng, values)


def warm_up(game: Game, **params: Any) -> None:
    """Play a few warm-up moves, so that nothing is built lazily in the first timed move."""
    rehearse(make_bot, game, params)
