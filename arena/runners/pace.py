"""Paces: the same moves on a busy machine from bots that budget by the clock.

A search that stops when its time runs out does as many iterations as the CPU gave it, and
that number changes from run to run (other programs' use of the caches, where the allocator put
things, a context switch): one more playout is enough to change a move, and so the rest of the
game. Under the cpu clock arena measures each Python bot's *pace* before a tournament's first
game: the CPU seconds one step of its search takes (an iteration, a playout, a node) in the
dearest of the first moves of a game of the bot against itself (the opening's, in these games,
where playouts are longest), alone on the machine, under the tournament's time a move. Its games
then send it that pace, and the built-in bots' ``Budget`` turns the time of each move into that
many steps (``limit / pace``, less the safety margin): the same seed plays the same moves
however busy the machine is, as chess engines do with a node budget (``nodestime``). The clock
itself still stops a search that would run out, and the harness still charges the bot the CPU
it used: a pace is the bot's own planning, never a licence to take longer.

Paces are stored (table ``paces``) per machine (its name, CPU model and Python) and per bot
(code hash, parameters, game, time a move), measured once and used by every later tournament
there, so that two runs of a tournament on one machine play the same games. A bot whose
searches do not stop by the clock (an iteration budget, a fixed depth) gets no pace. The first
measurement of a bot costs its start and a few moves; ``time: {pace: false}`` turns paces off.
"""

from __future__ import annotations

import hashlib
import json
import logging
import platform
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from functools import cache, partial
from typing import TYPE_CHECKING

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from arena.core import protocol
from arena.core.botspec import BotSpec
from arena.core.records import BotFault, Overloaded
from arena.core.timing import Limit, TimeControl
from arena.errors import ArenaError
from arena.games import get_game_from_spec
from arena.runners.machine import this_node
from arena.store.models import Pace

#: moves of the measuring game (both seats), and how many of them the clock must have ended
PLIES = 8
SEARCHES = 4
#: the longest move measured, in seconds (a longer time a move is measured at this one)
LONGEST = 0.25
#: the pace sent is the measured one times this: steps cost more in some positions than in the
#: measuring game's, and in another process, or on a busy machine, up to half as much again (the
#: caches, where the allocator put things); the clock is the backstop
SAFETY = 1.5

if TYPE_CHECKING:
    from arena.runners.worker import GameWorker

log = logging.getLogger(__name__)


@cache
def machine() -> str:
    """This machine as paces are stored for it: its name, CPU model and Python."""
    node = this_node()
    return f"{node.host} | {node.cpu} | Python {platform.python_version()}"


@dataclass(frozen=True)
class Paced:
    """What paces did for a tournament: the bots (by team) that run at one, and how many were
    measured now (the others were stored)."""

    paced: tuple[str, ...] = ()
    measured: int = 0

    def describe(self) -> str:
        """A few words for the run's header (none if no bot is paced)."""
        if not self.paced:
            return ""  # nothing to say: no bot's search stops by the clock
        count = len(self.paced)
        stored = f"{self.measured} measured now" if self.measured else "stored"
        return (
            f"{count} bot{'s' if count != 1 else ''} searching by the clock at this machine's measured pace ({stored})"
        )


def key(spec: BotSpec, code_hash: str | None, game: dict[str, object], limit: float) -> str:
    """The bot and the conditions a pace was measured for."""
    what = [spec.kind, spec.target, spec.params, spec.python, code_hash, game, round(limit, 6)]
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()


def with_paces(
    specs: dict[int, BotSpec],
    code_hashes: dict[int, str | None],
    game: dict[str, object],
    control: TimeControl,
    sessions: sessionmaker[Session],
    measure: Callable[[BotSpec, dict[str, object], float, float], float | None] | None = None,
    announce: Callable[[int], None] = lambda count: None,
) -> tuple[dict[int, BotSpec], Paced]:
    """``specs`` with the pace of each Python bot that budgets by the clock, when ``control``
    is a cpu clock with a time a move (the others as they are): stored paces are used, the
    missing ones measured (``measure``, by default in a bot process of this machine; first
    ``announce(count)``) and stored."""
    if control.clock != "cpu" or control.move is None or not control.pace:
        return specs, Paced()
    limit = min(control.move, LONGEST)
    keys = {
        entry: key(spec, code_hashes.get(entry), game, limit) for entry, spec in specs.items() if spec.kind == "python"
    }
    here = machine()
    with sessions.begin() as session:
        stored = {
            row.key: row.pace
            for row in session.scalars(select(Pace).where(Pace.machine == here, Pace.key.in_(set(keys.values()))))
        }
    missing = {k: entry for entry, k in keys.items() if k not in stored}
    if missing:
        announce(len({replace(specs[entry], name="") for entry in missing.values()}))
        found = _measure_all([specs[entry] for entry in missing.values()], game, limit, control.startup, measure)
        with sessions.begin() as session:
            for k, entry in missing.items():
                if specs[entry] in found:  # one that failed is measured again next time
                    stored[k] = found[specs[entry]]
                    name = f"{specs[entry].target} {specs[entry].params}"
                    session.add(Pace(machine=here, key=k, bot=name, limit=limit, pace=stored[k]))
    paces = {entry: pace * SAFETY for entry, k in keys.items() if (pace := stored.get(k))}
    result = {entry: replace(spec, pace=paces.get(entry)) for entry, spec in specs.items()}
    return result, Paced(tuple(sorted(specs[entry].name for entry in paces)), len(missing))


def _measure_all(
    specs: Iterable[BotSpec],
    game: dict[str, object],
    limit: float,
    startup: float,
    measure: Callable[[BotSpec, dict[str, object], float, float], float | None] | None,
) -> dict[BotSpec, float | None]:
    """The pace of each of ``specs`` that could be measured (one process at a time, so that
    none slows another); those that could not are left out, and logged."""
    from arena.runners.worker import GameWorker

    unique = {replace(spec, name="pace"): spec for spec in specs}
    measured: dict[BotSpec, float | None] = {}
    with GameWorker() as worker:
        for spec, original in unique.items():
            try:
                measured[original] = (measure or partial(measure_in, worker))(spec, game, limit, startup)
            except PaceError as error:
                log.warning("the pace of %s could not be measured: %s", original.name, error)
    return measured


class PaceError(ArenaError):
    """A bot's pace could not be measured (it failed, or answered nonsense)."""


def measure_in(
    worker: GameWorker, spec: BotSpec, game: dict[str, object], limit: float, startup: float
) -> float | None:
    """The pace of ``spec`` measured in a bot process of ``worker``; ``None`` if its searches
    do not stop by the clock; ``PaceError`` if it cannot be measured."""
    process = None
    try:
        process = worker.start_bot(spec, get_game_from_spec(game))
        wait = Limit(startup + PLIES * limit * 4, "wall", 0.0, overload=False)
        line, _usage = process.exchange(protocol.pace(game, limit, PLIES, SEARCHES), wait)
        reply = protocol.parse_reply(line, "pace")
    except (ArenaError, BotFault, Overloaded, OSError, protocol.ProtocolError) as error:
        raise PaceError(str(error)) from None
    finally:
        if process is not None:
            process.close()
    if reply["type"] == "error":
        raise PaceError(reply["message"])
    pace = reply.get("pace")
    return float(pace) if pace is not None else None
