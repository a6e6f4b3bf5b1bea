"""The conformance checker: ``check_game(game)`` tests a game against the contract of
arena/games/base.py by playing it, and reports each check passed or failed (with what was done
and what went wrong, in the game's own notation) and a few figures. ``arena game check`` prints
it; a game of one's own runs it in its tests.

Every check works for any game (any number of seats, chance nodes, simultaneous steps, hidden
information). They play random games from seeds 0, 1, ... (a seeded ``random.Random``: uniform
legal moves, chance outcomes drawn by their probabilities; ``random_game`` gives the record of
one), each stopped after ``max_length() + 1`` records, and look closer at states sampled from
them:

- ``contract``: ``name``, ``PLAYERS``, ``max_length() > 0``, a start whose ``to_move`` is a seat,
  ``CHANCE`` or ``SIMULTANEOUS``, a state class that writes ``returns`` or ``outcome``;
- ``playouts``: each random game ends within ``max_length()`` records, ``ply`` counts them, and
  the end gives ``returns()`` of one finite number a seat and an ``outcome`` that agrees;
- ``determinism``: the same seed plays the same record twice, and ``Game.replay`` of its text
  reaches the same state (its ``view(None)`` and ``returns()``): a game that draws from the
  ``random`` module, reads the clock or keeps state between games fails;
- ``json``: each seat's ``view(seat)``, ``view(None)`` and ``to_dict()`` come back from JSON
  unchanged;
- ``legal-moves``: every legal move (each acting seat's; at a chance node every outcome)
  plays, leaving the state it was played on alone; moves not legal there (-1, a large int,
  moves legal elsewhere) and any move after the end raise ``IllegalMoveError``;
- ``notation``: ``parse_move(format_move(m)) == m`` for every legal move, surrounding spaces
  ignored, a move's text is one printable line, and text that is no move raises
  ``MoveSyntaxError``;
- ``chance``: at chance nodes, distinct outcomes, the legal moves, with probabilities above 0
  that sum to 1 (within 1e-9); no outcomes elsewhere;
- ``simultaneous``: ``actors()`` is the seat to move on a turn, none at a chance node or the
  end, and at a simultaneous step some seats in increasing order, each with legal moves
  (``moves_of``), one of each making a step ``play_joint`` plays; ``moves_of`` of a seat that
  does not act is empty;
- ``views`` (a game with ``HIDDEN``): see below.

A check that meets an exception in the game's code fails with it and the line of the game's
code it came from; the checker itself never stops. A game played by several seat counts is
checked with the fewest and the most (at most ``MAX_SEATS``).

The views. Arena cannot know which part of a state is whose, so it tests what every correct view
satisfies, never what a view ought to show. At states of the random games it plays, beside the
random game's own step, other legal moves and other chance outcomes (one seat's move changed at
a simultaneous step), and compares the views of the states these reach:

1. Something is hidden. At every state in turn, until it finds two results that some view tells
   apart (another seat's, or the spectator's ``view(None)``) and some seat's view does not, or
   has compared ``HIDDEN_VIEWS`` views. If it finds none, each seat's view shows every card dealt
   and every move made, the others' hands included: a game that declares ``HIDDEN`` fails.
2. A seat's view holds what the seat is told. At sampled states, where a seat cannot tell the
   random game's step from another (its views are equal), the rest of the random game's record
   is played on both (while its steps stay legal) for as long as the seat's views stay equal,
   and wherever the seat acts in both it must be given the same ``actors()`` and
   ``moves_of(seat)``: arena sends these with the view, so else they tell the seat what its
   view hides (or the view leaves out what the seat's moves depend on, such as its own hand).

Neither fails a correct game: (1) fails only a game in whose random games nothing ever was kept
from a seat, and (2) compares a view only with what arena itself tells the seat beside it.
Left untested, because no rule without the game's own knowledge tells them from correct games: a
view that hides something but not the right thing (shows the other hands, hides the deck), and a
hidden thing shown later than it should be (a correct game shows hidden things by its rules: a
showdown, a shot that hits; the same steps then give a seat different views).

The figures: perft (the number of distinct records of 1, 2, ... plies, each chance outcome a
branch and a simultaneous step one ply with a branch for each combination of the actors'
moves; as many plies as fit in the time budget), random playouts a second (the plain walk of
``play``, within the time budget), and the mean length of the random games in records.
"""

from __future__ import annotations

import itertools
import json
import math
import numbers
import os
import random
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from arena.games.base import CHANCE, SIMULTANEOUS, Game, IllegalMoveError, Move, MoveSyntaxError, Outcome, State

#: the most seats a game is checked with (a game played by more is checked with this many)
MAX_SEATS = 6
#: random games played by default
SEEDS = 20
#: the seconds each timed figure (perft, playouts a second) may take, by default
TIME_BUDGET = 1.0
#: how far the sum of a chance node's probabilities may be from 1
TOLERANCE = 1e-9
#: the checks, in the order they run and are reported
CHECKS = ("contract", "playouts", "determinism", "json", "legal-moves", "notation", "chance", "simultaneous", "views")
#: text that is no move in any notation
GARBAGE = ("", "%%not a move%%", "\u2603\u2603\u2603")
#: states sampled from each random game for the closer checks, besides its first and last
SAMPLED = 6
#: chance nodes and simultaneous steps checked in each random game, at most
NODES = 40
#: the views check: other steps played at a sampled state, at most; how far a branch a seat cannot
#: tell from the random game's is followed; and how many views it compares on such branches in all
ALTERNATIVES = 8
FOLLOWED = 30
FOLLOWED_VIEWS = 6000
#: the most views the views check compares looking for something a seat's view hides
HIDDEN_VIEWS = 20000
#: the deepest perft
PERFT_DEPTH = 12
#: what a check says of a game that depends on more than its seed
UNSEEDED = (
    "the game depends on something other than its moves and chance outcomes (the random module, the time, a global?)"
)

T = TypeVar("T")


@dataclass(frozen=True)
class Check:
    """One check's result: its ``name`` (one of ``CHECKS``), whether it ``passed``, and its
    ``message``: for a failure what was done and what went wrong, for a pass what was covered;
    ``players``: the number of seats the game was checked with."""

    name: str
    passed: bool
    message: str
    players: int

    def to_dict(self) -> dict[str, Any]:
        """The check as plain data."""
        return {"name": self.name, "players": self.players, "passed": self.passed, "message": self.message}


