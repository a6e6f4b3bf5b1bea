"""The local runner: games played in worker processes of this machine (``job.GameRunner``).
The caller gets records back and is the only one to store them.

Nothing of a run outlives it. Each worker (a ``GameWorker``) gets ``SIGTERM`` when the runner's
process dies, however it dies, and then ends its bots; its bots die with it; the runner is a
child subreaper, so what the bots of a worker that was killed had detached from themselves comes
back to it, to be ended; where the system has control groups, every bot of a worker is in its
worker's group, which the runner kills whole when the worker dies. A worker that dies mid-game
is replaced and its game is played again.
"""

from __future__ import annotations

import ctypes
import logging
import multiprocessing
import os
import signal
import time
from collections import OrderedDict, deque
from collections.abc import Iterable, Iterator
from multiprocessing.connection import Connection, wait
from multiprocessing.reduction import ForkingPickler
from pathlib import Path
from typing import Any

from arena.core.botspec import BotSpec
from arena.core.job import GameJob
from arena.core.live import remove_live
from arena.core.records import GameRecord
from arena.errors import ArenaError
from arena.runners.seat import WARM_PROCESSES
from arena.runners.worker import GameWorker
from arena.sandbox import scratch
from arena.sandbox.cgroups import Cgroup
from arena.sandbox.procfs import child_pids, running
from arena.sandbox.reaper import reap_strays, set_subreaper, subreaper_state

#: how far down the queue a worker looks for a game whose bots it has warm
AFFINITY_WINDOW = 256
#: games a worker is given beyond the one it plays: the next is in its pipe as it sends a
#: record, so it never waits for this process (busy storing the last record) between games
AHEAD = 1
#: the most bytes a game given ahead may take in a worker's pipe, far below the pipe's buffer: a
#: bigger one could fill the pipe while the worker plays, and the worker's record then fill the
#: other way, each side waiting for the other; it waits till the worker is free
AHEAD_BYTES = 16 << 10
#: the mark a drain sends a worker: the games it was given ahead and has not started are skipped,
#: and it sends back each one's id instead of its record
SKIP = "skip"
#: what a worker is asked, and answers once its launcher is ready (``LocalRunner.wait_ready``)
READY = "ready"
#: how many workers one game may lose before the run stops: a game that kills every worker
#: that plays it (a harness fault, or a bot that can signal its worker) would loop for ever
MAX_WORKER_DEATHS = 3
#: a CPU counts as idle when at least this share of a short sample of it was idle
IDLE_SHARE = 0.8
_PR_SET_PDEATHSIG = 1

log = logging.getLogger(__name__)


class RunnerError(ArenaError):
    """Games cannot be played here: the run stops (finished games are kept)."""


