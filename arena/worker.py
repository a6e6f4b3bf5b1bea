"""The worker's job: one game between two bot processes, as a plain function of plain data.

``run_game(job) -> GameRecord`` is all a runner needs; it keeps each worker's bot processes
warm between games (a bounded pool per worker) and restarts any that faulted.

A bot may think with threads and helper processes during its turn, but nothing of it may run
once it has answered (the course forbade threads and system calls; what runs then steals the
opponent's time): the CPU its process uses between its answer and its next request, and any
child still running after an answer, forfeit the game (``resource_limit``). A worker process is
a child subreaper, so what a bot detached from itself (double fork, ``setsid``) ends up as
the worker's child, and is killed after every game (see docs/security.md).
"""

from __future__ import annotations

import ctypes
import hashlib
import logging
import os
import signal
import tempfile
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from arena import process as processes
from arena import protocol
from arena.botspec import BotSpec
from arena.games import Game, get_game_from_spec
from arena.launcher import MAX_LAUNCHERS, Launcher, LaunchError
from arena.match import Player, Reply, TimeControl, play_game
from arena.process import BotFault, BotProcess
from arena.records import GameRecord, Termination

log = logging.getLogger(__name__)

#: warm bot processes a worker keeps idle at most (a 72-team event would otherwise keep 72);
#: the runner sends each worker games whose bots it has warm, so a pool's teams stay warm
WARM_PROCESSES = 16


#: CPU seconds a bot's process may use while it is not its turn: the larger of a floor (what
#: the host's own bookkeeping and the interpreter may take after a reply) and a share of the
#: wall time of that stretch; more means threads left running after its answer
OFF_TURN_FLOOR = 0.020
OFF_TURN_SHARE = 0.25
#: seconds a child of the bot gets to end after the bot answered (a helper that wrote the
#: reply itself may still be exiting) before it counts as left running
CHILD_GRACE = 0.1
_PR_SET_CHILD_SUBREAPER = 36

#: what an ``error`` reply's ``kind`` makes of the game (anything else is a crash): a host
#: may tell a broken rule (a course bot that changed its board) or its memory running out
ERROR_KINDS = {"illegal_move": Termination.ILLEGAL_MOVE, "resource_limit": Termination.RESOURCE_LIMIT}


