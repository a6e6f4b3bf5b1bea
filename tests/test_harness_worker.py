"""The worker side of a game: warm bot processes reused across games, the clock measured from
the harness's side, and a bot's own output kept out of the protocol and in the stderr tail."""

from __future__ import annotations

import pickle
import threading
import time

from arena.core.records import GameRecord, MoveRecord, Termination
from arena.games import get_game
from arena.runners.worker import GameWorker
from arena.sandbox import procfs
from arena.sandbox.process import STDERR_TAIL
from tests.fixtures.harnesskit import bot_stderr, job, python_bot, running

FIRST = python_bot("first_legal", "first")
RANDOM = python_bot("seeded_random", "random")


def moves(record) -> list[str]:
    return [m.move for m in record.moves]


# ---------------------------------------------------------------- warm processes


def test_a_worker_ending_leaves_the_bots_of_another_worker_of_its_process_alone():
    # arena serve plays each browser game in a worker of its own: one game ending (its worker
    # killing what bots left behind) once killed the bot of a game started after it
    with GameWorker() as ending, GameWorker() as playing:
        process = playing.start_bot(FIRST, get_game("tictactoe"))
        try:
            ending.close()
            assert procfs.running(process.pid)
            assert playing.strays() == []
        finally:
            process.close()


def test_a_healthy_bot_keeps_its_process_across_games(pool):
    for game_id in (1, 2, 3):
        record = pool.play(job(FIRST, RANDOM, game_id=game_id, seed=game_id))
        assert record.termination is Termination.NORMAL
    assert (pool.pids("first"), pool.pids("random")) == ([pool.processes[0].pid], [pool.processes[1].pid])


def test_a_bot_that_kept_a_large_table_is_not_charged_for_freeing_it_between_games(pool):
    # the host frees the last game's bot when the next game starts (its startup), not at the
    # game's end, where tens of milliseconds of CPU once counted as CPU used between games
    table = python_bot("keeps_a_big_table", "table")
    records = []
    for game_id in (1, 2, 3):
        records.append(pool.play(job(table, FIRST, game_id=game_id, move=10.0, startup=10.0)))
        time.sleep(0.5)  # the worker busy with other games: time for the bot to act on the game's end
    assert [record.termination for record in records] == [Termination.NORMAL] * 3, [r.detail for r in records]
    assert len(pool.pids("table")) == 1


def test_a_warm_process_starts_each_game_afresh(pool):
    first = pool.play(job(RANDOM, FIRST, game_id=1, seed=5))
    pool.play(job(RANDOM, FIRST, game_id=2, seed=6))
    again = pool.play(job(RANDOM, FIRST, game_id=3, seed=5))
    assert len(pool.processes) == 2
    assert moves(again) == moves(first)


def test_a_warm_process_can_change_seats_between_games(pool):
    pool.play(job(FIRST, RANDOM, game_id=1))
    record = pool.play(job(RANDOM, FIRST, game_id=2))
    assert record.termination is Termination.NORMAL
    assert len(pool.processes) == 2


def test_a_bot_under_two_names_gets_two_processes(pool):
    pool.play(job(FIRST, python_bot("first_legal", "first-again")))
    assert len(pool.processes) == 2


def test_the_opponent_of_a_faulting_bot_stays_warm(pool):
    crasher = python_bot("raises_in_move")
    pool.play(job(crasher, FIRST, game_id=1))
    pool.play(job(FIRST, crasher, game_id=2))
    assert len(pool.pids("first")) == 1
    assert len(pool.pids("raises_in_move")) == 3  # one for each game, and one warm for its next


def test_a_worker_keeps_at_most_its_capacity_of_idle_processes(pool):
    warm = pool.worker.warm
    warm.capacity = 2
    for n in range(3):
        pool.play(job(python_bot("first_legal", f"a{n}"), python_bot("first_legal", f"b{n}"), game_id=n))
    assert len(warm.idle) == 2
    assert [p.process.pid for p in warm.idle.values()] == [pool.processes[4].pid, pool.processes[5].pid]
    assert [running(p.pid) for p in pool.processes[:4]] == [False] * 4


# ---------------------------------------------------------------- the clock


def test_a_bot_using_90_percent_of_its_move_time_is_never_late(pool):
    record = pool.play(job(FIRST, python_bot("thinks_90_percent"), move=1.0))
    assert (record.termination, len(record.moves)) == (Termination.NORMAL, 7)
    assert all(m.wall_ms >= 900 for m in record.moves if m.seat == 1)


