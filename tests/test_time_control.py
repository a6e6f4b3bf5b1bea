"""Time controls: per move, a game bank with an increment (and both, as Kaggle's overage), on
the wall clock (less the time a bot waits for a CPU other programs hold) or the CPU clock (with
a wall-time backstop); what the bot's clock says; CPU a bot uses while it is not its turn is its
fault, never its opponent's.

The bots here sleep or compute for fixed times well away from the limits (0.05 s and more), so
that a busy machine does not change the outcome.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from arena.core.records import Termination
from arena.core.timing import SeatClock, TimeControl
from arena.entrants.kinds import kind_of
from tests.fixtures.harnesskit import job, late, python_bot, running

FIRST = python_bot("first_legal")


def spends(sleep: float = 0.0, cpu: float = 0.0, name: str | None = None):
    return python_bot("spends_time", name, params={"sleep": sleep, "cpu": cpu})


def clocks(stderr: str) -> list[dict]:
    """What the spends_time bot's clock said at each of its moves."""
    return [json.loads(line.removeprefix("clock ")) for line in stderr.splitlines() if line.startswith("clock ")]


# ---------------------------------------------------------------- the seat's clock


def test_a_bank_pays_for_what_a_move_takes_and_gets_the_increment():
    clock = SeatClock(TimeControl(move=None, bank=10.0, increment=0.5), "wall")
    assert clock.limit() == 10.0
    clock.spend(3.0)
    assert (clock.bank, clock.limit()) == (7.5, 7.5)


def test_with_a_per_move_time_the_bank_pays_only_for_the_overrun():
    clock = SeatClock(TimeControl(move=0.2, bank=1.0), "wall")
    clock.spend(0.1)
    assert clock.limit() == pytest.approx(1.2)
    clock.spend(0.5)
    assert clock.bank == pytest.approx(0.7)


def test_a_move_within_the_grace_empties_the_bank_but_never_below_zero():
    clock = SeatClock(TimeControl(move=None, bank=1.0, increment=0.1), "wall")
    clock.spend(1.04)
    assert clock.bank == pytest.approx(0.1)


def test_without_a_move_time_or_a_bank_there_is_no_limit():
    assert SeatClock(TimeControl(move=None), "wall").limit() is None


# ---------------------------------------------------------------- games


def test_a_bank_runs_out_and_the_move_past_it_is_a_timeout(pool):
    # 0.3 s a move from a 1 s bank: 1.0, 0.7, 0.4 before its first three moves, 0.1 before its fourth
    record = pool.play(job(spends(sleep=0.3), FIRST, move=None, bank=1.0))
    assert (record.termination, record.offender, [m.seat for m in record.moves]) == (
        Termination.TIMEOUT,
        0,
        [0, 1, 0, 1, 0, 1],
    )
    # what is left is 0.1 s, and a little more on a busy machine: time waited for a CPU is not charged
    left = re.fullmatch(r"no reply within (0\.\d{3}) s \+ 0\.050 s grace of wall time \(.*\)", record.detail)
    assert left and 0.0 < float(left[1]) < 0.2, record.detail
    seen = clocks(record.stderr[0])
    assert [s["kind"] for s in seen] == ["wall"] * 4
    assert [s["limit"] for s in seen[:3]] == pytest.approx([1.0, 0.7, 0.4], abs=0.02)
    assert [s["bank"] for s in seen[:3]] == pytest.approx([1.0, 0.7, 0.4], abs=0.02)


def test_an_increment_keeps_a_bank_from_running_out(pool):
    record = pool.play(job(spends(sleep=0.3), FIRST, move=None, bank=0.5, increment=0.3))
    assert (record.termination, record.offender) == (Termination.NORMAL, None)
    assert [s["bank"] for s in clocks(record.stderr[0])] == pytest.approx([0.5, 0.5, 0.5, 0.5], abs=0.02)