@dataclass(frozen=True)
class Figure:
    """A measurement, not a verdict: ``perft`` (the records of 1, 2, ... plies), ``playouts per
    second`` or ``mean length`` (records), with ``players`` seats; ``None`` where it failed."""

    name: str
    value: float | list[int] | None
    players: int

    def text(self) -> str:
        """The value as a table shows it."""
        if self.value is None:
            return "-"
        if isinstance(self.value, list):
            return ", ".join(f"{count:,}" for count in self.value) or "-"
        if self.name == "playouts per second":
            return f"{self.value:,.0f}"
        return f"{self.value:.1f}"

    def to_dict(self) -> dict[str, Any]:
        """The figure as plain data."""
        return {"name": self.name, "players": self.players, "value": self.value}


@dataclass
class Report:
    """What ``check_game`` found: its checks and figures, for each seat count it checked."""

    game: str
    checks: list[Check] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """Whether every check passed."""
        return all(check.passed for check in self.checks)

    @property
    def seat_counts(self) -> list[int]:
        """The seat counts the game was checked with."""
        return sorted({check.players for check in self.checks})

    def failures(self) -> list[Check]:
        """The checks that failed."""
        return [check for check in self.checks if not check.passed]

    def label(self, item: Check | Figure) -> str:
        """A check's or figure's name, with its seat count when the game was checked with several."""
        return item.name if len(self.seat_counts) < 2 else f"{item.name} ({item.players} seats)"

    def summary(self) -> str:
        """A line for each failure, ``FAIL check: message``, or that every check passed."""
        if self.passed:
            return f"{self.game}: all {len(self.checks)} checks passed"
        return "\n".join(f"FAIL {self.label(check)}: {check.message}" for check in self.failures())

    def to_dict(self) -> dict[str, Any]:
        """The report as plain data."""
        return {
            "game": self.game,
            "passed": self.passed,
            "checks": [check.to_dict() for check in self.checks],
            "figures": [figure.to_dict() for figure in self.figures],
        }


class Fault(Exception):
    """A check's finding: the game breaks the contract, as the message says."""


def check_game(
    game: Game, seeds: int = SEEDS, *, seat_counts: Sequence[int] | None = None, time_budget: float = TIME_BUDGET
) -> Report:
    """Check ``game`` against the contract with ``seeds`` random games: every check of ``CHECKS``
    and the figures, with each seat count of ``seat_counts`` (by default the game's own and, for a
    game played by several, the fewest and the most, at most ``MAX_SEATS``); ``time_budget``:
    the seconds each timed figure may take."""
    report = Report(title(game))
    players = type(game).PLAYERS
    low, high = players if _is_players(players) else (game.players, game.players)
    counts = sorted(set(seat_counts or {low, game.players, max(low, min(high, MAX_SEATS))}))
    saved = random.getstate()  # the checks seed the random module, to expose a game that draws from it
    try:
        for count in counts:
            _check_seat_count(game, count, max(1, seeds), time_budget, report)
    finally:
        random.setstate(saved)
    return report


def title(game: Game) -> str:
    """The game's name, with its parameters that are not their default."""
    try:
        defaults = game._defaults()
        changed = [f"{key} {value!r}" for key, value in game.params.items() if value != defaults.get(key)]
    except Exception:
        changed = []
    return f"{game.name} ({', '.join(changed)})" if changed else str(game.name)


def random_game(game: Game, seed: int) -> list[str]:
    """The record (move texts) of the random game the checks play from ``seed``."""
    walk = _walk(game, seed, game.max_length())
    if walk.error is not None:
        raise walk.error
    return [game.format_move(move) for step in walk.steps for move in step]


def _is_players(value: object) -> bool:
    return (
        isinstance(value, tuple)
        and len(value) == 2
        and all(type(count) is int for count in value)
        and 1 <= value[0] <= value[1]
    )


def _check_seat_count(game: Game, players: int, seeds: int, budget: float, report: Report) -> None:
    """Every check and figure of ``game`` with ``players`` seats, added to ``report``."""
    if players != game.players:
        try:
            game = type(game)(**{**game.params, "players": players})
        except Exception as error:
            failed = f"making the game with {players} seats raised {_describe(error, _files(game))}"
            report.checks.append(Check("contract", False, failed, players))
            return
    run = _Run(game, seeds)
    report.checks.extend(run.check(name) for name in CHECKS)
    report.figures.append(Figure("perft", run.perft(budget), players))
    report.figures.append(Figure("playouts per second", run.speed(budget), players))
    report.figures.append(Figure("mean length", run.mean_length(), players))


# ---------------------------------------------------------------- random games


@dataclass
class _Walk:
    """A random game: ``states[k]`` is the state before step ``k`` (``steps[k]``: a move, or one
    of each actor), the last state where it stopped; ``error``: what stopped it early."""

    seed: int
    states: list[State] = field(default_factory=list)
    steps: list[list[Move]] = field(default_factory=list)
    #: the records played before each state
    plies: list[int] = field(default_factory=list)
    error: Exception | None = None

    @property
    def records(self) -> int:
        """The records played (a simultaneous step is one a seat)."""
        return sum(len(step) for step in self.steps)

    @property
    def last(self) -> State:
        return self.states[-1]


def _probabilities(weights: Sequence[Any]) -> bool:
    """Whether ``weights`` are numbers above 0 (not whether they sum to 1)."""
    return all(_finite(weight) and float(weight) > 0 for weight in weights)


def _finite(value: object) -> bool:
    """Whether ``value`` is a finite number (not a bool)."""
    if isinstance(value, bool):
        return False
    return isinstance(value, numbers.Real) and math.isfinite(float(value))


def _random_step(state: State, rng: random.Random) -> list[Move]:
    """A random step at ``state``: a legal move, a chance outcome drawn by its probability, or
    at a simultaneous step a legal move of each actor."""
    if state.to_move == CHANCE:
        outcomes = state.chance_outcomes()
        if not outcomes:
            raise Fault("is a chance node (to_move is CHANCE) with no chance_outcomes()")
        moves = [move for move, _ in outcomes]
        weights = [weight for _, weight in outcomes]
        # probabilities that are none are the chance check's to report: then draw uniformly
        return [rng.choices(moves, weights)[0] if _probabilities(weights) else rng.choice(moves)]
    if state.to_move == SIMULTANEOUS:
        actors = state.actors()
        if not actors:
            raise Fault("is a simultaneous step (to_move is SIMULTANEOUS) with no actors()")
        step = []
        for seat in actors:
            moves = state.moves_of(seat)
            if not moves:
                raise Fault(f"is a simultaneous step where seat {seat} acts with no moves_of({seat})")
            step.append(rng.choice(moves))
        return step
    legal = state.legal_moves()
    if not legal:
        raise Fault(f"has seat {state.to_move} to move and the game is not over, but legal_moves() is empty")
    return [rng.choice(legal)]


