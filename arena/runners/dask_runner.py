"""The cluster runner: games played on a Dask distributed cluster (``job.GameRunner``), the
parent still the only one to store their records (arena/runners/dask_node.py says what a node does).

Like the local runner, it keeps each Dask worker busy with games whose bots it has warm: it
gives each worker ``QUEUED_PER_WORKER`` tasks at a time, and when one comes back it picks that
worker's next games from the queue by the bots it played last (they may still go elsewhere if
the worker is lost: Dask moves them). A task holds as many games as take about
``TASK_SECONDS`` (at most ``MAX_GAMES_A_TASK``), from the games' mean length so far: Dask's
cost of a task (the scheduler, the round trips) is then small beside its games, however short
they are, and records still come back within a fraction of a second. A task whose worker is
lost is played again by another (Dask's own retry, up to its
``distributed.scheduler.allowed-failures``; its games' records had not come back, so none is
stored twice); after that the run stops, as the local runner does for a game that kills its
workers.
"""

from __future__ import annotations

import logging
import random
import time
import uuid
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from arena.core.botspec import BotSpec
from arena.core.job import GameJob, derive_seed
from arena.core.records import BadRecord, GameRecord, Termination, record_from_json
from arena.runners.dask_node import (
    ArenaPlugin,
    Bundle,
    ClusterError,
    NodeError,
    TlsFiles,
    bundle,
    play_on_node,
    travelling_code,
    travelling_game,
)
from arena.runners.local import AFFINITY_WINDOW, RunnerError

if TYPE_CHECKING:
    from distributed import Client, Future

log = logging.getLogger(__name__)

#: tasks a Dask worker is given at once: the one it plays and the next ones, so that it never
#: waits for the parent between them
QUEUED_PER_WORKER = 4
#: the seconds of games a task should hold, and the most games it may
TASK_SECONDS = 0.1
MAX_GAMES_A_TASK = 16
#: seconds between looks for Dask workers that joined the cluster during a run
NEW_WORKERS_EVERY = 2.0
#: seconds to wait for the scheduler to answer, and for a first worker to join it
CONNECT_TIMEOUT = 30.0