def derive_seed(*parts: Any) -> int:
    """A 63-bit seed from ``parts``, the same on every machine and Python version."""
    digest = hashlib.blake2b(":".join(map(str, parts)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


@dataclass(frozen=True, slots=True)
class GameJob:
    """Everything a worker needs to play one stored game."""

    game_id: int
    game: dict[str, Any]
    bots: tuple[BotSpec, BotSpec]
    seed: int
    clock: TimeControl


class BotPlayer(Player):
    """A seat played by a bot process over the line protocol."""

    def __init__(self, spec: BotSpec) -> None:
        self.spec = spec
        self.name = spec.name
        self.process: BotProcess | None = None
        self.faulted = False
        # the CPU clock and the time at the bot's last answer in this game (None: no answer
        # yet, or between games, when nothing is measured)
        self._rest_cpu: float | None = None
        self._rest_start = 0.0
        self._fresh = False  # a process just started: what it wrote so far belongs to its first game

    def _fault(self, fault: BotFault) -> BotFault:
        self.faulted = True
        return fault

    def launch(self, game: Game) -> None:
        if self.process is None or not self.process.alive():
            if self.process is not None:
                self.process.close()
            self.process = start_bot(self.spec, game.name)
            self._fresh = True

    def start_game(self, game: Game, seat: int, seed: int, clock: TimeControl) -> None:
        self.launch(game)
        self.faulted = False
        self._rest_cpu = None  # what a warm process did between games is not measured
        if not self._fresh:
            self.process.stderr.take()  # earlier games' output is not this game's
        self._fresh = False
        try:
            self._ask(protocol.new_game(game.spec(), seat, seed, clock.move), "ready", clock.startup)
        except BotFault as fault:
            if fault.termination is Termination.TIMEOUT:
                fault.detail += " during startup"
            raise

    def _ask(self, request: bytes, expected: str, timeout: float | None) -> tuple[dict, float, float | None]:
        process = self.process
        assert process is not None
        try:
            cpu = process.cpu_time()
            start = time.monotonic()
            if self._rest_cpu is not None and cpu is not None:
                self._check_rest(cpu - self._rest_cpu, start - self._rest_start)
            self._rest_cpu = None
            process.send(request)
            line = process.receive(timeout)
            wall = time.monotonic() - start
            end_cpu = process.cpu_time()
            message = protocol.parse_reply(line, expected)
        except BotFault as fault:
            raise self._fault(fault) from None
        except protocol.ProtocolError as error:
            raise self._fault(BotFault(Termination.PROTOCOL_ERROR, str(error))) from None
        if message["type"] == "error":
            termination = ERROR_KINDS.get(message["kind"], Termination.CRASH)
            raise self._fault(BotFault(termination, message["message"]))
        self._check_children()
        self._rest_cpu, self._rest_start = end_cpu, start + wall
        return message, wall, None if cpu is None or end_cpu is None else end_cpu - cpu

    @staticmethod
    def _check_rest(used: float, wall: float) -> None:
        """``BotFault`` if the process used more than its budget of CPU in the ``wall``
        seconds since its last answer (its threads kept running)."""
        budget = max(OFF_TURN_FLOOR, OFF_TURN_SHARE * wall)
        if used > budget:
            raise BotFault(Termination.RESOURCE_LIMIT,
                           f"used {used * 1000:.0f} ms of CPU while not its turn, in {wall:.3f} s where "
                           f"{budget * 1000:.0f} ms are allowed (threads left running after its answer)")  # fmt: skip

    def _check_children(self, every_thread: bool = False) -> None:
        """``BotFault`` if a process the bot started is still running after its answer (it
        gets ``CHILD_GRACE`` seconds to end); one read of /proc when it has none."""
        process = self.process
        children = process.children(every_thread)
        if not children:
            return
        end = time.monotonic() + CHILD_GRACE
        while children and time.monotonic() < end:
            time.sleep(0.005)
            children = [pid for pid in children if processes.running(pid)]
        if children:
            named = ", ".join(processes.describe_process(pid) for pid in children[:3])
            more = f" and {len(children) - 3} more" if len(children) > 3 else ""
            raise self._fault(BotFault(Termination.RESOURCE_LIMIT,
                                       f"left a child process running after its answer: {named}{more}"))  # fmt: skip

    def check_game_end(self) -> None:
        """The last stretch: the CPU used since the last answer, children of every thread,
        and (in a worker) processes detached from the bot."""
        process = self.process
        if process is None or self.faulted or self._rest_cpu is None:
            return
        cpu, now = process.cpu_time(), time.monotonic()
        try:
            if cpu is not None:
                self._check_rest(cpu - self._rest_cpu, now - self._rest_start)
            self._rest_cpu = None
            self._check_children(every_thread=True)
            detached = left_behind(process)
            if detached:
                raise BotFault(Termination.RESOURCE_LIMIT,
                               "left a process running that it detached from its process group: "
                               + ", ".join(processes.describe_process(pid) for pid in detached[:3]))  # fmt: skip
        except BotFault as fault:
            raise self._fault(fault) from None

    def request_move(self, state, unseen: list[str], clock: TimeControl) -> Reply:
        request = protocol.move_request(state.ply, unseen, clock.move)
        message, wall, cpu = self._ask(request, "move", clock.deadline(clock.move))
        return Reply(message["move"], wall, cpu)

    def end_game(self, unseen: list[str], winner: int | None, termination: Termination) -> None:
        if self.process is not None and not self.faulted:
            self.process.send(protocol.game_over(unseen, winner, termination.value))

    def take_stderr(self) -> str:
        return "" if self.process is None else self.process.stderr.take()

    @property
    def healthy(self) -> bool:
        return self.process is not None and not self.faulted and self.process.alive()

    def close(self) -> None:
        if self.process is not None:
            self.process.close()
            self.process = None


def start_bot(spec: BotSpec, game: str) -> BotProcess:
    """A new process for ``spec`` to play ``game``: forked from this worker's launcher when it
    can be (a Python bot, in a worker that is a subreaper), else started the plain way."""
    arguments = spec.host_arguments()
    launcher = _launcher(game) if arguments is not None else None
    if launcher is not None:
        try:
            return BotProcess(spec.argv(), spec.name, fork=(launcher, arguments, spec.confinement()))
        except LaunchError as error:
            log.warning("%s; starting bots the plain way until a new launcher is up", error)
            _close_launcher()
    return BotProcess(spec.argv(), spec.name)


_launch: Launcher | None = None
_launchers_started = 0


def _launcher(game: str) -> Launcher | None:
    """This worker's launcher (started on first use, ready for ``game``: a worker plays the
    games of one tournament), or ``None`` where bots cannot be forked from one: not a
    subreaper, or too many launchers failed."""
    global _launch, _launchers_started
    if _launch is not None and _launch.process.poll() is not None:
        _close_launcher()
    if _launch is None and _subreaper and _launchers_started < MAX_LAUNCHERS:
        _launchers_started += 1
        try:
            _launch = Launcher(game, processes.bot_environment(tempfile.gettempdir()))
        except OSError as error:
            log.warning("cannot start a launcher (%s); starting bots the plain way", error)
            return None
        processes.STARTED.add(_launch.pid)
    return _launch


def _close_launcher() -> None:
    global _launch
    if _launch is not None:
        _launch.close()
        processes.STARTED.discard(_launch.pid)
        _launch = None


class WarmBots:
    """The idle bot processes of one worker, most recently used last."""

    def __init__(self, capacity: int = WARM_PROCESSES) -> None:
        self.capacity = capacity
        self.idle: OrderedDict[int, BotPlayer] = OrderedDict()

    def acquire(self, spec: BotSpec) -> BotPlayer:
        for key, player in self.idle.items():
            if player.spec == spec:
                del self.idle[key]
                return player
        return BotPlayer(spec)

    def release(self, player: BotPlayer) -> None:
        if not player.healthy:
            player.close()
            return
        self.idle[id(player)] = player
        while len(self.idle) > self.capacity:
            _, oldest = self.idle.popitem(last=False)
            oldest.close()

    def close(self) -> None:
        while self.idle:
            self.idle.popitem()[1].close()
        _close_launcher()
        reap_strays()


_subreaper = False


def become_subreaper() -> bool:
    """Make this process (a worker) the reaper of every orphan below it (Linux 3.4+): what a
    bot detaches from itself becomes our child, for ``reap_strays`` to end. Whether it worked."""
    global _subreaper
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        _subreaper = libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        _subreaper = False
    return _subreaper


def strays(include_ended: bool = False) -> list[int]:
    """The children of this process that are not bot processes it started: what bots left
    behind and the kernel handed to us, the subreaper. Only running ones unless
    ``include_ended`` (zombies too). Always empty if we are not a subreaper."""
    if not _subreaper:
        return []
    # one read: the kernel hands orphans to the main thread, which also starts the bots
    return [pid for pid in processes.child_pids(os.getpid())
            if pid not in processes.STARTED and (include_ended or processes.running(pid))]  # fmt: skip


def left_behind(process: BotProcess) -> list[int]:
    """The running strays that belong to ``process``'s bot: in its own user namespace."""
    found = strays()
    namespace = process.namespace() if found else None
    if namespace is None:
        return []
    return [pid for pid in found if processes.user_namespace(pid) == namespace]


def reap_strays(rounds: int = 50) -> list[str]:
    """Kill and reap every stray (and those that killing them hands to us, up to ``rounds``
    generations); what was still running."""
    killed: list[str] = []
    for _ in range(rounds):
        found = strays(include_ended=True)
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


_warm: WarmBots | None = None


def warm_bots() -> WarmBots:
    """This process's pool of warm bot processes."""
    global _warm
    if _warm is None:
        _warm = WarmBots()
    return _warm


def run_game(job: GameJob) -> GameRecord:
    """Play the game ``job`` describes with (warm) bot processes; its record."""
    pool = warm_bots()
    players = (pool.acquire(job.bots[0]), pool.acquire(job.bots[1]))
    try:
        game = get_game_from_spec(job.game)
        seeds = (derive_seed(job.seed, 0), derive_seed(job.seed, 1))
        record = play_game(game, players, seeds, job.clock, job.game_id)
        if record.offender is not None and record.termination.is_forfeit:
            players[record.offender].faulted = True  # e.g. an illegal move: restart it anyway
        return record
    finally:
        for player in players:
            pool.release(player)
        reap_strays()
