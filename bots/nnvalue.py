"""Neural value: plays the move whose resulting position a network trained on stored games rates best.

A small multilayer perceptron (``arena.learning.network``, numpy only), trained by ``arena train nnvalue``
on the positions of played games (``arena dataset``), predicts the probability that the side to
move in a position wins. The bot looks one move ahead: it rates the position after each legal
move, from its own side (a finished game by its outcome, 1 a win, 0.5 a draw, 0 a loss; after
a move that gives the opponent the turn, 1 minus the network's value; after an xtreme bonus
move, the value itself), and plays the best; ties are broken with its generator.

Parameters: ``model`` (the model file ``arena train nnvalue`` wrote, for the game played;
required: without one the bot refuses to play). In a tournament the sandbox lets a bot read its
own package only: keep the model there (docs/learning.md).
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import BotParameterError
from arena.games import Game, State
from arena.learning.features import Encoding, encoding_for
from arena.learning.network import ModelError, Network, load_model, train_hint
from bots.common import Param, best_by, no_gc_pauses, rehearse, setup

GAMES = ("tictactoe", "uttt", "xtreme", "othello")


@dataclass(frozen=True)
class FileParam(Param):
    """A parameter that names a file: any non-empty text, or ``None`` for none given (the bot
    opens and checks the file, and says what it needs when there is none)."""

    def accepts(self) -> str:
        """What the parameter accepts, in words."""
        return "the path of a file"

    def check(self, value: Any) -> Any:
        """``value`` if it is non-empty text or ``None``, else ``ValueError``."""
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise ValueError
        return value


PARAMETERS: dict[str, Param] = {
    "model": FileParam(None, str, "the model file 'arena train nnvalue' wrote"),
}

#: networks already read, by (kind, game, resolved path, modification time, size): a tournament
#: makes a bot for every game, and each would otherwise read and check the file again
_MODELS: dict[tuple[Any, ...], Network] = {}


def load_network(bot: str, path: str | None, game: Game) -> Network:
    """The network in model file ``path`` (the ``model`` parameter of ``bot``, ``nnvalue`` or
    ``nnpolicy``), checked to be made for that bot and ``game``; ``BotParameterError`` saying
    what to do otherwise."""
    if path is None:
        raise BotParameterError(
            f"bot {bot!r} needs a model: give the parameter model=PATH, a file "
            f"'arena train {bot}' wrote ({train_hint(bot, game)})"
        )
    try:
        stat = os.stat(path)
        key = (bot, encoding_for(game).name, str(Path(path).resolve()), stat.st_mtime_ns, stat.st_size)
    except (OSError, ValueError):
        key = None  # load_model says what is wrong with it
    if key is not None and key in _MODELS:
        return _MODELS[key]
    try:
        network = load_model(path, bot, game)
    except ModelError as error:
        raise BotParameterError(f"bot {bot!r}: {error}") from None
    if key is not None:
        _MODELS[key] = network
    return network


class NnValueBot:
    """One-move lookahead on a value network's ratings."""

    def __init__(self, game: Game, rng: random.Random, network: Network) -> None:
        self.rng = rng
        self.network = network
        self.encoding: Encoding = encoding_for(game)

    def ratings(self, state: State) -> dict[int, float]:
        """Each legal move of ``state`` and how good the position after it is for the side to
        move in ``state`` (0 to 1)."""
        seat = state.to_move
        moves = state.legal_moves()
        children = [state.play(move) for move in moves]
        rated: dict[int, float] = {}
        unfinished = []
        for move, child in zip(moves, children):
            outcome = child.outcome
            if outcome is not None:
                rated[move] = outcome.score(seat)
            else:
                unfinished.append((move, child))
        if unfinished:
            values = self.network.values(self.encoding.encode_many([child for _, child in unfinished]))
            for (move, child), value in zip(unfinished, values.tolist()):
                rated[move] = value if child.to_move == seat else 1.0 - value
        return rated

    def move(self, state: State, clock: Any) -> int:
        """The legal move rated best (ties broken at random)."""
        with no_gc_pauses():
            rated = self.ratings(state)
            return best_by(state.legal_moves(), rated.__getitem__, self.rng)


def make_bot(game: Game | str, seat: int, rng: random.Random, **params: Any) -> NnValueBot:
    """A value-network player; ``model`` (required) names its model file."""
    game, values = setup("nnvalue", GAMES, PARAMETERS, game, seat, rng, params)
    return NnValueBot(game, rng, load_network("nnvalue", values["model"], game))


def warm_up(game: Game, **params: Any) -> None:
    """Read the model and play a few warm-up moves, so that nothing is built lazily in the first timed move."""
    rehearse(make_bot, game, params)
