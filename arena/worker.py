"""The worker's job: one game between two bot processes, as a plain function of plain data.

``run_game(job) -> GameRecord`` is all a runner needs; it keeps each worker's bot processes
warm between games (a bounded pool per worker) and restarts any that faulted.
"""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from arena import protocol
from arena.botspec import BotSpec
from arena.games import Game, get_game_from_spec
from arena.match import Player, Reply, TimeControl, play_game
from arena.process import BotFault, BotProcess
from arena.records import GameRecord, Termination

#: warm bot processes a worker keeps idle at most (a 72-team event would otherwise keep 72);
#: the runner sends each worker games whose bots it has warm, so a pool's teams stay warm
WARM_PROCESSES = 16


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

    def _fault(self, fault: BotFault) -> BotFault:
        self.faulted = True
        return fault

    def launch(self) -> None:
        if self.process is None or not self.process.alive():
            if self.process is not None:
                self.process.close()
            self.process = BotProcess(self.spec.argv(), self.spec.name)

    def start_game(self, game: Game, seat: int, seed: int, clock: TimeControl) -> None:
        self.launch()
        self.faulted = False
        self.process.stderr.take()  # earlier games' output is not this game's
        self._ask(protocol.new_game(game.spec(), seat, seed, clock.move), "ready", clock.startup)

    def _ask(self, request: bytes, expected: str, timeout: float | None) -> tuple[dict, float, float | None]:
        process = self.process
        assert process is not None
        try:
            cpu = process.cpu_time()
            start = time.monotonic()
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
        return message, wall, None if cpu is None or end_cpu is None else end_cpu - cpu

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
