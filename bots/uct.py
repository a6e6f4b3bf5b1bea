"""UCT: Monte-Carlo tree search with UCB1 selection and uniformly random playouts.

Each iteration descends the tree by UCB1 (mean reward + c * sqrt(ln N / n)), expands one
unexamined move chosen at random, plays a random game to the end from there
(``state.random_playout``) and adds the result to every node on the path, each from the side of
the player who made the move into that node (in xtreme the same player can move twice, so the
mover is stored per node, never assumed to alternate). The move played is the most visited.

Parameters: ``c`` (exploration constant, default sqrt 2), ``iterations`` (a fixed budget, which
makes the bot deterministic; default: think until the clock's safety margin), ``reuse`` (keep
the subtree of the position reached between moves, following the opponent's moves through
``observe``; default true).
"""

from __future__ import annotations

import math
import random
from typing import Any

from arena.games import Game, State
from bots.common import Budget, Param, no_gc_pauses, rehearse, reward, same_position, setup

GAMES = ("tictactoe", "uttt", "xtreme", "othello")
PARAMETERS: dict[str, Param] = {
    "c": Param(math.sqrt(2), float, "UCB1 exploration constant", low=0.0),
    "iterations": Param(
        None,
        int,
        "iterations per move (fewer if the clock would run out first)",
        low=1,
        optional=True,
        none_means="think until the clock's safety margin",
    ),
    "reuse": Param(True, bool, "keep the search tree between moves"),
}
#: iterations per move when there is neither a budget nor a time limit
UNTIMED_ITERATIONS = 2000


class Node:
    """A position in the search tree.

    ``mover`` made the move into this node (``move``); ``total`` is the sum of the rewards of
    the playouts through it, from the mover's side. ``untried`` is ``None`` until the node is
    first expanded, then the moves not yet given a child; ``result`` is the reward to seat 0
    of a finished game, else ``None``.
    """

    __slots__ = ("children", "move", "mover", "result", "state", "total", "untried", "visits")

    def __init__(self, state: State, move: int | None, mover: int) -> None:
        self.state = state
        self.move = move
        self.mover = mover
        self.visits = 0
        self.total = 0.0
        self.children: list[Node] = []
        self.untried: list[int] | None = None
        outcome = state.outcome
        self.result = None if outcome is None else reward(outcome, 0)

    def child(self, move: int) -> Node | None:
        """The child reached by ``move``, if it was expanded."""
        for child in self.children:
            if child.move == move:
                return child
        return None


class UctBot:
    """UCT with optional tree reuse; hmcts refines it through ``order`` and ``playout``."""

    name = "uct"

    def __init__(self, game: Game, seat: int, rng: random.Random, params: dict[str, Any]) -> None:
        self.game = game
        self.seat = seat
        self.rng = rng
        self.c = params["c"]
        self.iterations = params["iterations"]
        self.reuse = params["reuse"]
        self.root: Node | None = None
        #: trees left behind by the game, freed at the start of the next move
        self.discarded: list[Node] = []
        #: iterations of the last search (for benchmarks and tests)
        self.last_iterations = 0

    # -- hooks for refinements -------------------------------------------------------------

    def order(self, state: State) -> list[int]:
        """The moves of a node about to get its first child (``pick_untried`` takes them)."""
        return state.legal_moves()

    def pick_untried(self, untried: list[int]) -> int:
        """Remove and return the move to expand next: a uniformly random one."""
        i = int(self.rng.random() * len(untried))
        move = untried[i]
        untried[i] = untried[-1]
        untried.pop()
        return move

    def playout(self, state: State) -> float:
        """The reward to seat 0 of one playout from the unfinished ``state``."""
        return reward(state.random_playout(self.rng), 0)

    # -- the bot contract ------------------------------------------------------------------

    def move(self, state: State, clock: Any) -> int:
        """The most visited move after searching from ``state`` within the budget."""
        with no_gc_pauses():
            self.discarded.clear()  # free the parts of the tree the game left behind, now
            root = self._root_for(state)
            budget = Budget(clock, self.iterations, UNTIMED_ITERATIONS)
            iterate = self.iterate
            while budget.more():
                iterate(root)
            self.last_iterations = budget.count
            best = self.choose(root)
            self.root = best if self.reuse and best is not None else None
            # freeing a big tree takes a while: keep it until the next move's start, where the
            # time it takes comes before the search budget is set, not after the search
            self.discarded.append(root)
        if best is None:  # no iteration at all: any legal move
            moves = state.legal_moves()
            return moves[int(self.rng.random() * len(moves))]
        return best.move  # type: ignore[return-value]

    def observe(self, state: State, move: int) -> None:
        """Follow the opponent's ``move`` from ``state`` down the kept tree (or drop it)."""
        root = self.root
        if root is None:
            return
        self.discarded.append(root)
        self.root = root.child(move) if same_position(root.state, state) else None

    def close(self) -> None:
        """Drop the tree."""
        self.root = None
        self.discarded.clear()

    # -- the search ------------------------------------------------------------------------

    def _root_for(self, state: State) -> Node:
        root = self.root
        if root is not None:
            if same_position(root.state, state):
                return root
            self.discarded.append(root)
        return Node(state, None, 1 - state.to_move)

    def choose(self, root: Node) -> Node | None:
        """The most visited child (ties: the better mean, then the first)."""
        best = None
        key = (-1, -1.0)
        for child in root.children:
            k = (child.visits, child.total / child.visits if child.visits else 0.0)
            if k > key:
                best, key = child, k
        return best

    def iterate(self, root: Node) -> None:
        """One iteration: select, expand, play out, back up."""
        node = root
        path = [root]
        c = self.c
        log = math.log
        sqrt = math.sqrt
        while True:
            if node.result is not None:
                r0 = node.result
                break
            untried = node.untried
            if untried is None:
                untried = node.untried = self.order(node.state)
            if untried:
                move = self.pick_untried(untried)
                state = node.state
                child = Node(state.play(move), move, state.to_move)
                node.children.append(child)
                path.append(child)
                r0 = child.result if child.result is not None else self.playout(child.state)
                break
            # every move has a child: UCB1
            explore = c * sqrt(log(node.visits))
            best = None
            best_value = -1.0
            for child in node.children:
                n = child.visits
                value = child.total / n + explore / sqrt(n)
                if value > best_value:
                    best, best_value = child, value
            node = best  # type: ignore[assignment]
            path.append(node)
        r1 = 1.0 - r0
        for node in path:
            node.visits += 1
            node.total += r1 if node.mover else r0


def make_bot(game: Game | str, seat: int, rng: random.Random, **params: Any) -> UctBot:
    """A UCT player; see the module docstring for the parameters."""
    game, values = setup("uct", GAMES, PARAMETERS, game, seat, rng, params)
    return UctBot(game, seat, rng, values)


def warm_up(game: Game, **params: Any) -> None:
    """Play a few warm-up moves, so that nothing is built lazily in the first timed move."""
    rehearse(make_bot, game, params)
