"""Minimax: alpha-beta search with a heuristic evaluation, iterative deepening and move ordering.

Negamax with alpha-beta pruning and a transposition table (kept between moves). Leaves are
scored by ``bots.heuristics.evaluate``; a finished game is worth more than any evaluation, a
quicker win more than a slower one (in xtreme a draw is worth the difference in course points).
Moves are searched best first: the transposition table's move, then by the heuristic move
score. At the root every move as good as the best is recognised as such (searched against
a window just below the best value) and the bot's generator picks among them. In xtreme the
same player can move twice (a bonus move): the value is negated only where the player to move
changes.

With ``depth`` set it searches exactly that deep (deterministic, the clock is not consulted).
Without it, it deepens one ply at a time until the clock's safety margin, and plays the best
move of the deepest search (or of the unfinished one, once the previous best has been searched
again); it stops early when the game tree is exhausted or the result is proven. Tic-tac-toe is
searched to the end, so it never loses there.

Parameters: ``depth`` (plies, default: iterative deepening under the clock).
"""

from __future__ import annotations

import math
import random
from typing import Any

from arena.games import Game, Outcome, State
from bots.common import Budget, Param, no_gc_pauses, rehearse, setup
from bots.heuristics import EVALUATE, MOVE_SCORES, position_key

GAMES = ("tictactoe", "uttt", "xtreme", "othello")
PARAMETERS: dict[str, Param] = {
    "depth": Param(
        None,
        int,
        "search depth in plies (shallower if the clock would run out first)",
        low=1,
        high=200,
        optional=True,
        none_means="iterative deepening until the clock's safety margin",
    ),
}
#: depth without a depth parameter and without a time limit
UNTIMED_DEPTH = {"tictactoe": 9, "uttt": 3, "xtreme": 3, "othello": 4}
#: the deepest iterative deepening goes
MAX_DEPTH = 64
#: a won game is worth WIN minus its ply count (quicker wins are better)
WIN = 1_000_000
#: values beyond this are proven results, not evaluations
PROVEN = WIN // 2
#: the transposition table is emptied when it grows beyond this many positions
TABLE_LIMIT = 200_000

EXACT, LOWER, UPPER = 0, 1, 2
#: the root searches each move against (best so far - TIE_WINDOW): values are whole numbers or
#: point differences, so a move that returns more than that is exactly as good as the best
TIE_WINDOW = 1e-6


class OutOfTime(Exception):
    """Raised inside the search when the clock's safety margin is reached."""


