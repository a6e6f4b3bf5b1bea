"""Where games run: a local pool of worker processes, behind a seam a distributed engine
(Dask, Ray) can later fill. The caller gets records back and is the only one to store them.

A worker that dies mid-game (killed, crashed) is replaced and its game is played again. Each
worker is a child subreaper: it ends whatever its bots left running (``worker.reap_strays``).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from multiprocessing.connection import Connection, wait

from arena.errors import ArenaError
from arena.records import GameRecord
from arena.botspec import BotSpec
from arena.worker import WARM_PROCESSES, GameJob, become_subreaper, run_game, warm_bots

#: how far down the queue a worker looks for a game whose bots it has warm
AFFINITY_WINDOW = 256
#: how many workers one game may lose before the run stops: a game that kills every worker
#: that plays it (a harness fault, or a bot that can signal its worker) would loop for ever
MAX_WORKER_DEATHS = 3

log = logging.getLogger(__name__)


class RunnerError(ArenaError):
    """Games cannot be played here: the run stops (finished games are kept)."""


def _worker_main(connection: Connection, cpu: int | None = None) -> None:
    """A worker: play the games it is sent until it is sent ``None``, on CPU ``cpu`` (with
    its bots, which inherit it) if given."""
    if cpu is not None:
        try:
            os.sched_setaffinity(0, {cpu})
        except OSError:
            pass
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops us

    def stop(*_args: object) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    become_subreaper()  # what bots detach from themselves comes back to us, to be ended
    try:
        while (job := connection.recv()) is not None:
            connection.send(run_game(job))
    except (EOFError, BrokenPipeError, KeyboardInterrupt, SystemExit):
        pass
    finally:
        warm_bots().close()


class _Worker:
    def __init__(self, context: multiprocessing.context.BaseContext, number: int, cpu: int | None) -> None:
        self.connection, child = context.Pipe()
        self.process = context.Process(target=_worker_main, args=(child, cpu), name=f"arena-worker-{number}", daemon=True)
        self.process.start()
        child.close()
        self.cpu = cpu
        self.job: GameJob | None = None
        self.warm: OrderedDict[BotSpec, None] = OrderedDict()  # mirrors the worker's WarmBots

    def give(self, job: GameJob) -> None:
        self.job = job
        for spec in job.bots:
            self.warm[spec] = None
            self.warm.move_to_end(spec)
        while len(self.warm) > WARM_PROCESSES:
            self.warm.popitem(last=False)
        self.connection.send(job)

    def pick(self, queue: list[GameJob]) -> GameJob:
        """Take from ``queue`` the first game whose bots are warm here (both, else one, else
        the first): starting a bot process costs far more than a whole fast game."""
        best, best_score = 0, -1
        for index, job in enumerate(queue[:AFFINITY_WINDOW]):
            score = sum(spec in self.warm for spec in job.bots)
            if score > best_score:
                best, best_score = index, score
                if score == 2:
                    break
        return queue.pop(best)

    def stop(self, timeout: float = 5.0) -> None:
        try:
            self.connection.send(None)
        except (BrokenPipeError, OSError):
            pass
        self.process.join(timeout)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(timeout)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.connection.close()


def worker_cpus(workers: int) -> list[int] | None:
    """The CPU each of ``workers`` workers is pinned to, or ``None`` (no pinning) when there
    are more workers than CPUs this process may use, or only one CPU."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return None
    return cpus[:workers] if 1 < len(cpus) and workers <= len(cpus) else None


class LocalRunner:
    """Plays games in ``workers`` processes of this machine.

    With ``pin`` (and no more workers than CPUs), each worker and its bots keep to a CPU of
    their own: of a worker and its two bots only one runs at a time, and a bot's reply then
    wakes its worker on the same CPU, which costs a fraction of a wake-up across CPUs
    (benchmarks/harness.py measures both)."""

    def __init__(self, workers: int | None = None, pin: bool = True) -> None:
        self.workers = workers or os.cpu_count() or 1
        self.cpus = worker_cpus(self.workers) if pin else None
        self.restarts = 0

    def _cpu(self, number: int) -> int | None:
        return None if self.cpus is None else self.cpus[number % len(self.cpus)]

    def run(self, jobs: Iterable[GameJob]) -> Iterator[GameRecord]:
        """Play ``jobs``; yield each game's record as it finishes (in no fixed order)."""
        queue = list(jobs)
        if not queue:
            return
        context = multiprocessing.get_context("fork")
        workers: list[_Worker] = []
        started = 0
        deaths: dict[int, int] = {}  # game id -> workers lost playing it
        try:
            for _ in range(min(self.workers, len(queue))):
                workers.append(_Worker(context, started, self._cpu(started)))
                started += 1
            for worker in workers:
                worker.give(worker.pick(queue))
            while any(w.job is not None for w in workers):
                busy = [w for w in workers if w.job is not None]
                ready = wait([w.connection for w in busy] + [w.process.sentinel for w in busy])
                for worker in busy:
                    record = None
                    if worker.connection in ready:
                        try:
                            record = worker.connection.recv()
                        except (EOFError, OSError):
                            record = None
                    if record is not None:
                        worker.job = None
                        if queue:
                            worker.give(worker.pick(queue))
                        yield record
                    elif worker.process.sentinel in ready or not worker.process.is_alive():
                        worker.process.join(1.0)
                        lost = worker.job
                        log.warning("worker %s died (exit %s) during game %s; playing it again",
                                    worker.process.name, worker.process.exitcode, lost.game_id if lost else None)
                        worker.stop(timeout=0.5)
                        workers.remove(worker)
                        if lost is not None:
                            deaths[lost.game_id] = deaths.get(lost.game_id, 0) + 1
                            if deaths[lost.game_id] >= MAX_WORKER_DEATHS:
                                raise RunnerError(
                                    f"game {lost.game_id} lost its worker process {MAX_WORKER_DEATHS} times (the last "
                                    f"exit status was {worker.process.exitcode}); stopping the run: the log beside "
                                    "the database says more, and running again retries the game"
                                )  # fmt: skip
                        replacement = _Worker(context, started, worker.cpu)
                        started += 1
                        self.restarts += 1
                        workers.append(replacement)
                        if lost is not None:
                            replacement.give(lost)
        finally:
            for worker in workers:
                worker.stop()
