"""What bots leave behind: the processes a bot detached from itself, handed to us.

A process that plays games (a worker, the run's parent) is the child subreaper of everything
below it (``set_subreaper``, Linux 3.4+): a process a bot detached from itself (a double fork,
``setsid``) becomes its child when its parent ends, not ``init``'s. Its *strays* are its
children it did not start; ``reap_strays`` kills and reaps them.
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import time

from arena.games.referee_process import referee_pids
from arena.sandbox import procfs

log = logging.getLogger(__name__)

_PR_SET_CHILD_SUBREAPER, _PR_GET_CHILD_SUBREAPER = 36, 37


def strays(known: set[int], include_ended: bool = False) -> list[int]:
    """The children of this process that are not in ``known`` (the processes it started, or
    had before): what bots left behind and the kernel handed to us, a subreaper. Only running
    ones unless ``include_ended`` (zombies too). A game's referee this process runs is its own
    (arena/games/referee_process.py), never a stray."""
    known = known | referee_pids()
    # one read: the kernel hands orphans to the main thread, which also starts the bots
    return [
        pid for pid in procfs.child_pids(os.getpid()) if pid not in known and (include_ended or procfs.running(pid))
    ]


def reap_strays(known: set[int], rounds: int = 50) -> list[str]:
    """Kill and reap every stray (and those that killing them hands to us, up to ``rounds``
    generations); what was still running."""
    killed: list[str] = []
    for _ in range(rounds):
        found = strays(known, include_ended=True)
        if not found:
            break
        for pid in found:
            if not procfs.running(pid):
                continue  # ended: only to be reaped
            killed.append(procfs.describe_process(pid))
            try:
                if os.getpgid(pid) == pid:  # it leads a group of its own (setsid): end the group
                    os.killpg(pid, signal.SIGKILL)
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        for pid in found:
            _reap(pid)
    if killed:
        log.warning("killed %d process(es) that bots left running: %s", len(killed), ", ".join(killed[:10]))
    return killed


def subreaper_state() -> bool:
    """Whether this process is a child subreaper now."""
    value = ctypes.c_int(0)
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(value), 0, 0, 0)
    except (OSError, AttributeError):
        return False
    return bool(value.value)


def set_subreaper(on: bool) -> bool:
    """Make this process the reaper of every orphan below it, or not (Linux 3.4+): what a bot
    detaches from itself becomes our child, to be ended. Whether it worked."""
    try:
        return bool(ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def _reap(pid: int, timeout: float = 2.0) -> None:
    end = time.monotonic() + timeout
    while True:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return
        if done or time.monotonic() > end:
            return
        time.sleep(0.002)
