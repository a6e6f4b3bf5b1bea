"""The Game/State contract every game implements, and the values that cross it (the public API
a user's game codes against: docs/games.md, "Writing a game").

A move is a plain ``int`` inside a process (fast to compare, hash and pickle) and its text
notation everywhere else (``Game.parse_move`` / ``Game.format_move``). Each game module
documents how its moves map to ints. A chance outcome is a move too (of no seat: ``CHANCE``),
and a simultaneous step is one move of each acting seat, in seat order: a game's record is a
list of move texts from which ``Game.advance`` rebuilds every state.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from arena.errors import ArenaError

Move = int

#: ``State.to_move`` when no single seat acts: the game draws a chance outcome
#: (``State.chance_outcomes``), or several seats act at once (``State.actors``)
CHANCE = -1
SIMULTANEOUS = -2


class MoveSyntaxError(ArenaError, ValueError):
    """Text that is not a move in the game's notation."""


class IllegalMoveError(ArenaError, ValueError):
    """A well-formed move that the rules do not allow in this state."""


class UnknownGameError(ArenaError, LookupError):
    """No game is registered under the name asked for."""


class GameParameterError(ArenaError, ValueError):
    """A game parameter that does not exist or has a value the game does not accept."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: the winning seat (``None`` for a draw, or when no single seat won) and,
    where the game has them, each seat's points (xtreme: the course points). A game of more
    than two seats also gives each seat's ``returns`` (higher is better; equal returns tie), from
    which its finishing order follows."""

    winner: int | None
    points: tuple[float, ...] | None = None
    returns: tuple[float, ...] | None = None

    @classmethod
    def from_returns(cls, returns: Sequence[float]) -> Outcome:
        """The outcome of a game whose seats got ``returns``: the seat with the highest return
        wins if no other has as much."""
        values = tuple(float(value) for value in returns)
        best = max(values)
        winner = values.index(best) if values.count(best) == 1 else None
        return cls(winner, None, values)

    def result(self) -> str:
        """The result as a tournament table writes it: ``1-0``, ``0-1`` or ``½-½`` for two
        seats, the finishing places (``1-3-2``) for more."""
        if self.returns is not None and len(self.returns) != 2:
            return "-".join(str(place) for place in places(self.returns))
        return RESULTS[self.winner]

    def score(self, seat: int) -> float:
        """What ``seat`` scored: 1 for a win, 0.5 for a draw, 0 for a loss; with more than two
        seats, the share of the other seats it finished ahead of (a tie counts half)."""
        if self.returns is not None and len(self.returns) != 2:
            return pairwise_score(self.returns, seat)
        return 0.5 if self.winner is None else float(self.winner == seat)


def places(returns: Sequence[float]) -> list[int]:
    """Each seat's finishing place (1 is first) from its return; equal returns share a place."""
    return [1 + sum(other > value for other in returns) for value in returns]


def pairwise_score(returns: Sequence[float], seat: int) -> float:
    """The share of the other seats ``seat`` finished ahead of, a tie counting half: 1 for the
    sole first, 0 for the sole last (two seats: 1, 0.5 or 0)."""
    mine = returns[seat]
    others = [value for index, value in enumerate(returns) if index != seat]
    if not others:
        return 0.5
    return sum(1.0 if mine > value else 0.5 if mine == value else 0.0 for value in others) / len(others)


#: the winner (``None``: a draw) -> the result as written
RESULTS = {0: "1-0", 1: "0-1", None: "½-½"}


WIN = (Outcome(0), Outcome(1))
DRAW = Outcome(None)


