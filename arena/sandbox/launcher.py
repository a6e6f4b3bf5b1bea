"""A warm launcher: Python bot processes forked from a process that has already started.

Starting a Python bot the plain way (the sandbox wrapper, then a new interpreter that imports
the host, the game and its tables) costs some 100 ms of CPU; a fast tournament with many teams
spends a third of its time there. So each worker starts one launcher, ``python -m
arena.sandbox.launcher``, which imports all of that once and then forks a bot on request:

- the worker sends the bot's settings and the three ends of its pipes (stdin, stdout,
  stderr) over a unix socket;
- the launcher forks twice and the middle process exits at once, so that the bot is handed
  to the worker (a child subreaper, see reaper.py): the bot is the worker's child, as if the
  worker had started it, and the worker waits for it, times it and kills it as any other;
- the bot sets itself up as a freshly started one would be: its own session, its working
  folder, its scrubbed environment, no other file descriptors, death with the worker, then
  the same confinement as the sandbox wrapper (``sandbox.confine``); then it runs the host.

Only bots that this interpreter would run (``BotSpec.host_arguments``) are forked; a worker
that is not a subreaper, a launcher that fails, and every other bot use the plain way.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import signal
import socket
import subprocess
import sys
import time
import traceback
from typing import Any

#: seconds the worker waits for the launcher to fork a bot before giving up on it
SPAWN_TIMEOUT = 10.0
#: launchers a worker starts at most; after that its bots start the plain way
MAX_LAUNCHERS = 3


class LaunchError(Exception):
    """The launcher could not start the bot (the caller starts it the plain way)."""


class Forked:
    """A bot the launcher forked, as the worker sees it: the part of ``subprocess.Popen`` that
    ``BotProcess`` uses (it is the worker's child, so it is waited for the same way)."""

    def __init__(self, pid: int, stdin: int, stdout: int, stderr: int) -> None:
        self.pid = pid
        self.returncode: int | None = None
        # the bot's pipes, kept open for its life and closed by its BotProcess
        self.stdin = os.fdopen(stdin, "wb", buffering=0)
        self.stdout = os.fdopen(stdout, "rb", buffering=0)
        self.stderr = os.fdopen(stderr, "rb", buffering=0)

    def poll(self) -> int | None:
        """Its exit status if it has ended (reaped now), else ``None``; as ``Popen.poll``."""
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # reaped by someone else: gone, status unknown
                self.returncode = 0
            else:
                if pid:
                    self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """Wait up to ``timeout`` seconds for it to end; its exit status; as ``Popen.wait``."""
        end = None if timeout is None else time.monotonic() + timeout
        delay = 0.0005
        while self.poll() is None:
            if end is not None and time.monotonic() >= end:
                raise subprocess.TimeoutExpired(str(self.pid), timeout or 0)
            time.sleep(delay)
            delay = min(delay * 2, 0.02)
        return self.returncode  # type: ignore[return-value]


class Launcher:
    """The worker's side: one launcher process, asked for one bot at a time."""

    def __init__(self, game: str, env: dict[str, str]) -> None:
        """``game``: the spec (``Game.spec()``) of the game its bots play, as JSON."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        # its command line also names the folder the worker runs in, for ps (and tests)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "arena.sandbox.launcher", str(os.getpid()), str(theirs.fileno()), game, os.getcwd()],
            pass_fds=[theirs.fileno()],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            cwd=env["HOME"],
            env=env,
            start_new_session=True,
        )
        theirs.close()
        self.socket = ours

    @property
    def pid(self) -> int:
        """The launcher process's id."""
        return self.process.pid

    def spawn(
        self, host_arguments: list[str], confinement: dict[str, Any], workdir: str, env: dict[str, str]
    ) -> Forked:
        """Fork a bot that runs ``arena.host.python_host`` with ``host_arguments``; ``LaunchError`` if the
        launcher cannot (it is then of no more use)."""
        ends = [os.pipe() for _ in range(3)]  # stdin, stdout, stderr: (read, write)
        theirs = [ends[0][0], ends[1][1], ends[2][1]]
        ours = [ends[0][1], ends[1][0], ends[2][0]]
        request = {"host": host_arguments, "confinement": confinement, "workdir": workdir, "env": env}
        try:
            socket.send_fds(self.socket, [json.dumps(request).encode()], theirs)
            ready, _, _ = select.select([self.socket], [], [], SPAWN_TIMEOUT)
            reply = json.loads(self.socket.recv(1 << 12)) if ready else {"error": "no answer"}
        except (OSError, ValueError) as error:
            reply = {"error": str(error)}
        finally:
            for fd in theirs:
                os.close(fd)
        if "pid" not in reply:
            for fd in ours:
                os.close(fd)
            raise LaunchError(f"the launcher could not start the bot: {reply.get('error')}")
        return Forked(int(reply["pid"]), *ours)

    def wait_ready(self, timeout: float = SPAWN_TIMEOUT) -> bool:
        """Wait until the launcher has imported what bots need (it answers a request only then);
        whether it had within ``timeout`` seconds (if not, it is of no more use)."""
        try:
            self.socket.send(json.dumps({"ready": True}).encode())
            answered, _, _ = select.select([self.socket], [], [], timeout)
            return bool(answered) and json.loads(self.socket.recv(1 << 12)).get("ready") is True
        except (OSError, ValueError, AttributeError):
            return False

    def close(self) -> None:
        """End the launcher (the bots it forked live on, children of the worker)."""
        self.socket.close()  # the launcher sees the end of its input and exits
        try:
            self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


# ---------------------------------------------------------------- the launcher process


def _preload(game: str) -> None:
    """Import what every bot's host needs and build the tables of ``game`` (its spec as JSON;
    those its playouts use included) once; then freeze it all out of the garbage collector's
    sight, so that no bot's collections walk it (and its pages stay shared). Only the one game:
    its tables count against each bot's memory limit, as they would in a bot started the plain
    way. A user's game that fails here fails again in its bots, where the failure is shown."""
    import gc
    import json
    import random

    import arena.host.loader  # each bot's module is loaded through it (hashlib's C library with it)
    import arena.host.python_host  # noqa: F401 - every bot runs it
    from arena.games import get_game_from_spec

    try:
        get_game_from_spec(json.loads(game)).initial_state().random_playout(random.Random(0))
    except Exception as error:
        sys.stderr.write(f"arena launcher: preloading the game failed: {type(error).__name__}: {error}\n")
    gc.collect()
    gc.freeze()


def _become_bot(request: dict[str, Any], fds: list[int], worker: int) -> None:
    """In the forked bot: become a freshly started, confined host process. Never returns."""
    code = 1
    try:
        os.setsid()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))
        end = time.monotonic() + 5.0
        while os.getppid() != worker:  # the middle process is exiting: wait to be the worker's
            if time.monotonic() > end:
                os._exit(1)
            time.sleep(0.0002)
        atexit._clear()
        os.chdir(request["workdir"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.path[0] = request["workdir"]  # as ``python -m`` would have it
        if "tempfile" in sys.modules:
            sys.modules["tempfile"].tempdir = None  # type: ignore[attr-defined]  # found again from TMPDIR
        from arena.sandbox import wrapper as sandbox

        sandbox.confine(**request["confinement"])
        from arena.host import python_host as host

        sys.argv = [host.__file__, *request["host"]]
        host.main(request["host"])
        code = 0
    except SystemExit as stop:
        if stop.code is None or isinstance(stop.code, int):
            code = stop.code or 0
        else:
            sys.stderr.write(f"{stop.code}\n")
    except BaseException:  # what the interpreter would print for an uncaught exception
        traceback.print_exc()
    finally:
        try:
            atexit._run_exitfuncs()
            sys.stderr.flush()
        finally:
            os._exit(code)


def serve(connection: socket.socket, worker: int) -> None:
    """Fork a bot for each request until the worker closes the connection (a request that asks
    whether it is ready is answered that it is)."""
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(connection, 1 << 20, 3)
        except OSError:
            return
        if not message:
            return
        reply: dict[str, int | str]
        try:
            request = json.loads(message)
            reply = {"ready": True} if request.get("ready") else {"pid": _fork(request, fds, worker)}
        except Exception as error:  # a bad request: say so, serve the next one
            reply = {"error": f"{type(error).__name__}: {error}"}
        finally:
            for fd in fds:
                os.close(fd)
        try:
            connection.send(json.dumps(reply).encode())
        except OSError:
            return


def _fork(request: dict[str, Any], fds: list[int], worker: int) -> int:
    """Fork the bot through a middle process that exits at once; the bot's pid."""
    if len(fds) != 3:
        raise ValueError(f"expected 3 file descriptors, got {len(fds)}")
    read_end, write_end = os.pipe()
    middle = os.fork()
    if middle == 0:
        try:
            bot = os.fork()
            if bot == 0:
                _become_bot(request, fds, worker)
            os.write(write_end, str(bot).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    try:
        data = os.read(read_end, 32)
    finally:
        os.close(read_end)
        os.waitpid(middle, 0)
    if not data:
        raise OSError("the middle process could not fork")
    return int(data)


def main(argv: list[str] | None = None) -> None:
    """The launcher process: import what bots need, then fork a bot for each request."""
    worker, fd, game = (argv or sys.argv[1:])[:3]
    from arena.sandbox import wrapper as sandbox

    sandbox.die_with_parent(int(worker))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the harness's to handle
    _preload(game)
    serve(socket.socket(fileno=int(fd)), int(worker))


if __name__ == "__main__":
    main()
