"""A node of a Dask distributed cluster as arena uses it (the runner is arena/runners/dask_runner.py).

Dask's model is what a tournament needs: many independent games submitted from one place,
their records streamed back as they finish (``as_completed``) to the one process that stores
them. Each Dask worker process plays games with a ``GameWorker`` of its own, held by a worker
plugin (``ArenaPlugin``) for as long as the Dask worker lives, so its bots stay warm between
games, as in a local worker process. A Dask worker that dies takes its game with it; the
scheduler gives that game to another worker, and its record, whichever comes back, is stored
once (``store.save_record``).

Bot code, and a game of your own's module, travel by their hash: the parent packs each bot's
own code and the game's file once (``bundle``), Dask
sends the pack to each node that needs it, and the node checks it against the hash the game
was planned with, unpacks it, hashes what it unpacked (a pack that lies about its hash is
refused, never cached under it) and keeps it in a folder named by the hash; nothing depends on
the paths of the machine that planned the tournament. What cannot travel (another Python
interpreter, a command's program) must be at the same path on every node; a node that lacks
it says so, naming itself and the bot.
"""

from __future__ import annotations

import asyncio
import dataclasses
import io
import logging
import os
import shutil
import tarfile
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from distributed import WorkerPlugin

from arena.core.botspec import BotSpec
from arena.core.job import GameJob
from arena.core.records import GameRecord, record_to_json
from arena.entrants.kinds import Code, package_files
from arena.errors import ArenaError
from arena.sandbox import scratch

if TYPE_CHECKING:
    from distributed import Worker

log = logging.getLogger(__name__)

#: the worker plugin's name: one arena plugin a Dask worker (registering again replaces it)
PLUGIN_NAME = "arena"
#: held while a plugin opens, plays with or closes its GameWorker: one at a time in a process,
#: even while a plugin registered again replaces one whose game is not over (a GameWorker
#: takes every child of its process that it did not start for a stray, to be ended)
NODE_LOCK = threading.Lock()


class ClusterError(ArenaError):
    """The cluster cannot be reached or used as asked."""


class NodeError(ArenaError):
    """A node cannot play a game as asked (it lacks a bot's interpreter or program): the run
    stops, saying which node and which bot."""


@dataclass(frozen=True, slots=True)
class TlsFiles:
    """The certificates of TLS between this client, the scheduler and the workers: the
    authority's (``ca_file``), and this client's certificate and key."""

    ca_file: str
    cert: str
    key: str

    def security(self) -> Any:
        """Dask's ``Security`` for these files; ``ClusterError`` naming a file that cannot be read."""
        from distributed.security import Security

        for what, path in (("CA file", self.ca_file), ("certificate", self.cert), ("key", self.key)):
            if not os.path.isfile(path) or not os.access(path, os.R_OK):
                raise ClusterError(f"the TLS {what} {path!r} is not a readable file")
        return Security(
            tls_ca_file=self.ca_file, tls_client_cert=self.cert, tls_client_key=self.key, require_encryption=True
        )


# ---------------------------------------------------------------- bot code by its hash


@dataclass(frozen=True, slots=True)
class Bundle:
    """A bot's own code packed to travel: ``root`` its file or folder name, ``data`` a tar of
    its files (named as ``Code.copy_to`` places them), ``digest`` its hash."""

    digest: str
    root: str
    data: bytes


def bundle(path: str) -> Bundle:
    """The code at ``path`` (a bot's file or package folder) packed to travel."""
    root = Path(path)
    code = Code(root, package_files(root), bundle=True)
    packed = io.BytesIO()
    with tarfile.open(fileobj=packed, mode="w:gz") as tar:
        for file in code.files:
            tar.add(file, arcname=str(file.relative_to(root.parent)), recursive=False)
    return Bundle(code.digest(), root.name, packed.getvalue())


def unpack(packed: Bundle, folder: Path) -> Path:
    """``packed`` unpacked into ``folder``/its hash (once: the folder is named by the hash);
    the path of its root there."""
    target = folder / packed.digest
    if not target.exists():
        folder.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix="staging-", dir=folder))
        with tarfile.open(fileobj=io.BytesIO(packed.data), mode="r:gz") as tar:
            for member in tar.getmembers():  # regular files below the folder, nothing else
                name = Path(member.name)
                if not member.isfile() or name.is_absolute() or ".." in name.parts:
                    raise NodeError(f"the code pack {packed.digest} holds {member.name!r}, which is not a plain file")
            tar.extractall(staging, filter="data")
        found = Code(staging / packed.root, package_files(staging / packed.root), bundle=True).digest()
        if found != packed.digest:  # it would take over the folder of the hash it claims
            shutil.rmtree(staging, ignore_errors=True)
            raise NodeError(f"the code pack {packed.root!r} claims the hash {packed.digest} but holds code of {found}")
        try:
            staging.rename(target)
        except OSError:  # another thread unpacked it first
            shutil.rmtree(staging, ignore_errors=True)
    return target / packed.root


def travelling_code(spec: BotSpec) -> str | None:
    """The path of the code of ``spec`` that must travel to a node: a module's own code
    (``code``), or a 2019 course bot's file (its target)."""
    if spec.code is not None:
        return spec.code
    if spec.kind == "course2019":
        return spec.target
    return None


def travelling_game(game: dict[str, Any]) -> str | None:
    """The path of a game's module that must travel to a node: a game of your own loaded from a
    file (an installed game's module, named by a dotted name, does not travel)."""
    from arena.games.loading import is_path

    module = game.get("module")
    return module if isinstance(module, str) and is_path(module) else None