class MinimaxBot:
    """Alpha-beta with iterative deepening and a transposition table."""

    def __init__(self, game: Game, seat: int, rng: random.Random, depth: int | None) -> None:
        self.rng = rng
        self.depth = depth
        self.game_name = game.name
        self.evaluate = EVALUATE[game.name]
        self.move_scores = MOVE_SCORES[game.name]
        self.table: dict[Any, tuple[int, int, float, int | None]] = {}
        #: the clock's budget of the current search; ``None`` for a fixed depth
        self.budget: Budget | None = None
        self.nodes = 0
        #: depth of the last search that finished (for tests and benchmarks)
        self.last_depth = 0

    def move(self, state: State, clock: Any) -> int:
        """The best move found by the deepest search that fits."""
        with no_gc_pauses():
            return self._deepen(state, clock)

    def _deepen(self, state: State, clock: Any) -> int:
        if len(self.table) > TABLE_LIMIT:
            self.table.clear()
        moves = state.legal_moves()
        if len(moves) == 1:
            return moves[0]
        if self.depth is not None:  # a fixed depth, still cut short if the clock runs out
            timed = clock is not None and clock.limit is not None
            max_depth, self.budget = self.depth, Budget(clock, None, 0, fixed=True) if timed else None
        elif clock is None or clock.limit is None:
            max_depth, self.budget = UNTIMED_DEPTH[self.game_name], None
        else:
            max_depth, self.budget = MAX_DEPTH, Budget(clock, None, 0)
        self.rng.shuffle(moves)
        scores = self.move_scores(state)
        moves.sort(key=lambda move: -scores[move])
        best = moves[0]
        self.last_depth = 0
        for depth in range(1, max_depth + 1):
            try:
                value, best = self.search_root(state, moves, depth, best)
            except OutOfTime as partial:
                if partial.args:
                    best = partial.args[0]
                break
            self.last_depth = depth
            if abs(value) >= PROVEN or depth >= self.plies_left(state):
                break
        return best

    def plies_left(self, state: State) -> int:
        """An upper bound of the plies left in the game (deeper search finds nothing new)."""
        if self.game_name == "tictactoe":
            return 9 - state.ply
        return MAX_DEPTH

    def search_root(self, state: State, moves: list[int], depth: int, previous: int) -> tuple[float, int]:
        """Search every root move to ``depth``; (best value, best move). The previous best is
        searched first; ``moves`` is reordered best first for the next iteration."""
        moves.remove(previous)
        moves.insert(0, previous)
        alpha, beta = -math.inf, math.inf
        best_move, best_value = previous, -math.inf
        seat = state.to_move
        values = {}
        for i, move in enumerate(moves):
            child = state.play(move)
            try:
                if child.to_move == seat:
                    value = self.search(child, depth - 1, alpha, beta)
                else:
                    value = -self.search(child, depth - 1, -beta, -alpha)
            except OutOfTime:
                raise OutOfTime(*([best_move] if i else [])) from None
            values[move] = value
            if value > best_value:
                best_move, best_value = move, value
                # just below the best: a later move as good gets its exact value, a tie
                alpha = best_value - TIE_WINDOW
        ties = [move for move in moves if values[move] >= best_value]
        if len(ties) > 1:
            best_move = self.rng.choice(ties)
        # next iteration: the chosen move first, the rest by this iteration's (bounded) values
        moves.sort(key=lambda move: (move != best_move, -values[move]))
        return best_value, best_move

    def search(self, state: State, depth: int, alpha: float, beta: float) -> float:
        """The value of ``state`` to its player to move, searched ``depth`` plies deep."""
        self.nodes += 1
        if self.budget is not None and self.budget.expired():
            raise OutOfTime
        outcome = state.outcome
        if outcome is not None:
            return self.terminal_value(outcome, state)
        if depth <= 0:
            return self.evaluate(state, state.to_move)
        key = position_key(state)
        entry = self.table.get(key)
        table_move = None
        if entry is not None:
            entry_depth, flag, entry_value, table_move = entry
            if entry_depth >= depth:
                if flag == EXACT:
                    return entry_value
                if flag == LOWER:
                    alpha = max(alpha, entry_value)
                else:
                    beta = min(beta, entry_value)
                if alpha >= beta:
                    return entry_value
        moves = state.legal_moves()
        if depth >= 2 and len(moves) > 1:
            scores = self.move_scores(state)
            moves.sort(key=lambda move: -scores[move])
        if table_move is not None and table_move in moves:
            moves.remove(table_move)
            moves.insert(0, table_move)
        seat = state.to_move
        start_alpha = alpha
        best_value, best_move = -math.inf, None
        for move in moves:
            child = state.play(move)
            if child.to_move == seat:
                value = self.search(child, depth - 1, alpha, beta)
            else:
                value = -self.search(child, depth - 1, -beta, -alpha)
            if value > best_value:
                best_value, best_move = value, move
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        flag = UPPER if best_value <= start_alpha else LOWER if best_value >= beta else EXACT
        self.table[key] = (depth, flag, best_value, best_move)
        return best_value

    def terminal_value(self, outcome: Outcome, state: State) -> float:
        """A finished game's value to the player to move in ``state``."""
        seat = state.to_move
        if outcome.winner is None:
            points = outcome.points
            return 0.0 if not points else float(points[seat] - points[1 - seat])
        won = WIN - state.ply
        return won if outcome.winner == seat else -won


def make_bot(game: Game | str, seat: int, rng: random.Random, **params: Any) -> MinimaxBot:
    """An alpha-beta player; see the module docstring for the parameters."""
    game, values = setup("minimax", GAMES, PARAMETERS, game, seat, rng, params)
    return MinimaxBot(game, seat, rng, values["depth"])


def warm_up(game: Game, **params: Any) -> None:
    """Play a few warm-up moves, so that nothing is built lazily in the first timed move."""
    rehearse(make_bot, game, params)
