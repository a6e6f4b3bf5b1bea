"""A referee program seen from arena (docs/referee.md): its command line read, its code hashed,
and its process, started through the sandbox wrapper run by its path as a program
(``arena/sandbox/wrapper.py``: this wing imports nothing of the sandbox's), asked one JSON line
at a time under a deadline, and ended. One process runs for each arena process that needs one
(the worker, the run's own process, a bot's host that rebuilds the game), started on first use
and ended when its arena process ends; a referee that crashes, hangs or writes what is not JSON
raises ``RefereeError`` naming it and the request. What the requests mean is
``arena.games.referee``'s.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import re
import resource
import select
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.games.base import UnknownGameError

#: seconds a referee has for each request, its start included
REQUEST_TIMEOUT = 10.0
#: the longest reply line a referee may write (a state travels in it), in bytes
MAX_REPLY = 16 << 20
#: what a referee may use where the process starting it has no limit of its own
MEMORY_MB = 2048
FILE_SIZE_MB = 16
#: how much of a referee's stderr is kept for its error messages
STDERR_TAIL = 4096
#: the sandbox wrapper, run as a program by its path (it imports nothing of arena)
WRAPPER = Path(__file__).resolve().parent.parent / "sandbox" / "wrapper.py"


class RefereeError(ArenaError, RuntimeError):
    """A referee that failed a request: it crashed, hung, wrote what is not JSON or answered
    against the referee protocol."""


class RefereeLoadError(UnknownGameError):
    """A referee's game that cannot be made: a command that cannot be read or started, a wrong
    ``info``, or code that changed since its tournament began."""


def shorten(value: object, limit: int = 120) -> str:
    """``value`` as an error message quotes it: its repr, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# ---------------------------------------------------------------- the command


def command_words(command: str, base: str | Path | None) -> list[str]:
    """The referee's command line as words, each word that names a file or program relative to
    ``base`` (the tournament file's folder) made absolute: the referee runs in a folder of its
    own. (A command bot's words are read the same way.)"""
    try:
        words = shlex.split(command)
    except ValueError as error:
        raise RefereeLoadError(
            f"cannot read the referee's command {command!r}: {error} (quote as a shell would)"
        ) from None
    if not words:
        raise RefereeLoadError("the referee's command is empty")
    folder = Path(base or ".")
    for index, word in enumerate(words):
        if os.path.isabs(word) or word.startswith("-"):
            continue
        candidate = folder / word
        try:
            exists = candidate.exists()
        except OSError:  # a word too long to be a file name is not one
            exists = False
        if (os.sep in word or index > 0) and exists:
            words[index] = str(candidate.resolve())
    return words


def command_files(words: Sequence[str]) -> list[str]:
    """The files a referee's command names: its code, hashed and readable in its sandbox."""
    return [word for word in words if os.path.isabs(word) and os.path.isfile(word)]


def program_paths(program: str) -> set[str]:
    """What running ``program`` needs to read: an interpreter in a ``bin`` folder, its
    installation (and a virtual environment's own folder); any other program, its folder."""
    found = shutil.which(program)
    if not found:
        return set()
    real = Path(found).resolve()
    paths = {str(real.parent.parent if real.parent.name == "bin" else real.parent)}
    environment = Path(found).absolute().parent.parent
    if (environment / "pyvenv.cfg").is_file():
        paths.add(str(environment))
    return paths


def referee_hash(words: Sequence[str]) -> str:
    """The SHA-256 of a referee's command line and of the files it names (its code)."""
    digest = hashlib.sha256(shlex.join(words).encode())
    for path in command_files(words):
        try:
            digest.update(Path(path).read_bytes())
        except OSError as error:
            raise RefereeLoadError(f"the referee's file {path!r} cannot be read: {error.strerror or error}") from None
    return digest.hexdigest()


def label(words: Sequence[str]) -> str:
    """The referee as its errors name it: its command, files by their names."""
    shown = [os.path.basename(word) if os.path.isabs(word) else word for word in words]
    text = " ".join(shown)
    return text if len(text) <= 80 else text[:77] + "..."


# ---------------------------------------------------------------- the process


