"""Where games are played: a ``GameWorker`` plays jobs with (warm) bot processes.

A worker owns everything that lives as long as it does: being the child subreaper of what its
bots detach from themselves, the CPU it is pinned to, its launcher (arena/launcher.py), its warm
bot processes, the control group its bots' groups go in (arena/cgroups.py), and the registry of
the processes it started. Nothing plays a game outside one (``with GameWorker() as worker``):
``arena run``'s worker processes, ``arena register`` and ``arena play`` alike.

A bot may think with threads and helper processes during its turn, but nothing of it may run
once it has answered (the course forbade threads and system calls; what runs then steals the
opponent's time): CPU its processes use between its answer and its next request (the opponent's
turn, or the time between two of its games) beyond a small allowance, and any process of it
still running after an answer, forfeit the game (``resource_limit``). A bot restarted after a
fault is started and warmed before the worker takes its next game (see docs/security.md).
"""

from __future__ import annotations

import ctypes
import dataclasses
import logging
import os
import shutil
import signal
import tempfile
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

from arena import process as processes
from arena import protocol, scratch
from arena.botkinds import BotKindError, Code, foreign_python, harness_links, package_files
from arena.botspec import BotSpec
from arena.cgroups import Cgroup
from arena.games import Game, get_game_from_spec
from arena.job import GameJob, SeatClock, TimeControl, derive_seed
from arena.launcher import MAX_LAUNCHERS, Launcher, LaunchError
from arena.match import Player, Reply, play_game
from arena.process import BotProcess, Limit, Usage
from arena.records import BotFault, GameRecord, Termination

log = logging.getLogger(__name__)

#: warm bot processes a worker keeps idle at most (a 72-team event would otherwise keep 72);
#: the runner sends each worker games whose bots it has warm, so a pool's teams stay warm
WARM_PROCESSES = 16
#: CPU seconds a bot's processes may use while it is not its turn (the opponent's turn, or
#: between its games): the larger of a floor (what the host's own bookkeeping and the
#: interpreter may take after a reply) and a share of the wall time of that stretch
OFF_TURN_FLOOR = 0.020
OFF_TURN_SHARE = 0.05
#: seconds a child of the bot gets to end after the bot answered (a helper that wrote the
#: reply itself may still be exiting) before it counts as left running
CHILD_GRACE = 0.1
#: processes and threads a bot may have at once where a pids controller counts them
PROCESSES = 256
_PR_SET_CHILD_SUBREAPER, _PR_GET_CHILD_SUBREAPER = 36, 37

#: what an ``error`` reply's ``kind`` makes of the game (anything else is a crash): a host
#: may tell a broken rule (a course bot that changed its board) or its memory running out
ERROR_KINDS = {"illegal_move": Termination.ILLEGAL_MOVE, "resource_limit": Termination.RESOURCE_LIMIT}


def _parse(line: bytes, expected: str) -> dict[str, Any]:
    """The reply ``line``; whatever is wrong with it (even a case the parser did not foresee)
    is a protocol error of the bot, never a failure of the worker."""
    try:
        return protocol.parse_reply(line, expected)
    except protocol.ProtocolError as error:
        raise BotFault(Termination.PROTOCOL_ERROR, str(error)) from None
    except Exception as error:  # noqa: BLE001
        raise BotFault(Termination.PROTOCOL_ERROR, f"unreadable reply ({type(error).__name__})") from None