class Game(ABC):
    """A stateless game: it makes states and converts moves to and from text.

    What a subclass sets: ``name``; ``PARAMETERS`` it takes; ``PLAYERS``, the range of seat
    counts it is played with (the ``players`` parameter picks one where the range has more than
    one); ``MAX_LENGTH`` (or ``max_length()``), the most records (moves and chance outcomes) a
    game can have; ``HIDDEN`` if seats may know different things (then ``State.view`` says what
    each may know). What it writes: ``initial_state()``, and ``parse_move``/``format_move`` if
    its moves are written other than as their int.
    """

    name: ClassVar[str]
    #: parameter name -> (default, allowed values); a game with none leaves it empty
    PARAMETERS: ClassVar[Mapping[str, tuple[Any, Sequence[Any]]]] = {}
    #: how moves are written, with an example, for error messages and help (set per instance
    #: where a parameter changes it)
    NOTATION: str = "a move is its number (e.g. '0')"
    #: the fewest and most seats the game is played with
    PLAYERS: ClassVar[tuple[int, int]] = (2, 2)
    #: the most records (moves and chance outcomes) a game can have (``max_length()`` where a
    #: parameter changes it)
    MAX_LENGTH: ClassVar[int] = 0
    #: whether a seat may not know all of the state (cards in hand, hidden dice): then a seat is
    #: told only its ``State.view`` and never the moves of the others
    HIDDEN: ClassVar[bool] = False
    #: the version of the line protocol its bots are spoken to in (docs/protocol.md): 2 tells a
    #: bot the seats, its view and its legal moves; 1, for two seats taking turns with nothing
    #: hidden and no chance, only the moves (arena's four games, and every bot written for them)
    PROTOCOL: ClassVar[int] = 2
    #: what the seats are called (first the one that moves first), and their one-letter marks
    #: (a game of more than two seats may leave them: its seats are then called ``p1``, ``p2``...)
    SEATS: ClassVar[tuple[str, ...]] = ("x", "o")
    MARKS: ClassVar[str] = "xo"
    #: where the game was loaded from when it is not one of arena's (``arena.games.loading``):
    #: ``{"module": ..., "class": ..., "code_hash": ...}``, part of its ``spec()``
    source: ClassVar[Mapping[str, str] | None] = None

    @classmethod
    def seat_names(cls, players: int) -> tuple[str, ...]:
        """What the seats of a game of ``players`` seats are called."""
        if len(cls.SEATS) >= players:
            return tuple(cls.SEATS[:players])
        return tuple(f"p{seat + 1}" for seat in range(players))

    @classmethod
    def seat_of(cls, word: str, players: int = 2) -> int:
        """The seat ``word`` names: its name or mark (``x``, ``black``, ``b``), ``first`` or
        ``second``, or its number from 1 (``p2``, ``2``); ``ValueError`` otherwise."""
        word = word.strip().lower()
        names: dict[str, int] = {"first": 0, "second": 1}
        for seat, name in enumerate(cls.seat_names(players)):
            names[name] = names[f"p{seat + 1}"] = names[str(seat + 1)] = seat
            if seat < len(cls.MARKS) and len(cls.MARKS) >= players:
                names[cls.MARKS[seat]] = seat
        if word not in names:
            choices = ", ".join(cls.seat_names(players))
            raise ValueError(f"{word!r} is no seat of {cls.name}: choose {choices}, first or second")
        return names[word]

    def __init__(self, **params: Any) -> None:
        low, high = self.PLAYERS
        accepted = dict(self.PARAMETERS)
        if low != high:
            accepted.setdefault("players", (low, range(low, high + 1)))
        unknown = sorted(set(params) - set(accepted))
        if unknown:
            known = ", ".join(sorted(accepted)) or "none"
            raise GameParameterError(
                f"game {self.name!r} has no parameter {', '.join(map(repr, unknown))}; its parameters: {known}"
            )
        resolved = {}
        for key, (default, allowed) in accepted.items():
            value = params.get(key, default)
            if not any(value == choice and type(value) is type(choice) for choice in allowed):
                choices = (
                    f"{allowed.start} to {allowed.stop - 1}"
                    if isinstance(allowed, range)
                    else "one of " + ", ".join(map(repr, allowed))
                )
                raise GameParameterError(f"game {self.name!r}: parameter {key!r} cannot be {value!r}; choose {choices}")
            resolved[key] = value
        self.params: Mapping[str, Any] = resolved
        #: the number of seats this game is played with
        self.players: int = resolved.get("players", low)

    def _defaults(self) -> dict[str, Any]:
        low, high = self.PLAYERS
        defaults = {key: default for key, (default, _) in self.PARAMETERS.items()}
        if low != high:
            defaults.setdefault("players", low)
        return defaults

    def __repr__(self) -> str:
        defaults = self._defaults()
        args = "".join(f", {k}={v!r}" for k, v in self.params.items() if v != defaults.get(k))
        return f"get_game({self.name!r}{args})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and (self.name, dict(self.params), self.source) == (
            other.name,
            dict(other.params),
            other.source,
        )

    def __hash__(self) -> int:
        return hash((self.name, tuple(sorted(self.params.items()))))

    def __reduce__(self) -> tuple[Any, ...]:
        # (a user's game class, loaded from a file, is given a __reduce__ that loads it again)
        return (_rebuild, (type(self), dict(self.params)))

    def spec(self) -> dict[str, Any]:
        """The game as plain data (name and parameters, and where a user's game is loaded from),
        for configs, records and processes."""
        spec: dict[str, Any] = {"name": self.name, "params": dict(self.params)}
        if self.source is not None:
            spec.update(self.source)
        return spec

    def max_length(self) -> int:
        """The most records (moves and chance outcomes) a game can have."""
        return self.MAX_LENGTH

    @abstractmethod
    def initial_state(self) -> State:
        """The position before the first move, for ``self.players`` seats."""

    def parse_move(self, text: str) -> Move:
        """The move written ``text`` in this game's notation; ``MoveSyntaxError`` if it is not one.
        (This default reads a move written as its number.)"""
        stripped = text.strip() if isinstance(text, str) else ""
        if not stripped.isdecimal() or not stripped.isascii() or len(stripped) > 18:
            raise self.syntax_error(text)
        return int(stripped)

    def format_move(self, move: Move) -> str:
        """The canonical notation of ``move``. (This default writes its number.)"""
        if type(move) is not int or move < 0:
            raise ValueError(f"{move!r} is not a {self.name} move")
        return str(move)

    def syntax_error(self, text: str) -> MoveSyntaxError:
        """The error for ``text`` that is not a move: it names the notation with an example."""
        return MoveSyntaxError(f"{text!r} is not a {self.name} move; {self.NOTATION}")

    def steps(self, state: State, moves: Iterable[str | Move]) -> Iterator[tuple[State, list[Move]]]:
        """Walk a record from ``state``: each state reached and the moves (one; for a
        simultaneous step, one for each acting seat) that lead from it to the next. The last
        state is yielded with no moves. ``IllegalMoveError`` names the record's entry at fault,
        ``MoveSyntaxError`` one that is not a move, ``ValueError`` a record cut inside a step."""
        pending = iter(moves)
        index = 0
        for first in pending:
            joint = state.to_move == SIMULTANEOUS
            step = [first, *(next(pending, None) for _ in range(len(state.actors()) - 1))] if joint else [first]
            ints: list[Move] = []
            for move in step:
                if move is None:
                    raise ValueError(f"the record ends inside the simultaneous step of entry {index + 1}")
                ints.append(self.parse_move(move) if isinstance(move, str) else move)
            yield state, ints
            try:
                state = state.play_joint(ints) if joint else state.play(ints[0])
            except IllegalMoveError as error:
                raise IllegalMoveError(f"ply {index + 1}: {error}") from None
            index += len(ints)
        yield state, []

    def advance(self, state: State, moves: Iterable[str | Move]) -> State:
        """The state after the record ``moves`` (text or ints) from ``state``, checking each."""
        for reached, step in self.steps(state, moves):
            if not step:
                return reached
        raise AssertionError("steps() always ends with the last state")

    def replay(self, moves: Iterable[str | Move]) -> State:
        """The state after playing ``moves`` (text or ints) from the start, checking each."""
        return self.advance(self.initial_state(), moves)