def test_with_a_move_time_and_a_bank_each_overrun_comes_out_of_the_bank(pool):
    # 0.35 s a move at 0.2 s a move: 0.15 s from the 0.3 s bank each time; the third has none
    record = pool.play(job(spends(sleep=0.35), FIRST, move=0.2, bank=0.3))
    assert (record.termination, record.offender, len(record.moves)) == (Termination.TIMEOUT, 0, 4)
    assert [s["limit"] for s in clocks(record.stderr[0])] == pytest.approx([0.5, 0.35, 0.2], abs=0.02)


def test_on_the_cpu_clock_sleeping_is_free_until_the_backstop(pool):
    record = pool.play(job(spends(sleep=0.3), FIRST, move=0.2, clock="cpu"))
    assert (record.termination, record.offender) == (Termination.NORMAL, None)
    assert {s["kind"] for s in clocks(record.stderr[0])} == {"cpu"}
    assert all(m.cpu_ms < 100 and m.wall_ms > 250 for m in record.moves if m.seat == 0)


def test_on_the_cpu_clock_a_bot_asleep_past_the_backstop_times_out(pool):
    record = pool.play(job(spends(sleep=1.0), FIRST, move=0.2, clock="cpu", backstop=3.0))
    assert (record.termination, record.offender) == (Termination.TIMEOUT, 0)
    assert record.detail.startswith(
        "no reply within 0.650 s of wall time (the backstop of the cpu clock: 3 x 0.200 s + grace; "
    )


def test_on_the_cpu_clock_computing_past_the_limit_is_a_timeout(pool):
    record = pool.play(job(spends(cpu=0.5), FIRST, move=0.2, clock="cpu"))
    assert (record.termination, record.offender) == (Termination.TIMEOUT, 0)
    assert re.fullmatch(late(0.2, clock="cpu"), record.detail)


def test_a_course_bot_keeps_the_wall_clock_under_a_cpu_tournament():

    assert kind_of("course2019").clock == "wall"
    assert kind_of("python").clock is None


# ---------------------------------------------------------------- a busy machine


@pytest.mark.serial
def test_on_the_wall_clock_the_time_a_bot_waits_for_a_busy_cpu_is_not_charged(tmp_path):
    # the bots and eight busy loops on one CPU: 0.2 s of work takes 0.4 s or more of wall time
    from arena.runners.worker import GameWorker

    loops = [subprocess.Popen(["taskset", "-c", "0", sys.executable, "-c", "while True: pass"]) for _ in range(8)]
    try:
        with GameWorker(cpu=0, fork=False) as worker:
            record = worker.play(job(spends(cpu=0.2), FIRST, move=0.25))
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()
    assert (record.termination, record.offender) == (Termination.NORMAL, None), record.detail
    own = [m for m in record.moves if m.seat == 0]
    assert all(m.wall_ms > 300 for m in own), own  # each would have been a timeout at 0.25 s + grace
    assert all(m.wall_ms - m.wait_ms < 300 for m in own)


# ---------------------------------------------------------------- CPU off a bot's turn


def test_cpu_used_during_the_opponents_turn_forfeits_the_spinner_not_the_late_mover(pool):
    # the first seat keeps a thread spinning after its answer; the second hangs in its move
    record = pool.play(job(python_bot("threads_after_answer"), python_bot("hangs_in_move"), move=0.3))
    assert (record.termination, record.offender, record.winner) == (Termination.RESOURCE_LIMIT, 0, 1)
    assert record.detail.startswith("used ")
    assert "while not its turn" in record.detail


def test_cpu_used_between_its_games_forfeits_its_next_game(pool):
    import time

    spinner = python_bot("spins_after_game")
    first = pool.play(job(spinner, FIRST, game_id=1))
    time.sleep(0.3)  # as while the worker plays other bots' games
    second = pool.play(job(FIRST, spinner, game_id=2))
    assert (first.termination, first.offender) == (Termination.NORMAL, None)
    assert (second.termination, second.offender) == (Termination.RESOURCE_LIMIT, 1)
    assert "between its games" in second.detail


