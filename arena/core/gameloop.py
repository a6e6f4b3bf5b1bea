"""One game between its players: the match loop, the same for bots and people, for any number of
seats, sequential turns, simultaneous steps and chance."""

from __future__ import annotations

import random
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from arena.core.records import BotFault, GameRecord, MoveRecord, Overloaded, Termination
from arena.core.text import clean
from arena.core.timing import ClockKind, SeatClock, TimeControl
from arena.games import CHANCE, SIMULTANEOUS, Game, Move, Outcome, State

T = TypeVar("T")
#: the info of a move of the game's opening, played by nobody (as cutechess marks book moves)
BOOK = '{"book":true}'


@dataclass(frozen=True, slots=True)
class Reply:
    """A player's answer to a move request, with what it cost: ``wall`` and ``cpu`` seconds,
    ``waited`` seconds kept from a CPU by other programs, ``charged`` seconds of its clock,
    whether the clock ``cut`` its search short of its own budget, and an engine's ``info`` on
    its search (JSON text: score, depth, nodes)."""

    text: str
    wall: float
    cpu: float | None = None
    waited: float = 0.0
    charged: float = 0.0
    cut: bool = False
    info: str | None = None


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
        it: every seat is launched before any is waited on, so they start side by side."""

    @abstractmethod
    def start_game(self, game: Game, seat: int, seed: int, control: TimeControl) -> None:
        """Get ready for a new game as ``seat``; called again after a take-back, and then
        the next request's ``unseen`` holds every move played so far."""

    @abstractmethod
    def request_move(self, state: State, unseen: list[str], clock: SeatClock) -> Reply:
        """The player's move in ``state`` under its ``clock``; ``unseen`` are the records since it
        last moved (the other seats' moves and chance outcomes; at a simultaneous step, whole
        steps, its own moves too). The player tells its bot only what its seat may know
        (``state.view``)."""

    #: the clock this player is timed by whatever the time control says (``None``: its clock)
    clock_kind: ClockKind | None = None

    def check_off_turn(self) -> None:
        """While another player thinks: ``BotFault`` if this one used CPU it may not have."""

    def check_game_end(self) -> None:
        """The game was played to its end: a last look at what the player did since its last
        answer (a bot's threads or processes still running); ``BotFault`` forfeits it."""

    def end_game(self, unseen: list[str], outcome: Outcome, termination: Termination) -> None:
        """The game is over (``unseen``: the last moves it has not been told of)."""

    def take_stderr(self) -> str:
        """What the player wrote to its error output during the game (its tail)."""
        return ""

    @property
    def healthy(self) -> bool:
        """Whether the player can play another game as it is."""
        return True


def _take_back(game: Game, record: GameRecord, seat: int) -> State:
    """Remove ``seat``'s last move and every move after it, and the rest of the simultaneous
    step it was part of (the chance outcomes before it stay: a take-back never draws again);
    the position before them."""
    own = [index for index, entry in enumerate(record.moves) if entry.seat == seat]
    if own:
        cut, reached = 0, 0
        for _, step in game.steps(game.initial_state(), [m.move for m in record.moves]):
            if reached > own[-1]:
                break
            cut, reached = reached, reached + len(step)
        del record.moves[cut:]
    return game.replay([m.move for m in record.moves])