class DaskRunner:
    """Plays games on the Dask cluster whose scheduler is at ``address`` (``tcp://host:8786``,
    ``tls://…`` with ``tls``); ``scale_time``: each node scales time limits by its speed. A
    context manager: the connection is opened on entry and closed on exit."""

    def __init__(
        self,
        address: str,
        tls: TlsFiles | None = None,
        scale_time: bool = False,
        timeout: float = CONNECT_TIMEOUT,
    ) -> None:
        self.address = address
        self.tls = tls
        self.scale_time = scale_time
        self.timeout = timeout
        self.client: Client | None = None
        self.draining = False
        self.lost = 0  # games whose Dask worker was lost, played again elsewhere

    # -- connection ----------------------------------------------------------------------

    def __enter__(self) -> DaskRunner:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def open(self) -> None:
        """Connect to the scheduler, make every worker an arena node, and wait for one;
        ``ClusterError`` saying what is wrong if any of it fails."""
        from distributed import Client

        if not self.address.startswith(("tcp://", "tls://")):
            raise ClusterError(
                f"{self.address!r} is not a Dask scheduler's address: give tcp://HOST:8786 (or tls://HOST:8786 "
                "with certificates)"
            )
        if self.address.startswith("tls://") and self.tls is None:
            security = None  # Dask's own configuration (distributed.comm.tls) may hold the files
        else:
            security = self.tls.security() if self.tls is not None else None
        if self.address.startswith("tcp://") and self.tls is not None:
            raise ClusterError(f"TLS certificates were given, but {self.address} is not a tls:// address")
        try:
            # results only as plain data (msgpack): a pickle a node sends back is refused, never run
            client = Client(
                self.address, security=security, timeout=self.timeout, set_as_default=False, deserializers=["msgpack"]
            )
        except (OSError, TimeoutError) as error:
            raise ClusterError(
                f"cannot reach the Dask scheduler at {self.address} within {self.timeout:g} s ({_said(error)}); "
                "start one there ('dask scheduler'), check the address and the firewall, and for tls:// the "
                "certificates (docs/cluster.md)"
            ) from None
        except (ValueError, TypeError) as error:
            raise ClusterError(f"cannot use the Dask scheduler at {self.address}: {_said(error)}") from None
        self.client = client
        try:
            client.register_plugin(ArenaPlugin(self.scale_time))
            client.wait_for_workers(1, timeout=self.timeout)
        except TimeoutError:
            self.close()
            raise ClusterError(
                f"no Dask worker joined the scheduler at {self.address} within {self.timeout:g} s; start workers "
                "with 'dask worker ADDRESS --nthreads 1' (docs/cluster.md)"
            ) from None
        except Exception as error:
            self.close()
            raise ClusterError(f"cannot set up the Dask workers of {self.address}: {_said(error)}") from None

    def close(self) -> None:
        """Close the connection (games under way are cancelled)."""
        if self.client is not None:
            try:
                self.client.close(timeout=10)
            except Exception as error:  # the scheduler may be gone already
                log.info("closing the Dask client: %s", error)
            self.client = None

    def workers(self) -> list[str]:
        """The addresses of the cluster's Dask workers now."""
        if self.client is None:
            raise ClusterError("the cluster runner is not open")
        return sorted(self.client.scheduler_info(n_workers=-1)["workers"])

    def describe(self) -> str:
        """Where games are played, in a few words."""
        count = len(self.workers())
        scaled = "; time scaled by each node's speed" if self.scale_time else ""
        return f"Dask cluster {self.address} ({count} worker{'s' if count != 1 else ''}{scaled})"

    def drain(self) -> None:
        """Start no more games in the run under way (those given out still come back)."""
        self.draining = True

    # -- playing -------------------------------------------------------------------------

    def run(self, jobs: Iterable[GameJob]) -> Iterator[GameRecord]:
        """Play ``jobs`` on the cluster; yield each game's record as it finishes."""
        from distributed import as_completed

        if self.client is None:
            raise ClusterError("the cluster runner is not open: use it as 'with DaskRunner(address) as runner'")
        client = self.client
        queue = list(jobs)
        self.draining = False
        if not queue:
            return
        code = self._send_code(queue)
        warm: dict[str, OrderedDict[BotSpec, None]] = {}
        given: dict[Future[Any], list[GameJob]] = {}
        run = uuid.uuid4().hex[:8]
        done = as_completed(loop=client.loop)
        played, seconds = 0, 0.0  # games come back so far, and their seconds

        def give(address: str) -> None:
            mean = seconds / played if played else TASK_SECONDS
            count = max(1, min(MAX_GAMES_A_TASK, round(TASK_SECONDS / max(mean, 1e-6)), len(queue)))
            jobs = [_pick(queue, warm.setdefault(address, OrderedDict())) for _ in range(count)]
            needed = {p: code[p] for job in jobs for p in map(travelling_code, job.bots) if p is not None}
            needed.update({p: code[p] for p in {travelling_game(job.game) for job in jobs} if p is not None})
            future = client.submit(
                play_on_node,
                jobs,
                needed,
                key=f"arena-games-{jobs[0].game_id}-{run}",
                workers=[address],
                allow_other_workers=True,
                pure=False,
            )
            given[future] = jobs
            done.add(future)

        def fill(addresses: Iterable[str]) -> None:
            for address in addresses:
                for _ in range(QUEUED_PER_WORKER):
                    if queue and not self.draining:
                        give(address)

        fill(self.workers())
        looked = time.monotonic()
        try:
            for future in done:
                jobs = given.pop(future)
                if future.status != "finished":
                    raise self._failure(jobs, future)
                try:
                    address, texts = future.result()
                    if not isinstance(texts, (list, tuple)):
                        raise TypeError("its records are not a list")
                except (TypeError, ValueError) as error:  # not what play_on_node returns: not data, or not its shape
                    raise RunnerError(
                        f"a node sent a result for games {jobs[0].game_id}… that is not one: {_said(error)}"
                    ) from None
                records = [checked(text, jobs, str(address)) for text in texts]
                played += len(records)
                seconds += sum(max(0.0, r.finished_at - r.started_at) for r in records)
                if queue and not self.draining:
                    if address in warm:
                        give(address)
                    if time.monotonic() - looked > NEW_WORKERS_EVERY:
                        looked = time.monotonic()
                        fill(a for a in self.workers() if a not in warm)
                    if not given and queue:  # the worker that played it is gone: any other
                        fill(self.workers()[:1])
                yield from records
        finally:
            for future in given:
                future.cancel()
            for future in code.values():
                future.cancel()

    def _send_code(self, queue: list[GameJob]) -> dict[str, Any]:
        """Each bot's own code, and a game of your own's file, packed once and scattered to the
        cluster (a future each, by the path it was planned from); ``RunnerError`` if it changed
        since it was entered."""
        assert self.client is not None
        packs: dict[str, Bundle] = {}
        for job in queue:
            for spec in job.bots:
                path = travelling_code(spec)
                if path is None or path in packs:
                    continue
                packed = bundle(path)
                if spec.code_hash is not None and packed.digest != spec.code_hash:
                    raise RunnerError(
                        f"the code of bot {spec.name!r} changed since it was entered ({path}); restore it"
                    )
                packs[path] = packed
        for path in {travelling_game(job.game) for job in queue} - {None}:
            assert path is not None
            packed = bundle(path)
            expected = queue[0].game.get("code_hash")
            if packed.digest != expected:
                raise RunnerError(f"the game's code changed since its tournament began ({path}); restore it")
            packs[path] = packed
        return {path: self.client.scatter(packed, hash=False) for path, packed in packs.items()}

    def _failure(self, jobs: list[GameJob], future: Future[Any]) -> Exception:
        """What stops the run when the task of games ``jobs`` failed on the cluster."""
        from distributed import CancelledError, KilledWorker

        what = f"game {jobs[0].game_id}" if len(jobs) == 1 else "games " + ", ".join(str(j.game_id) for j in jobs)
        try:
            error = future.exception(timeout=self.timeout)
        except CancelledError:
            return RunnerError(
                f"{what} {'was' if len(jobs) == 1 else 'were'} cancelled on the cluster (the scheduler "
                "restarted, or lost the games' data); running again plays them"
            )
        if isinstance(error, NodeError):
            return RunnerError(str(error))
        if isinstance(error, KilledWorker):
            return RunnerError(
                f"{what} lost {'its' if len(jobs) == 1 else 'their'} Dask worker every time played (Dask's "
                "distributed.scheduler.allowed-failures); stopping the run: the workers' logs say why, and "
                "running again retries the game"
            )
        return RunnerError(f"{what} failed on the cluster: {_said(error)}")


