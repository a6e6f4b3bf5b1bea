"""Where games are played: a ``GameWorker`` plays jobs with (warm) bot processes.

A worker owns everything that lives as long as it does: the CPU it is pinned to, its launcher
(arena/sandbox/launcher.py), its warm bot processes (arena/runners/seat.py), the control group its bots'
groups go in (arena/sandbox/cgroups.py) and its scratch folder. Nothing plays a game outside one
(``with GameWorker() as worker``): ``arena run``'s worker processes, ``arena register`` and
``arena play`` alike.

What belongs to the process, the workers open in it share (``arena serve`` plays each browser
game in a worker of its own, in threads): being the child subreaper of what bots detach from
themselves (arena/sandbox/reaper.py), set while any worker is open, and the registry of the
processes they started, so that a worker ending kills what bots left behind, never the bots of
another worker still playing.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, ClassVar

from arena.core.botspec import BotSpec
from arena.core.gameloop import play_game
from arena.core.job import GameJob, derive_seed
from arena.core.live import LiveMoves
from arena.core.records import GameRecord, Termination
from arena.entrants.kinds import ENGINES, BotKindError, Code, foreign_python, harness_links, kind_of, package_files
from arena.games import Game, get_game_from_spec
from arena.games.loading import game_files
from arena.runners.engine_seat import EnginePlayer
from arena.runners.machine import this_node
from arena.runners.seat import WARM_PROCESSES, BotPlayer, WarmBots
from arena.sandbox import procfs, reaper, scratch
from arena.sandbox.cgroups import Cgroup
from arena.sandbox.confinement import confined_argv, confinement
from arena.sandbox.launcher import MAX_LAUNCHERS as MAX_LAUNCHERS  # (a benchmark turns the launchers off)
from arena.sandbox.launcher import Launcher, LaunchError
from arena.sandbox.process import BotProcess, bot_environment

log = logging.getLogger(__name__)

#: processes and threads a bot may have at once where a pids controller counts them
PROCESSES = 256


class _ThisProcess:
    """What the workers open in this process share (see the module's docstring)."""

    lock = threading.Lock()
    #: the pids of the processes the workers started and have not closed, and of this
    #: process's children before the first of them opened: every other child is a stray
    started: ClassVar[set[int]] = set()
    workers = 0  # open now
    subreaper = False  # this process is the child subreaper while workers are open
    was_subreaper = False  # it was before the first of them opened

    @classmethod
    def forked(cls) -> None:
        """A child forked from this process has no workers open (nor its parent's subreaper)."""
        cls.lock, cls.started, cls.workers, cls.subreaper, cls.was_subreaper = threading.Lock(), set(), 0, False, False


os.register_at_fork(after_in_child=_ThisProcess.forked)


class GameWorker:
    """Plays games on this machine (see the module's docstring); a context manager.

    ``cpu``: the CPU it and its bots keep to (``None``: any); ``cgroup``: the control group its
    bots' groups go in (made by whoever may need to kill them all, the run's parent process),
    or ``None`` to make one of its own where the system allows it; ``fork``: Python bots are
    forked from a warm launcher (else started the plain way, as every other bot); ``live``: the
    folder where each game's moves are written as they are played (``arena.core.live``), if any."""

    def __init__(
        self,
        cpu: int | None = None,
        cgroup: Cgroup | None = None,
        warm: int = WARM_PROCESSES,
        fork: bool = True,
        live: Path | None = None,
    ) -> None:
        self.cpu = cpu
        self.live = live
        self.fork = fork  # whether Python bots are forked from a launcher (else started the plain way)
        self.warm = WarmBots(warm)
        self.started = _ThisProcess.started  # the processes the workers of this process started
        self.subreaper = False
        self._cgroup = cgroup
        self._own_cgroup = False
        self._launcher: Launcher | None = None
        self._launchers_started = 0
        self._bots_started = 0
        self._affinity: set[int] | None = None
        self._scratch: Path | None = None
        self.open = False
        #: the factor time limits are scaled by on this machine (a cluster's node sets it from
        #: its speed, arena/runners/machine.py); 1.0: as the tournament says
        self.time_scale = 1.0

    # -- lifecycle -----------------------------------------------------------------------

    def __enter__(self) -> GameWorker:
        self._affinity = None
        if self.cpu is not None:
            try:
                self._affinity = os.sched_getaffinity(0)
                os.sched_setaffinity(0, {self.cpu})
            except OSError:
                pass
        with _ThisProcess.lock:
            if _ThisProcess.workers == 0:
                _ThisProcess.was_subreaper = reaper.subreaper_state()
                _ThisProcess.subreaper = reaper.set_subreaper(True)
                self.started |= set(procfs.child_pids(os.getpid()))  # children of this process not of bots
            _ThisProcess.workers += 1
            self.subreaper = _ThisProcess.subreaper
        self._scratch = scratch.make("worker")
        if self._cgroup is None:
            self._cgroup = Cgroup.for_process()
            self._own_cgroup = self._cgroup is not None
        self.open = True
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """End every bot process, the launcher and what bots left behind."""
        if not self.open:
            return
        self.open = False
        self.warm.close()
        self._close_launcher()
        if self._cgroup is not None:
            self._cgroup.kill()
        self.reap_strays()
        if self._own_cgroup and self._cgroup is not None:
            self._cgroup.remove()
        with _ThisProcess.lock:
            _ThisProcess.workers -= 1
            if _ThisProcess.workers == 0 and not _ThisProcess.was_subreaper:
                reaper.set_subreaper(False)
        self.subreaper = False
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None
        if self._affinity is not None:
            os.sched_setaffinity(0, self._affinity)

    @property
    def scratch(self) -> Path:
        """Its bots' working folders, bundles and links (only while it is open)."""
        self._require_open()
        assert self._scratch is not None
        return self._scratch

    @property
    def cgroups(self) -> bool:
        """Whether its bots run in control groups of their own."""
        return self._cgroup is not None

    # -- playing -------------------------------------------------------------------------

    def player(self, spec: BotSpec) -> BotPlayer:
        """A seat for ``spec``, warm if this worker has one idle."""
        self._require_open()
        return self.warm.acquire(spec, self, EnginePlayer if spec.kind in ENGINES else BotPlayer)

    def release(self, player: BotPlayer, game: Game, startup: float) -> None:
        """Take back a player after a game: warm for the next one, restarted first if its
        process faulted or died (no cascade: the next game starts with a warm process)."""
        if player.healthy or player.pending is not None:
            self.warm.release(player)
            return
        player.close()
        player.faulted = False
        try:
            player.prepare(game, startup)
        except Exception as error:  # it will be started again for its next game
            log.info("%s could not be restarted at once: %s", player.name, error)
            player.close()
            return
        self.warm.release(player)

    def play(self, job: GameJob) -> GameRecord:
        """Play ``job``'s game with (warm) bot processes; its record. Whatever goes wrong in the
        harness itself ends that game as aborted, with the reason, never the worker."""
        self._require_open()
        players = [self.player(spec) for spec in job.bots]
        game: Game | None = None
        control = job.control if self.time_scale == 1.0 else job.control.scaled(self.time_scale)
        watch = None if self.live is None else LiveMoves(self.live, job.game_id)
        try:
            game = get_game_from_spec(job.game)
            seeds = [derive_seed(job.seed, seat) for seat in range(len(players))]
            record = play_game(
                game, players, seeds, control, job.game_id, watch, derive_seed(job.seed, "chance"), job.opening
            )
            if record.offender is not None and record.termination.is_forfeit:
                players[record.offender].faulted = True  # e.g. an illegal move: restart it anyway
        except Exception as error:
            log.exception("game %s: the harness failed", job.game_id)
            record = GameRecord(
                job.game_id,
                termination=Termination.ABORTED,
                started_at=time.time(),
                detail=f"the harness failed while playing it: {type(error).__name__}: {error}"[:2000],
            )
            record.finished_at = time.time()
            for player in players:
                player.faulted = True
        finally:
            if watch is not None:
                watch.close()
            for player in players:
                if game is None:
                    player.close()
                else:
                    self.release(player, game, job.control.startup)
            self.reap_strays()
            self.warm.police()
        node = this_node()
        record.node, record.cpu, record.clock, record.time_scale = node.host, node.cpu, control.clock, self.time_scale
        return record

    def get_ready(self, game_spec: dict[str, Any]) -> None:
        """Start the launcher for the game ``game_spec`` names now, before the first game asks
        for a bot (a run's workers do while the run checks its bots); a failure is the first
        game's to meet."""
        self._require_open()
        try:
            game = get_game_from_spec(game_spec)
            if self.fork:
                with _ThisProcess.lock:
                    self._launcher_for(game)
        except Exception as error:
            log.info("could not get ready for the game %s: %s", game_spec.get("name"), error)

    def wait_ready(self) -> None:
        """Wait until the launcher ``get_ready`` started has imported what its bots need; one
        that has not within ``SPAWN_TIMEOUT`` is closed (the next bot starts another)."""
        with _ThisProcess.lock:
            if self._launcher is not None and not self._launcher.wait_ready():
                log.warning("the launcher did not get ready in time; closed")
                self._close_launcher()

    def start_bot(self, spec: BotSpec, game: Game | None, warm_up: bool = True) -> BotProcess:
        """A new process for ``spec`` to play ``game`` (``None``: only to be asked what it is),
        in a control group of its own where there are some: forked from this worker's launcher
        when it can be (a Python bot that this interpreter runs), else started the plain way.
        ``warm_up`` False: the host does not warm the bot up for ``game`` (it is only to be
        checked, arena/contests/preflight.py)."""
        self._require_open()
        spec = self._materialize(spec)
        self._bots_started += 1
        group = None
        if self._cgroup is not None:
            group = self._cgroup.child(f"bot-{self._bots_started}", spec.memory_mb, spec.processes or PROCESSES)
        kind = kind_of(spec.kind)
        settings = confinement(spec)
        settings.update(
            read=sorted({*settings["read"], *([] if game is None else game_files(game))}),
            parent_pid=os.getpid(),
            cgroups=group.procs_files() if group else [],
            shared_memory=self._shared_memory_counted(group),
        )
        spec_of_game = None if game is None or not warm_up else game.spec()
        arguments = kind.host_arguments(spec, spec_of_game)
        start = functools.partial(
            BotProcess,
            label=spec.name,
            env=kind.environment(spec),
            cgroup=group,
            registry=self.started,
            memory_mb=spec.memory_mb,
            folder=str(self.scratch),
        )
        # a process is registered once started: till then another worker ending would take it for a stray
        with _ThisProcess.lock:
            launcher = self._launcher_for(game) if arguments is not None and game is not None else None
            if launcher is not None and arguments is not None:
                try:
                    return start(confined_argv(spec, settings), fork=(launcher, arguments, settings))
                except LaunchError as error:
                    log.warning("%s; starting bots the plain way until a new launcher is up", error)
                    self._close_launcher()
            return start(confined_argv(spec, settings, spec_of_game))

    def _materialize(self, spec: BotSpec) -> BotSpec:
        """``spec`` as it runs here: its code copied into a bundle of this worker (checked
        against its hash), and the links another interpreter imports arena's host through."""
        if spec.code is not None:
            spec = dataclasses.replace(spec, path=self._bundle(spec.code, spec))
        if foreign_python(spec):
            spec = dataclasses.replace(spec, support=harness_links(self.scratch))
        return spec

    def _bundle(self, code_path: str, spec: BotSpec) -> str:
        """The folder of this worker that holds a copy of ``spec``'s code alone: a module of a
        tournament's folder runs from there, and its sandbox lets it read that, not the folder
        beside it (which may hold the database and other teams' bots)."""
        root = Path(code_path)
        code = Code(root, package_files(root), bundle=True)
        digest = code.digest()
        if spec.code_hash is not None and digest != spec.code_hash:
            raise BotKindError(f"the code of bot {spec.name!r} changed since it was entered ({root}); restore it")
        bundle = self.scratch / "bundles" / digest
        if not bundle.exists():
            staging = Path(tempfile.mkdtemp(prefix="staging-", dir=self.scratch))
            code.copy_to(staging)
            bundle.parent.mkdir(exist_ok=True)
            staging.rename(bundle)
        return str(bundle)

    @staticmethod
    def _shared_memory_counted(group: Cgroup | None) -> bool:
        """Whether a bot may have shared memory: only where its group's memory limit counts it."""
        from arena.sandbox.cgroups import support

        found = support()
        return group is not None and found is not None and found.memory

    def _require_open(self) -> None:
        if not self.open:
            raise RuntimeError("games are played inside a GameWorker context: 'with GameWorker() as worker'")

    # -- the launcher --------------------------------------------------------------------

    def _launcher_for(self, game: Game) -> Launcher | None:
        """This worker's launcher (started on first use, ready for ``game``: a worker plays the
        games of one tournament), or ``None`` where bots cannot be forked from one: not a
        subreaper, or too many launchers failed."""
        if self._launcher is not None and self._launcher.process.poll() is not None:
            self._close_launcher()
        if self._launcher is None and self.fork and self.subreaper and self._launchers_started < MAX_LAUNCHERS:
            self._launchers_started += 1
            try:
                self._launcher = Launcher(json.dumps(game.spec()), bot_environment(str(self.scratch)))
            except OSError as error:
                log.warning("cannot start a launcher (%s); starting bots the plain way", error)
                return None
            self.started.add(self._launcher.pid)
        return self._launcher

    def _close_launcher(self) -> None:
        if self._launcher is not None:
            self._launcher.close()
            self.started.discard(self._launcher.pid)
            self._launcher = None

    # -- what bots leave behind ----------------------------------------------------------

    def strays(self, include_ended: bool = False) -> list[int]:
        """What bots left behind and the kernel handed to us (see ``reaper.strays``)."""
        return reaper.strays(self.started, include_ended)

    def left_behind(self, process: BotProcess) -> list[int]:
        """The running strays that belong to ``process``'s bot: in its own user namespace or
        one nested below it (its control group, where it has one, is checked with its
        children)."""
        found = self.strays()
        namespace = process.namespace() if found else None
        if namespace is None:
            return []
        return [pid for pid in found if procfs.in_namespace(pid, namespace)]

    def reap_strays(self) -> list[str]:
        """Kill and reap what bots left behind (see ``reaper.reap_strays``)."""
        with _ThisProcess.lock:
            return reaper.reap_strays(self.started)
