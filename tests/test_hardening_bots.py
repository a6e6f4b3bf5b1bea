"""Bots that misbehave (issue 7): each way forfeits its game with the right termination and a
detail saying what happened, the opponent is credited with the win, and nothing the bot started
is left running or unreaped after the test (``nothing_left_behind``, checked after every test).

One tic-tac-toe game each through the worker's ``run_game``, with a fixture bot of
tests/fixtures/bots or tests/fixtures/commands against a healthy bot. The failure modes that
tests/test_process_faults.py already covers one by one are listed again in ``FAULTS``, so that
this file is the whole inventory; the course interface's own forfeits (a changed board, a list
or numpy ints for a move) are in ``COURSE_FAULTS``.
"""

from __future__ import annotations

import json
import re
import socket
import sys
import time

import pytest

from arena.core.botspec import BotSpec
from arena.core.gameloop import play_game
from arena.core.records import Termination
from arena.core.timing import TimeControl
from arena.games import get_game
from arena.runners.worker import GameWorker
from arena.sandbox import landlock
from arena.sandbox.confinement import confined_argv
from arena.sandbox.procfs import running
from tests.fixtures.course.coursekit import COURSE_BOTS, has_numpy
from tests.fixtures.harnesskit import BOTS, COMMANDS, bot_stderr, command_bot, job, late, python_bot  # noqa: F401
from tests.fixtures.leftovers import nothing_left_behind  # noqa: F401

HEALTHY = python_bot("first_legal", "healthy")
OTHER = python_bot("seeded_random", "other")
SLOW = python_bot("slow_first_legal", "slow")
SANDBOXED = landlock.abi_version() > 0


def replies_with(line: str) -> BotSpec:
    """A command bot that answers every move request with ``line`` as it is."""
    return BotSpec(f"replies {line}", "command", f"{sys.executable} {COMMANDS / 'replies_with.py'} '{line}'")


def with_params(module: str, **params) -> BotSpec:
    return BotSpec(module, "python", str(BOTS / f"{module}.py"), json.dumps(params))


