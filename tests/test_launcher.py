"""Python bots forked from a worker's warm launcher (arena/sandbox/launcher.py): each is the worker's
own child in a session of its own, with nothing of the launcher's open, different randomness,
and it dies with the worker; a launcher that fails is replaced, and bots start the plain way
when none can be had. What such a bot sees and may do (environment, limits, confinement) is
tested beside the plain way in tests/test_process_sandbox.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from arena.core.records import Termination
from arena.sandbox import launcher
from arena.sandbox.launcher import LaunchError
from tests.fixtures.harnesskit import job, python_bot, running, wait_until

pytestmark = pytest.mark.usefixtures("forking")


def stat(pid: int) -> list[str]:
    """The fields of /proc/PID/stat after the command name: state, parent, group, session..."""
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()


def test_a_forked_bot_is_the_workers_child_in_a_session_of_its_own_with_only_its_three_pipes(pool):
    pool.play(job(python_bot("first_legal"), python_bot("seeded_random")))
    assert [type(p.proc).__name__ for p in pool.processes] == ["Forked", "Forked"]
    for process in pool.processes:
        _, parent, group, session = stat(process.pid)[:4]
        assert (int(parent), int(group), int(session)) == (os.getpid(), process.pid, process.pid)
        fds = {int(fd): os.readlink(f"/proc/{process.pid}/fd/{fd}") for fd in os.listdir(f"/proc/{process.pid}/fd")}
        # the host keeps stdout (as 3) for the protocol and sends prints (1) to stderr (2)
        assert sorted(fds) == [0, 1, 2, 3] and fds[1] == fds[2]
        assert all(target.startswith("pipe:") for target in fds.values()) and len(set(fds.values())) == 3


def test_a_forked_bot_is_named_by_its_launchers_command_line(pool):
    pool.play(job(python_bot("first_legal"), python_bot("seeded_random")))
    with open(f"/proc/{pool.processes[0].pid}/cmdline", "rb") as f:
        words = f.read().split(b"\0")
    assert words[1:3] == [b"-m", b"arena.sandbox.launcher"]
    assert words[3] == str(os.getpid()).encode() and json.loads(words[5]) == {"name": "tictactoe", "params": {}}


def test_forked_bots_do_not_share_the_global_random_generator(pool):
    record = pool.play(job(python_bot("reports_random", "a"), python_bot("reports_random", "b")))
    draws = [[line for line in tail.splitlines() if line.startswith("random ")] for tail in record.stderr]
    assert len(draws[0]) == len(draws[1]) == 1
    assert draws[0] != draws[1]


def test_a_plain_move_bot_draws_from_the_random_module_what_an_rng_would_give(pool):
    # plain_random calls random.choice, seeded_random rng.choice; its warm process plays each seed again
    uttt = {"name": "uttt", "params": {}}
    played: dict[int, list[str]] = {}
    for seed in (1, 2, 1):
        plain = pool.play(job(python_bot("plain_random"), python_bot("first_legal"), seed=seed, game=uttt))
        with_rng = pool.play(job(python_bot("seeded_random"), python_bot("first_legal"), seed=seed, game=uttt))
        assert plain.termination is Termination.NORMAL
        assert [m.move for m in plain.moves] == [m.move for m in with_rng.moves]
        assert [m.move for m in plain.moves] == played.setdefault(seed, [m.move for m in plain.moves])
    assert played[1] != played[2]


def test_closing_the_worker_ends_the_launcher(pool):
    pool.play(job(python_bot("first_legal"), python_bot("seeded_random")))
    started = pool.worker._launcher
    assert started is not None and running(started.pid)
    pool.worker.close()
    assert pool.worker._launcher is None and not running(started.pid)


def test_a_launcher_that_died_is_replaced_and_the_games_go_on(pool):
    first = pool.play(job(python_bot("first_legal"), python_bot("seeded_random")))
    dead = pool.worker._launcher
    dead.process.kill()
    dead.process.wait()
    pool.worker.warm.close()  # the next game needs new bot processes
    second = pool.play(job(python_bot("first_legal"), python_bot("seeded_random")))
    assert (first.termination, second.termination) == (Termination.NORMAL, Termination.NORMAL)
    assert [m.move for m in first.moves] == [m.move for m in second.moves]
    assert pool.worker._launchers_started == 2 and type(pool.processes[-1].proc).__name__ == "Forked"


def test_when_the_launcher_cannot_fork_bots_start_the_plain_way(pool, monkeypatch, caplog):
    def refuse(*args, **kwargs):
        raise LaunchError("the launcher could not start the bot: no answer")

    monkeypatch.setattr(launcher.Launcher, "spawn", refuse)
    record = pool.play(job(python_bot("first_legal"), python_bot("seeded_random")))
    assert record.termination is Termination.NORMAL
    assert [type(p.proc).__name__ for p in pool.processes] == ["Popen", "Popen"]
    assert "the launcher could not start the bot: no answer; starting bots the plain way" in caplog.text
    assert pool.worker._launchers_started == 2  # a new launcher for each bot, each failing once


WORKER = """
import sys, time
from arena.core.botspec import BotSpec
from arena.games import get_game
from arena.runners.worker import GameWorker
with GameWorker() as worker:
    bot = worker.start_bot(BotSpec("b", "python", sys.argv[1]), get_game("tictactoe"))
    print(bot.pid, worker._launcher.pid, flush=True)
    time.sleep(60)
"""


def test_a_forked_bot_and_the_launcher_die_with_their_worker():
    parent = subprocess.Popen(
        [sys.executable, "-c", WORKER, python_bot("first_legal").target],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        bot, launched = (int(word) for word in parent.stdout.readline().split())
        assert running(bot) and running(launched)
    finally:
        parent.kill()
        parent.wait()
    # a loaded machine may take seconds to deliver the death signals
    assert wait_until(lambda: not running(bot) and not running(launched), timeout=30)