def _apply(state: State, step: Sequence[Move]) -> State:
    """The state after ``step``: a move, or at a simultaneous step one of each actor."""
    if state.to_move == SIMULTANEOUS or len(step) != 1:
        return state.play_joint(list(step))
    return state.play(step[0])


def _walk(game: Game, seed: int, limit: int) -> _Walk:
    """The random game of ``seed``, stopped at its end, after more than ``limit`` records, or at
    an error (kept in the walk, with the states before it)."""
    rng = random.Random(seed)
    walk = _Walk(seed)
    records = 0
    try:
        state = game.initial_state()
        walk.states.append(state)
        walk.plies.append(records)
        while records <= limit and not state.is_terminal:
            step = _random_step(state, rng)
            state = _apply(state, step)
            records += len(step)
            walk.steps.append(step)
            walk.states.append(state)
            walk.plies.append(records)
    except Fault as fault:
        walk.error = Fault(f"ply {records} of the random game with seed {seed} {fault}")
    except Exception as error:
        walk.error = error
    return walk


def _records(walk: _Walk, index: int) -> int:
    """The records played before state ``index`` of ``walk``."""
    return walk.plies[index] if index < len(walk.plies) else walk.records


def _sample(walk: _Walk) -> list[int]:
    """The indexes of the states of ``walk`` the closer checks look at: its first, its last and
    ``SAMPLED`` between (the same for the same seed)."""
    count = len(walk.states)
    if count <= SAMPLED + 2:
        return list(range(count))
    return [0, *sorted(random.Random(walk.seed).sample(range(1, count - 1), SAMPLED)), count - 1]


# ---------------------------------------------------------------- describing what happened


def _short(value: object, limit: int = 120) -> str:
    return _clip(repr(value), limit)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _files(game: Game) -> list[str]:
    """The source files of the game's classes and of its start's, arena's base left out."""
    classes: list[type] = [*type(game).__mro__]
    try:
        classes += type(game.initial_state()).__mro__
    except Exception:
        pass
    found: list[str] = []
    for cls in classes:
        path = getattr(sys.modules.get(cls.__module__), "__file__", None)
        if path and cls.__module__ != "arena.games.base" and path not in found:
            found.append(path)
    return found


def _describe(error: BaseException, files: Sequence[str]) -> str:
    """``error`` as ``Type: message``, with the line of the game's code it came from: the last
    frame in one of ``files`` (else the last outside this module)."""
    frames = traceback.extract_tb(error.__traceback__)
    frame = next((f for f in reversed(frames) if f.filename in files), None)
    frame = frame or next((f for f in reversed(frames) if f.filename != __file__), None)
    text = f"{type(error).__name__}: {_clip(str(error), 300)}"
    if frame is not None:
        path = os.path.relpath(frame.filename) if os.path.isabs(frame.filename) else frame.filename
        path = frame.filename if path.startswith("..") else path
        text += f" (at {path}:{frame.lineno}, in {frame.name}" + (f": {frame.line.strip()})" if frame.line else ")")
    return text


def _canonical(data: object) -> str:
    """``data`` as text, equal exactly when the data is (to compare and group views)."""
    try:
        return json.dumps(data, sort_keys=True, default=repr)
    except (TypeError, ValueError):
        return repr(data)


def _difference(before: object, after: object, path: str = "") -> str | None:
    """Where ``after`` first differs from ``before`` (types too), or ``None``."""
    where = path or "the top"
    if type(before) is not type(after):
        return (
            f"at {where}: {type(before).__name__} {_short(before, 60)} became "
            f"{type(after).__name__} {_short(after, 60)}"
        )
    if isinstance(before, dict) and isinstance(after, dict):
        for key in before:
            if key not in after:
                return f"at {where}: key {key!r} ({type(key).__name__}) is gone"
            found = _difference(before[key], after[key], f"{path}[{key!r}]")
            if found:
                return found
        extra = [key for key in after if key not in before]
        return f"at {where}: key {extra[0]!r} is new" if extra else None
    if isinstance(before, list) and isinstance(after, list):
        for index, (one, other) in enumerate(zip(before, after)):
            found = _difference(one, other, f"{path}[{index}]")
            if found:
                return found
        return f"at {where}: {len(before)} items became {len(after)}" if len(before) != len(after) else None
    return f"at {where}: {_short(before, 60)} became {_short(after, 60)}" if before != after else None


# ---------------------------------------------------------------- the checks


