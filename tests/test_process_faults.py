"""Every way a bot can fail forfeits its game: the right termination, the offending seat, the
opponent credited with the win, a detail saying what happened, and nothing left running.

Each test plays one tic-tac-toe game through a ``GameWorker`` (real bot processes,
warm pool) with a fixture bot of tests/fixtures/ that fails in one way.
"""

from __future__ import annotations

import re

import pytest

from arena.core.records import Termination
from tests.fixtures.harnesskit import bot_stderr, command_bot, job, late, python_bot, running

HEALTHY = python_bot("first_legal", "healthy")
OTHER_HEALTHY = python_bot("seeded_random", "other-healthy")


def forfeit(record) -> tuple:
    """What a forfeit test checks first: how the game ended, who offended, who won."""
    return record.termination, record.offender, record.winner


# ---------------------------------------------------------------- timeouts


def test_a_bot_that_hangs_forfeits_by_timeout_at_move_time_plus_grace(pool):
    record = pool.play(job(python_bot("hangs_in_move"), HEALTHY, move=0.2))
    assert forfeit(record) == (Termination.TIMEOUT, 0, 1)
    assert re.fullmatch(late(0.2), record.detail)


def test_a_bot_that_answers_just_past_the_grace_forfeits_by_timeout(pool):
    record = pool.play(job(HEALTHY, python_bot("sleeps_past_limit"), move=0.2))
    assert forfeit(record) == (Termination.TIMEOUT, 1, 0)
    assert re.fullmatch(late(0.2), record.detail)
    assert [m.seat for m in record.moves] == [0]


def test_a_hung_bot_is_killed_at_once(pool):
    record = pool.play(job(python_bot("hangs_in_move"), HEALTHY, move=0.2))
    assert record.termination is Termination.TIMEOUT
    assert not running(pool.pids("hangs_in_move")[0])


def test_a_bot_slower_to_start_than_the_startup_limit_forfeits_by_timeout(pool):
    record = pool.play(job(HEALTHY, python_bot("slow_to_start"), move=0.2, startup=0.5))
    assert forfeit(record) == (Termination.TIMEOUT, 1, 0)
    assert re.fullmatch(late(0.5, grace=0.0, after=" during startup"), record.detail)
    assert record.moves == []


def test_the_stderr_a_bot_wrote_before_it_hung_is_kept(pool):
    record = pool.play(job(python_bot("hangs_in_move"), HEALTHY, move=0.2))
    assert bot_stderr(record.stderr[0]) == "thinking forever...\n"


# ---------------------------------------------------------------- crashes


def test_an_exception_in_move_forfeits_by_crash_with_the_exception_as_detail(pool):
    record = pool.play(job(python_bot("raises_in_move"), HEALTHY))
    assert forfeit(record) == (Termination.CRASH, 0, 1)
    assert record.detail == "RuntimeError: deliberate failure in move"


def test_an_exception_in_move_leaves_its_traceback_in_the_stored_stderr(pool):
    # The host sends the traceback in its error reply, but the harness keeps only the
    # message: the line that raised is lost unless it reaches the stored stderr tail.
    record = pool.play(job(python_bot("raises_in_move"), HEALTHY))
    assert "Traceback" in record.stderr[0]
    assert 'raise RuntimeError("deliberate failure in move")' in record.stderr[0]


def test_sys_exit_in_move_forfeits_by_crash_with_the_exit_status(pool):
    record = pool.play(job(HEALTHY, python_bot("exits_in_move")))
    assert forfeit(record) == (Termination.CRASH, 1, 0)
    assert record.detail == "exited with status 3"
    assert bot_stderr(record.stderr[1]) == "leaving the game now\n"


def test_os_exit_in_move_forfeits_by_crash_with_the_exit_status(pool):
    record = pool.play(job(python_bot("os_exit_in_move"), HEALTHY))
    assert forfeit(record) == (Termination.CRASH, 0, 1)
    assert record.detail == "exited with status 7"


def test_a_segfault_forfeits_by_crash_naming_the_signal(pool):
    record = pool.play(job(HEALTHY, python_bot("segfaults")))
    assert forfeit(record) == (Termination.CRASH, 1, 0)
    assert record.detail == "killed by SIGSEGV"


def test_a_bot_killed_by_a_signal_forfeits_by_crash_naming_the_signal(pool):
    record = pool.play(job(python_bot("kills_itself"), HEALTHY))
    assert forfeit(record) == (Termination.CRASH, 0, 1)
    assert record.detail == "killed by SIGTERM"


def test_a_python_bot_returning_a_non_move_forfeits_by_crash(pool):
    record = pool.play(job(python_bot("returns_none"), HEALTHY))
    assert forfeit(record) == (Termination.CRASH, 0, 1)
    assert record.detail == "TypeError: move() returned None, not a move (an int of the game's encoding)"


# ---------------------------------------------------------------- illegal moves


def test_an_illegal_move_forfeits_by_illegal_move_after_the_legal_ones(pool):
    record = pool.play(job(python_bot("plays_occupied_cell"), HEALTHY))
    assert forfeit(record) == (Termination.ILLEGAL_MOVE, 0, 1)
    assert record.detail == "0 is illegal in tictactoe: cell 0 is occupied"
    assert [(m.seat, m.move) for m in record.moves] == [(0, "0"), (1, "1")]


def test_an_illegal_move_by_the_second_seat_credits_the_first(pool):
    record = pool.play(job(HEALTHY, python_bot("plays_occupied_cell")))
    assert forfeit(record) == (Termination.ILLEGAL_MOVE, 1, 0)
    assert record.detail == "0 is illegal in tictactoe: cell 0 is occupied"
    assert [(m.seat, m.move) for m in record.moves] == [(0, "0")]