def game_here(game: dict[str, Any], code: dict[str, Bundle], folder: Path, node: str) -> dict[str, Any]:
    """The spec of ``game`` as ``node`` loads it: a game of your own from its file unpacked into
    ``folder`` (checked against the hash its tournament was planned with); any other as it is."""
    from arena.runners.machine import this_node

    path = travelling_game(game)
    if path is None:
        return game
    where = f"node {this_node().host} ({node})"
    packed = code.get(path)
    if packed is None:
        raise NodeError(f"{where} was not sent the code of game {game.get('name')!r}")
    if packed.digest != game.get("code_hash"):
        raise NodeError(
            f"{where} was sent code of hash {packed.digest} for game {game.get('name')!r}, "
            f"planned with {game.get('code_hash')}"
        )
    try:
        return {**game, "module": str(unpack(packed, folder))}
    except NodeError as error:
        raise NodeError(f"{where}, game {game.get('name')!r}: {error}") from None


# ---------------------------------------------------------------- on a node


class ArenaPlugin(WorkerPlugin):
    """The Dask worker plugin that makes a Dask worker an arena node: it holds the node's
    ``GameWorker`` (warm bots, launcher, scratch folder) from the Dask worker's start to its
    end, and the bots' code unpacked by hash. ``scale_time``: time limits are scaled by the
    node's speed (arena/runners/machine.py)."""

    name = PLUGIN_NAME
    idempotent = False

    def __init__(self, scale_time: bool = False) -> None:
        self.scale_time = scale_time
        self.address = ""
        self._worker: Any = None
        self._folder: Path | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {"scale_time": self.scale_time}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["scale_time"])  # type: ignore[misc]

    async def setup(self, worker: Worker) -> None:
        """Open the node's ``GameWorker`` (and measure the node's speed if time is scaled), in
        a thread: the Dask worker's event loop goes on answering meanwhile."""
        if worker.state.nthreads > 1:
            log.warning(
                "Dask worker %s has %d threads; it plays one game at a time", worker.address, worker.state.nthreads
            )
        self.address = worker.address
        await asyncio.to_thread(self._open)

    async def teardown(self, worker: Worker) -> None:
        """End the node's bots and remove its folders, once the game it plays (if any) is over
        (in a thread, as ``setup``: a plugin registered again waits for it)."""
        await asyncio.to_thread(self._close)

    def _open(self) -> None:
        from arena.runners.machine import speed
        from arena.runners.worker import GameWorker

        with NODE_LOCK:
            self._folder = scratch.make("bundles")  # and those of a worker killed before are removed
            game_worker = GameWorker()
            game_worker.__enter__()
            if self.scale_time:
                game_worker.time_scale = round(1.0 / speed(), 3)
            self._worker = game_worker

    def _close(self) -> None:
        with NODE_LOCK:
            if self._worker is not None:
                self._worker.close()
                self._worker = None
            if self._folder is not None:
                shutil.rmtree(self._folder, ignore_errors=True)
                self._folder = None

    def play(self, job: GameJob, code: dict[str, Bundle]) -> GameRecord:
        """Play ``job`` here, its bots' code taken from ``code`` (by hash)."""
        with NODE_LOCK:  # one game at a time: a GameWorker owns the process's children
            if self._worker is None or self._folder is None:
                raise NodeError(f"the arena plugin of Dask worker {self.address} is closed")
            bots = tuple(self._local(spec, code) for spec in job.bots)  # every seat's, however many
            assert self._folder is not None
            game = game_here(job.game, code, self._folder, f"Dask worker {self.address}")
            record: GameRecord = self._worker.play(dataclasses.replace(job, bots=bots, game=game))
            return record

    def _local(self, spec: BotSpec, code: dict[str, Bundle]) -> BotSpec:
        """``spec`` as it runs on this node: its code unpacked here, its interpreter checked."""
        from arena.entrants.kinds import kind_of
        from arena.runners.machine import this_node

        assert self._folder is not None
        where = f"node {this_node().host} (Dask worker {self.address})"
        if spec.python is not None and not os.access(spec.python, os.X_OK):
            raise NodeError(
                f"{where} cannot run bot {spec.name!r}: it has no interpreter {spec.python!r}; install it at "
                "that path on every node, or run the tournament on nodes that have it"
            )
        if kind_of(spec.kind).program:
            program = kind_of(spec.kind).command(spec, None)[0]
            if shutil.which(program) is None:
                raise NodeError(
                    f"{where} cannot run bot {spec.name!r}: it has no program {program!r}; install it at that "
                    "path on every node"
                )
        path = travelling_code(spec)
        if path is None:
            return spec
        packed = code.get(path)
        if packed is None:
            raise NodeError(f"{where} was not sent the code of bot {spec.name!r}")
        if spec.code_hash is not None and packed.digest != spec.code_hash:
            raise NodeError(
                f"{where} was sent code of hash {packed.digest} for bot {spec.name!r}, planned with {spec.code_hash}"
            )
        try:
            root = str(unpack(packed, self._folder))
        except NodeError as error:
            raise NodeError(f"{where}, bot {spec.name!r}: {error}") from None
        if spec.kind == "course2019":
            return dataclasses.replace(spec, target=root)
        return dataclasses.replace(spec, code=root, code_hash=packed.digest)


def play_on_node(jobs: list[GameJob], code: dict[str, Bundle]) -> tuple[str, list[str]]:
    """A Dask task: play ``jobs`` one after another on the Dask worker that runs it; (its
    address, their records as JSON: plain data, checked by the run, never a pickle)."""
    from distributed import get_worker

    worker = get_worker()
    plugin = worker.plugins.get(PLUGIN_NAME)
    if not isinstance(plugin, ArenaPlugin):
        raise NodeError(f"Dask worker {worker.address} has no arena plugin (the run registers it)")
    return worker.address, [record_to_json(plugin.play(job, code)) for job in jobs]
