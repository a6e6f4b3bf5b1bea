"""OpenSpiel's own bots as reference opponents: its MCTS, its alpha-beta (expectiminimax where the
game has chance) and its uniform random player, run in arena's bot host and sandbox like every bot.

They play every OpenSpiel game (``game: {openspiel: ...}``) on OpenSpiel's own state, and arena's
tictactoe, uttt and othello (8×8, the standard opening) on OpenSpiel's ``tic_tac_toe``,
``ultimate_tic_tac_toe`` and ``othello``: arena's moves are replayed there, each mapped between the
notations (the same cell and square numbers, othello's pass 64 in both; a uttt move ``B C`` is
OpenSpiel's board ``B`` then cell ``C`` where the board is free, its cell ``C`` alone where it is
forced). MCTS and alpha-beta need the whole state, in turns: in a game of hidden information or
of simultaneous steps only ``algorithm: random`` plays.

Parameters: ``algorithm`` (``mcts``, ``alphabeta`` or ``random``; default mcts); for MCTS
``iterations`` (simulations a move, a budget the clock does not cut: OpenSpiel's MCTS searches a
number of simulations or a time, not both; default: think until the clock's safety margin, on
the wall clock), ``uct_c`` (its exploration constant, default 2) and ``rollouts`` (random rollouts an
evaluation, default 1); for alpha-beta ``depth`` (the deepest search, default 4; iterative
deepening stops earlier when the clock would run out), positions at its depth valued as even (it
sees the wins and losses within its depth, chance by expectation).
"""

from __future__ import annotations

import importlib
import math
import random
import time
from typing import Any

from arena.errors import BotParameterError
from arena.games import CHANCE, Game, State
from arena.games.openspiel import pyspiel_module
from bots.common import Param, random_move, setup, stop_time
from bots.randombot import EveryGame

#: arena's games OpenSpiel has, and its names for them
MAPPED = {"tictactoe": "tic_tac_toe", "uttt": "ultimate_tic_tac_toe", "othello": "othello"}
GAMES = EveryGame(tuple(MAPPED))
PARAMETERS: dict[str, Param] = {
    "algorithm": Param("mcts", str, "OpenSpiel's bot", choices=("mcts", "alphabeta", "random")),
    "iterations": Param(
        None, int, "MCTS simulations a move", low=1, optional=True, none_means="think until the clock's safety margin"
    ),
    "uct_c": Param(2.0, float, "MCTS exploration constant", low=0.0),
    "rollouts": Param(1, int, "MCTS random rollouts an evaluation", low=1, high=100),
    "depth": Param(4, int, "the deepest alpha-beta search", low=1, high=20),
}
#: MCTS simulations a move with neither a budget nor a time limit
UNTIMED_ITERATIONS = 1000
#: the memory MCTS's tree may take, in MB
TREE_MB = 200


def make_bot(game: Game | str, seat: int, rng: random.Random, **params: Any) -> Any:
    """OpenSpiel's bot ``algorithm`` for ``game`` (an OpenSpiel game, or tictactoe, uttt or
    othello) and ``seat``; ``BotParameterError`` for a game it cannot play."""
    resolved, values = setup("openspiel_bots", GAMES, PARAMETERS, game, seat, rng, params, knowledge=False)
    spiel_game = _spiel_game(resolved)
    if values["algorithm"] == "random":
        return RandomPlayer(rng)
    pyspiel = pyspiel_module()
    kind = spiel_game.get_type()
    if kind.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL or resolved.HIDDEN:
        raise BotParameterError(
            f"bot 'openspiel_bots': {values['algorithm']} needs the whole state, in turns; {resolved.name} has "
            "hidden information or simultaneous steps: use algorithm: random"
        )
    if values["algorithm"] == "alphabeta" and (
        spiel_game.num_players() != 2 or kind.utility != pyspiel.GameType.Utility.ZERO_SUM
    ):
        raise BotParameterError(
            f"bot 'openspiel_bots': alphabeta plays games of two seats that one wins as the other loses, "
            f"not {resolved.name}: use algorithm: mcts"
        )
    return SearchPlayer(resolved, spiel_game, seat, rng, values)


def _spiel_game(game: Game) -> Any:
    """The ``pyspiel.Game`` ``game`` is, or stands for (arena's three games it has)."""
    spiel = getattr(game, "spiel", None)
    if spiel is not None:
        return spiel
    if game.source is not None or game.name not in MAPPED:
        raise BotParameterError(
            f"bot 'openspiel_bots' plays OpenSpiel's games and {', '.join(MAPPED)}, not {game.name}"
        )
    if game.name == "othello" and (game.params.get("size") != 8 or game.params.get("opening") != "standard"):
        raise BotParameterError("bot 'openspiel_bots' plays othello on 8x8 with the standard opening only")
    return pyspiel_module().load_game(MAPPED[game.name])


