"""bots.unreliable: the field's unreliable teams break the rules as configured, reproducibly."""

from __future__ import annotations

import json
import random

import pytest

from arena.core.botspec import BotSpec
from arena.core.job import GameJob
from arena.core.records import Termination
from arena.core.timing import TimeControl
from arena.errors import BotParameterError
from arena.games import get_game
from arena.runners.worker import GameWorker
from bots import unreliable

RANDOM = BotSpec("random", "python", "bots.randombot")


def play(fault: str, rate: float, seed: int, game: str = "uttt"):
    spec = BotSpec(
        "flaky", "python", "bots.unreliable", json.dumps({"fault": fault, "rate": rate, "strategy": "randombot"})
    )
    with GameWorker(fork=False) as worker:
        return worker.play(
            GameJob(seed, {"name": game, "params": {}}, (spec, RANDOM), seed, TimeControl(0.1, grace=0.05))
        )


@pytest.mark.parametrize(
    ("fault", "termination"),
    [("overrun", Termination.TIMEOUT), ("illegal", Termination.ILLEGAL_MOVE), ("crash", Termination.CRASH)],
)
def test_each_fault_is_the_forfeit_it_names(fault, termination):
    record = play(fault, 1.0, 3)
    assert (record.termination, record.offender, record.winner) == (termination, 0, 1)


def test_the_faulty_move_comes_at_the_same_ply_from_the_same_seed():
    first, again = play("illegal", 0.3, 11), play("illegal", 0.3, 11)
    assert first.termination == Termination.ILLEGAL_MOVE
    assert [m.move for m in first.moves] == [m.move for m in again.moves]
    assert first.detail == again.detail


def test_rate_zero_never_breaks_a_rule():
    assert play("crash", 0.0, 5).termination == Termination.NORMAL


def test_an_illegal_move_is_one_the_game_can_write_but_not_play():
    state = get_game("xtreme").initial_state()
    assert unreliable.UnreliableBot.illegal_move(state) is None  # every cell is free at the start
    state = state.play(0)
    move = unreliable.UnreliableBot.illegal_move(state)
    assert move == 0 and not state.is_legal(move)


def test_unknown_fault_is_a_parameter_error():
    with pytest.raises(BotParameterError, match="fault"):
        unreliable.make_bot(get_game("uttt"), 0, random.Random(1), fault="sulk")