class Watcher:
    """An onlooker of a game (``play_game``'s ``watch``), told of each turn and move as the game
    goes; it may stop the game after a move. This one only watches."""

    def to_move(self, state: State, seat: int) -> None:
        """The player of ``seat`` is asked for its move in ``state`` now."""

    def moved(self, state: State, move: MoveRecord) -> bool:
        """``move`` was played (a chance outcome: of seat ``CHANCE``), giving ``state`` (of a
        simultaneous step, each of its moves once the step is played); ``False`` stops the game
        there, unfinished."""
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
    players: Sequence[Player],
    seeds: Sequence[int],
    control: TimeControl,
    game_id: int = 0,
    watch: Watcher | None = None,
    chance_seed: int = 0,
    opening: Sequence[str] = (),
) -> GameRecord:
    """Play one game to its end, a forfeit or a void (the machine was too busy), and return
    its record. ``players`` and ``seeds`` are one a seat; chance outcomes are drawn from
    ``chance_seed``, so the same seeds give the same game. A seat that times out while
    another used CPU it may not have (off its turn) does not lose: that one forfeits. At a
    simultaneous step every acting seat is asked in turn, each under its own clock, and the
    step is played once all have answered. ``watch`` is told of each turn and move, and a game
    it stops ends there unfinished: ``ABORTED``, no winner, nobody at fault. An ``opening``
    (move texts, checked legal beforehand) is played first, by nobody's clock: its moves are
    recorded as their seats' with ``BOOK`` as their info, and every seat is told them all, its own
    included, with its first request (as after a take-back)."""
    record = GameRecord(game_id, started_at=time.time(), stderr=("",) * len(players))
    state = game.initial_state()
    unseen: list[list[str]] = [[] for _ in players]
    clocks = [control.seat(player.clock_kind) for player in players]
    chance = random.Random(chance_seed)
    outcome = Outcome(None)
    where = "at its start"
    try:
        for seat, player in enumerate(players):
            _as(seat, player.launch, game)
        for seat, player in enumerate(players):
            _as(seat, player.start_game, game, seat, seeds[seat], control)
        for text in opening:
            entry = MoveRecord(state.to_move, text, 0.0, None, info=BOOK)
            record.moves.append(entry)
            state = state.play(game.parse_move(text))
            for heard in unseen:
                heard.append(text)
            if watch is not None and not watch.moved(state, entry):
                raise _Stopped
        while not state.is_terminal:
            where = f"at ply {state.ply + 1}"
            if state.to_move == CHANCE:
                drawn = draw_chance(state, chance)
                state = state.play(drawn)
                entry = MoveRecord(CHANCE, game.format_move(drawn), 0.0, None)
                record.moves.append(entry)
                for heard in unseen:
                    heard.append(entry.move)
                if watch is not None and not watch.moved(state, entry):
                    raise _Stopped
                continue
            joint = state.to_move == SIMULTANEOUS
            try:
                step = [
                    (seat, *_turn(game, state, players, seat, unseen[seat], clocks[seat], watch, joint))
                    for seat in (state.actors() if joint else (state.to_move,))
                ]
            except TakeBack as back:
                state = _take_back(game, record, back.args[0])
                texts = [m.move for m in record.moves]
                for other, player in enumerate(players):
                    _as(other, player.start_game, game, other, seeds[other], control)
                    unseen[other][:] = texts
                continue
            try:
                state = state.play_joint([move for _, move, _ in step]) if joint else state.play(step[0][1])
            except ValueError as error:  # (a simultaneous step's moves are checked one by one first)
                raise _Forfeit(step[-1][0], BotFault(Termination.ILLEGAL_MOVE, clean(str(error), 2000))) from None
            entries = []
            for seat, move, reply in step:
                clocks[seat].spend(reply.charged)
                entries.append(
                    MoveRecord(
                        seat,
                        game.format_move(move),
                        round(reply.wall * 1000, 3),
                        None if reply.cpu is None else round(reply.cpu * 1000, 3),
                        round(reply.waited * 1000, 3),
                        reply.cut,
                        reply.info,
                    )
                )
            record.moves.extend(entries)
            if joint:  # every seat hears the whole step
                texts = [entry.move for entry in entries]
                for heard in unseen:
                    heard.extend(texts)
            else:  # the others hear a seat's move; it knows its own
                mover, text = entries[0].seat, entries[0].move
                for seat, heard in enumerate(unseen):
                    if seat != mover:
                        heard.append(text)
            if watch is not None and not all(watch.moved(state, entry) for entry in entries):
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
    except Resigned as resigned:
        outcome = state.forfeit_outcome(resigned.args[0])
        record.termination, record.offender = Termination.RESIGNATION, resigned.args[0]
    except _Stopped:
        outcome = Outcome(None)
        record.termination = Termination.ABORTED
    except Abandoned as abandoned:
        outcome = Outcome(None)
        record.termination, record.offender = Termination.ABORTED, abandoned.args[0]
    record.winner, record.points = result_of(outcome)
    for seat, player in enumerate(players):
        if player.healthy:
            try:
                player.end_game(unseen[seat], outcome, record.termination)
            except BotFault:
                pass
    record.stderr = tuple(player.take_stderr() for player in players)
    record.finished_at = time.time()
    return record


def draw_chance(state: State, rng: random.Random) -> Move:
    """The outcome the harness draws at the chance node ``state`` with ``rng`` (one draw a node,
    so the same seed gives the same outcomes)."""
    outcomes, weights = zip(*state.chance_outcomes())
    drawn: Move = rng.choices(outcomes, weights)[0]
    return drawn


def result_of(outcome: Outcome | None) -> tuple[int | None, tuple[float, ...] | None]:
    """What a record stores of ``outcome``: the winner and the points (a game's own points,
    else its returns where it gives them)."""
    if outcome is None:
        return None, None
    return outcome.winner, outcome.points if outcome.points is not None else outcome.returns


def _turn(
    game: Game,
    state: State,
    players: Sequence[Player],
    seat: int,
    unseen: list[str],
    clock: SeatClock,
    watch: Watcher | None,
    joint: bool,
) -> tuple[Move, Reply]:
    """Ask ``seat`` for its move in ``state``: the move (legal: else the seat forfeits) and the
    reply. A person's ``TakeBack``, ``Resigned`` or ``Abandoned`` carries its seat."""
    if watch is not None:
        watch.to_move(state, seat)
    try:
        reply = _as(seat, players[seat].request_move, state, unseen, clock)
    except (TakeBack, Resigned, Abandoned) as person:
        raise type(person)(seat) from None
    except _Forfeit as forfeit:
        if forfeit.fault.termination is Termination.TIMEOUT:
            for other, player in enumerate(players):  # their CPU slowed the mover: their fault
                if other != seat:
                    _as(other, player.check_off_turn)
        raise
    unseen.clear()
    try:
        move = game.parse_move(reply.text)
        if joint and move not in state.moves_of(seat):
            raise ValueError(f"{reply.text!r} is not one of seat {seat}'s legal moves")
    except ValueError as error:
        raise _Forfeit(seat, BotFault(Termination.ILLEGAL_MOVE, clean(str(error), 2000))) from None
    return move, reply
