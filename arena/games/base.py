"""The Game/State protocol every game implements, and the values that cross it.

A move is a plain ``int`` inside a process (fast to compare, hash and pickle) and its text
notation everywhere else (``Game.parse_move`` / ``Game.format_move``). Each game module
documents how its moves map to ints.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from arena.errors import ArenaError

Move = int


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
    """How a game ended: the winning seat (``None`` for a draw) and, where the game has them,
    each seat's points (xtreme: the course points)."""

    winner: int | None
    points: tuple[int, int] | None = None

    def result(self) -> str:
        """The result as a tournament table writes it: ``1-0``, ``0-1`` or ``½-½``."""
        return RESULTS[self.winner]

    def score(self, seat: int) -> float:
        """What ``seat`` scored: 1 for a win, 0.5 for a draw, 0 for a loss."""
        return 0.5 if self.winner is None else float(self.winner == seat)


#: the winner (``None``: a draw) -> the result as written
RESULTS = {0: "1-0", 1: "0-1", None: "½-½"}


WIN = (Outcome(0), Outcome(1))
DRAW = Outcome(None)


class Game(ABC):
    """A stateless game: it makes states and converts moves to and from text."""

    name: ClassVar[str]
    #: parameter name -> (default, allowed values); a game with none leaves it empty
    PARAMETERS: ClassVar[Mapping[str, tuple[Any, tuple[Any, ...]]]] = {}
    #: how moves are written, with an example, for error messages and help (set per instance
    #: where a parameter changes it)
    NOTATION: str
    #: what the two seats are called (first the one that moves first), and their one-letter marks
    SEATS: ClassVar[tuple[str, str]] = ("x", "o")
    MARKS: ClassVar[str] = "xo"

    @classmethod
    def seat_of(cls, word: str) -> int:
        """The seat ``word`` names: its name or mark (``x``, ``black``, ``b``), ``first`` or
        ``second``; ``ValueError`` otherwise."""
        word = word.strip().lower()
        names = {"first": 0, "second": 1, cls.SEATS[0]: 0, cls.SEATS[1]: 1, cls.MARKS[0]: 0, cls.MARKS[1]: 1}
        if word not in names:
            raise ValueError(
                f"{word!r} is no seat of {cls.name}: choose {cls.SEATS[0]}, {cls.SEATS[1]}, first or second"
            )
        return names[word]

    def __init__(self, **params: Any) -> None:
        unknown = sorted(set(params) - set(self.PARAMETERS))
        if unknown:
            known = ", ".join(sorted(self.PARAMETERS)) or "none"
            raise GameParameterError(
                f"game {self.name!r} has no parameter {', '.join(map(repr, unknown))}; its parameters: {known}"
            )
        resolved = {}
        for key, (default, allowed) in self.PARAMETERS.items():
            value = params.get(key, default)
            if not any(value == choice and type(value) is type(choice) for choice in allowed):
                raise GameParameterError(
                    f"game {self.name!r}: parameter {key!r} cannot be {value!r}; "
                    f"choose one of {', '.join(map(repr, allowed))}"
                )
            resolved[key] = value
        self.params: Mapping[str, Any] = resolved

    def __repr__(self) -> str:
        args = "".join(f", {k}={v!r}" for k, v in self.params.items() if v != self.PARAMETERS[k][0])
        return f"get_game({self.name!r}{args})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and (self.name, dict(self.params)) == (
            other.name,
            dict(other.params),
        )

    def __hash__(self) -> int:
        return hash((self.name, tuple(sorted(self.params.items()))))

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), dict(self.params)))

    def spec(self) -> dict[str, Any]:
        """The game as plain data (name and parameters), for configs, records and processes."""
        return {"name": self.name, "params": dict(self.params)}

    @abstractmethod
    def initial_state(self) -> State:
        """The position before the first move."""

    @abstractmethod
    def parse_move(self, text: str) -> Move:
        """The move written ``text`` in this game's notation; ``MoveSyntaxError`` if it is not one."""

    @abstractmethod
    def format_move(self, move: Move) -> str:
        """The canonical notation of ``move``."""

    def syntax_error(self, text: str) -> MoveSyntaxError:
        """The error for ``text`` that is not a move: it names the notation with an example."""
        return MoveSyntaxError(f"{text!r} is not a {self.name} move; {self.NOTATION}")

    def replay(self, moves: Iterable[str | Move]) -> State:
        """The state after playing ``moves`` (text or ints) from the start, checking each."""
        state = self.initial_state()
        for ply, move in enumerate(moves):
            if isinstance(move, str):
                move = self.parse_move(move)
            try:
                state = state.play(move)
            except IllegalMoveError as error:
                raise IllegalMoveError(f"ply {ply + 1}: {error}") from None
        return state


class State(ABC):
    """A position. Immutable to its users: ``play`` returns a new state.

    Every state knows its game, whose turn it is, the legal moves, and how the game ended.
    States are small (a few ints and tuples), so ``play`` is a cheap copy that searching bots
    can call freely; ``random_playout`` is the fast path for Monte-Carlo bots.
    """

    __slots__ = ()

    game: Game
    #: the seat to move: 0 (first player, ``x``/black) or 1
    to_move: int
    #: the last move played, or ``None`` at the start
    last_move: Move | None
    #: the number of moves played so far
    ply: int

    @abstractmethod
    def legal_moves(self) -> list[Move]:
        """The legal moves, in increasing order; empty when the game is over."""

    @abstractmethod
    def play(self, move: Move) -> State:
        """The state after ``move``; ``IllegalMoveError`` saying why if it is not legal."""

    @property
    @abstractmethod
    def is_terminal(self) -> bool:
        """Whether the game is over."""

    @property
    @abstractmethod
    def outcome(self) -> Outcome | None:
        """How the game ended, or ``None`` while it goes on."""

    @abstractmethod
    def render(self) -> str:
        """The position as readable text."""

    @abstractmethod
    def board_data(self) -> dict[str, Any]:
        """The game-specific part of ``to_dict``: the board as plain data."""

    def to_dict(self) -> dict[str, Any]:
        """The position as plain data (JSON-ready) for the HTML report and scripts."""
        game = self.game
        outcome = self.outcome
        return {
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

    @abstractmethod
    def random_playout(self, rng: random.Random) -> Outcome:
        """Play uniformly random legal moves to the end; the outcome. ``self`` is unchanged."""

    def forfeit_outcome(self, seat: int) -> Outcome:
        """The outcome if ``seat`` forfeits now: the opponent wins (and its course points)."""
        return WIN[1 - seat]

    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` is legal here."""
        return move in self.legal_moves()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} ply={self.ply} to_move={self.to_move}>"


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