class BotPlayer(Player):
    """A seat played by a bot process of ``worker`` over the line protocol."""

    def __init__(self, spec: BotSpec, worker: GameWorker) -> None:
        self.spec = spec
        self.worker = worker
        self.name = spec.name
        self.process: BotProcess | None = None
        self.faulted = False
        # the CPU clock and the time of the bot's last answer (None: not measured)
        self._rest: tuple[float, float] | None = None
        self._fresh = False  # a process just started: what it wrote so far belongs to its first game
        self.pending: BotFault | None = None  # a fault found while it was idle, charged to its next game
        self.clock_kind = spec.clock_kind

    def _fault(self, fault: BotFault) -> BotFault:
        self.faulted = True
        return fault

    def launch(self, game: Game) -> None:
        if self.process is None or not self.process.alive():
            if self.process is not None:
                self.process.close()
            self.process = self.worker.start_bot(self.spec, game)
            self._fresh = True
            self._rest = None

    def prepare(self, game: Game, startup: float) -> None:
        """Start a new process now and wait until it is ready (loaded and warmed up), so that
        its next game starts with a warm bot; a bot that cannot say so (a command bot need not
        answer ``describe``) is only started."""
        self.launch(game)
        if self.spec.answers_describe:
            self._ask(protocol.DESCRIBE, "description", Limit(startup, grace=0.0))

    def start_game(self, game: Game, seat: int, seed: int, clock: TimeControl) -> None:
        if self.pending is not None:
            fault, self.pending = self.pending, None
            raise self._fault(fault)
        self.launch(game)
        self.faulted = False
        if not self._fresh:
            self.process.stderr.take()  # earlier games' output is not this game's
            self._check_rest("between its games")
            self._rest = None  # measured: its next stretch starts with its answer
        self._fresh = False
        try:
            self._ask(protocol.new_game(game.spec(), seat, seed, clock), "ready",
                      Limit(clock.startup, self.clock_kind or "wall", 0.0, overload=clock.on_overload == "replay"))
        except BotFault as fault:
            if fault.termination is Termination.TIMEOUT:
                fault.detail += " during startup"
            raise

    def _ask(self, request: bytes, expected: str, limit: Limit | None) -> tuple[dict[str, Any], Usage]:
        process = self.process
        assert process is not None
        try:
            self._check_rest("while not its turn")
            line, usage = process.exchange(request, limit)
            message = _parse(line, expected)
        except BotFault as fault:
            raise self._fault(fault) from None
        if message["type"] == "error":
            termination = ERROR_KINDS.get(message["kind"], Termination.CRASH)
            raise self._fault(BotFault(termination, message["message"]))
        self._check_children()
        cpu = process.cpu_time()
        self._rest = None if cpu is None else (cpu, time.monotonic())
        return message, usage

    def _check_rest(self, when: str) -> None:
        """``BotFault`` if the bot's processes used more than their allowance of CPU since its
        last answer (or the end of its last game)."""
        if self._rest is None or self.process is None:
            return
        cpu, now = self.process.cpu_time(), time.monotonic()
        if cpu is None:
            return
        start_cpu, start = self._rest
        used, wall = cpu - start_cpu, now - start
        budget = max(OFF_TURN_FLOOR, OFF_TURN_SHARE * wall)
        if used > budget:
            raise self._fault(BotFault(Termination.RESOURCE_LIMIT,
                                       f"used {used * 1000:.0f} ms of CPU {when}, in {wall:.3f} s where "
                                       f"{budget * 1000:.0f} ms are allowed (threads or processes left running "
                                       "after its answer)"))  # fmt: skip

    def check_off_turn(self) -> None:
        if self.process is not None and not self.faulted:
            self._check_rest("while not its turn")

    def check_idle(self) -> None:
        """Between its games, in the worker's idle pool: a bot whose processes use more than
        their allowance of CPU is stopped now (it would slow every other game of the worker) and
        forfeits its next game here."""
        if self.process is None or self._rest is None:
            return
        try:
            self._check_rest("between its games")
        except BotFault as fault:
            log.warning("%s used CPU between its games: stopped (%s)", self.name, fault.detail)
            self.close()
            self.pending = fault

    def _check_children(self, every_thread: bool = False) -> None:
        """``BotFault`` if a process the bot started is still running after its answer (it
        gets ``CHILD_GRACE`` seconds to end); one read when it has none."""
        process = self.process
        children = process.children(every_thread)
        if not children:
            return
        end = time.monotonic() + CHILD_GRACE
        while children and time.monotonic() < end:
            time.sleep(0.005)
            children = [pid for pid in process.children(every_thread) if processes.running(pid)]
        if children:
            named = ", ".join(processes.describe_process(pid) for pid in children[:3])
            more = f" and {len(children) - 3} more" if len(children) > 3 else ""
            raise self._fault(BotFault(Termination.RESOURCE_LIMIT,
                                       f"left a process running after its answer: {named}{more}"))  # fmt: skip

    def check_game_end(self) -> None:
        """The last stretch: the CPU used since the last answer, processes of every thread,
        and processes detached from the bot."""
        process = self.process
        if process is None or self.faulted:
            return
        self._check_rest("while not its turn")
        try:
            self._check_children(every_thread=True)
            detached = self.worker.left_behind(process)
            if detached:
                raise BotFault(Termination.RESOURCE_LIMIT,
                               "left a process running that it detached from its process group: "
                               + ", ".join(processes.describe_process(pid) for pid in detached[:3]))  # fmt: skip
        except BotFault as fault:
            raise self._fault(fault) from None

    def request_move(self, state, unseen: list[str], clock: SeatClock) -> Reply:
        limit = clock.limit()
        control = clock.control
        request = protocol.move_request(state.ply, unseen, limit, clock.kind, clock.bank)
        bound = None if limit is None else Limit(limit, clock.kind, control.grace, control.backstop,
                                                 control.on_overload == "replay")  # fmt: skip
        message, usage = self._ask(request, "move", bound)
        return Reply(message["move"], usage.wall, usage.cpu, usage.waited, usage.charged(clock.kind))

    def end_game(self, unseen: list[str], winner: int | None, termination: Termination) -> None:
        if self.process is not None and not self.faulted:
            self.process.send(protocol.game_over(unseen, winner, termination.value))
            cpu = self.process.cpu_time()  # what it does from here to its next game is measured
            self._rest = None if cpu is None else (cpu, time.monotonic())

    def take_stderr(self) -> str:
        return "" if self.process is None else self.process.stderr.take()

    @property
    def healthy(self) -> bool:
        return self.process is not None and not self.faulted and self.process.alive()

    def close(self) -> None:
        if self.process is not None:
            self.process.close()
            self.process = None