#: fault -> (the offending bot, its opponent, the job's time control, termination, the detail as a regex)
FAULTS = {
    # hangs
    "hangs in move": (python_bot("hangs_in_move"), HEALTHY, {"move": 0.2}, Termination.TIMEOUT, late(0.2)),
    "hangs while importing": (
        python_bot("hangs_at_import"),
        HEALTHY,
        {"startup": 1.0},
        Termination.TIMEOUT,
        late(1.0, 0.0, after=" during startup"),
    ),
    "hangs in make_bot": (
        python_bot("hangs_in_make_bot"),
        HEALTHY,
        {"startup": 1.0},
        Termination.TIMEOUT,
        late(1.0, 0.0, after=" during startup"),
    ),
    "too slow to start": (
        python_bot("slow_to_start"),
        HEALTHY,
        {"startup": 0.5},
        Termination.TIMEOUT,
        late(0.5, 0.0, after=" during startup"),
    ),
    "answers 15 ms past the grace": (
        python_bot("answers_just_late"),
        HEALTHY,
        {"move": 0.2},
        Termination.TIMEOUT,
        late(0.2),
    ),
    "answers 100 ms past the grace": (
        python_bot("sleeps_past_limit"),
        HEALTHY,
        {"move": 0.2},
        Termination.TIMEOUT,
        late(0.2),
    ),
    # crashes
    "raises an exception": (
        python_bot("raises_in_move"),
        HEALTHY,
        {},
        Termination.CRASH,
        r"RuntimeError: deliberate failure in move",
    ),
    "calls sys.exit": (python_bot("exits_in_move"), HEALTHY, {}, Termination.CRASH, r"exited with status 3"),
    "calls os._exit": (python_bot("os_exit_in_move"), HEALTHY, {}, Termination.CRASH, r"exited with status 7"),
    "segfaults": (python_bot("segfaults"), HEALTHY, {}, Termination.CRASH, r"killed by SIGSEGV"),
    "is killed by a signal": (python_bot("kills_itself"), HEALTHY, {}, Termination.CRASH, r"killed by SIGTERM"),
    "returns no move": (
        python_bot("returns_none"),
        HEALTHY,
        {},
        Termination.CRASH,
        r"TypeError: move\(\) returned None, not a move \(an int of the game's encoding\)",
    ),
    # wrong replies
    "plays an illegal move": (
        python_bot("plays_occupied_cell"),
        HEALTHY,
        {},
        Termination.ILLEGAL_MOVE,
        r"0 is illegal in tictactoe: cell 0 is occupied",
    ),
    "answers with an othello move": (
        replies_with('{"type":"move","move":"e6"}'),
        HEALTHY,
        {},
        Termination.ILLEGAL_MOVE,
        r"'e6' is not a tictactoe move; a move is the cell index 0-8, row by row "
        r"\(e\.g\. '4' for the centre\)",
    ),
    "answers with an xtreme move": (
        replies_with('{"type":"move","move":"0 1 1"}'),
        HEALTHY,
        {},
        Termination.ILLEGAL_MOVE,
        r"'0 1 1' is not a tictactoe move; .*",
    ),
    "answers a move with ready": (
        replies_with('{"type":"ready"}'),
        HEALTHY,
        {},
        Termination.PROTOCOL_ERROR,
        r"expected a 'move' reply, got '\{\"type\":\"ready\"\}'",
    ),
    "answers a move with a description": (
        replies_with('{"type":"description","description":"x"}'),
        HEALTHY,
        {},
        Termination.PROTOCOL_ERROR,
        r"expected a 'move' reply, got .*",
    ),
    "replies text that is not JSON": (
        command_bot("not_json.py"),
        HEALTHY,
        {},
        Termination.PROTOCOL_ERROR,
        r"reply is not JSON: 'move 4'",
    ),
    "replies binary garbage": (
        command_bot("garbage.py"),
        HEALTHY,
        {},
        Termination.PROTOCOL_ERROR,
        r"reply is not JSON: .*garbage.*",
    ),
    "replies a JSON array": (
        replies_with('["move","4"]'),
        HEALTHY,
        {},
        Termination.PROTOCOL_ERROR,
        r"reply is not a JSON object: '\[\"move\",\"4\"\]'",
    ),
    "replies a move that is a number": (
        command_bot("move_not_a_string.py"),
        HEALTHY,
        {},
        Termination.PROTOCOL_ERROR,
        r"a move reply needs a 'move' string, got .*",
    ),
    "sends a line of 200 kB without its end": (
        command_bot("endless_line.py"),
        HEALTHY,
        {},
        Termination.PROTOCOL_ERROR,
        r"sent a line longer than 65536 bytes",
    ),
    "sends a valid reply of 100 kB": (
        command_bot("oversized_line.py"),
        HEALTHY,
        {},
        Termination.PROTOCOL_ERROR,
        r"sent a line longer than 65536 bytes",
    ),
    # floods and resources
    "floods stdout with 8 MiB (a command)": (
        command_bot("floods_stdout.py"),
        HEALTHY,
        {},
        Termination.PROTOCOL_ERROR,
        r"reply is not JSON: 'flood z{114}\.\.\.'",
    ),
    "allocates memory without bound": (
        python_bot("hoards_memory", memory_mb=200),
        HEALTHY,
        {"move": 5.0},
        Termination.RESOURCE_LIMIT,
        r"MemoryError: .*",
    ),
    "writes past the file-size limit": (
        python_bot("writes_big_file", file_size_mb=1),
        HEALTHY,
        {"move": 2.0},
        Termination.RESOURCE_LIMIT,
        r"file size limit exceeded \(SIGXFSZ\)|OSError: \[Errno 27\] File too large",
    ),
    "leaves a child process running": (
        python_bot("leaves_child_running"),
        HEALTHY,
        {},
        Termination.RESOURCE_LIMIT,
        r"left a process running after its answer: pid \d+ \(sleep\)",
    ),
    "detaches a grandchild (double fork, setsid)": (
        python_bot("detaches_grandchild"),
        HEALTHY,
        {},
        Termination.RESOURCE_LIMIT,
        r"left a (process running that it detached from its process "
        r"group|process running after its answer): "
        r"pid \d+ \(python[\w.]*\)",
    ),
    "keeps a thread running after its answer": (
        python_bot("threads_after_answer"),
        SLOW,
        {},
        Termination.RESOURCE_LIMIT,
        r"used \d+ ms of CPU while not its turn, in 0\.3\d\d s where \d\d ms "
        r"are allowed \(threads or processes left running after its "
        r"answer\)",
    ),
}


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("seat", [0, 1])
def test_each_misbehaviour_forfeits_with_its_termination_and_detail(pool, fault, seat):
    offender, opponent, clock, termination, detail = FAULTS[fault]
    bots = (offender, opponent) if seat == 0 else (opponent, offender)
    record = pool.play(job(*bots, **clock))
    assert (record.termination, record.offender, record.winner) == (termination, seat, 1 - seat), record.detail
    assert re.fullmatch(detail, record.detail), record.detail