class State(ABC):
    """A position. Immutable to its users: ``play`` returns a new state.

    Every state knows its game, who acts now (``to_move``: a seat, ``CHANCE`` or
    ``SIMULTANEOUS``; ``actors()``), the legal moves, what each seat may know of it (``view``)
    and how the game ended (``returns``, ``outcome``). States are small, so ``play`` is a cheap
    copy that searching bots can call freely; ``random_playout`` is the fast path for
    Monte-Carlo bots.

    What a subclass writes: ``to_move``, ``ply`` (the records so far) and ``last_move``;
    ``legal_moves``, ``play``, ``is_terminal``, ``render``; and ``returns`` (or ``outcome``).
    A game with chance writes ``chance_outcomes``, one with simultaneous steps ``actors``,
    ``moves_of`` and ``play_joint``, one with hidden information ``view``; ``board`` is optional.
    One whose ``play`` may hand a child what its state holds (to spare a copy) writes ``shared``.
    """

    __slots__ = ()

    game: Game
    #: who acts: a seat (0 is the first), ``CHANCE`` or ``SIMULTANEOUS``
    to_move: int
    #: the last move played, or ``None`` at the start
    last_move: Move | None
    #: the number of records (moves and chance outcomes) so far
    ply: int

    @abstractmethod
    def legal_moves(self) -> list[Move]:
        """The legal moves of the seat to move (at a chance node, the outcomes), in increasing
        order; empty when the game is over."""

    @abstractmethod
    def play(self, move: Move) -> State:
        """The state after ``move``; ``IllegalMoveError`` saying why if it is not legal."""

    @property
    @abstractmethod
    def is_terminal(self) -> bool:
        """Whether the game is over."""

    @property
    def outcome(self) -> Outcome | None:
        """How the game ended, or ``None`` while it goes on (this default: from ``returns``)."""
        if not self.is_terminal:
            return None
        return Outcome.from_returns(self.returns())

    def returns(self) -> tuple[float, ...]:
        """What each seat got at the end, higher is better (equal returns tie); this default, for
        a game that writes ``outcome``: 1 for a win, 0.5 for a draw, 0 for a loss."""
        outcome = self.outcome
        if outcome is None:
            raise ValueError("the game is not over: it has no returns yet")
        if outcome.returns is not None:
            return outcome.returns
        return tuple(outcome.score(seat) for seat in range(self.game.players))

    def actors(self) -> tuple[int, ...]:
        """The seats that act now: one on a sequential turn, each that moves at a simultaneous
        step, none at a chance node or the end."""
        if self.to_move < 0 or self.is_terminal:
            return ()
        return (self.to_move,)

    def moves_of(self, seat: int) -> list[Move]:
        """The legal moves of ``seat`` now (at a simultaneous step, each acting seat has its own)."""
        return self.legal_moves() if seat in self.actors() else []

    def play_joint(self, moves: Sequence[Move]) -> State:
        """The state after a simultaneous step: ``moves`` holds one move of each seat of
        ``actors()``, in that order. (A game with simultaneous steps writes it.)"""
        if self.to_move != SIMULTANEOUS and len(moves) == 1:
            return self.play(moves[0])
        raise IllegalMoveError(f"{self.game.name} has no simultaneous steps")

    def chance_outcomes(self) -> list[tuple[Move, float]]:
        """At a chance node, each outcome the game can draw and its probability (positive, summing
        to 1); empty elsewhere."""
        return []

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may know of the state, as plain data (JSON-ready); ``None``: a
        spectator's (everything: replays show it once the game is over). This default, for games
        of perfect information: the whole state, ``to_dict()``."""
        return self.to_dict()

    def board(self) -> dict[str, Any] | None:
        """The position drawn as boards the terminal, the report and ``arena serve`` show without
        code of the game's own: ``{"boards": [{"rows": R, "cols": C, "cells": [...]}, ...]}``
        (docs/games.md, "Boards"); ``None``: the game shows its ``render()`` text."""
        return None

    @abstractmethod
    def render(self) -> str:
        """The position as readable text."""

    def board_data(self) -> dict[str, Any]:
        """The game-specific part of ``to_dict``: the board as plain data."""
        board = self.board()
        return {} if board is None else board

    def to_dict(self) -> dict[str, Any]:
        """The position as plain data (JSON-ready) for the HTML report and scripts."""
        game = self.game
        outcome = self.outcome
        data = {
            "game": game.name,
            "ply": self.ply,
            "to_move": self.to_move,
            "last_move": None if self.last_move is None else game.format_move(self.last_move),
            "legal": [game.format_move(m) for m in self.legal_moves()],
            "terminal": outcome is not None,
            "winner": None if outcome is None else outcome.winner,
            "points": None if outcome is None or outcome.points is None else list(outcome.points),
            **self.board_data(),
        }
        if game.players != 2 or self.to_move < 0 or (outcome is not None and outcome.returns is not None):
            data["actors"] = list(self.actors())
            data["returns"] = None if outcome is None else list(self.returns())
        return data

    def random_playout(self, rng: random.Random) -> Outcome:
        """Play uniformly random legal moves (chance outcomes by their probabilities) to the end;
        the outcome. ``self`` is unchanged. (This default walks ``play``; games make it fast.)"""
        state: State = self
        while not state.is_terminal:
            if state.to_move == CHANCE:
                outcomes = state.chance_outcomes()
                moves = [move for move, _ in outcomes]
                state = state.play(rng.choices(moves, [p for _, p in outcomes])[0])
            elif state.to_move == SIMULTANEOUS:
                state = state.play_joint([rng.choice(state.moves_of(seat)) for seat in state.actors()])
            else:
                state = state.play(rng.choice(state.legal_moves()))
        outcome = state.outcome
        assert outcome is not None
        return outcome

    def shared(self) -> State:
        """This position as a state that other threads may read while this thread plays on
        from it: the state itself where it never changes (as arena's own games'), a copy that
        lends nothing where its ``play`` may lend its children what it holds (OpenSpiel's)."""
        return self

    def forfeit_outcome(self, seat: int) -> Outcome:
        """The outcome if ``seat`` forfeits now: with two seats the opponent wins (and its course
        points); with more, ``seat`` finishes last and the others share first place."""
        players = self.game.players
        if players == 2:
            return WIN[1 - seat]
        return Outcome(None, None, tuple(0.0 if other == seat else 1.0 for other in range(players)))

    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` is legal here."""
        return move in self.legal_moves()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} ply={self.ply} to_move={self.to_move}>"


class View:
    """What a Python bot is given to move on where it may not see the whole state: in a game
    with hidden information (``data`` is its seat's ``State.view``, all it knows), or at a
    simultaneous step (then ``state`` is the whole state too, for a bot that searches). Its
    ``legal_moves()`` are the bot's own."""

    __slots__ = ("_legal", "acting", "data", "game", "ply", "seat", "state")

    def __init__(
        self,
        game: Game,
        seat: int,
        data: dict[str, Any],
        legal: list[Move],
        acting: Sequence[int],
        ply: int,
        state: State | None = None,
    ) -> None:
        self.game = game
        self.seat = seat
        self.data = data
        self._legal = legal
        self.acting = tuple(acting)
        self.ply = ply
        self.state = state

    @property
    def to_move(self) -> int:
        """The seat the bot plays (it is asked to move)."""
        return self.seat

    @property
    def is_terminal(self) -> bool:
        """Never: a bot is only asked to move while the game goes on."""
        return False

    def legal_moves(self) -> list[Move]:
        """The bot's legal moves, in increasing order."""
        return list(self._legal)

    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` is one of the bot's legal moves."""
        return move in self._legal

    def __repr__(self) -> str:
        return f"<View of seat {self.seat} ply={self.ply}>"


#: ``ResultState._result`` while the game goes on, and for a draw (else: the winning seat)
ONGOING, DRAWN = -1, 2


class ResultState(State):
    """A state that keeps how its game stands in one int, ``_result``: ``ONGOING``, the winning
    seat, or ``DRAWN`` (the tic-tac-toe family)."""

    __slots__ = ()

    _result: int
    #: the outcome of each ``_result`` but ``ONGOING``: seat 0 won, seat 1 won, a draw
    OUTCOMES: tuple[Outcome, Outcome, Outcome] = (WIN[0], WIN[1], DRAW)

    @property
    def is_terminal(self) -> bool:
        return self._result != ONGOING

    @property
    def outcome(self) -> Outcome | None:
        return None if self._result == ONGOING else self.OUTCOMES[self._result]


def _rebuild(cls: type[Game], params: dict[str, Any]) -> Game:
    """A game unpickled: made again from its class and parameters."""
    return cls(**params)
