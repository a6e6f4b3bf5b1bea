"""A seat played by a bot process: ``BotPlayer``, and the idle ones a worker keeps warm.

A bot may think with threads and helper processes during its turn, but nothing of it may run
once it has answered (the course forbade threads and system calls; what runs then steals the
opponent's time): CPU its processes use between its answer and its next request (the opponent's
turn, or the time between two of its games) beyond a small allowance, and any process of it
still running after an answer, forfeit the game (``resource_limit``). A bot restarted after a
fault is started and warmed before the worker takes its next game (see docs/security.md).
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from arena.core import protocol
from arena.core.botspec import BotSpec
from arena.core.gameloop import Player, Reply
from arena.core.records import BotFault, Termination
from arena.core.timing import Limit, SeatClock, TimeControl, Usage
from arena.entrants.kinds import kind_of
from arena.games import Game, Outcome, State
from arena.sandbox import procfs
from arena.sandbox.process import BotProcess, Mark

if TYPE_CHECKING:
    from arena.runners.worker import GameWorker

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
#: what an ``error`` reply's ``kind`` makes of the game (anything else is a crash): a host
#: may tell a broken rule (a course bot that changed its board) or its memory running out
ERROR_KINDS = {"illegal_move": Termination.ILLEGAL_MOVE, "resource_limit": Termination.RESOURCE_LIMIT}


def move_limit(clock: SeatClock) -> Limit | None:
    """How long a seat's next move may take under its ``clock`` (``None``: no limit)."""
    limit, control = clock.limit(), clock.control
    if limit is None:
        return None
    return Limit(limit, clock.kind, control.grace, control.backstop, control.on_overload == "replay")