# ---------------------------------------------------------------- protocol errors


def test_a_reply_of_binary_garbage_forfeits_by_protocol_error(pool):
    record = pool.play(job(command_bot("garbage.py"), HEALTHY))
    assert forfeit(record) == (Termination.PROTOCOL_ERROR, 0, 1)
    assert record.detail.startswith("reply is not JSON: ")
    assert "garbage" in record.detail


def test_a_reply_that_is_not_json_forfeits_by_protocol_error(pool):
    record = pool.play(job(HEALTHY, command_bot("not_json.py")))
    assert forfeit(record) == (Termination.PROTOCOL_ERROR, 1, 0)
    assert record.detail == "reply is not JSON: 'move 4'"


def test_a_move_that_is_not_a_string_forfeits_by_protocol_error(pool):
    record = pool.play(job(command_bot("move_not_a_string.py"), HEALTHY))
    assert forfeit(record) == (Termination.PROTOCOL_ERROR, 0, 1)
    assert record.detail == 'a move reply needs a \'move\' string, got \'{"type": "move", "move": 4}\''


def test_a_line_without_end_longer_than_the_limit_forfeits_by_protocol_error(pool):
    record = pool.play(job(command_bot("endless_line.py"), HEALTHY))
    assert forfeit(record) == (Termination.PROTOCOL_ERROR, 0, 1)
    assert record.detail == "sent a line longer than 65536 bytes"


def test_a_valid_reply_in_a_line_longer_than_the_limit_forfeits_by_protocol_error(pool):
    # protocol.MAX_LINE says anything longer is a protocol error; the check must not depend
    # on whether the newline arrived in the same read as the rest of the line.
    record = pool.play(job(command_bot("oversized_line.py"), HEALTHY))
    assert forfeit(record) == (Termination.PROTOCOL_ERROR, 0, 1)
    assert record.detail == "sent a line longer than 65536 bytes"


# ---------------------------------------------------------------- resource limits


def test_a_bot_over_its_memory_limit_forfeits_by_resource_limit(pool):
    record = pool.play(job(python_bot("hoards_memory", memory_mb=200), HEALTHY, move=5.0))
    assert forfeit(record) == (Termination.RESOURCE_LIMIT, 0, 1)
    assert record.detail.startswith("MemoryError")


def test_a_python_bot_writing_past_the_file_size_limit_forfeits_by_resource_limit(pool):
    # Python ignores SIGXFSZ, so the bot sees OSError(EFBIG) "File too large": the host
    # reports it as an ordinary exception (crash) instead of a resource limit.
    record = pool.play(job(python_bot("writes_big_file", file_size_mb=1), HEALTHY, move=2.0))
    assert forfeit(record) == (Termination.RESOURCE_LIMIT, 0, 1)
    assert record.detail in ("file size limit exceeded (SIGXFSZ)", "OSError: [Errno 27] File too large")


def test_a_command_bot_writing_past_the_file_size_limit_forfeits_by_resource_limit(pool):
    # The sandbox wrapper is Python, which ignores SIGXFSZ; the ignore survives its exec of
    # the command, so `head` gets EFBIG and exits 1 instead of dying of SIGXFSZ.
    record = pool.play(job(command_bot("big_file.sh", file_size_mb=1), HEALTHY, move=2.0))
    assert forfeit(record) == (Termination.RESOURCE_LIMIT, 0, 1)
    assert record.detail == "file size limit exceeded (SIGXFSZ)"


# ---------------------------------------------------------------- after the fault

FAULTY = {
    "timeout": python_bot("hangs_in_move"),
    "crash-exception": python_bot("raises_in_move"),
    "crash-exit": python_bot("exits_in_move"),
    "crash-signal": python_bot("segfaults"),
    "illegal-move": python_bot("plays_occupied_cell"),
    "protocol-error": command_bot("not_json.py"),
    "line-too-long": command_bot("endless_line.py"),
}


@pytest.mark.parametrize("kind", FAULTY)
def test_after_a_fault_its_process_is_gone_and_the_opponent_plays_on_warm(pool, kind):
    faulty = FAULTY[kind]
    record = pool.play(job(faulty, HEALTHY, game_id=1))
    assert record.offender == 0
    assert next(running(pid) for pid in pool.pids(faulty.name)) is False
    after = pool.play(job(HEALTHY, OTHER_HEALTHY, game_id=2))
    assert (after.termination, after.offender) == (Termination.NORMAL, None)
    assert len(pool.pids(HEALTHY.name)) == 1  # the opponent's process was kept warm


@pytest.mark.parametrize("kind", FAULTY)
def test_a_faulted_bot_is_restarted_and_warm_before_the_worker_takes_its_next_game(pool, kind):
    faulty = FAULTY[kind]
    pool.play(job(faulty, HEALTHY, game_id=1))
    old, new = pool.pids(faulty.name)
    assert (running(old), running(new)) == (False, True)
    (idle,) = [p for p in pool.worker.warm.idle.values() if p.spec == faulty]
    assert idle.process.pid == new


def test_a_faulted_bot_gets_a_new_process_for_its_next_game(pool):
    faulty = python_bot("raises_in_move")
    first = pool.play(job(faulty, HEALTHY, game_id=1))
    second = pool.play(job(HEALTHY, faulty, game_id=2))
    assert (first.offender, second.offender) == (0, 1)
    old, new, _ = pool.pids(faulty.name)  # and a third, warm for the game after
    assert old != new
    assert not running(old)
