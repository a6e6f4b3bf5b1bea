"""Unreliable: plays like another built-in bot, but now and then breaks a rule the way real
entries did: it overruns its time, plays an illegal move, or crashes.

It exists so that a tournament's field has the faults a real one has, and the harness shows
it absorbs them. Whether a move goes wrong is drawn from the bot's own ``rng``, so a seed
replays the same faults.

Parameters: ``strategy`` (the bot it plays like), ``fault`` (``overrun``, ``illegal`` or
``crash``), ``rate`` (the chance of the fault at each move).
"""

from __future__ import annotations

import importlib
import os
import random
import time
from typing import Any

from arena.games import Game, State
from bots.common import Param, rehearse, setup

GAMES = ("tictactoe", "uttt", "xtreme", "othello")
STRATEGIES = ("randombot", "onestep", "rules", "flatmc", "uct", "hmcts", "minimax")
PARAMETERS: dict[str, Param] = {
    "strategy": Param("onestep", str, "the built-in bot it plays like, with its defaults", choices=STRATEGIES),
    "fault": Param("overrun", str, "how it breaks the rules", choices=("overrun", "illegal", "crash")),
    "rate": Param(0.02, float, "the chance of the fault at each move", low=0.0, high=1.0),
}


class UnreliableBot:
    """A built-in bot that sometimes overruns, plays an illegal move or dies."""

    def __init__(self, inner: Any, fault: str, rate: float, rng: random.Random) -> None:
        self.inner = inner
        self.fault = fault
        self.rate = rate
        self.rng = rng

    def move(self, state: State, clock: Any) -> int:
        if self.rng.random() >= self.rate:
            return self.inner.move(state, clock)
        if self.fault == "overrun":
            limit = clock.limit if clock is not None and clock.limit is not None else 1.0
            time.sleep(clock.remaining() + limit + 1.0 if clock is not None and clock.limit else 2.0)
            return self.inner.move(state, clock)
        if self.fault == "illegal":
            illegal = self.illegal_move(state)
            return self.inner.move(state, clock) if illegal is None else illegal
        os._exit(3)  # a crash: the process dies without a word

    @staticmethod
    def illegal_move(state: State) -> int | None:
        """A move the game can write down but the rules forbid here (e.g. an occupied cell), or
        ``None`` when there is none yet (every cell is free at the start of xtreme)."""
        legal = set(state.legal_moves())
        for move in range(200):
            if move in legal:
                continue
            try:
                state.game.format_move(move)
            except ValueError:
                break  # past the last move the game has
            return move
        return None

    def observe(self, state: State, move: int) -> None:
        observe = getattr(self.inner, "observe", None)
        if observe is not None:
            observe(state, move)

    def close(self) -> None:
        close = getattr(self.inner, "close", None)
        if close is not None:
            close()


def make_bot(game: Game | str, seat: int, rng: random.Random, **params: Any) -> UnreliableBot:
    """A bot playing like ``strategy`` that breaks the rules (``fault``) at a rate ``rate``."""
    resolved, values = setup("unreliable", GAMES, PARAMETERS, game, seat, rng, params)
    module = importlib.import_module(f"bots.{values['strategy']}")
    if resolved.name not in module.GAMES:
        from arena.errors import BotParameterError

        raise BotParameterError(f"bot 'unreliable': strategy {values['strategy']!r} does not play {resolved.name!r}")
    inner = module.make_bot(resolved, seat, random.Random(rng.getrandbits(64)))
    return UnreliableBot(inner, values["fault"], values["rate"], rng)


def warm_up(game: Game, **params: Any) -> None:
    """Warm up as its strategy does, without faults (the warm-up game is not a real one)."""
    rehearse(make_bot, game, {**params, "rate": 0.0})
