"""The machine a game is played on: its host name and CPU model (stored with every game, so a
report shows games and move times per node), and how fast it is (``speed``), by which a cluster
may scale time limits so that a slow node's bots get as much thinking as a fast one's, as
fishtest scales its time control by a benchmark of each machine.
"""

from __future__ import annotations

import functools
import platform
import socket
import time
from dataclasses import dataclass
from pathlib import Path

#: the benchmark's fixed work: random playouts of ``BENCH_GAME`` from its start, seeded
BENCH_GAME = "tictactoe"
BENCH_PLAYOUTS = 20_000
#: CPU seconds ``BENCH_PLAYOUTS`` take on the reference machine (a 2020s server core, AMD EPYC)
REFERENCE_SECONDS = 0.3


@dataclass(frozen=True, slots=True)
class Node:
    """A machine games are played on: ``host`` its name, ``cpu`` its CPU model."""

    host: str
    cpu: str


@functools.cache
def this_node() -> Node:
    """The machine this process runs on."""
    return Node(socket.gethostname()[:200] or "unknown", cpu_model())


def cpu_model() -> str:
    """The CPU model as the system names it (``/proc/cpuinfo``), else the platform's word."""
    try:
        for line in Path("/proc/cpuinfo").read_text(errors="replace").splitlines():
            key, _, value = line.partition(":")
            if key.strip() in ("model name", "Hardware", "cpu model") and value.strip():
                return " ".join(value.split())[:200]
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def speed(repeats: int = 3) -> float:
    """How fast one core of this machine plays, relative to the reference machine (2.0: twice
    as fast): the best of ``repeats`` timings of a fixed, seeded piece of game-tree work, the
    kind bots do."""
    import random

    from arena.games import get_game

    game = get_game(BENCH_GAME)
    best = float("inf")
    for _ in range(repeats):
        rng = random.Random(7)
        started = time.process_time()
        for _ in range(BENCH_PLAYOUTS):
            state = game.initial_state()
            while not state.is_terminal:
                state = state.play(rng.choice(state.legal_moves()))
        best = min(best, time.process_time() - started)
    return REFERENCE_SECONDS / max(best, 1e-6)
