"""Q-learning on a tree-shaped Q table: epsilon-greedy simulated games from the current position.

The Q table is a tree of the positions the bot has met while thinking, each with one value per
legal move, ``Q(s, a)`` in [-1, 1] from the side of the player to move at ``s``. Only the
subtree of the current position is kept between moves (the bot follows its own moves and the
opponent's, through ``observe``). Each episode plays one game from the current position: at each
position of the tree an epsilon-greedy move (a random move with probability ``epsilon``, else
the best by Q, ties at random); the first position outside the tree is added to it, and from
there the game goes on with random moves (what epsilon-greedy does where every Q is still 0).
At the end every tree step ``(s, a)`` on the way is updated with the result ``r`` (+1 a win, -1
a loss, a draw 0, or in xtreme the difference of the course points' shares) from the side of
the player who moved at ``s``:

    Q(s, a) <- Q(s, a) + alpha * (r - Q(s, a)),   alpha = A * exp(-k * x)

with ``x`` the number of plies from ``s`` to the end of that game: moves close to the end learn
fast, moves far from it slowly. After thinking it plays the greedy move at the root.

Parameters: ``A`` (0-1), ``k`` (>= 0), ``epsilon`` (0-1), ``episodes`` (fixed budget,
deterministic; default: think until the clock's safety margin).
"""

from __future__ import annotations

import math
import random
from typing import Any

from arena.games import Game, State
from bots.common import Budget, Param, no_gc_pauses, rehearse, reward, same_position, setup

GAMES = ("tictactoe", "uttt", "xtreme", "othello")
PARAMETERS: dict[str, Param] = {
    "A": Param(0.5, float, "learning rate at the end of the game", low=0.0, high=1.0, low_open=True),
    "k": Param(0.02, float, "decay of the learning rate per ply from the end", low=0.0),
    "epsilon": Param(0.2, float, "probability of a random move in an episode", low=0.0, high=1.0),
    "episodes": Param(
        None,
        int,
        "simulated games per move (fewer if the clock would run out first)",
        low=1,
        optional=True,
        none_means="think until the clock's safety margin",
    ),
}
#: episodes per move when there is neither a budget nor a time limit
UNTIMED_EPISODES = 500


class QNode:
    """A position of the Q table: its legal moves, their Q values, and the children met."""

    __slots__ = ("children", "moves", "q", "state")

    def __init__(self, state: State) -> None:
        self.state = state
        self.moves = state.legal_moves()
        self.q = [0.0] * len(self.moves)
        self.children: list[QNode | None] = [None] * len(self.moves)

    def child(self, move: int) -> QNode | None:
        """The child reached by ``move``, if the table has it."""
        try:
            return self.children[self.moves.index(move)]
        except ValueError:
            return None


def signed_reward(outcome: Any, seat: int) -> float:
    """The result for ``seat`` in [-1, 1]."""
    return 2.0 * reward(outcome, seat) - 1.0


class QLearningBot:
    """Epsilon-greedy episodes on a tree-shaped Q table; greedy play."""

    name = "qlearning"

    def __init__(self, game: Game, seat: int, rng: random.Random, params: dict[str, Any]) -> None:
        self.rng = rng
        self.A = params["A"]
        self.k = params["k"]
        self.epsilon = params["epsilon"]
        self.episodes = params["episodes"]
        self.root: QNode | None = None
        #: tables left behind by the game, freed at the start of the next move
        self.discarded: list[QNode] = []
        #: episodes of the last move (for benchmarks and tests)
        self.last_episodes = 0

    # -- the bot contract ------------------------------------------------------------------

    def move(self, state: State, clock: Any) -> int:
        """The greedy move at ``state`` after the episodes that fit the budget."""
        with no_gc_pauses():
            self.discarded.clear()  # free the parts of the table the game left behind, now
            root = self.root
            if root is None or not same_position(root.state, state):
                if root is not None:
                    self.discarded.append(root)
                root = QNode(state)
            budget = Budget(clock, self.episodes, UNTIMED_EPISODES)
            while budget.more():
                self.episode(root)
            self.last_episodes = budget.count
            index = self.greedy(root.q)
            move = root.moves[index]
            child = root.children[index]
            if child is None:  # an unexplored move: start the table of the next position
                child = root.children[index] = QNode(root.state.play(move))
            self.root = child
            self.discarded.append(root)  # freed at the next move's start (see uct)
            return move

    def observe(self, state: State, move: int) -> None:
        """Follow the opponent's ``move`` down the kept table (or drop it)."""
        root = self.root
        if root is not None:
            self.discarded.append(root)
            self.root = root.child(move) if same_position(root.state, state) else None

    def close(self) -> None:
        """Drop the table."""
        self.root = None
        self.discarded.clear()

    # -- learning --------------------------------------------------------------------------

    def greedy(self, q: list[float]) -> int:
        """The index of the best value, ties at random."""
        best = max(q)
        ties = [i for i, value in enumerate(q) if value == best]
        return ties[0] if len(ties) == 1 else ties[int(self.rng.random() * len(ties))]

    def choose(self, node: QNode) -> int:
        """Epsilon-greedy: a random move with probability epsilon, else the greedy one."""
        rand = self.rng.random
        if rand() < self.epsilon:
            return int(rand() * len(node.moves))
        return self.greedy(node.q)

    def rollout(self, state: State) -> tuple[Any, int]:
        """Random moves to the end: (outcome, plies played)."""
        rng = self.rng
        plies = 0
        while True:
            outcome = state.outcome
            if outcome is not None:
                return outcome, plies
            moves = state.legal_moves()
            state = state.play(moves[int(rng.random() * len(moves))])
            plies += 1

    def episode(self, root: QNode) -> None:
        """One simulated game from ``root``, then the updates of its tree steps."""
        path: list[tuple[QNode, int]] = []
        node = root
        while True:
            if not node.moves:
                outcome, tail = node.state.outcome, 0
                break
            i = self.choose(node)
            path.append((node, i))
            child = node.children[i]
            if child is None:
                child = node.children[i] = QNode(node.state.play(node.moves[i]))
                outcome, tail = self.rollout(child.state)
                break
            node = child
        if path:
            self.update(path, outcome, tail)

    def alpha(self, plies_to_end: int) -> float:
        """The learning rate ``A * exp(-k * x)``."""
        return self.A * math.exp(-self.k * plies_to_end)

    def update(self, path: list[tuple[QNode, int]], outcome: Any, tail: int) -> None:
        """Q(s, a) += alpha * (r - Q(s, a)) for each step, ``r`` from its mover's side."""
        r0 = signed_reward(outcome, 0)
        steps = len(path)
        for j, (node, i) in enumerate(path):
            r = r0 if node.state.to_move == 0 else -r0
            q = node.q
            q[i] += self.alpha(steps - j + tail) * (r - q[i])


def make_bot(game: Game | str, seat: int, rng: random.Random, **params: Any) -> QLearningBot:
    """A Q-learning player; see the module docstring for the parameters."""
    game, values = setup("qlearning", GAMES, PARAMETERS, game, seat, rng, params)
    return QLearningBot(game, seat, rng, values)


def warm_up(game: Game, **params: Any) -> None:
    """Play a few warm-up moves, so that nothing is built lazily in the first timed move."""
    rehearse(make_bot, game, params)