def test_an_idle_bot_spinning_between_its_games_is_stopped_while_others_play(pool):
    spinner = python_bot("spins_after_game")
    pool.play(job(spinner, FIRST, game_id=1))
    pool.play(job(python_bot("first_legal", "a"), python_bot("seeded_random", "b"), game_id=2))
    (idle,) = [p for p in pool.worker.warm.idle.values() if p.spec == spinner]
    assert idle.process is None and idle.pending is not None  # stopped: its process is gone
    assert not running(pool.pids(spinner.name)[0])
    third = pool.play(job(spinner, FIRST, game_id=3))
    assert (third.termination, third.offender, third.moves) == (Termination.RESOURCE_LIMIT, 0, [])


# ---------------------------------------------------------------- a node's time scale


def test_a_scaled_time_control_scales_every_allowance_and_nothing_else():
    control = TimeControl(move=0.5, bank=10.0, increment=0.1, clock="cpu", grace=0.05, startup=8.0)
    assert control.scaled(2.0) == TimeControl(move=1.0, bank=20.0, increment=0.2, clock="cpu", grace=0.05, startup=8.0)
    assert TimeControl(move=None, bank=None).scaled(3.0) == TimeControl(move=None, bank=None)


def test_a_worker_with_a_time_scale_gives_its_bots_that_much_more_time():
    # 50 ms a move against a 10 ms limit: a timeout as the tournament says; within it on a node
    # whose time is scaled by 30 (a node thirty times slower than the reference)
    from arena.runners.worker import GameWorker

    slow = python_bot("slow_seeded_random")
    with GameWorker(fork=False) as worker:
        plain = worker.play(job(slow, slow, move=0.01, grace=0.0))
        worker.time_scale = 30.0
        scaled = worker.play(job(slow, slow, move=0.01, grace=0.0))
    assert (plain.termination, plain.offender, plain.time_scale) == (Termination.TIMEOUT, 0, 1.0)
    assert (scaled.termination, scaled.time_scale) == (Termination.NORMAL, 30.0), scaled.detail


def test_the_moves_a_bot_says_its_clock_cut_are_recorded_as_cut(pool):
    record = pool.play(job(python_bot("cut_by_the_clock"), FIRST))
    assert len(record.moves) > 2 and all(m.cut == (m.seat == 0) for m in record.moves)


@pytest.mark.parametrize(
    ("reply", "cut"),
    [('{"type":"move","move":"4","cut":true}', True), ('{"type":"move","move":"4","cut":"yes"}', False)],
)
def test_a_command_bot_says_a_move_was_cut_with_cut_true_and_nothing_else(reply, cut):
    from arena.core.protocol import parse_reply

    assert parse_reply(reply.encode(), "move")["cut"] is cut


def test_a_database_from_before_cut_moves_gets_the_column_and_its_moves_are_not_cut(tmp_path):
    import sqlite3

    from arena.store.database import MIGRATIONS, SCHEMA_VERSION, open_store
    from tests.builders import TTT, X_WINS, before_game_seats, create, play_stage, scripted

    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    sessions, tid = create(
        url,
        {
            "name": "old",
            "game": "tictactoe",
            "bots": {"a": {"module": "bots.randombot"}, "b": {"module": "bots.randombot"}},
        },
    )
    play_stage(sessions, tid, 0, lambda row, first, second: scripted(TTT, row.id, X_WINS))
    before = next(number for number, what, _ in MIGRATIONS if "cut" in what) - 1
    with sqlite3.connect(tmp_path / "old.sqlite3") as connection:
        before_game_seats(connection.execute)  # (its index of cut moves too)
        connection.execute("ALTER TABLE moves DROP COLUMN cut")
        connection.execute("UPDATE schema_version SET version = ?", (before,))
    open_store(url)
    with sqlite3.connect(tmp_path / "old.sqlite3") as connection:
        assert connection.execute("SELECT version FROM schema_version").fetchone() == (SCHEMA_VERSION,)
        assert {cut for (cut,) in connection.execute("SELECT cut FROM moves")} == {0}