def test_every_move_has_its_wall_and_cpu_time(pool):
    record = pool.play(job(FIRST, RANDOM))
    assert record.moves
    assert all(m.wall_ms > 0 and m.cpu_ms is not None and m.cpu_ms >= 0 for m in record.moves)


def test_cpu_time_counts_thinking_and_not_sleeping(pool):
    record = pool.play(job(python_bot("burns_cpu"), python_bot("slow_seeded_random"), move=5.0))
    thinking = [m for m in record.moves if m.seat == 0]
    sleeping = [m for m in record.moves if m.seat == 1]
    assert all(40 <= m.cpu_ms <= m.wall_ms + 1 for m in thinking)
    assert all(m.wall_ms >= 50 and m.cpu_ms < 15 for m in sleeping)


# ---------------------------------------------------------------- a bot's own output


def test_prints_to_stdout_never_reach_the_protocol(pool):
    record = pool.play(job(python_bot("prints_to_stdout"), FIRST, move=1.0))
    assert (record.termination, record.offender, len(record.moves)) == (Termination.NORMAL, None, 7)


def test_prints_to_stdout_are_kept_in_the_stderr_tail(pool):
    record = pool.play(job(python_bot("prints_to_stdout"), FIRST, move=1.0))
    assert record.stderr[0].endswith("chatty print 6.99 {not json\nchatty fd write 6.99\n")
    assert bot_stderr(record.stderr[1]) == ""


def test_megabytes_of_stderr_are_not_a_fault(pool):
    record = pool.play(job(FIRST, python_bot("floods_stderr"), move=2.0))
    assert (record.termination, record.offender, len(record.moves)) == (Termination.NORMAL, None, 7)


def test_the_stderr_tail_keeps_the_last_bytes_only(pool):
    record = pool.play(job(FIRST, python_bot("floods_stderr"), move=2.0))
    tail = record.stderr[1]
    assert len(tail) == STDERR_TAIL
    assert tail.endswith("x\nflood done at ply 5\n")


def test_what_a_bot_writes_just_before_its_last_move_is_in_that_games_tail(pool):
    # A Python thread keeps the GIL busy, as a loaded machine does to a worker: what the bot
    # wrote before its reply is in the pipe when the reply is read, so it must be in the
    # game's tail however late the thread draining stderr gets to run.
    done = threading.Event()

    def busy() -> None:
        while not done.is_set():
            pass

    thread = threading.Thread(target=busy, daemon=True)
    thread.start()
    try:
        tails = [pool.play(job(python_bot("says_each_move"), FIRST, game_id=n)).stderr[0] for n in range(30)]
    finally:
        done.set()
        thread.join()
    assert [tail.endswith("ply 4\nply 6\n") for tail in tails] == [True] * 30


def test_each_game_keeps_only_its_own_stderr(pool):
    chatty = python_bot("prints_to_stdout")
    first = pool.play(job(chatty, FIRST, game_id=1))
    second = pool.play(job(FIRST, chatty, game_id=2))
    assert "chatty print 6.99" in first.stderr[0]
    assert "chatty print 6.99" not in second.stderr[1]
    assert second.stderr[1].endswith("chatty print 5.99 {not json\nchatty fd write 5.99\n")


def test_a_forked_worker_reads_its_own_wait_for_a_cpu_not_its_parents():
    """The harness's own wait for a CPU is read from the thread that reads it; a process forked
    after its parent read its own reads the child's, from a descriptor of its own."""
    import os

    procfs.harness_waited()  # the parent's reading, kept open
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # (the child reports where its reading points, then leaves at once)
        try:
            procfs.harness_waited()
            own = procfs._own
            target = os.readlink(f"/proc/self/fd/{own.fd}") if own is not None and own.fd is not None else ""
            os.write(write, f"{os.getpid()} {target}".encode())
        finally:
            os._exit(0)
    os.close(write)
    reported = os.read(read, 4096).decode()
    os.close(read)
    os.waitpid(child, 0)
    pid, target = reported.split(" ", 1)
    assert int(pid) == child and target.startswith(f"/proc/{child}/task/") and target.endswith("/schedstat")


def test_a_game_record_crosses_from_a_worker_to_its_parent_whole():
    # every move of a game is pickled in the worker and unpickled by the run's process
    moves = [MoveRecord(0, "44", 0.031, 0.02, 0.001, True, '{"depth": 3}'), MoveRecord(-1, "chance 2", 0.0, None)]
    record = GameRecord(7, moves, winner=1, stderr=("", "warn"))
    again = pickle.loads(pickle.dumps(record, pickle.HIGHEST_PROTOCOL))
    assert again == record and again.moves[1].wait_ms is None and again.moves[0].cut