class RandomPlayer:
    """OpenSpiel's uniform random bot: a uniformly random legal move (of its view, where it is
    given one), drawn with its own generator."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def move(self, state: Any, clock: Any) -> int:
        """A uniformly random legal move."""
        return random_move(state, self.rng)


class SearchPlayer:
    """MCTS or alpha-beta on OpenSpiel's state: an OpenSpiel game's own, or one kept in step with
    an arena game by replaying its moves there (``observe``)."""

    def __init__(self, game: Game, spiel_game: Any, seat: int, rng: random.Random, values: dict[str, Any]) -> None:
        self.game = game
        self.spiel_game = spiel_game
        self.seat = seat
        self.rng = rng
        self.values = values
        self.mapped = getattr(game, "spiel", None) is None
        #: an arena game's position on OpenSpiel's side, and arena's ply it stands at
        self.spiel_state = spiel_game.new_initial_state()
        self.ply = 0

    def observe(self, state: State, move: int) -> None:
        """The opponent played ``move`` in ``state``: play it on OpenSpiel's side too."""
        if self.mapped:
            self._follow(state, move)

    def _follow(self, state: State, move: int) -> None:
        if state.ply != self.ply:
            raise RuntimeError(f"out of step with the game: at ply {self.ply}, the move is of ply {state.ply}")
        for action in to_spiel(self.game.name, self.spiel_state, move):
            self.spiel_state.apply_action(action)
        self.ply += 1

    def move(self, state: State, clock: Any) -> int:
        """The move OpenSpiel's search chooses."""
        if not self.mapped:
            return self._choose(state.spiel.clone(), clock, 1)  # type: ignore[attr-defined]
        if state.ply != self.ply:
            raise RuntimeError(f"out of step with the game: at ply {self.ply}, asked at ply {state.ply}")
        spiel_state = self.spiel_state.clone()
        if self.game.name == "uttt" and _board_free(spiel_state):
            board = self._choose(spiel_state, clock, 2)
            spiel_state.apply_action(board)
            move = board * 9 + self._choose(spiel_state, clock, 1)
        else:
            move = from_spiel(self.game.name, spiel_state, self._choose(spiel_state, clock, 1))
        self._follow(state, move)
        return move

    def _choose(self, spiel_state: Any, clock: Any, searches: int) -> int:
        """OpenSpiel's action in ``spiel_state``, with the time left shared by ``searches``."""
        legal = spiel_state.legal_actions()
        if len(legal) == 1:
            return int(legal[0])
        seconds = (stop_time(clock) - _now(clock)) / searches
        if self.values["algorithm"] == "mcts":
            return self._mcts(spiel_state, seconds)
        return self._alphabeta(spiel_state, seconds)

    def _mcts(self, spiel_state: Any, seconds: float) -> int:
        pyspiel = pyspiel_module()
        iterations = self.values["iterations"]
        # OpenSpiel's MCTS searches either a number of simulations or until a time: with a
        # budget of its own, that budget (deterministic); else until the clock's safety margin
        timed = iterations is None and math.isfinite(seconds)
        simulations = iterations or (10**9 if timed else UNTIMED_ITERATIONS)
        seed = self.rng.randrange(2**31)
        evaluator = pyspiel.RandomRolloutEvaluator(self.values["rollouts"], seed)
        bot = pyspiel.MCTSBot(
            self.spiel_game,
            evaluator,
            self.values["uct_c"],
            simulations,
            TREE_MB,
            False,
            seed,
            False,
            pyspiel.ChildSelectionPolicy.UCT,
            max(0.001, seconds) if timed else -1.0,
        )
        return int(bot.step(spiel_state))

    def _alphabeta(self, spiel_state: Any, seconds: float) -> int:
        minimax = importlib.import_module("open_spiel.python.algorithms.minimax")

        player = spiel_state.current_player()
        chance = _has_chance(self.spiel_game)
        best = spiel_state.legal_actions()[0]
        started = time.monotonic()
        for depth in range(1, self.values["depth"] + 1):
            began = time.monotonic()
            if chance:
                _, action = minimax.expectiminimax(spiel_state, depth, _even, player)
            else:
                _, action = minimax.alpha_beta_search(
                    self.spiel_game, spiel_state, _even, depth, maximizing_player_id=player
                )
            if action is not None:
                best = action
            spent = time.monotonic() - began
            # the next depth costs about as many times this one as the moves branch
            if time.monotonic() - started + spent * len(spiel_state.legal_actions()) > seconds:
                break
        return int(best)


def _even(state: Any) -> float:
    """The value alpha-beta gives a position at its depth: even."""
    return 0.0


def _has_chance(spiel_game: Any) -> bool:
    return bool(spiel_game.get_type().chance_mode != pyspiel_module().GameType.ChanceMode.DETERMINISTIC)


def _now(clock: Any) -> float:
    now = getattr(clock, "now", None) or time.monotonic
    return float(now())


def _board_free(spiel_state: Any) -> bool:
    """Whether OpenSpiel's uttt waits for the mover to choose a board (its first action of a
    free move): its text says ``Forced board: any``."""
    return str(spiel_state).rstrip().endswith("Forced board: any")


def to_spiel(name: str, spiel_state: Any, move: int) -> list[int]:
    """OpenSpiel's actions for arena's ``move`` of game ``name`` in ``spiel_state``: the same
    number in tictactoe and othello (a square ``row * 8 + col``, the pass 64); in uttt ``B C``
    (``B * 9 + C``) is the board ``B`` then the cell ``C`` where the board is free, else the cell
    ``C`` of the forced board ``B``."""
    if name != "uttt":
        return [move]
    board, cell = divmod(move, 9)
    return [board, cell] if _board_free(spiel_state) else [cell]


def from_spiel(name: str, spiel_state: Any, action: int) -> int:
    """arena's move for OpenSpiel's ``action`` in ``spiel_state`` (a uttt cell of the forced
    board; a free uttt move is chosen in two actions by ``SearchPlayer.move``)."""
    if name != "uttt":
        return action
    text = str(spiel_state).rstrip()
    board = int(text.rsplit("Forced board: ", 1)[1])
    return board * 9 + action


def warm_up(game: Game, **params: Any) -> None:
    """Make the bot once (``setup`` plays a random game) and one short search, so that OpenSpiel
    is imported and its search built within the bot's startup time."""
    from arena.clock import Clock

    bot = make_bot(game, 0, random.Random(0), **params)
    state = game.initial_state()
    while state.to_move == CHANCE:
        state = state.play(state.chance_outcomes()[0][0])
    if state.to_move == 0 and not game.HIDDEN:
        bot.move(state, Clock(0.02))
