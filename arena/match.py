"""One game between two players: the match loop, the same for bots and people."""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from dataclasses import dataclass

from arena.games import Game, Outcome
from arena.process import BotFault
from arena.records import GameRecord, MoveRecord, Termination


@dataclass(frozen=True, slots=True)
class TimeControl:
    """Per-move limits: ``move`` seconds a move (``None``: none), answered within ``grace``
    more (covers the pipe and the scheduler), ``startup`` seconds to start and load."""

    move: float | None = 1.0
    grace: float = 0.05
    startup: float = 10.0

    def deadline(self, limit: float | None) -> float | None:
        """How long the harness waits for a reply to a request with time ``limit``."""
        return None if limit is None else limit + self.grace


@dataclass(frozen=True, slots=True)
class Reply:
    """A player's answer to a move request, with the time it took."""

    text: str
    wall: float
    cpu: float | None


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
    def start_game(self, game: Game, seat: int, seed: int, clock: TimeControl) -> None:
        """Get ready for a new game as ``seat``; called again after a take-back, and then
        the next request's ``unseen`` holds every move played so far."""

    @abstractmethod
    def request_move(self, state, unseen: list[str], clock: TimeControl) -> Reply:
        """The player's move in ``state``; ``unseen`` are the moves since it last moved."""

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


def _take_back(game: Game, record: GameRecord, seat: int):
    """Remove ``seat``'s last move and every move after it; the position before them."""
    if any(m.seat == seat for m in record.moves):
        while record.moves.pop().seat != seat:
            pass
    return game.replay([m.move for m in record.moves])


def play_game(
    game: Game,
    players: tuple[Player, Player],
    seeds: tuple[int, int],
    clock: TimeControl,
    game_id: int = 0,
) -> GameRecord:
    """Play one game to its end or a forfeit, and return its record."""
    record = GameRecord(game_id, started_at=time.time())
    state = game.initial_state()
    unseen: tuple[list[str], list[str]] = ([], [])
    seat = 0
    try:
        for player in players:
            player.launch(game)
        for seat, player in enumerate(players):
            player.start_game(game, seat, seeds[seat], clock)
        while not state.is_terminal:
            seat = state.to_move
            try:
                reply = players[seat].request_move(state, unseen[seat], clock)
            except TakeBack:
                state = _take_back(game, record, seat)
                texts = [m.move for m in record.moves]
                for other, player in enumerate(players):
                    player.start_game(game, other, seeds[other], clock)
                    unseen[other][:] = texts
                continue
            unseen[seat].clear()
            try:
                move = game.parse_move(reply.text)
                state = state.play(move)
            except ValueError as error:
                raise BotFault(Termination.ILLEGAL_MOVE, str(error)) from None
            text = game.format_move(move)
            record.moves.append(MoveRecord(seat, text, round(reply.wall * 1000, 3),
                                           None if reply.cpu is None else round(reply.cpu * 1000, 3)))  # fmt: skip
            unseen[1 - seat].append(text)
        for seat, player in enumerate(players):  # a rule broken after the last move still forfeits
            player.check_game_end()
        outcome = state.outcome
    except BotFault as fault:
        outcome = state.forfeit_outcome(seat)
        record.termination, record.offender, record.detail = fault.termination, seat, fault.detail
    except Resigned:
        outcome = state.forfeit_outcome(seat)
        record.termination, record.offender = Termination.RESIGNATION, seat
    except Abandoned:
        outcome = Outcome(None)
        record.termination, record.offender = Termination.ABORTED, seat
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