class WarmBots:
    """The idle bot processes of one worker, most recently used last."""

    def __init__(self, capacity: int = WARM_PROCESSES) -> None:
        self.capacity = capacity
        self.idle: OrderedDict[int, BotPlayer] = OrderedDict()

    def acquire(self, spec: BotSpec, worker: GameWorker) -> BotPlayer:
        for key, player in self.idle.items():
            if player.spec == spec:
                del self.idle[key]
                return player
        return BotPlayer(spec, worker)

    def police(self) -> None:
        """Stop the idle bots that use CPU between their games (``BotPlayer.check_idle``)."""
        for player in self.idle.values():
            player.check_idle()

    def release(self, player: BotPlayer) -> None:
        self.idle[id(player)] = player
        while len(self.idle) > self.capacity:
            _, oldest = self.idle.popitem(last=False)
            oldest.close()

    def close(self) -> None:
        while self.idle:
            self.idle.popitem()[1].close()


class GameWorker:
    """Plays games on this machine (see the module's docstring); a context manager.

    ``cpu``: the CPU it and its bots keep to (``None``: any); ``cgroup``: the control group its
    bots' groups go in (made by whoever may need to kill them all, the run's parent process),
    or ``None`` to make one of its own where the system allows it; ``fork``: Python bots are
    forked from a warm launcher (else started the plain way, as every other bot)."""

    def __init__(self, cpu: int | None = None, cgroup: Cgroup | None = None, warm: int = WARM_PROCESSES,
                 fork: bool = True) -> None:  # fmt: skip
        self.cpu = cpu
        self.fork = fork  # whether Python bots are forked from a launcher (else started the plain way)
        self.warm = WarmBots(warm)
        self.started: set[int] = set()  # the pids of the processes it started and has not closed
        self.subreaper = False
        self._was_subreaper = False
        self._cgroup = cgroup
        self._own_cgroup = False
        self._launcher: Launcher | None = None
        self._launchers_started = 0
        self._bots_started = 0
        self._affinity: set[int] | None = None
        self.scratch: Path | None = None  # its bots' working folders, bundles and links
        self.open = False

    # -- lifecycle -----------------------------------------------------------------------

    def __enter__(self) -> GameWorker:
        self._affinity = None
        if self.cpu is not None:
            try:
                self._affinity = os.sched_getaffinity(0)
                os.sched_setaffinity(0, {self.cpu})
            except OSError:
                pass
        self._was_subreaper = _subreaper_state()
        self.subreaper = _set_subreaper(True)
        self.started |= set(processes.child_pids(os.getpid()))  # children of this process not of its bots
        self.scratch = scratch.make("worker")
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
        if self._own_cgroup:
            self._cgroup.remove()
        if not self._was_subreaper:
            _set_subreaper(False)
        self.subreaper = False
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)
        if self._affinity is not None:
            os.sched_setaffinity(0, self._affinity)

    @property
    def cgroups(self) -> bool:
        """Whether its bots run in control groups of their own."""
        return self._cgroup is not None

    # -- playing -------------------------------------------------------------------------

    def player(self, spec: BotSpec) -> BotPlayer:
        """A seat for ``spec``, warm if this worker has one idle."""
        self._require_open()
        return self.warm.acquire(spec, self)

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
        players = (self.player(job.bots[0]), self.player(job.bots[1]))
        game: Game | None = None
        try:
            game = get_game_from_spec(job.game)
            seeds = (derive_seed(job.seed, 0), derive_seed(job.seed, 1))
            record = play_game(game, players, seeds, job.clock, job.game_id)
            if record.offender is not None and record.termination.is_forfeit:
                players[record.offender].faulted = True  # e.g. an illegal move: restart it anyway
        except Exception as error:
            log.exception("game %s: the harness failed", job.game_id)
            record = GameRecord(job.game_id, termination=Termination.ABORTED, started_at=time.time(),
                                detail=f"the harness failed while playing it: {type(error).__name__}: {error}"[:2000])  # fmt: skip
            record.finished_at = time.time()
            for player in players:
                player.faulted = True
        finally:
            for player in players:
                if game is None:
                    player.close()
                else:
                    self.release(player, game, job.clock.startup)
            self.reap_strays()
            self.warm.police()
        return record

    def start_bot(self, spec: BotSpec, game: Game | None) -> BotProcess:
        """A new process for ``spec`` to play ``game`` (``None``: only to be asked what it is),
        in a control group of its own where there are some: forked from this worker's launcher
        when it can be (a Python bot that this interpreter runs), else started the plain way."""
        self._require_open()
        spec = self._materialize(spec)
        self._bots_started += 1
        group = None
        if self._cgroup is not None:
            group = self._cgroup.child(f"bot-{self._bots_started}", spec.memory_mb, spec.processes or PROCESSES)
        settings = spec.confinement()
        settings.update(parent_pid=os.getpid(), cgroups=group.procs_files() if group else [],
                        shared_memory=self._shared_memory_counted(group))  # fmt: skip
        spec_of_game = None if game is None else game.spec()
        arguments = spec.host_arguments(spec_of_game)
        launcher = self._launcher_for(game.name) if arguments is not None and game is not None else None
        common = {"cgroup": group, "registry": self.started, "memory_mb": spec.memory_mb, "env": spec.environment(),
                  "folder": str(self.scratch)}  # fmt: skip
        if launcher is not None:
            try:
                return BotProcess(spec.argv(settings), spec.name, fork=(launcher, arguments, settings), **common)
            except LaunchError as error:
                log.warning("%s; starting bots the plain way until a new launcher is up", error)
                self._close_launcher()
        return BotProcess(spec.argv(settings, spec_of_game), spec.name, **common)

    def _materialize(self, spec: BotSpec) -> BotSpec:
        """``spec`` as it runs here: its code copied into a bundle of this worker (checked
        against its hash), and the links another interpreter imports arena's host through."""
        changes: dict[str, str] = {}
        if spec.code is not None:
            changes["path"] = self._bundle(spec)
        if foreign_python(spec):
            changes["support"] = harness_links(self.scratch)
        return dataclasses.replace(spec, **changes) if changes else spec

    def _bundle(self, spec: BotSpec) -> str:
        """The folder of this worker that holds a copy of ``spec``'s code alone: a module of a
        tournament's folder runs from there, and its sandbox lets it read that, not the folder
        beside it (which may hold the database and other teams' bots)."""
        root = Path(spec.code)
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
        from arena.cgroups import support

        found = support()
        return group is not None and found is not None and found.memory

    def _require_open(self) -> None:
        if not self.open:
            raise RuntimeError("games are played inside a GameWorker context: 'with GameWorker() as worker'")

    # -- the launcher --------------------------------------------------------------------

    def _launcher_for(self, game: str) -> Launcher | None:
        """This worker's launcher (started on first use, ready for ``game``: a worker plays the
        games of one tournament), or ``None`` where bots cannot be forked from one: not a
        subreaper, or too many launchers failed."""
        if self._launcher is not None and self._launcher.process.poll() is not None:
            self._close_launcher()
        if self._launcher is None and self.fork and self.subreaper and self._launchers_started < MAX_LAUNCHERS:
            self._launchers_started += 1
            try:
                self._launcher = Launcher(game, processes.bot_environment(str(self.scratch)))
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
        """What bots left behind and the kernel handed to us (see ``strays``)."""
        return strays(self.started, include_ended)

    def left_behind(self, process: BotProcess) -> list[int]:
        """The running strays that belong to ``process``'s bot: in its own user namespace or
        one nested below it (its control group, where it has one, is checked with its
        children)."""
        found = self.strays()
        namespace = process.namespace() if found else None
        if namespace is None:
            return []
        return [pid for pid in found if processes.in_namespace(pid, namespace)]

    def reap_strays(self) -> list[str]:
        """Kill and reap what bots left behind (see ``reap_strays``)."""
        return reap_strays(self.started)