def _worker_main(
    connection: Connection,
    cpu: int | None,
    cgroup: Cgroup | None,
    parent: int,
    close: list[Connection],
    live: Path | None = None,
) -> None:
    """A worker: play the games it is sent until it is sent ``None`` or its parent is gone."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    for end in close:  # the runner's ends of the pipes: a pipe must see its end when the runner dies
        end.close()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops us

    def stop(*_args: object) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    if os.getppid() != parent:  # the parent died before we could ask to be told
        return
    pending: deque[object] = deque()  # what was sent after the game about to start

    def next_message() -> object:
        return pending.popleft() if pending else connection.recv()

    with GameWorker(cpu, cgroup, live=live) as worker:
        try:
            while (message := next_message()) is not None:
                if isinstance(message, dict):  # the spec of the game it is to play (``LocalRunner.open``)
                    worker.get_ready(message)
                elif message == READY:
                    worker.wait_ready()
                    connection.send(READY)
                elif isinstance(message, GameJob):
                    while connection.poll():
                        pending.append(connection.recv())
                    # a drain sent after it: it was given ahead, and is not started
                    connection.send(message.game_id if SKIP in pending else worker.play(message))
        except (EOFError, BrokenPipeError, KeyboardInterrupt, SystemExit):
            pass


class _Worker:
    def __init__(
        self,
        context: multiprocessing.context.ForkContext,
        number: int,
        cpu: int | None,
        cgroup: Cgroup | None,
        others: list[Connection],
        live: Path | None = None,
    ) -> None:
        self.connection, child = context.Pipe()
        self.cgroup = cgroup
        self.process = context.Process(
            target=_worker_main,
            name=f"arena-worker-{number}",
            daemon=True,
            args=(child, cpu, cgroup, os.getpid(), [self.connection, *others], live),
        )
        self.process.start()
        assert self.process.pid is not None
        self.pid: int = self.process.pid
        child.close()
        self.cpu = cpu
        self.jobs: deque[GameJob] = deque()  # given, in order: the first is under way, the others wait in its pipe
        self.warm: OrderedDict[BotSpec, None] = OrderedDict()  # mirrors the worker's WarmBots

    def take(self, job: GameJob) -> bool:
        """Give the worker ``job`` if it can take it now: any game when it has none, else one
        small enough to wait in its pipe behind those it has (``AHEAD_BYTES``); whether it did."""
        message = ForkingPickler.dumps(job)
        if self.jobs and len(message) > AHEAD_BYTES:
            return False
        self.jobs.append(job)
        for spec in job.bots:
            self.warm[spec] = None
            self.warm.move_to_end(spec)
        while len(self.warm) > WARM_PROCESSES:
            self.warm.popitem(last=False)
        self.tell(message)
        return True

    def offer(self, queue: list[GameJob]) -> None:
        """Give the worker the game of ``queue`` it plays best (``pick``), if it can take it."""
        job = self.pick(queue)
        if not self.take(job):
            queue.insert(0, job)

    def tell(self, message: object) -> None:
        """Send the worker ``message`` (a ``memoryview``: one pickled already); a worker that is
        gone is not told (the run finds it dead and gives its games to another)."""
        try:
            self.connection.send_bytes(message if isinstance(message, memoryview) else ForkingPickler.dumps(message))
        except OSError:
            pass

    def pick(self, queue: list[GameJob]) -> GameJob:
        """Take from ``queue`` the first game whose bots are all warm here (else the one with
        most warm, else the first): starting a bot process costs far more than a fast game."""
        best, best_score, warm = 0, -1, self.warm.__contains__
        for index, job in enumerate(queue[:AFFINITY_WINDOW]):
            score = sum(map(warm, job.bots))
            if score > best_score:
                best, best_score = index, score
                if score == len(job.bots):  # every seat warm
                    break
        return queue.pop(best)

    def ask_to_stop(self) -> None:
        """Tell the worker to end (its bots with it) once its game is over; ``stop`` waits."""
        self.tell(None)

    def stop(self, timeout: float = 5.0) -> None:
        self.ask_to_stop()
        self.process.join(timeout)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(timeout)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.connection.close()
        if self.cgroup is not None:  # whatever of its bots is left (it was killed) goes with it
            self.cgroup.remove()


def idle_cpus(sample: float = 0.1) -> list[int]:
    """The CPUs this process may use that were idle (``IDLE_SHARE``) during a ``sample`` of
    ``/proc/stat`` (all of them where it cannot be read)."""
    try:
        allowed = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return []

    def times() -> dict[int, tuple[int, int]]:
        found: dict[int, tuple[int, int]] = {}
        try:
            lines = Path("/proc/stat").read_text().splitlines()
        except OSError:
            return found
        for line in lines:
            name, *values = line.split()
            if name.startswith("cpu") and name[3:].isdecimal():
                numbers = [int(v) for v in values]
                found[int(name[3:])] = (numbers[3] + numbers[4], sum(numbers[:8]))  # idle + iowait, total
        return found

    before = times()
    time.sleep(sample)
    after = times()
    if not before or not after:
        return allowed
    idle = []
    for cpu in allowed:
        if cpu in before and cpu in after:
            spent = after[cpu][1] - before[cpu][1]
            if spent <= 0 or (after[cpu][0] - before[cpu][0]) / spent >= IDLE_SHARE:
                idle.append(cpu)
    return idle


def choose_cpus(workers: int, pin: bool | None) -> tuple[list[int] | None, str]:
    """The CPU each of ``workers`` workers is pinned to (``None``: not pinned) and why.

    ``pin`` True pins whenever there are CPUs enough, False never; ``None`` (the default)
    pins only to CPUs that are idle now: of a worker and its two bots only one runs at a time,
    so a CPU of their own is the fastest home, but the worst one when another program loads it.
    """
    try:
        allowed = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return None, "not pinned (no CPU affinity here)"
    if pin is False:
        return None, "not pinned (--no-pin)"
    if len(allowed) < 2 or workers > len(allowed):
        return None, f"not pinned ({workers} workers, {len(allowed)} CPUs)"
    if pin:
        return allowed[:workers], f"pinned to CPUs {', '.join(map(str, allowed[:workers]))} (--pin)"
    idle = idle_cpus()
    if len(idle) < workers:
        return None, f"not pinned: {len(idle)} of {len(allowed)} CPUs idle, the others busy with other programs"
    chosen = idle[:workers]
    return chosen, f"each worker and its bots on an idle CPU of their own ({', '.join(map(str, chosen))})"


class LocalRunner:
    """Plays games in ``workers`` processes of this machine; ``pin`` as ``choose_cpus``;
    ``live``: where the workers write each game's moves as they are played (``arena.core.live``;
    the files of a run's games are removed when it ends).

    Used as a context manager (``with LocalRunner() as runner``, or ``open``/``close``) it keeps
    its workers between runs, with their launchers and warm bots: a tournament's rounds and
    stages go on where the last one left off, and ``open(game)`` starts the workers' launchers
    at once, while the caller gets ready. Otherwise each run starts its workers and ends them."""

    def __init__(self, workers: int | None = None, pin: bool | None = None, live: Path | None = None) -> None:
        self.workers = workers or os.cpu_count() or 1
        self.live = live
        self.cpus, self.pinning = choose_cpus(self.workers, pin)
        self.restarts = 0
        self.cgroup: Cgroup | None = None
        self.draining = False
        self._open = False
        self._pool: list[_Worker] = []  # the workers now
        self._started = 0  # workers started so far (their numbers)
        self._dead: set[int] = set()  # the pids of all its workers, whose scratch folders go with them
        self._before: set[int] = set()  # children of this process that are not the runner's
        self._was_subreaper = False
        self._context = multiprocessing.get_context("fork")
        self._kept = False  # opened by its user (``open``): its workers outlive each run
        self._ending: list[_Worker] = []  # told to end (``wind_down``), not waited for yet
        self._run: object | None = None  # the run under way

    def __enter__(self) -> LocalRunner:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def open(self, game: dict[str, Any] | None = None) -> None:
        """Keep workers from now until ``close``; ``game``: the spec of the game they will play,
        for which they start their launchers now (else on their first game)."""
        self._kept = True
        self._start()
        if game is not None:
            while len(self._pool) < self.workers:
                self._pool.append(self._new_worker(self._cpu(self._started)))
            for worker in self._pool:
                worker.tell(game)

    def wait_ready(self) -> None:
        """Wait until the launchers ``open(game)`` started are ready, between runs: what the
        caller does next (a tournament measuring its bots' paces, one process at a time) has
        the machine to itself."""
        for worker in self._pool:
            worker.tell(READY)
        for worker in self._pool:
            try:
                worker.connection.recv()  # its READY
            except (EOFError, OSError):
                pass  # it died: the next run finds it dead and starts another

    def _start(self) -> None:
        if not self._open:
            self._was_subreaper = subreaper_state()
            set_subreaper(True)  # what the bots of a killed worker detached comes back to us
            self.cgroup = Cgroup.for_process()
            self._before = set(child_pids(os.getpid()))
            self._open = True

    def wind_down(self) -> None:
        """Tell every worker to end, and do not wait (``close`` does): what the caller does
        meanwhile (a tournament's last ratings) overlaps their ending. A later run starts others."""
        for worker in self._pool:
            worker.ask_to_stop()
        self._ending.extend(self._pool)
        self._pool.clear()

    def close(self) -> None:
        """End the workers (each ends its bots and launcher) and what they left."""
        if not self._open:
            return
        self._stop_workers()
        reap_strays(self._before)
        scratch.remove_stale({pid for pid in self._dead if not Path(f"/proc/{pid}").exists()})
        self._dead.clear()
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None
        if not self._was_subreaper:
            set_subreaper(False)
        self._open = self._kept = False

    @property
    def worker_pids(self) -> list[int]:
        """The process ids of its workers now."""
        return [worker.pid for worker in self._pool]

    def drain(self) -> None:
        """Start no more games in the run under way: the games being played finish and their
        records still come, those given ahead and not started are skipped; the run then ends
        (what stops a match once its test is decided)."""
        self.draining = True
        for worker in self._pool:
            if len(worker.jobs) > 1:
                worker.tell(SKIP)

    def _cpu(self, number: int) -> int | None:
        return None if self.cpus is None else self.cpus[number % len(self.cpus)]

    def _new_worker(self, cpu: int | None) -> _Worker:
        group = self.cgroup.child(f"worker-{self._started}", holds_groups=True) if self.cgroup else None
        others = [w.connection for w in self._pool]
        worker = _Worker(self._context, self._started, cpu, group, others, self.live)
        self._started += 1
        self._dead.add(worker.pid)
        return worker

    def _stop_workers(self) -> None:
        """End its workers, all told at once (each ends its bots on its own CPU), and those
        winding down."""
        for worker in self._pool:
            worker.ask_to_stop()
        for worker in [*self._ending, *self._pool]:
            worker.stop()
        self._pool.clear()
        self._ending.clear()

    def run(self, jobs: Iterable[GameJob]) -> Iterator[GameRecord]:
        """Play ``jobs``; yield each game's record as it finishes (in no fixed order)."""
        queue = list(jobs)
        self.draining = False
        if not queue:
            return
        ids, this = [job.game_id for job in queue], object()
        self._run = this  # a run given up midway and closed later touches nothing of this one
        if any(w.jobs for w in self._pool):  # such a run's games under way are not this run's
            self._stop_workers()
        self._start()
        # the children the caller started since it opened the runner are not strays of its bots
        # (those that ended are not the caller's to keep: the launcher of a worker that died)
        new = set(child_pids(os.getpid())) - {w.pid for w in (*self._pool, *self._ending)} - self._before
        self._before |= {pid for pid in new if running(pid)}
        try:
            yield from self._play(queue)
        except BaseException:
            if self._run is this:
                self._stop_workers()  # what they still play is the stopped run's
            raise
        finally:
            if self._run is this:
                self._run = None
                if not self._kept:
                    self.close()
            if self.live is not None:
                remove_live(self.live, ids)

    def _play(self, queue: list[GameJob]) -> Iterator[GameRecord]:
        workers = self._pool
        deaths: dict[int, int] = {}  # game id -> workers lost playing it
        while len(workers) < min(self.workers, len(queue)):
            workers.append(self._new_worker(self._cpu(self._started)))
        for _ in range(1 + AHEAD):
            for worker in workers:
                if queue:
                    worker.offer(queue)
        while any(w.jobs for w in workers):
            busy = [w for w in workers if w.jobs]
            ready = wait([w.connection for w in busy] + [w.process.sentinel for w in busy])
            for worker in busy:
                record = None
                if worker.connection in ready:
                    try:
                        record = worker.connection.recv()
                    except (EOFError, OSError):
                        record = None
                if record == READY:  # the late answer to a ``wait_ready`` that was interrupted
                    continue
                if isinstance(record, int):  # a game given ahead, skipped by a drain
                    worker.jobs.popleft()
                elif record is not None:
                    worker.jobs.popleft()
                    yield record  # (a drain asked for there gives this worker nothing more)
                    if queue and not self.draining:
                        worker.offer(queue)
                elif worker.process.sentinel in ready or not worker.process.is_alive():
                    worker.process.join(1.0)
                    lost = list(worker.jobs)  # the game under way, and those given ahead
                    log.warning(
                        "worker %s died (exit %s) during game %s; playing it again",
                        worker.process.name,
                        worker.process.exitcode,
                        lost[0].game_id if lost else None,
                    )
                    worker.stop(timeout=0.5)
                    workers.remove(worker)
                    reap_strays(self._before | self._pids(workers))
                    scratch.remove_stale({worker.pid})
                    if lost:
                        deaths[lost[0].game_id] = deaths.get(lost[0].game_id, 0) + 1
                        if deaths[lost[0].game_id] >= MAX_WORKER_DEATHS:
                            raise RunnerError(
                                f"game {lost[0].game_id} lost its worker process {MAX_WORKER_DEATHS} times (the "
                                f"last exit status was {worker.process.exitcode}); stopping the run: the log "
                                "beside the database says more, and running again retries the game"
                            )
                    replacement = self._new_worker(worker.cpu)
                    self.restarts += 1
                    workers.append(replacement)
                    # the game under way is played again, and those given ahead unless draining
                    for job in lost if not self.draining else lost[:1]:
                        if not replacement.take(job):
                            queue.insert(0, job)

    @staticmethod
    def _pids(workers: list[_Worker]) -> set[int]:
        return {w.pid for w in workers}