class Referee:
    """One running referee process: started through the sandbox wrapper in a folder of its own,
    asked one request at a time (a lock: a served page and a game may share it), each under
    ``REQUEST_TIMEOUT``; started again for the next request if it died."""

    def __init__(self, words: Sequence[str]) -> None:
        self.words = list(words)
        self.name = label(words)
        self.owner = os.getpid()
        self.lock = threading.RLock()
        self.proc: subprocess.Popen[bytes] | None = None
        self.folder: str | None = None
        self._buffer = bytearray()
        self._stderr = bytearray()

    @property
    def pid(self) -> int | None:
        """The pid of its process while it runs."""
        return None if self.proc is None else self.proc.pid

    def argv(self) -> list[str]:
        """The command line that starts the referee confined (``wrapper.py`` options: only
        limits this process does not have already, which a confined process cannot raise)."""
        options = ["--parent-pid", str(os.getpid())]
        if resource.getrlimit(resource.RLIMIT_DATA)[1] == resource.RLIM_INFINITY:
            options += ["--memory-mb", str(MEMORY_MB)]
        if resource.getrlimit(resource.RLIMIT_FSIZE)[1] == resource.RLIM_INFINITY:
            options += ["--file-size-mb", str(FILE_SIZE_MB)]
        readable = sorted(set(command_files(self.words)) | program_paths(self.words[0]))
        for path in readable:
            options += ["--read", path]
        return [sys.executable, "-I", "-S", str(WRAPPER), *options, "--", *self.words]

    def start(self) -> None:
        """Start the process (the request that needs it pays its start)."""
        # named as arena's scratch folders are (arena/sandbox/scratch.py): one left by a process
        # that was killed, or forked and ended without its exit handlers, is removed by the next
        self.folder = tempfile.mkdtemp(prefix=f"arena-referee-{os.getpid()}-")
        environment = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LANG": "C.UTF-8",
            "HOME": self.folder,
            "TMPDIR": self.folder,
            "PYTHONHASHSEED": "0",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        try:
            self.proc = subprocess.Popen(
                self.argv(),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=self.folder,
                env=environment,
                start_new_session=True,
            )
        except OSError as error:
            self.close()
            raise RefereeError(f"referee {self.name!r} cannot be started: {error}") from None
        assert self.proc.stdout is not None and self.proc.stderr is not None
        os.set_blocking(self.proc.stdout.fileno(), False)
        os.set_blocking(self.proc.stderr.fileno(), False)
        self._buffer.clear()
        self._stderr.clear()

    def ask(self, line: bytes, what: str) -> dict[str, Any]:
        """Send the request ``line`` (``what`` names it in errors); the reply object. An error
        reply (``{"error": ...}``) is returned as it is, for the caller to judge."""
        with self.lock:
            if self.proc is None or self.proc.poll() is not None:
                self.close()
                self.start()
            try:
                return self._exchange(line, what)
            except RefereeError:
                self.close()
                raise

    def _exchange(self, line: bytes, what: str) -> dict[str, Any]:
        proc = self.proc
        assert proc is not None and proc.stdin is not None
        try:
            proc.stdin.write(line + b"\n")
            proc.stdin.flush()
        except OSError:
            raise self._failure(what, "stopped reading its input") from None
        reply = self._line(what)
        try:
            message = json.loads(reply)
        except (ValueError, RecursionError):
            shown = reply[:120].decode("utf-8", "replace")
            raise self._failure(what, f"answered with a line that is not JSON: {shown!r}") from None
        if not isinstance(message, dict):
            raise self._failure(what, f"answered {type(message).__name__} {shorten(message)}, not a JSON object")
        return message

    def _line(self, what: str) -> bytes:
        proc = self.proc
        assert proc is not None and proc.stdout is not None and proc.stderr is not None
        out, err = proc.stdout.fileno(), proc.stderr.fileno()
        poll = select.poll()
        poll.register(out, select.POLLIN)
        poll.register(err, select.POLLIN)
        deadline = time.monotonic() + REQUEST_TIMEOUT
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                line = bytes(self._buffer[:end])
                del self._buffer[: end + 1]
                return line
            if len(self._buffer) > MAX_REPLY:
                raise self._failure(what, f"wrote a line longer than {MAX_REPLY >> 20} MiB")
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._failure(what, f"did not answer within {REQUEST_TIMEOUT:g} s")
            for fd, _ in poll.poll(max(1, int(left * 1000))):
                chunk = _read(fd)
                if fd == err:
                    if chunk:
                        self._stderr += chunk
                        del self._stderr[:-STDERR_TAIL]
                    else:
                        poll.unregister(err)
                    continue
                if chunk is None:
                    continue
                if not chunk:
                    raise self._failure(what, "closed its output", ended=True)
                self._buffer += chunk

    def _failure(self, what: str, problem: str, ended: bool = False) -> RefereeError:
        """The error of a request that failed: the referee, the request, what went wrong, how
        the process ended and the last line it wrote to stderr."""
        proc = self.proc
        if proc is not None:
            if ended:
                try:
                    proc.wait(timeout=1.0)
                except subprocess.TimeoutExpired:
                    pass
            if proc.returncode is not None:
                code = proc.returncode
                problem += (
                    f" ({'killed by ' + signal.Signals(-code).name if code < 0 else f'exited with status {code}'})"
                )
            if proc.stderr is not None:
                while True:
                    chunk = _read(proc.stderr.fileno())
                    if not chunk:
                        break
                    self._stderr += chunk
                    del self._stderr[:-STDERR_TAIL]
        said = [
            line
            for line in self._stderr.decode("utf-8", "replace").splitlines()
            if line.strip() and not line.startswith(("arena sandbox: memory ", "arena sandbox: files "))
        ]
        # its last error's line where it names one (a traceback's last, Node's "Error: ..."
        # above its stack), else its last line
        errors = [line for line in said if re.search(r"error|exception|panic", line, re.IGNORECASE)]
        shown = (errors or said)[-1].strip()[:300] if said else ""
        tail = f"; its stderr says: {shown!r}" if said else ""
        return RefereeError(f"referee {self.name!r}, asked {what}: {problem}{tail}")

    def close(self) -> None:
        """End the process (its whole session) and remove its folder (after the request under
        way, if another thread has one)."""
        with self.lock:
            self._close()

    def _close(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None and self.owner == os.getpid():
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                if stream is not None:
                    try:
                        stream.close()
                    except OSError:
                        pass
        if self.folder is not None and self.owner == os.getpid():
            shutil.rmtree(self.folder, ignore_errors=True)
        self.folder = None


def _read(fd: int) -> bytes | None:
    """What the pipe ``fd`` holds now (``b""`` at its end, ``None`` if nothing yet)."""
    try:
        return os.read(fd, 1 << 16)
    except BlockingIOError:
        return None
    except OSError:
        return b""


class Referees:
    """The referee processes of one arena process, by command: each started on first use and
    ended when the process ends. A process forked from this one (a worker, a bot forked from a
    launcher) starts its own: those it inherited are its parent's to end."""

    def __init__(self) -> None:
        self.owner = os.getpid()
        self.by_command: dict[tuple[str, ...], Referee] = {}

    def _own(self) -> None:
        if self.owner != os.getpid():
            self.owner, self.by_command = os.getpid(), {}

    def get(self, words: Sequence[str]) -> Referee:
        """The referee of ``words`` (made on first use, started on its first request)."""
        self._own()
        key = tuple(words)
        found = self.by_command.get(key)
        if found is None:
            found = self.by_command[key] = Referee(words)
        return found

    def close(self) -> None:
        """End every referee process this process started."""
        self._own()
        for referee in list(self.by_command.values()):
            referee.close()

    def pids(self) -> set[int]:
        """The pids of the referee processes running now."""
        self._own()
        return {pid for pid in (referee.pid for referee in self.by_command.values()) if pid is not None}


#: this process's referees
_THIS_PROCESS = Referees()


def referee_for(words: Sequence[str]) -> Referee:
    """The referee of ``words`` in this process."""
    return _THIS_PROCESS.get(words)


def close_referees() -> None:
    """End every referee process this process started (a bot's host does so before it answers:
    a bot may leave no process running; a state's next request starts its referee again)."""
    _THIS_PROCESS.close()


def referee_pids() -> set[int]:
    """The pids of the referee processes this process runs: its children, not a bot's strays."""
    return _THIS_PROCESS.pids()


atexit.register(close_referees)