def strays(known: set[int], include_ended: bool = False) -> list[int]:
    """The children of this process that are not in ``known`` (the processes it started, or
    had before): what bots left behind and the kernel handed to us, a subreaper. Only running
    ones unless ``include_ended`` (zombies too)."""
    # one read: the kernel hands orphans to the main thread, which also starts the bots
    return [pid for pid in processes.child_pids(os.getpid())
            if pid not in known and (include_ended or processes.running(pid))]  # fmt: skip


def reap_strays(known: set[int], rounds: int = 50) -> list[str]:
    """Kill and reap every stray (and those that killing them hands to us, up to ``rounds``
    generations); what was still running."""
    killed: list[str] = []
    for _ in range(rounds):
        found = strays(known, include_ended=True)
        if not found:
            break
        for pid in found:
            if not processes.running(pid):
                continue  # ended: only to be reaped
            killed.append(processes.describe_process(pid))
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


def _subreaper_state() -> bool:
    value = ctypes.c_int(0)
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(value), 0, 0, 0)
    except (OSError, AttributeError):
        return False
    return bool(value.value)


def _set_subreaper(on: bool) -> bool:
    """Make this process the reaper of every orphan below it, or not (Linux 3.4+): what a bot
    detaches from itself becomes our child, to be ended. Whether it worked."""
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0) == 0
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
