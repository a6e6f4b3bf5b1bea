"""The harness plays any game: N seats, chance drawn from the game's seed, simultaneous steps."""

from __future__ import annotations

import json
import shlex
import sys

from arena.core.botspec import BotSpec
from arena.core.job import GameJob
from arena.core.timing import TimeControl
from arena.games import CHANCE, SIMULTANEOUS
from arena.games.loading import load_game
from arena.runners.worker import GameWorker
from tests.fixtures.harnesskit import COMMANDS, REPO, python_bot

GOOFSPIEL = load_game({"module": str(REPO / "examples" / "games" / "goofspiel.py")}, {"players": 3, "cards": 5})


def test_three_bots_play_goofspiel_with_chance_and_simultaneous_bids():
    bots = tuple(python_bot("plain_random", name=f"r{seat}") for seat in range(3))
    with GameWorker(fork=False) as worker:
        records = [worker.play(GameJob(seed, GOOFSPIEL.spec(), bots, seed, TimeControl(1.0))) for seed in (5, 5, 6)]
    first, again, other = records
    assert first.termination.value == "normal", first.detail
    assert len(first.stderr) == 3
    # five rounds: a prize drawn by chance, then one bid of each seat, in seat order
    assert [m.seat for m in first.moves] == [CHANCE, 0, 1, 2] * 5
    assert all(m.cpu_ms is None and m.wall_ms == 0 for m in first.moves if m.seat == CHANCE)
    state = GOOFSPIEL.replay([m.move for m in first.moves])
    assert state.is_terminal and first.points == state.returns() and len(first.points) == 3
    assert [m.move for m in again.moves] == [m.move for m in first.moves]  # the same seed: the same game
    assert [m.move for m in other.moves if m.seat == CHANCE] != [m.move for m in first.moves if m.seat == CHANCE]


def test_a_bid_that_is_not_in_the_bidders_hand_forfeits_that_seat():
    answer = shlex.quote(json.dumps({"type": "move", "move": "0"}))
    cheat = BotSpec("cheat", "command", f"{sys.executable} {COMMANDS / 'replies_with.py'} {answer}")
    bots = (python_bot("plain_random", name="a"), cheat, python_bot("plain_random", name="c"))
    with GameWorker(fork=False) as worker:
        record = worker.play(GameJob(1, GOOFSPIEL.spec(), bots, 1, TimeControl(1.0)))
    assert (record.termination.value, record.offender) == ("illegal_move", 1)
    assert "'0' is not one of seat 1's legal moves" in record.detail
    assert record.points == (1.0, 0.0, 1.0) and record.winner is None


def test_a_take_back_removes_the_whole_simultaneous_step_and_keeps_the_chance_outcome_before_it():
    from arena.core.gameloop import _take_back
    from arena.core.records import GameRecord, MoveRecord

    game = load_game({"module": str(REPO / "examples" / "games" / "goofspiel.py")}, {"players": 3, "cards": 3})
    played = [(CHANCE, "1"), (0, "3"), (1, "3"), (2, "1"), (CHANCE, "3"), (0, "2"), (1, "1"), (2, "2")]
    record = GameRecord(1, moves=[MoveRecord(seat, move, 0.0, None) for seat, move in played])
    state = _take_back(game, record, 1)  # seat 1's bid of the second round: that round's bids go
    assert [(m.seat, m.move) for m in record.moves] == played[:5]
    assert state.to_move == SIMULTANEOUS and state.ply == 5
    _take_back(game, record, 0)  # now its bid of the first round: the first prize stays drawn
    assert [(m.seat, m.move) for m in record.moves] == played[:1]