def checked(text: object, jobs: list[GameJob], node: str) -> GameRecord:
    """The record of one of ``jobs`` that a node sent as JSON ``text``, checked as data and
    against the game's rules (every move legal and by the seat to move, the result the one the
    moves or the forfeit give); ``RunnerError`` naming the node if it is not."""
    from arena.core.gameloop import draw_chance, result_of
    from arena.games import CHANCE, SIMULTANEOUS, get_game_from_spec

    try:
        if not isinstance(text, str):
            raise BadRecord("not JSON text")
        record = record_from_json(text)
        job = next((job for job in jobs if job.game_id == record.game_id), None)
        if job is None:
            raise BadRecord(f"game {record.game_id} was not given to it")
        game = get_game_from_spec(job.game)
        if len(record.stderr) != game.players:
            raise BadRecord(f"it has {len(record.stderr)} seats' output, the game {game.players} seats")
        state, chance, ply = game.initial_state(), random.Random(derive_seed(job.seed, "chance")), 0
        pending = iter(record.moves)
        while True:
            seats = [CHANCE] if state.to_move == CHANCE else list(state.actors())
            played = [move for _, move in zip(seats, pending, strict=False)]
            if not played:
                break
            for seat, move in zip(seats, played, strict=False):
                ply += 1
                if move.seat != seat:
                    raise BadRecord(f"ply {ply} was played by seat {move.seat}, not the seat to move")
            if len(played) < len(seats):
                raise BadRecord(f"ply {ply} ends its record inside a simultaneous step")
            try:
                moves = [game.parse_move(move.move) for move in played]
                if state.to_move == CHANCE and moves[0] != draw_chance(state, chance):
                    raise BadRecord(f"ply {ply}: not the chance outcome the game's seed draws")
                state = state.play_joint(moves) if state.to_move == SIMULTANEOUS else state.play(moves[0])
            except ValueError as error:
                raise BadRecord(f"ply {ply}: {error}") from None
        if record.voided is not None or record.termination is Termination.ABORTED:
            outcome = None
        elif record.termination is Termination.NORMAL:
            outcome = state.outcome
            if outcome is None:
                raise BadRecord("it ended normally before the game was over")
        elif record.offender is None:
            raise BadRecord(f"a {record.termination.value} with no offender")
        else:
            outcome = state.forfeit_outcome(record.offender)
        if not 0.0 <= record.started_at <= record.finished_at <= time.time() + 86400:
            raise BadRecord(
                f"its times are not those of a game played: {record.started_at!r} to {record.finished_at!r}"
            )
        result = result_of(outcome)
        points = None if record.points is None else tuple(map(float, record.points))
        if (record.winner, points) != (result[0], None if result[1] is None else tuple(map(float, result[1]))):
            raise BadRecord(f"its result is not the one its moves give: {result}")
    except (BadRecord, ValueError) as error:
        raise RunnerError(f"node {node} sent a record that is not a game it could have played: {error}") from None
    return record


def _pick(queue: list[GameJob], warm: OrderedDict[BotSpec, None]) -> GameJob:
    """Take from ``queue`` the first game whose bots are warm on a worker (``warm``: the bots it
    played last), as the local runner does; note its bots as warm there."""
    from arena.runners.seat import WARM_PROCESSES

    best, best_score = 0, -1
    for index, job in enumerate(queue[:AFFINITY_WINDOW]):
        score = sum(spec in warm for spec in job.bots)
        if score > best_score:
            best, best_score = index, score
            if score == 2:
                break
    job = queue.pop(best)
    for spec in job.bots:
        warm[spec] = None
        warm.move_to_end(spec)
    while len(warm) > WARM_PROCESSES:
        warm.popitem(last=False)
    return job


def _said(error: BaseException) -> str:
    """An error in one line: its type's name and its message."""
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