def _parse(line: bytes, expected: str) -> dict[str, Any]:
    """The reply ``line``; whatever is wrong with it (even a case the parser did not foresee)
    is a protocol error of the bot, never a failure of the worker."""
    try:
        return protocol.parse_reply(line, expected)
    except protocol.ProtocolError as error:
        raise BotFault(Termination.PROTOCOL_ERROR, str(error)) from None
    except Exception as error:
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
        self.clock_kind = kind_of(spec.kind).clock
        self.game: Game | None = None  # the game it plays and its seat there
        self.seat = 0

    def _fault(self, fault: BotFault) -> BotFault:
        self.faulted = True
        return fault

    def launch(self, game: Game) -> None:
        self._running(game)

    def _running(self, game: Game) -> BotProcess:
        """Its process, started now unless it is running."""
        if self.process is None or not self.process.alive():
            if self.process is not None:
                self.process.close()
            self.process = self.worker.start_bot(self.spec, game)
            self._fresh = True
            self._rest = None
        return self.process

    def prepare(self, game: Game, startup: float) -> None:
        """Start a new process now and wait until it is ready (loaded and warmed up), so that
        its next game starts with a warm bot; a bot that cannot say so (a command bot need not
        answer ``describe``) is only started."""
        self.launch(game)
        if kind_of(self.spec.kind).answers_describe:
            self._ask(protocol.DESCRIBE, "description", Limit(startup, grace=0.0))

    def _begin_game(self, game: Game, seat: int) -> BotProcess:
        """Its process for a new game as ``seat``: a fault found while it was idle is charged
        now, and the CPU it used between its games measured."""
        if self.pending is not None:
            fault, self.pending = self.pending, None
            raise self._fault(fault)
        process = self._running(game)
        self.faulted = False
        if not self._fresh:
            process.stderr.take()  # earlier games' output is not this game's
            self._check_rest("between its games")
            self._rest = None  # measured: its next stretch starts with its answer
        self._fresh = False
        self.game, self.seat = game, seat
        return process

    def start_game(self, game: Game, seat: int, seed: int, control: TimeControl) -> None:
        self._begin_game(game, seat)
        try:
            self._ask(
                protocol.new_game(
                    game.spec(),
                    seat,
                    seed,
                    control,
                    self.spec.pace if control.clock == "cpu" else None,
                    None if game.PROTOCOL == 1 else game.players,
                ),
                "ready",
                Limit(control.startup, self.clock_kind or "wall", 0.0, overload=control.on_overload == "replay"),
            )
        except BotFault as fault:
            if fault.termination is Termination.TIMEOUT:
                fault.detail += " during startup"
            raise

    def _ask(self, request: bytes, expected: str, limit: Limit | None) -> tuple[dict[str, Any], Usage]:
        process = self.process
        assert process is not None
        try:
            mark = process.mark()  # one look at its clocks: the end of its rest, the start of its turn
            self._check_rest("while not its turn", mark)
            line, usage = process.exchange(request, limit, mark)
            message = _parse(line, expected)
        except BotFault as fault:
            raise self._fault(fault) from None
        if message["type"] == "error":
            termination = ERROR_KINDS.get(message["kind"], Termination.CRASH)
            raise self._fault(BotFault(termination, message["message"]))
        self._check_children()
        assert process.last is not None
        answered, cpu, _ = process.last  # its rest starts with its answer
        self._rest = None if cpu is None else (cpu, answered)
        return message, usage

    def _check_rest(self, when: str, mark: Mark | None = None) -> None:
        """``BotFault`` if the bot's processes used more than their allowance of CPU since its
        last answer (or the end of its last game), up to ``mark`` (else now)."""
        if self._rest is None or self.process is None:
            return
        now, cpu = (mark[0], mark[1]) if mark else (time.monotonic(), self.process.cpu_time())
        if cpu is None:
            return
        start_cpu, start = self._rest
        used, wall = cpu - start_cpu, now - start
        budget = max(OFF_TURN_FLOOR, OFF_TURN_SHARE * wall)
        if used > budget:
            raise self._fault(
                BotFault(
                    Termination.RESOURCE_LIMIT,
                    f"used {used * 1000:.0f} ms of CPU {when}, in {wall:.3f} s where "
                    f"{budget * 1000:.0f} ms are allowed (threads or processes left running "
                    "after its answer)",
                )
            )

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
        assert process is not None
        children = process.children(every_thread)
        if not children:
            return
        end = time.monotonic() + CHILD_GRACE
        while children and time.monotonic() < end:
            time.sleep(0.005)
            children = [pid for pid in process.children(every_thread) if procfs.running(pid)]
        if children:
            named = ", ".join(procfs.describe_process(pid) for pid in children[:3])
            more = f" and {len(children) - 3} more" if len(children) > 3 else ""
            raise self._fault(
                BotFault(Termination.RESOURCE_LIMIT, f"left a process running after its answer: {named}{more}")
            )

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
                raise BotFault(
                    Termination.RESOURCE_LIMIT,
                    "left a process running that it detached from its process group: "
                    + ", ".join(procfs.describe_process(pid) for pid in detached[:3]),
                )
        except BotFault as fault:
            raise self._fault(fault) from None

    def request_move(self, state: State, unseen: list[str], clock: SeatClock) -> Reply:
        limit = clock.limit()
        game = state.game
        if game.PROTOCOL == 1:
            request = protocol.move_request(state.ply, unseen, limit, clock.kind, clock.bank)
        else:  # only what its seat may know: its view, never the whole state or the others' moves if hidden
            request = protocol.move_request_2(
                state.ply,
                None if game.HIDDEN else unseen,
                state.view(self.seat),
                list(state.actors()),
                [game.format_move(move) for move in state.moves_of(self.seat)],
                limit,
                clock.kind,
                clock.bank,
            )
        message, usage = self._ask(request, "move", move_limit(clock))
        return Reply(message["move"], usage.wall, usage.cpu, usage.waited, usage.charged(clock.kind), message["cut"])

    def end_game(self, unseen: list[str], outcome: Outcome, termination: Termination) -> None:
        if self.process is not None and not self.faulted:
            self._game_over(unseen, outcome, termination)
            cpu = self.process.cpu_time()  # what it does from here to its next game is measured
            self._rest = None if cpu is None else (cpu, time.monotonic())

    def _game_over(self, unseen: list[str], outcome: Outcome, termination: Termination) -> None:
        """Tell its process how the game ended."""
        if self.process is not None:
            game = self.game
            if game is None or game.PROTOCOL == 1:
                self.process.send(protocol.game_over(unseen, outcome.winner, termination.value))
            else:
                returns = list(outcome.returns or (outcome.score(seat) for seat in range(game.players)))
                self.process.send(
                    protocol.game_over(None if game.HIDDEN else unseen, outcome.winner, termination.value, returns)
                )

    def take_stderr(self) -> str:
        return "" if self.process is None else self.process.stderr.take()

    @property
    def healthy(self) -> bool:
        return self.process is not None and not self.faulted and self.process.alive()

    def close(self) -> None:
        """End its process, if it has one."""
        if self.process is not None:
            self.process.close()
            self.process = None


class WarmBots:
    """The idle bot processes of one worker, most recently used last."""

    def __init__(self, capacity: int = WARM_PROCESSES) -> None:
        self.capacity = capacity
        self.idle: OrderedDict[int, BotPlayer] = OrderedDict()

    def acquire(self, spec: BotSpec, worker: GameWorker, make: type[BotPlayer] = BotPlayer) -> BotPlayer:
        """An idle player of ``spec`` (taken out of the pool), or a new one of ``worker``
        (a ``make``: the seat that speaks its kind's protocol)."""
        for key, player in self.idle.items():
            if player.spec == spec:
                del self.idle[key]
                return player
        return make(spec, worker)

    def police(self) -> None:
        """Stop the idle bots that use CPU between their games (``BotPlayer.check_idle``)."""
        for player in self.idle.values():
            player.check_idle()

    def release(self, player: BotPlayer) -> None:
        """Keep ``player`` idle for a later game; the least recently used beyond ``capacity`` are closed."""
        self.idle[id(player)] = player
        while len(self.idle) > self.capacity:
            _, oldest = self.idle.popitem(last=False)
            oldest.close()

    def close(self) -> None:
        """Close every idle player: their processes are all killed first, then each is waited
        for and cleaned up."""
        for player in self.idle.values():
            if player.process is not None:
                player.process.doom()
        while self.idle:
            self.idle.popitem()[1].close()
