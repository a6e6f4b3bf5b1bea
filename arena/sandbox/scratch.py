"""Scratch folders: each process that runs bots keeps what it writes for them (their working
folders, the copies of their code) in one folder of its own in the temporary folder, named
``arena-<kind>-<pid>-XXXXXXXX``, and removes it when it ends. A process killed before it could
(SIGKILL) leaves its folder behind; the next process that makes one removes every folder whose
process is gone.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

_NAME = re.compile(r"^arena-[a-z]+-(\d+)-")


def make(kind: str) -> Path:
    """A new scratch folder of this process (after removing those of processes that are gone)."""
    remove_stale()
    return Path(tempfile.mkdtemp(prefix=f"arena-{kind}-{os.getpid()}-"))


def owner(path: Path) -> int | None:
    """The pid of the process whose scratch folder ``path`` is, or ``None``."""
    found = _NAME.match(path.name)
    return int(found.group(1)) if found else None


def remove_stale(pids: set[int] | None = None) -> list[str]:
    """Remove the scratch folders of processes that are gone (or, given ``pids``, of those
    processes); their names."""
    removed: list[str] = []
    try:
        entries = list(Path(tempfile.gettempdir()).iterdir())
    except OSError:
        return removed
    for entry in entries:
        pid = owner(entry)
        if pid is None or (pids is not None and pid not in pids):
            continue
        if pids is None and Path(f"/proc/{pid}").exists():
            continue
        shutil.rmtree(entry, ignore_errors=True)
        removed.append(entry.name)
    return removed
