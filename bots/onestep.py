"""One-step lookahead: win now if it can, never hand the opponent a win at once, else random.

1. Win: a move that wins the game at once (in xtreme also a move that wins a small board and
   so earns a bonus move from which a winning move exists).
2. Block: otherwise only the moves after which the opponent cannot win at once (in tic-tac-toe
   that is taking the cell the opponent needs; in uttt and xtreme it also keeps the opponent
   out of a small board it would win the game with). After a move that earns a bonus, the
   opponent has to wait: such a move is safe if one of its bonus moves is.
3. A uniformly random move among those (among all moves if every one loses at once).

Parameters: none.
"""

from __future__ import annotations

import random
from typing import Any

from arena.games import Game, State
from bots.common import Param, rehearse, setup
from bots.heuristics import immediate_wins

GAMES = ("tictactoe", "uttt", "xtreme")
PARAMETERS: dict[str, Param] = {}


def gives_away_win(child: State, seat: int) -> bool:
    """Whether, in ``child`` (reached by a move of ``seat``), the opponent wins at once."""
    outcome = child.outcome
    if outcome is not None:
        return outcome.winner == 1 - seat
    if child.to_move == seat:  # a bonus move: safe if some bonus move is
        return all(gives_away_win(child.play(move), seat) for move in child.legal_moves())
    return bool(immediate_wins(child))


def safe_moves(state: State) -> list[int]:
    """The legal moves after which the opponent cannot win at once."""
    seat = state.to_move
    return [move for move in state.legal_moves() if not gives_away_win(state.play(move), seat)]


def random_safe_move(state: State, rng: random.Random) -> int:
    """A uniformly random move among the safe ones (any move if none is): the first safe move
    of a random permutation, so usually only a few moves are examined."""
    seat = state.to_move
    moves = state.legal_moves()
    rng.shuffle(moves)
    for move in moves:
        if not gives_away_win(state.play(move), seat):
            return move
    return moves[0]


class OneStepBot:
    """Win, else block, else random."""

    __slots__ = ("rng",)

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def move(self, state: State, clock: Any) -> int:
        """A winning move if there is one, else a random move that does not lose at once."""
        wins = immediate_wins(state)
        if wins:
            return self.rng.choice(wins)
        return random_safe_move(state, self.rng)


def make_bot(game: Game | str, seat: int, rng: random.Random, **params: Any) -> OneStepBot:
    """A one-step lookahead player; it takes no parameters."""
    setup("onestep", GAMES, PARAMETERS, game, seat, rng, params)
    return OneStepBot(rng)


def warm_up(game: Game, **params: Any) -> None:
    """Play a few warm-up moves, so that nothing is built lazily in the first timed move."""
    rehearse(make_bot, game, params)