class _Run:
    """The checks and figures of one game with one seat count, sharing its random games."""

    def __init__(self, game: Game, seeds: int) -> None:
        self.game = game
        self.players = game.players
        self.seeds = seeds
        self.files = _files(game)
        self.limit = self._limit()
        self._walks: list[_Walk] | None = None
        #: the views check's views left to compare on branches it follows, and the random games'
        #: views it compared, by (seed, index, seat)
        self.budget = 0
        self.seen: dict[tuple[int, int, int], str] = {}

    def _limit(self) -> int:
        try:
            limit = self.game.max_length()
        except Exception:
            return 0
        return limit if type(limit) is int and limit > 0 else 0

    @property
    def walks(self) -> list[_Walk]:
        """The random games of seeds 0, 1, ..., played once (the random module seeded)."""
        if self._walks is None:
            self._walks = []
            for seed in range(self.seeds):
                random.seed(f"first {seed}")
                self._walks.append(_walk(self.game, seed, self.limit))
        return self._walks

    def check(self, name: str) -> Check:
        """Run the check ``name``: passed with what it covered, or failed with why."""
        method: Callable[[], str] = getattr(self, "check_" + name.replace("-", "_"))
        try:
            covered = method()
        except Fault as fault:
            return Check(name, False, str(fault), self.players)
        except Exception as error:  # (the game's code is called through ``call``, which says what was done)
            return Check(name, False, f"checking raised {_describe(error, self.files)}", self.players)
        return Check(name, True, covered, self.players)

    def call(self, what: str, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` (the game's code): an exception fails the check, saying ``what``
        was done and the line of the game's code that raised it."""
        try:
            return function(*args)
        except Fault:
            raise
        except Exception as error:
            raise Fault(f"{what} raised {_describe(error, self.files)}") from None

    def get(self, state: State, name: str, where: str) -> Any:
        """The attribute (or property) ``name`` of ``state``, read as ``call`` calls."""
        return self.call(f"{name} at {where}", getattr, state, name)

    def view(self, state: State, seat: int | None, where: str) -> str:
        """``state.view(seat)`` as canonical text."""
        return _canonical(self.call(f"view({seat}) at {where}", state.view, seat))

    def text(self, move: Move) -> str:
        """``move`` as the game writes it, quoted (its int where it cannot)."""
        try:
            return repr(self.game.format_move(move))
        except Exception:
            return repr(move)

    def texts(self, moves: Sequence[Move], limit: int = 200) -> str:
        return _clip("[" + ", ".join(self.text(move) for move in moves) + "]", limit)

    def step_text(self, step: Sequence[Move]) -> str:
        """A step as text: its move, or the list of the actors' moves."""
        return self.text(step[0]) if len(step) == 1 else self.texts(step)

    def where(self, walk: _Walk, index: int) -> str:
        """Where state ``index`` of ``walk`` is, in words."""
        return f"ply {_records(walk, index)} of the random game with seed {walk.seed}"

    def bound(self) -> str:
        name = "MAX_LENGTH" if type(self.game).max_length is Game.max_length else "max_length()"
        return f"{name} = {self.limit}"

    def sampled(self) -> Iterator[tuple[_Walk, int, State, str]]:
        """The sampled states of every random game: its walk, index, state and where it is."""
        for walk in self.walks:
            for index in _sample(walk):
                yield walk, index, walk.states[index], self.where(walk, index)

    def nodes(self, kind: int) -> Iterator[tuple[_Walk, int, State, str]]:
        """The states of the random games whose ``to_move`` is ``kind`` (``NODES`` a game at most)."""
        for walk in self.walks:
            found = 0
            for index, state in enumerate(walk.states[:-1]):  # (the last is the end, or where it stopped)
                if found < NODES and state.to_move == kind:
                    found += 1
                    yield walk, index, state, self.where(walk, index)

    def moves_at(self, state: State, where: str) -> list[Move]:
        """The moves that can be played at ``state``: the legal moves, the chance outcomes, or at
        a simultaneous step each actor's."""
        if state.to_move == CHANCE:
            return [move for move, _ in self.call(f"chance_outcomes() at {where}", state.chance_outcomes)]
        if state.to_move == SIMULTANEOUS:
            return [move for seat in self.actors(state, where) for move in self.moves_of(state, seat, where)]
        return list(self.call(f"legal_moves() at {where}", state.legal_moves))

    def actors(self, state: State, where: str) -> tuple[int, ...]:
        return tuple(self.call(f"actors() at {where}", state.actors))

    def moves_of(self, state: State, seat: int, where: str) -> list[Move]:
        return list(self.call(f"moves_of({seat}) at {where}", state.moves_of, seat))

    # ------------------------------------------------------------ contract

    def check_contract(self) -> str:
        game, cls = self.game, type(self.game)
        if not isinstance(getattr(cls, "name", None), str) or not cls.name.strip():
            raise Fault(f"the game class {cls.__name__} has no name: set name = 'mygame'")
        if not _is_players(cls.PLAYERS):
            raise Fault(f"PLAYERS must be (fewest, most) seats, two ints from 1 up, not {cls.PLAYERS!r}")
        if game.players not in range(cls.PLAYERS[0], cls.PLAYERS[1] + 1):
            raise Fault(f"game.players is {game.players!r}, outside PLAYERS {cls.PLAYERS!r}")
        if not isinstance(game.NOTATION, str) or not game.NOTATION.strip():
            raise Fault(f"NOTATION is {game.NOTATION!r}: say how a move is written, with an example (e.g. '3')")
        length = self.call("max_length()", game.max_length)
        if type(length) is not int or length <= 0:
            raise Fault(
                f"max_length() is {length!r}: set MAX_LENGTH (or write max_length()) to the most records "
                "(moves and chance outcomes) a game can have"
            )
        state = self.call("initial_state()", game.initial_state)
        if not isinstance(state, State):
            raise Fault(f"initial_state() returned {_short(state)}, not a State")
        kind = type(state)
        below = kind.__mro__[: kind.__mro__.index(State)] if State in kind.__mro__ else ()
        if not any("returns" in vars(cls) or "outcome" in vars(cls) for cls in below):
            raise Fault(
                f"{kind.__name__} writes neither returns() nor outcome: write returns(), each seat's result at the "
                "end (higher is better), or outcome"
            )
        to_move = self.get(state, "to_move", "the start")
        if not (type(to_move) is int and (to_move in (CHANCE, SIMULTANEOUS) or 0 <= to_move < game.players)):
            raise Fault(
                f"at the start to_move is {to_move!r}: it must be a seat (0 to {game.players - 1}), CHANCE or "
                "SIMULTANEOUS"
            )
        ply = self.get(state, "ply", "the start")
        if ply != 0:
            raise Fault(f"at the start ply is {ply!r}, not 0 (ply counts the records so far)")
        last = self.get(state, "last_move", "the start")
        if last is not None:
            raise Fault(f"at the start last_move is {last!r}, not None")
        return f"{cls.name}, {game.players} seats, {self.bound()}"

    # ------------------------------------------------------------ playouts

    def check_playouts(self) -> str:
        for walk in self.walks:
            if isinstance(walk.error, Fault):
                raise walk.error
            if walk.error is not None:
                raise Fault(f"playing {self.where(walk, len(walk.steps))} raised {_describe(walk.error, self.files)}")
            for index, state in enumerate(walk.states):
                self.check_state(state, walk, index)
            where, records = self.where(walk, len(walk.steps)), walk.records
            if not walk.last.is_terminal:
                raise Fault(
                    f"the random game with seed {walk.seed} did not end within {self.bound()} records "
                    f"(it began {self.texts([move for step in walk.steps[:10] for move in step], 120)})"
                )
            if records > self.limit:
                raise Fault(
                    f"the random game with seed {walk.seed} ended after {records} records, more than {self.bound()}"
                )
            self.check_end(walk.last, f"the end ({where})")
        lengths = [walk.records for walk in self.walks]
        return f"{len(lengths)} games ended, {min(lengths)} to {max(lengths)} records"

    def check_state(self, state: State, walk: _Walk, index: int) -> None:
        """A state of a random game: ``to_move`` a seat or a kind of step, ``ply`` the records so
        far, and no outcome while the game goes on."""
        where = self.where(walk, index)
        to_move = self.get(state, "to_move", where)
        if index < len(walk.steps) and not (
            type(to_move) is int and (to_move in (CHANCE, SIMULTANEOUS) or 0 <= to_move < self.players)
        ):
            raise Fault(f"at {where} to_move is {to_move!r}: a seat (0 to {self.players - 1}), CHANCE or SIMULTANEOUS")
        ply, records = self.get(state, "ply", where), _records(walk, index)
        if ply != records:
            raise Fault(f"at {where} ply is {ply!r}, but {records} records were played (ply counts them)")
        if index < len(walk.steps):
            outcome = self.get(state, "outcome", where)
            if outcome is not None:
                raise Fault(f"at {where} the game goes on (is_terminal is False), but its outcome is {outcome!r}")

    def check_end(self, state: State, where: str) -> None:
        """A finished game: no legal moves nor actors, a finite return for each seat, and an
        outcome that agrees with them."""
        legal = self.call(f"legal_moves() at {where}", state.legal_moves)
        if list(legal):
            raise Fault(f"at {where} legal_moves() is {self.texts(legal)}: it must be empty once the game is over")
        actors = self.actors(state, where)
        if actors:
            raise Fault(f"at {where} actors() is {actors!r}: nobody acts once the game is over")
        returns: object = self.call(f"returns() at {where}", state.returns)
        if not isinstance(returns, (tuple, list)) or len(returns) != self.players:
            raise Fault(f"at {where} returns() is {_short(returns)}: one number for each of the {self.players} seats")
        if not all(_finite(value) for value in returns):
            raise Fault(f"at {where} returns() is {_short(returns)}: each must be a finite number")
        outcome = self.get(state, "outcome", where)
        if not isinstance(outcome, Outcome):
            raise Fault(f"at {where} outcome is {_short(outcome)}, not an Outcome")
        winner = outcome.winner
        if winner is not None and not (type(winner) is int and 0 <= winner < self.players):
            raise Fault(f"at {where} the outcome's winner is {winner!r}: a seat (0 to {self.players - 1}) or None")
        if outcome.returns is not None and [float(v) for v in outcome.returns] != [float(v) for v in returns]:
            raise Fault(f"at {where} returns() is {_short(returns)}, but the outcome's are {_short(outcome.returns)}")
        if outcome.points is not None and len(outcome.points) != self.players:
            raise Fault(f"at {where} the outcome's points {_short(outcome.points)} are not one for each seat")
        best = max(returns)
        first = [seat for seat, value in enumerate(returns) if value == best]
        if winner is not None and first != [winner]:
            raise Fault(
                f"at {where} the winner is seat {winner}, but returns() is {_short(returns)}: the winner must have "
                "the highest return, alone"
            )
        if winner is None and len(first) == 1:
            raise Fault(
                f"at {where} the outcome has no winner, but returns() is {_short(returns)}, where seat {first[0]} "
                f"alone has the highest: the outcome's winner must be seat {first[0]}"
            )

    # ------------------------------------------------------------ determinism

    def record(self, walk: _Walk) -> list[str] | list[Move]:
        """The record of ``walk`` as text, or as ints where its text does not read back as its
        moves (the notation check reports that)."""
        moves = [move for step in walk.steps for move in step]
        try:
            texts = [self.game.format_move(move) for move in moves]
            if [self.game.parse_move(text) for text in texts] == moves:
                return texts
        except Exception:
            pass
        return moves

    def check_determinism(self) -> str:
        compared = 0
        for walk in self.walks:
            if walk.error is not None:
                continue  # the playouts check reports it
            random.seed(f"second {walk.seed}")
            again = _walk(self.game, walk.seed, self.limit)
            if again.error is not None:
                raise Fault(
                    f"the random game with seed {walk.seed}, played again, raised {_describe(again.error, self.files)}"
                    f", though not the first time: {UNSEEDED}"
                )
            moves = [move for step in walk.steps for move in step]
            repeated = [move for step in again.steps for move in step]
            if moves != repeated:
                told = self.difference(moves, repeated)
                raise Fault(
                    f"the random game with seed {walk.seed} went differently when played again: {told}: {UNSEEDED}"
                )
            self.same_state(walk, again.last, "played again")
            record = self.record(walk)
            random.seed(f"replay {walk.seed}")
            replayed = self.call(f"game.replay() of the random game with seed {walk.seed}", self.game.replay, record)
            self.same_state(walk, replayed, "replayed from its record (game.replay)")
            compared += 1
        return f"{compared} games played twice and replayed"

    def difference(self, first: list[Move], second: list[Move]) -> str:
        """Where the record ``second`` first leaves the record ``first``, in words."""
        at = next((i for i, pair in enumerate(zip(first, second)) if pair[0] != pair[1]), min(len(first), len(second)))
        one = self.text(first[at]) if at < len(first) else ""
        other = self.text(second[at]) if at < len(second) else ""
        if one and other:
            return f"at ply {at} it played {one} the first time, {other} the second"
        if one:
            return f"the first time it went on at ply {at} with {one}, the second it ended there"
        return f"the first time it ended after {at} records, the second it went on with {other}"

    def same_state(self, walk: _Walk, other: State, how: str) -> None:
        """``other`` must show what the last state of ``walk`` shows: its ``view(None)``, and at
        the end its ``returns()``."""
        last, where = walk.last, f"the random game with seed {walk.seed}"
        view = self.call(f"view(None) at the end of {where}", last.view, None)
        seen = self.call(f"view(None) at the end of {where}, {how}", other.view, None)
        if _canonical(view) != _canonical(seen):
            change = _difference(view, seen) or "in its text"
            raise Fault(f"{where}, {how}, reaches a different state: view(None) differs {change}: {UNSEEDED}")
        if last.is_terminal:
            returns = self.call(f"returns() at the end of {where}", last.returns)
            again = self.call(f"returns() at the end of {where}, {how}", other.returns)
            if list(returns) != list(again):
                raise Fault(f"{where}, {how}, ends with returns() {_short(again)}, not {_short(returns)}: {UNSEEDED}")

    # ------------------------------------------------------------ json

    def check_json(self) -> str:
        count = 0
        for _, _, state, where in self.sampled():
            for seat in [*range(self.players), None, "to_dict"]:
                label = "to_dict()" if seat == "to_dict" else f"view({seat})"
                if seat == "to_dict":
                    data = self.call(f"to_dict() at {where}", state.to_dict)
                else:
                    data = self.call(f"{label} at {where}", state.view, seat)
                try:
                    back = json.loads(json.dumps(data, allow_nan=False))
                except (TypeError, ValueError) as error:
                    raise Fault(f"{label} at {where} is not JSON: {error}") from None
                change = _difference(data, back)
                if change:
                    raise Fault(
                        f"{label} at {where} changes through JSON {change}: write plain data (dicts with text keys, "
                        "lists, text, numbers, true/false, null)"
                    )
                count += 1
        return f"{count} views and to_dict() at {count // (self.players + 2)} states"

    # ------------------------------------------------------------ legal moves

    def check_legal_moves(self) -> str:
        states = moves = 0
        for walk in self.walks:
            pool = sorted({move for step in walk.steps for move in step})  # moves legal somewhere
            rng = random.Random(walk.seed)
            for index in _sample(walk):
                state, where = walk.states[index], self.where(walk, index)
                if self.get(state, "is_terminal", where):
                    self.refused_after_end(state, where, pool)
                    continue
                before = self.view(state, None, where)
                if state.to_move == SIMULTANEOUS:
                    moves += self.legal_joint(state, where, pool, rng)
                else:
                    moves += self.legal_single(state, where, pool, rng)
                if self.view(state, None, where) != before:
                    raise Fault(
                        f"playing the legal moves at {where} changed the state they were played on (its "
                        "view(None)): play must return a new state and leave its own alone"
                    )
                states += 1
        return f"{moves} legal moves played at {states} states, illegal ones refused"

    def illegal(self, legal: Sequence[Move], pool: Sequence[Move], rng: random.Random) -> list[Move]:
        """A few ints not in ``legal``: -1, a large int, and moves legal elsewhere."""
        elsewhere = [move for move in pool if move not in legal]
        return [move for move in (-1, 10**9) if move not in legal] + rng.sample(elsewhere, min(3, len(elsewhere)))

    def refused(self, what: str, why: str, function: Callable[..., object], *args: Any) -> IllegalMoveError:
        """The ``IllegalMoveError`` that ``function(*args)``, playing ``what``, must raise because ``why``."""
        try:
            function(*args)
        except IllegalMoveError as error:
            return error
        except Exception as error:
            raise Fault(f"{what} raised {_describe(error, self.files)} instead of IllegalMoveError") from None
        raise Fault(f"{what} was accepted, but {why}: play must raise IllegalMoveError for it")

    def refused_after_end(self, state: State, where: str, pool: Sequence[Move]) -> None:
        for move in [*pool, 0][:2]:
            self.refused(f"play({self.text(move)}) at the end ({where})", "the game is over", state.play, move)

    def legal_single(self, state: State, where: str, pool: Sequence[Move], rng: random.Random) -> int:
        """Every legal move (or chance outcome) at ``state`` plays; a few others are refused."""
        chance = state.to_move == CHANCE
        legal = self.moves_at(state, where)
        if not chance and any(type(move) is not int for move in legal):
            raise Fault(f"legal_moves() at {where} is {_short(legal)}: a move is an int")
        if not chance and legal != sorted(set(legal)):
            raise Fault(f"legal_moves() at {where} is {self.texts(legal)}: each legal move once, in increasing order")
        for move in legal:
            text = self.text(move)
            after = self.call(f"play({text}) at {where}", state.play, move)
            if not isinstance(after, State) or after is state:
                raise Fault(f"play({text}) at {where} returned {_short(after)}: it must return a new State")
            if not chance and not self.call(f"is_legal({text}) at {where}", state.is_legal, move):
                raise Fault(f"is_legal({text}) at {where} is False, but {text} is in legal_moves()")
        kind = "chance outcomes" if chance else "legal moves"
        for move in self.illegal(legal, pool, rng):
            text = self.text(move)
            self.refused(
                f"play({text}) at {where}", f"{text} is not among the {kind} {self.texts(legal)}", state.play, move
            )
            if not chance and self.call(f"is_legal({text}) at {where}", state.is_legal, move):
                raise Fault(f"is_legal({text}) at {where} is True, but {text} is not in legal_moves()")
        return len(legal)

    def legal_joint(self, state: State, where: str, pool: Sequence[Move], rng: random.Random) -> int:
        """Every legal move of each actor at a simultaneous step plays (with the others' first
        moves); a few others are refused."""
        actors = self.actors(state, where)
        options = [self.moves_of(state, seat, where) for seat in actors]
        if not actors or not all(options):
            return 0  # the simultaneous check reports it
        count = 0
        for place, seat in enumerate(actors):
            for move in options[place]:
                step = [*(moves[0] for moves in options[:place]), move, *(moves[0] for moves in options[place + 1 :])]
                self.call(f"play_joint({self.texts(step)}) at {where}", state.play_joint, step)
                count += 1
            for move in self.illegal(options[place], pool, rng):
                step = [*(moves[0] for moves in options[:place]), move, *(moves[0] for moves in options[place + 1 :])]
                why = f"{self.text(move)} is not among seat {seat}'s moves {self.texts(options[place])}"
                self.refused(f"play_joint({self.texts(step)}) at {where}", why, state.play_joint, step)
        return count

    # ------------------------------------------------------------ notation

    def check_notation(self) -> str:
        game, count = self.game, 0
        for _, _, state, where in self.sampled():
            if self.get(state, "is_terminal", where):
                continue
            for move in sorted(set(self.moves_at(state, where))):
                text = self.call(f"format_move({move!r}) at {where}", game.format_move, move)
                if not isinstance(text, str) or not text.strip() or not text.isprintable():
                    raise Fault(
                        f"format_move({move!r}) at {where} is {_short(text)}: a move's text is one printable line"
                    )
                back = self.call(f"parse_move({text!r}) at {where}", game.parse_move, text)
                if back != move or type(back) is not int:
                    raise Fault(
                        f"format_move({move!r}) is {text!r}, but parse_move({text!r}) is {back!r}, not {move!r} (at "
                        f"{where}): parse_move must read back what format_move writes"
                    )
                spaced = f" {text} "
                if self.call(f"parse_move({spaced!r}) at {where}", game.parse_move, spaced) != move:
                    raise Fault(
                        f"parse_move({spaced!r}) is not {move!r} (at {where}): it must ignore surrounding spaces"
                    )
                count += 1
        for garbage in GARBAGE:
            try:
                read = game.parse_move(garbage)
            except MoveSyntaxError:
                continue
            except Exception as error:
                raise Fault(
                    f"parse_move({garbage!r}) raised {_describe(error, self.files)} instead of MoveSyntaxError "
                    "(raise self.syntax_error(text))"
                ) from None
            raise Fault(
                f"parse_move({garbage!r}) returned {read!r}: text that is no move must raise MoveSyntaxError "
                "(raise self.syntax_error(text))"
            )
        return f"{count} moves written and read back, {len(GARBAGE)} texts that are no move refused"

    # ------------------------------------------------------------ chance

    def check_chance(self) -> str:
        count = 0
        for _, _, state, where in self.nodes(CHANCE):
            outcomes = self.call(f"chance_outcomes() at {where}", state.chance_outcomes)
            if not outcomes:
                raise Fault(f"at {where}, a chance node (to_move is CHANCE), chance_outcomes() is empty")
            if not all(isinstance(pair, (tuple, list)) and len(pair) == 2 for pair in outcomes):
                raise Fault(f"chance_outcomes() at {where} is {_short(outcomes)}: a list of (move, probability)")
            moves = [move for move, _ in outcomes]
            weights = [weight for _, weight in outcomes]
            listed = _clip(", ".join(f"{self.text(move)}: {weight!r}" for move, weight in outcomes), 300)
            if not _probabilities(weights):
                raise Fault(f"at {where} the chance outcomes are {listed}: each probability must be a number above 0")
            total = math.fsum(float(weight) for weight in weights)
            if abs(total - 1) > TOLERANCE:
                raise Fault(f"the probabilities of the chance outcomes at {where} sum to {total!r}, not 1: {listed}")
            if len(set(moves)) != len(moves):
                twice = next(move for move in moves if moves.count(move) > 1)
                raise Fault(f"the chance outcomes at {where} list {self.text(twice)} more than once: {listed}")
            legal = self.call(f"legal_moves() at {where}", state.legal_moves)
            if sorted(legal) != sorted(moves):
                raise Fault(
                    f"at {where}, a chance node, legal_moves() is {self.texts(legal)}, not the chance outcomes "
                    f"{self.texts(sorted(moves))}"
                )
            count += 1
        for _, _, state, where in self.sampled():
            if state.to_move != CHANCE:
                outcomes = self.call(f"chance_outcomes() at {where}", state.chance_outcomes)
                if outcomes:
                    raise Fault(
                        f"at {where}, no chance node (to_move is {state.to_move}), chance_outcomes() is "
                        f"{_short(outcomes)}: it must be empty there"
                    )
        return f"{count} chance nodes" if count else f"no chance nodes in {len(self.walks)} games"

    # ------------------------------------------------------------ simultaneous

    def check_simultaneous(self) -> str:
        count, checked = 0, 0
        rng = random.Random(0)
        for _, _, state, where in self.nodes(SIMULTANEOUS):
            actors = self.actors(state, where)
            if not actors:
                raise Fault(f"at {where}, a simultaneous step (to_move is SIMULTANEOUS), actors() is empty")
            if list(actors) != sorted(set(actors)) or not all(
                type(seat) is int and 0 <= seat < self.players for seat in actors
            ):
                raise Fault(f"at {where} actors() is {actors!r}: the acting seats, each once, in increasing order")
            step = []
            for seat in actors:
                moves = self.moves_of(state, seat, where)
                if not moves:
                    raise Fault(f"at {where} seat {seat} acts (actors() is {actors!r}), but moves_of({seat}) is empty")
                step.append(rng.choice(moves))
            after = self.call(f"play_joint({self.texts(step)}) at {where}", state.play_joint, step)
            if not isinstance(after, State):
                raise Fault(f"play_joint({self.texts(step)}) at {where} returned {_short(after)}, not a State")
            count += 1
        for _, _, state, where in self.sampled():
            if state.to_move == SIMULTANEOUS:
                continue
            actors = self.actors(state, where)
            expected: tuple[int, ...]
            if self.get(state, "is_terminal", where):
                expected, what = (), "the end"
            elif state.to_move == CHANCE:
                expected, what = (), "a chance node"
            else:
                expected, what = (state.to_move,), f"seat {state.to_move}'s turn"
            if actors != expected:
                raise Fault(f"at {where}, {what}, actors() is {actors!r}, not {expected!r}")
            for seat in range(self.players):
                if seat not in actors and self.moves_of(state, seat, where):
                    raise Fault(
                        f"at {where} seat {seat} does not act, but moves_of({seat}) is "
                        f"{self.texts(self.moves_of(state, seat, where))}: it must be empty"
                    )
            checked += 1
        steps = f"{count} simultaneous steps" if count else "no simultaneous steps"
        return f"{steps}; actors() right at {checked} other states" if checked else steps

    # ------------------------------------------------------------ views

    def check_views(self) -> str:
        if not type(self.game).HIDDEN:
            return "perfect information (HIDDEN is False): every seat sees the whole state"
        branchings, example = self.something_hidden()
        if example:
            raise Fault(
                f"the views hide nothing, although the game declares HIDDEN: at each of {branchings} branchings of "
                "the random games (a chance outcome or move against another possible there), every seat's "
                f"view(seat) told apart what any view told apart (e.g. {example}): view(seat) shows what the seat "
                "may not know, such as another seat's hand; leave that out of it (or set HIDDEN = False if every "
                "seat may know everything)"
            )
        followed = self.seats_told_alike()
        found = f"a seat's view hides something at branching {branchings}" if branchings else "no branching told apart"
        return f"{found}; {followed} branches a seat cannot tell apart followed"

    def branches(self, walk: _Walk, index: int, rng: random.Random) -> list[tuple[list[Move], State]]:
        """The random game's step at state ``index`` of ``walk`` and other steps possible there
        (``ALTERNATIVES`` at most), each with the state it reaches."""
        state, where = walk.states[index], self.where(walk, index)
        others = self.alternatives(state, walk.steps[index], where, rng)
        reached = [self.call(f"playing {self.texts(step)} at {where}", _apply, state, step) for step in others]
        return [(walk.steps[index], walk.states[index + 1]), *zip(others, reached)]

    def something_hidden(self) -> tuple[int, str]:
        """Look for two results of a step that some view tells apart and some seat's view does
        not, at every state of the random games in turn (``HIDDEN_VIEWS`` views at most): the
        branchings compared, and if none was found, an example of a branching every seat told
        apart (else "")."""
        seats, budget = [*range(self.players), None], HIDDEN_VIEWS
        branchings, example = 0, ""
        for walk in self.walks:
            rng = random.Random(walk.seed)
            for index in range(len(walk.steps)):
                where = self.where(walk, index)
                results = self.branches(walk, index, rng)
                views = [
                    [self.view(after, seat, f"{where}, after {self.step_text(step)}") for seat in seats]
                    for step, after in results
                ]
                for one, other in itertools.combinations(range(len(results)), 2):
                    told = [mine != theirs for mine, theirs in zip(views[one], views[other])]
                    if not any(told):
                        continue
                    branchings += 1
                    if not all(told[: self.players]):
                        return branchings, ""
                    if not example:
                        steps = (self.step_text(results[n][0]) for n in (one, other))
                        example = "each seat's view tells {} from {}".format(*steps) + f" at {where}"
                budget -= len(results) * len(seats)
                if budget <= 0:
                    return branchings, example
        return branchings, example

    def seats_told_alike(self) -> int:
        """Where a seat cannot tell the random game's step from another at a sampled state,
        follow the two (``follow``); the branches followed."""
        followed = 0
        self.budget, self.seen = FOLLOWED_VIEWS, {}
        for walk in self.walks:
            rng = random.Random(walk.seed)
            for index in _sample(walk):
                if index >= len(walk.steps) or self.budget <= 0:
                    continue
                where = self.where(walk, index)
                results = self.branches(walk, index, rng)
                views = [
                    [self.view(after, seat, f"{where}, after {self.step_text(step)}") for seat in range(self.players)]
                    for step, after in results
                ]
                for other in range(1, len(results)):
                    blind = [seat for seat in range(self.players) if views[0][seat] == views[other][seat]]
                    if blind:
                        followed += 1
                        steps = (self.step_text(results[n][0]) for n in (other, 0))
                        how = "{} instead of {}".format(*steps) + f" at ply {_records(walk, index)}"
                        self.follow(walk, index + 1, results[other][1], blind, how)
        return followed

    def alternatives(self, state: State, step: list[Move], where: str, rng: random.Random) -> list[list[Move]]:
        """Other steps than ``step`` at ``state`` (``ALTERNATIVES`` at most): other chance outcomes
        or legal moves, or at a simultaneous step one actor's move changed."""
        found: list[list[Move]] = []
        if state.to_move == SIMULTANEOUS:
            for place, seat in enumerate(self.actors(state, where)):
                found += [
                    [*step[:place], move, *step[place + 1 :]]
                    for move in self.moves_of(state, seat, where)
                    if move != step[place]
                ]
        else:
            found = [[move] for move in self.moves_at(state, where) if move != step[0]]
        return rng.sample(found, min(ALTERNATIVES, len(found)))

    def follow(self, walk: _Walk, start: int, other: State, seats: list[int], how: str) -> None:
        """Play the rest of ``walk`` from ``start`` on ``other`` too, while some of ``seats``
        cannot tell the two apart (equal views): wherever such a seat acts in both, it must be
        told the same."""
        for index in range(start, min(len(walk.states), start + FOLLOWED)):
            state, where = walk.states[index], self.where(walk, index)
            there = f"{where} with {how}"
            for seat in list(seats):
                self.budget -= 1
                key = (walk.seed, index, seat)
                if key not in self.seen:
                    self.seen[key] = self.view(state, seat, where)
                if self.seen[key] != self.view(other, seat, there):
                    seats.remove(seat)  # the seat has learnt the difference: from here on it may be told anything
                    continue
                actors, others = self.actors(state, where), self.actors(other, there)
                if seat in actors and seat in others:
                    if actors != others:
                        raise Fault(self.told(seat, where, how, f"actors() {actors!r} and {others!r}"))
                    mine, theirs = self.moves_of(state, seat, where), self.moves_of(other, seat, there)
                    if mine != theirs:
                        moves = f"legal moves {self.texts(mine)} and {self.texts(theirs)}"
                        raise Fault(self.told(seat, where, how, moves))
            if not seats or index >= len(walk.steps) or not self.playable(other, walk.steps[index], there):
                return
            other = self.call(
                f"playing {self.step_text(walk.steps[index])} at {there}", _apply, other, walk.steps[index]
            )

    def told(self, seat: int, where: str, how: str, what: str) -> str:
        return (
            f"seat {seat} cannot tell {where} from the same game with {how} (its view({seat}) is equal), yet it is "
            f"given different {what}, which tell it what its view hides: view({seat}) must show what seat {seat}'s "
            "moves depend on"
        )

    def playable(self, state: State, step: list[Move], where: str) -> bool:
        """Whether ``step`` can be played at ``state`` (of a branch the random game did not take)."""
        if self.get(state, "is_terminal", where):
            return False
        if state.to_move == SIMULTANEOUS:
            actors = self.actors(state, where)
            return len(actors) == len(step) and all(
                move in self.moves_of(state, seat, where) for seat, move in zip(actors, step)
            )
        return len(step) == 1 and step[0] in self.moves_at(state, where)

    # ------------------------------------------------------------ figures

    def perft(self, budget: float) -> list[int]:
        """The number of distinct records of 1, 2, ... plies from the start (one that ends the game
        sooner counts once), as many depths as fit in ``budget`` seconds."""
        deadline = time.perf_counter() + budget
        counts: list[int] = []
        cut = False  # whether a record of the depth counted goes on

        def count(state: State, depth: int) -> int:
            nonlocal cut
            if time.perf_counter() > deadline:
                raise TimeoutError
            if state.is_terminal:
                return 1
            if depth == 0:
                cut = True
                return 1
            if state.to_move == SIMULTANEOUS:
                options = [state.moves_of(seat) for seat in state.actors()]
                return sum(count(state.play_joint(list(step)), depth - 1) for step in itertools.product(*options))
            return sum(count(state.play(move), depth - 1) for move in self.moves_at(state, "perft"))

        try:
            start = self.game.initial_state()
            for depth in range(1, PERFT_DEPTH + 1):
                cut = False
                counts.append(count(start, depth))
                if not cut:  # every record has ended: deeper counts are the same
                    break
        except Exception:  # out of time, or an error the checks report
            pass
        return counts

    def speed(self, budget: float) -> float | None:
        """Random playouts a second from the start (the plain walk of ``play``) over ``budget``
        seconds, each stopped after ``max_length() + 1`` records; ``None`` if one fails."""
        rng = random.Random(1)
        started = time.perf_counter()
        played = 0
        try:
            while True:
                state, records = self.game.initial_state(), 0
                while records <= self.limit and not state.is_terminal:
                    step = _random_step(state, rng)
                    state = _apply(state, step)
                    records += len(step)
                played += 1
                elapsed = time.perf_counter() - started
                if elapsed >= budget:
                    return played / elapsed
        except Exception:
            return None

    def mean_length(self) -> float | None:
        """The mean length in records of the random games that ended."""
        lengths = [walk.records for walk in self.walks if walk.error is None and walk.last.is_terminal]
        return sum(lengths) / len(lengths) if lengths else None