@pytest.mark.parametrize("fault", FAULTS)
def test_after_each_misbehaviour_the_offender_is_gone_and_the_opponent_plays_on(pool, fault):
    offender, opponent, clock, _, _ = FAULTS[fault]
    record = pool.play(job(offender, opponent, game_id=1, **clock))
    assert record.offender == 0
    assert not running(pool.pids(offender.name)[0])  # (a new one is warm for its next game)
    after = pool.play(job(opponent, OTHER, game_id=2))
    assert (after.termination, after.offender) == (Termination.NORMAL, None)
    assert len(pool.pids(opponent.name)) == 1  # the opponent's process was kept warm


# ---------------------------------------------------------------- what is not a fault


def test_megabytes_printed_to_stdout_by_a_python_bot_are_not_a_fault(pool):
    record = pool.play(job(python_bot("floods_stdout"), HEALTHY, move=5.0))
    assert (record.termination, record.offender) == (Termination.NORMAL, None)
    assert record.stderr[0].endswith("stdout flood done at ply 6\n")


def test_threads_and_a_helper_process_that_end_before_the_answer_are_not_a_fault(pool):
    records = [pool.play(job(python_bot("thinks_with_threads"), SLOW, game_id=n)) for n in range(2)]
    assert [(r.termination, r.offender) for r in records] == [(Termination.NORMAL, None)] * 2
    assert min(m.cpu_ms for r in records for m in r.moves if m.seat == 0) >= 10  # it did think


def test_a_bot_that_keeps_a_thread_running_forfeits_at_its_next_request(pool):
    record = pool.play(job(python_bot("threads_after_answer"), SLOW))
    assert [m.seat for m in record.moves] == [0, 1]


def test_the_off_turn_cpu_of_the_last_stretch_is_checked_at_the_game_end(pool):
    # the second seat starts its thread with its last move (ply 5); the first seat then wins
    # with its slow last move, and the thread is caught when the game ends, not at a request
    record = pool.play(job(SLOW, with_params("threads_after_answer", from_ply=5), move=2.0))
    assert (record.termination, record.offender, record.winner) == (Termination.RESOURCE_LIMIT, 1, 0)
    assert [(m.seat, m.move) for m in record.moves] == [
        (0, "0"),
        (1, "1"),
        (0, "2"),
        (1, "3"),
        (0, "4"),
        (1, "5"),
        (0, "6"),
    ]
    assert re.fullmatch(
        r"used \d+ ms of CPU while not its turn, in 0\.3\d\d s where \d\d ms are allowed "
        r"\(threads or processes left running after its answer\)",
        record.detail,
    )


def test_a_child_left_running_is_killed_with_the_bot(pool):
    record = pool.play(job(python_bot("leaves_child_running"), HEALTHY))
    child = int(re.search(r"child (\d+)", record.stderr[0]).group(1))
    assert record.detail == f"left a process running after its answer: pid {child} (sleep)"
    assert not running(child)


def test_a_detached_grandchild_is_killed_and_reaped_by_the_worker(isolation, pool):
    record = pool.play(job(python_bot("detaches_grandchild"), HEALTHY))
    grandchild = int(re.search(r"grandchild (\d+)", record.stderr[0]).group(1))
    if isolation == "cgroups":  # still in the bot's group: seen at once, at the answer
        assert record.detail.startswith(f"left a process running after its answer: pid {grandchild} ")
        assert record.moves == []
    else:  # seen by the worker, its subreaper, at the end of the game
        assert record.detail.startswith(
            f"left a process running that it detached from its process group: pid {grandchild} "
        )
    assert not running(grandchild)


def test_a_real_worker_process_ends_what_a_bot_detached(tmp_path):
    # the worker process of a LocalRunner, not this test process, is the subreaper here
    from arena.runners.local import LocalRunner

    records = list(LocalRunner(1).run([job(python_bot("detaches_grandchild"), HEALTHY)]))
    grandchild = int(re.search(r"grandchild (\d+)", records[0].stderr[0]).group(1))
    assert (records[0].termination, records[0].offender) == (Termination.RESOURCE_LIMIT, 0)
    assert not running(grandchild)


