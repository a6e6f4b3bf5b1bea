"""One game between two players: the match loop, the same for bots and people."""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from arena.core.records import BotFault, GameRecord, MoveRecord, Overloaded, Termination
from arena.core.text import clean
from arena.core.timing import ClockKind, SeatClock, TimeControl
from arena.games import Game, Outcome, State

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Reply:
    """A player's answer to a move request, with what it cost: ``wall`` and ``cpu`` seconds,
    ``waited`` seconds kept from a CPU by other programs, ``charged`` seconds of its clock, and
    whether the clock ``cut`` its search short of its own budget."""

    text: str
    wall: float
    cpu: float | None = None
    waited: float = 0.0
    charged: float = 0.0
    cut: bool = False


class Resigned(Exception):
    """A player (a person) gave up the game."""


class Abandoned(Exception):
    """A player (a person) left the game: it ends without a result."""


class TakeBack(Exception):
    """A player (a person) takes back its last move and every move played since."""


class Player(ABC):
    """A seat in a game: a bot process or a person. Faults are raised as ``BotFault``."""

    name: str = "player"

    def launch(self, game: Game) -> None:
        """Start whatever the player needs to play ``game`` (a process) without waiting for
        it: both seats are launched before either is waited on, so they start side by side."""

    @abstractmethod
    def start_game(self, game: Game, seat: int, seed: int, control: TimeControl) -> None:
        """Get ready for a new game as ``seat``; called again after a take-back, and then
        the next request's ``unseen`` holds every move played so far."""

    @abstractmethod
    def request_move(self, state: State, unseen: list[str], clock: SeatClock) -> Reply:
        """The player's move in ``state`` under its ``clock``; ``unseen`` are the moves since it
        last moved."""

    #: the clock this player is timed by whatever the time control says (``None``: its clock)
    clock_kind: ClockKind | None = None

    def check_off_turn(self) -> None:
        """While the other player thinks: ``BotFault`` if this one used CPU it may not have."""

    def check_game_end(self) -> None:
        """The game was played to its end: a last look at what the player did since its last
        answer (a bot's threads or processes still running); ``BotFault`` forfeits it."""

    def end_game(self, unseen: list[str], winner: int | None, termination: Termination) -> None:
        """The game is over (``unseen``: the last moves it has not been told of)."""

    def take_stderr(self) -> str:
        """What the player wrote to its error output during the game (its tail)."""
        return ""

    @property
    def healthy(self) -> bool:
        """Whether the player can play another game as it is."""
        return True


def _take_back(game: Game, record: GameRecord, seat: int) -> State:
    """Remove ``seat``'s last move and every move after it; the position before them."""
    if any(m.seat == seat for m in record.moves):
        while record.moves.pop().seat != seat:
            pass
    return game.replay([m.move for m in record.moves])


class Watcher:
    """An onlooker of a game (``play_game``'s ``watch``), told of each turn and move as the game
    goes; it may stop the game after a move. This one only watches."""

    def to_move(self, state: State) -> None:
        """The player of seat ``state.to_move`` is asked for its move in ``state`` now."""

    def moved(self, state: State, move: MoveRecord) -> bool:
        """``move`` was played, giving ``state``; ``False`` stops the game there, unfinished."""
        return True


class _Stopped(Exception):
    """The watcher stopped the game."""


class _Forfeit(Exception):
    """``seat`` broke a rule (``fault``)."""

    def __init__(self, seat: int, fault: BotFault) -> None:
        self.seat = seat
        self.fault = fault


class _Void(Exception):
    """``seat`` could not be timed: the machine was too busy (``reason``)."""

    def __init__(self, seat: int, reason: Overloaded) -> None:
        self.seat = seat
        self.reason = reason


def _as(seat: int, call: Callable[..., T], *args: Any) -> T:
    """``call(*args)`` on behalf of ``seat``: a ``BotFault`` or ``Overloaded`` it raises is
    that seat's."""
    try:
        return call(*args)
    except BotFault as fault:
        raise _Forfeit(seat, fault) from None
    except Overloaded as reason:
        raise _Void(seat, reason) from None