# ---------------------------------------------------------------- files and network

needs_landlock = pytest.mark.skipif(not SANDBOXED, reason="this kernel has no Landlock: files are not confined")


@needs_landlock
def test_a_bot_writing_outside_its_folder_is_denied_and_crashes(pool):
    record = pool.play(job(python_bot("writes_outside"), HEALTHY))
    assert (record.termination, record.offender, record.winner) == (Termination.CRASH, 0, 1)
    assert re.fullmatch(r"PermissionError: \[Errno 13\] Permission denied: '.*/arena-escape-\d+\.txt'", record.detail)


@needs_landlock
def test_a_bot_reading_the_other_bots_file_is_denied_and_crashes(pool):
    other = BOTS / "first_legal.py"
    record = pool.play(job(with_params("reads_file", path=str(other)), HEALTHY))
    assert (record.termination, record.offender, record.winner) == (Termination.CRASH, 0, 1)
    assert record.detail == f"PermissionError: [Errno 13] Permission denied: '{other}'"


@needs_landlock
def test_a_bot_reading_the_database_is_denied_and_crashes(pool, tmp_path):
    database = tmp_path / "arena.sqlite3"
    database.write_bytes(b"SQLite format 3\0")
    record = pool.play(job(with_params("reads_file", path=str(database)), HEALTHY))
    assert (record.termination, record.offender) == (Termination.CRASH, 0)
    assert record.detail == f"PermissionError: [Errno 13] Permission denied: '{database}'"


def test_a_bot_connecting_to_a_listening_port_gets_nowhere_and_crashes(pool):
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(0.2)
        port = server.getsockname()[1]
        record = pool.play(job(with_params("opens_connection", port=port), HEALTHY))
        with pytest.raises(TimeoutError):
            server.accept()
    assert (record.termination, record.offender, record.winner) == (Termination.CRASH, 0, 1)
    assert record.detail in (
        "PermissionError: [Errno 13] Permission denied",  # Landlock ABI 4+
        "OSError: [Errno 101] Network is unreachable",
    )  # only the namespace


# ---------------------------------------------------------------- the course interface

COURSE_FAULTS = {
    "changes the board it was given": ("changes_board", "the bot changed the board it was given in move()"),
    "returns a list": ("returns_list", "(list of int, int, int), not a tuple of three plain ints"),
    "returns numpy ints": ("returns_numpy_ints", "(tuple of int64, int64, int64), not a tuple of three plain ints"),
}


@pytest.mark.parametrize("fault", COURSE_FAULTS)
def test_each_course_misbehaviour_is_an_illegal_move(fault):
    file, detail = COURSE_FAULTS[fault]
    if file == "returns_numpy_ints" and not has_numpy(sys.executable):
        pytest.skip("numpy is not installed")
    spec = BotSpec(file, "course2019", str(COURSE_BOTS / f"{file}.py"), "{}", sys.executable)
    with GameWorker(fork=False) as worker:
        players = (worker.player(spec), worker.player(HEALTHY))
        record = play_game(get_game("xtreme"), players, (1, 2), TimeControl(move=2.0, startup=20.0))
    assert (record.termination, record.offender, record.winner) == (Termination.ILLEGAL_MOVE, 0, 1)
    assert detail in record.detail


# ---------------------------------------------------------------- the input pipe


def test_a_bot_that_stops_reading_its_input_is_a_crash_not_a_blocked_worker():
    from arena.core import protocol
    from arena.core.records import BotFault
    from arena.sandbox.process import BotProcess

    spec = command_bot("never_reads.py")
    process = BotProcess(confined_argv(spec), spec.name)
    try:
        assert process.receive(5.0) == b'{"type": "ready"}'
        start = time.monotonic()
        with pytest.raises(BotFault) as fault:
            for _ in range(10_000):  # some 4 MB: far more than a pipe holds
                process.send(protocol.move_request(1, ["4"] * 50, 1.0))
        waited = time.monotonic() - start
    finally:
        process.close()
    assert (fault.value.termination, fault.value.detail) == (
        Termination.CRASH,
        "stopped reading its input (its input pipe stayed full for 1 s)",
    )
    assert 1.0 <= waited < 3.0