def play_game(
    game: Game,
    players: tuple[Player, Player],
    seeds: tuple[int, int],
    control: TimeControl,
    game_id: int = 0,
    watch: Watcher | None = None,
) -> GameRecord:
    """Play one game to its end, a forfeit or a void (the machine was too busy), and return
    its record. A seat that times out while its opponent used CPU it may not have (off its
    turn) does not lose: the opponent forfeits. ``watch`` is told of each turn and move, and a
    game it stops ends there unfinished: ``ABORTED``, no winner, nobody at fault."""
    record = GameRecord(game_id, started_at=time.time())
    state = game.initial_state()
    unseen: tuple[list[str], list[str]] = ([], [])
    clocks = (control.seat(players[0].clock_kind), control.seat(players[1].clock_kind))
    outcome = Outcome(None)
    where = "at its start"
    try:
        for seat, player in enumerate(players):
            _as(seat, player.launch, game)
        for seat, player in enumerate(players):
            _as(seat, player.start_game, game, seat, seeds[seat], control)
        while not state.is_terminal:
            seat = state.to_move
            where = f"at ply {state.ply + 1}"
            if watch is not None:
                watch.to_move(state)
            try:
                reply = _as(seat, players[seat].request_move, state, unseen[seat], clocks[seat])
            except TakeBack:
                state = _take_back(game, record, seat)
                texts = [m.move for m in record.moves]
                for other, player in enumerate(players):
                    _as(other, player.start_game, game, other, seeds[other], control)
                    unseen[other][:] = texts
                continue
            except _Forfeit as forfeit:
                if forfeit.fault.termination is Termination.TIMEOUT:
                    _as(1 - seat, players[1 - seat].check_off_turn)  # its CPU slowed the mover: its fault
                raise
            unseen[seat].clear()
            try:
                move = game.parse_move(reply.text)
                state = state.play(move)
            except ValueError as error:
                raise _Forfeit(seat, BotFault(Termination.ILLEGAL_MOVE, clean(str(error), 2000))) from None
            clocks[seat].spend(reply.charged)
            text = game.format_move(move)
            record.moves.append(
                MoveRecord(
                    seat,
                    text,
                    round(reply.wall * 1000, 3),
                    None if reply.cpu is None else round(reply.cpu * 1000, 3),
                    round(reply.waited * 1000, 3),
                    reply.cut,
                )
            )
            unseen[1 - seat].append(text)
            if watch is not None and not watch.moved(state, record.moves[-1]):
                raise _Stopped
        for seat, player in enumerate(players):  # a rule broken after the last move still forfeits
            _as(seat, player.check_game_end)
        outcome = state.outcome or outcome  # (a finished state always has one)
    except _Forfeit as forfeit:
        outcome = state.forfeit_outcome(forfeit.seat)
        record.termination, record.offender, record.detail = (
            forfeit.fault.termination,
            forfeit.seat,
            forfeit.fault.detail,
        )
    except _Void as void:
        record.voided = f"{players[void.seat].name} (seat {void.seat}) {where}: {void.reason}"
        outcome = Outcome(None)
    except Resigned:
        outcome = state.forfeit_outcome(state.to_move)
        record.termination, record.offender = Termination.RESIGNATION, state.to_move
    except _Stopped:
        outcome = Outcome(None)
        record.termination = Termination.ABORTED
    except Abandoned:
        outcome = Outcome(None)
        record.termination, record.offender = Termination.ABORTED, state.to_move
    record.winner = outcome.winner
    record.points = outcome.points
    for seat, player in enumerate(players):
        if player.healthy:
            try:
                player.end_game(unseen[seat], record.winner, record.termination)
            except BotFault:
                pass
    record.stderr = (players[0].take_stderr(), players[1].take_stderr())
    record.finished_at = time.time()
    return record
