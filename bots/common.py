"""What the built-in bots share: parameter checking, the search budget, rewards and tie-breaks.

Not a bot itself (no ``GAMES``, no ``make_bot``). Every bot module declares its parameters as a
``PARAMETERS`` dict of ``Param`` and calls ``setup(...)`` in its ``make_bot``, which checks the
game and the parameters and raises ``BotParameterError`` with a message that names the
parameter, what it accepts and the parameters that exist.

Time: a search under a clock stops when one more iteration as long as its longest so far would
leave less than the safety margin, ``max(MARGIN_FLOOR, MARGIN_FRACTION * limit)`` (5 ms at a
0.1 s limit, 1.2 s at the course's 24 s); with a budget parameter (iterations, playouts,
episodes, depth) it ignores the clock and is deterministic. ``no_gc_pauses`` keeps the garbage
collector from pausing a move.
"""

from __future__ import annotations

import gc
import math
import random
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from arena.errors import BotParameterError
from arena.games import Game, Outcome, State, get_game

#: a search stops when the time left for the move falls below this share of the limit ...
MARGIN_FRACTION = 0.05
#: ... or below this many seconds, whichever is larger (plus its longest iteration so far)
MARGIN_FLOOR = 0.005


@dataclass(frozen=True)
class Param:
    """One bot parameter: its default, the values it accepts, and what it does.

    ``kind`` is ``int``, ``float``, ``bool`` or ``str``. Numbers may have bounds (``low``,
    ``high``, inclusive unless ``low_open``); strings a tuple of ``choices``. ``optional``
    parameters also accept ``None``, which means what ``none_means`` says (e.g. "use the clock").
    """

    default: Any
    kind: type
    doc: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    choices: tuple[str, ...] | None = None
    optional: bool = False
    none_means: str = ""

    def accepts(self) -> str:
        """What values the parameter accepts, in words (for error messages and listings)."""
        if self.kind is bool:
            text = "true or false"
        elif self.kind is str:
            text = "one of " + ", ".join(map(repr, self.choices or ()))
        else:
            noun = "an integer" if self.kind is int else "a number"
            bounds = []
            if self.low is not None:
                bounds.append(f"{'>' if self.low_open else '>='} {self.low:g}")
            if self.high is not None:
                bounds.append(f"<= {self.high:g}")
            text = noun + (" " + " and ".join(bounds) if bounds else "")
        if self.optional:
            text += f", or None ({self.none_means})" if self.none_means else ", or None"
        return text

    def check(self, value: Any) -> Any:
        """``value`` if the parameter accepts it (ints widened to float for a float parameter),
        else ``ValueError``."""
        if value is None:
            if self.optional:
                return None
            raise ValueError
        if self.kind is bool:
            if type(value) is not bool:
                raise ValueError
            return value
        if self.kind is str:
            if not isinstance(value, str) or value not in (self.choices or ()):
                raise ValueError
            return value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError
        if self.kind is int and not isinstance(value, int):
            raise ValueError
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError
        if self.low is not None and (value <= self.low if self.low_open else value < self.low):
            raise ValueError
        if self.high is not None and value > self.high:
            raise ValueError
        return float(value) if self.kind is float else value


def describe_parameters(parameters: Mapping[str, Param]) -> str:
    """The parameters as ``name=default`` text, for error messages."""
    if not parameters:
        return "none"
    return ", ".join(f"{name}={param.default!r}" for name, param in parameters.items())


def resolve_parameters(bot: str, parameters: Mapping[str, Param], given: Mapping[str, Any]) -> dict[str, Any]:
    """Every parameter of ``bot``: the ``given`` values, checked, and the defaults for the rest."""
    unknown = sorted(set(given) - set(parameters))
    if unknown:
        raise BotParameterError(
            f"bot {bot!r} has no parameter {', '.join(map(repr, unknown))}; "
            f"its parameters: {describe_parameters(parameters)}"
        )
    resolved = {}
    for name, param in parameters.items():
        value = given.get(name, param.default)
        try:
            resolved[name] = param.check(value)
        except ValueError:
            raise BotParameterError(
                f"bot {bot!r}: parameter {name!r} cannot be {value!r}; it accepts "
                f"{param.accepts()} ({param.doc}); its parameters: {describe_parameters(parameters)}"
            ) from None
    return resolved


def resolve_game(bot: str, games: Sequence[str], game: Game | str) -> Game:
    """The ``Game`` a bot is made for (a name is looked up); ``BotParameterError`` if ``bot``
    does not play it."""
    name = game if isinstance(game, str) else getattr(game, "name", None)
    if not isinstance(name, str) or name not in games:
        raise BotParameterError(f"bot {bot!r} does not play {name!r}; it plays {', '.join(games)}")
    # a game from outside arena that shares a name with one of arena's (OpenSpiel's othello) is
    # another game: a bot of arena's own games (GAMES a plain tuple) reads their engines' insides
    if not isinstance(game, str) and game.source is not None and type(games) is tuple:
        raise BotParameterError(
            f"bot {bot!r} plays arena's own {name}, not the game of that name from outside arena "
            f"({dict(game.source)}); bots.randombot and bots.openspiel_bots play any game"
        )
    return get_game(name) if isinstance(game, str) else game


def build_tables(game: Game, prepare: Callable[[], Any] | None = None, knowledge: bool = True) -> None:
    """Build the game's lazily made tables (e.g. tic-tac-toe's playout table) and the bots'
    shared game knowledge now, in ``make_bot``, so that the first timed move does not pay for
    them, and take them out of the garbage collector's sight (see ``no_gc_pauses``). Uses its
    own generator, so the bot's ``rng`` is untouched. ``prepare``: the bot's own tables;
    ``knowledge`` False: a bot that uses none of the shared knowledge (``bots.heuristics``, some
    50 ms of a bot's start) does without it."""
    if knowledge:
        import bots.heuristics  # noqa: F401 - tree reuse and the rule-based bots need it on their second move

    game.initial_state().random_playout(random.Random(0))
    if prepare is not None:
        prepare()
    gc.collect()
    gc.freeze()


#: the warm-up game: moves played (both seats together), and each move's clock in seconds
REHEARSAL_PLIES = 4
REHEARSAL_MOVE = 0.05


def rehearse(make_bot: Callable[..., Any], game: Game, params: Mapping[str, Any]) -> None:
    """A bot module's ``warm_up``: play the first moves of a game of the bot against itself
    (seeded, a short clock a move), so that whatever it builds on first use (imports, tables,
    the first allocation of its search tree) is built within its startup time, not in its first
    timed move. Instances of its own: the bot of the real game starts afresh."""
    from arena.clock import Clock

    players = [make_bot(game, seat, random.Random(seat), **params) for seat in (0, 1)]
    state = game.initial_state()
    for _ in range(REHEARSAL_PLIES):
        if state.is_terminal:
            break
        move = players[state.to_move].move(state, Clock(REHEARSAL_MOVE))
        other = getattr(players[1 - state.to_move], "observe", None)
        if other is not None:
            other(state, move)
        state = state.play(move)
    for player in players:
        close = getattr(player, "close", None)
        if close is not None:
            close()
    gc.collect()
    gc.freeze()


@contextmanager
def no_gc_pauses() -> Iterator[None]:
    """Think without pauses of the cyclic garbage collector, and leave none pending.

    A full collection walks every tracked object (the game tables, a big search tree) and can
    take tens of milliseconds, more than a short move's safety margin. The bots' trees and the
    games' states hold no reference cycles, so reference counting frees them; the collector is
    switched off while a move is thought about, and afterwards everything alive is moved to the
    permanent generation (``gc.freeze``), so the next collection, wherever it happens, only
    looks at objects made after this move.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def setup(
    bot: str,
    games: Sequence[str],
    parameters: Mapping[str, Param],
    game: Game | str,
    seat: int,
    rng: random.Random,
    params: Mapping[str, Any],
    prepare: Callable[[], Any] | None = None,
    knowledge: bool = True,
) -> tuple[Game, dict[str, Any]]:
    """What every ``make_bot`` does first: check the game, the seat, the generator and the
    parameters, then ``build_tables`` (with the bot's ``prepare`` and ``knowledge``). Returns the game and the
    resolved parameters."""
    resolved_game = resolve_game(bot, games, game)
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < resolved_game.players:
        last = resolved_game.players - 1
        raise BotParameterError(f"bot {bot!r}: seat must be 0 to {last} (the game has {last + 1} seats), not {seat!r}")
    if not isinstance(rng, random.Random):
        raise BotParameterError(
            f"bot {bot!r}: rng must be a random.Random (the only randomness a bot may use), not {type(rng).__name__}"
        )
    values = resolve_parameters(bot, parameters, params)
    build_tables(resolved_game, prepare, knowledge)
    return resolved_game, values


def stop_time(clock: Any) -> float:
    """The time, on the clock's own ``now()`` (wall or CPU time), by which a search under
    ``clock`` should stop: the time left minus the safety margin ``max(MARGIN_FLOOR,
    MARGIN_FRACTION * clock.limit)``; ``inf`` without a time limit."""
    if clock is None or clock.limit is None:
        return math.inf
    margin = max(MARGIN_FLOOR, MARGIN_FRACTION * clock.limit)
    deadline = getattr(clock, "deadline", None)  # arena's Clock says it; another may only count down
    return (_now(clock)() + clock.remaining() if deadline is None else deadline) - margin


def _now(clock: Any) -> Any:
    """The function that reads ``clock``'s time: CPU time for a cpu clock, else wall time."""
    return getattr(clock, "now", None) or time.monotonic


class Budget:
    """When a search stops: after ``limit`` iterations, or before the clock runs out, whichever
    comes first. With an iteration limit a fixed seed gives the same moves whenever the clock
    does not run out first (a tournament's guard against a loaded machine, not its budget).

    With the clock, the search stops when the time left would fall below the safety margin,
    ``max(MARGIN_FLOOR, MARGIN_FRACTION * clock.limit)``, if one more iteration took as long as
    the longest so far. A cpu clock with a ``pace`` (the CPU seconds an iteration takes here, as
    the harness measured it) turns that time into a number of iterations: the same seed then
    plays the same moves on a busy machine as on a quiet one; the clock itself still stops a
    search that would run out (at the limit: the count keeps the margin). Without a limit and
    without a time limit, ``fallback`` iterations. Use: ``while budget.more(): one_iteration()``;
    ``expired()`` is the check for searches that cannot be cut into short iterations (alpha-beta
    checks it at every node, which counts as an iteration).
    """

    __slots__ = ("budgeted", "clock", "count", "last", "limit", "longest", "now", "start", "stop_at")

    def __init__(self, clock: Any, limit: int | None, fallback: int, fixed: bool = False) -> None:
        self.clock = clock
        self.count = 0
        self.longest = 0.0
        self.now = _now(clock)
        self.start = self.last = self.now()
        time_limit = None if clock is None else clock.limit
        if limit is None and time_limit is None:
            limit = fallback
        self.stop_at = stop_time(clock)
        pace = getattr(clock, "pace", None)
        if limit is None and pace:
            margin = max(MARGIN_FLOOR, MARGIN_FRACTION * time_limit)
            limit = max(1, int((time_limit - margin) / pace))
            self.stop_at += margin  # the clock only guards the count: it stops it at the limit
        self.limit = limit
        #: whether the search has a budget of its own (``fixed``: one the caller keeps, such as a
        #: depth), so that the clock stopping it cuts it short
        self.budgeted = fixed or limit is not None

    @property
    def timed(self) -> bool:
        """Whether only the clock, not an iteration limit, ends the search."""
        return self.limit is None

    def more(self) -> bool:
        """Whether one more iteration fits; counts it."""
        if self.limit is not None and self.count >= self.limit:
            return False
        now = self.now()
        step = now - self.last
        if step > self.longest:
            self.longest = step
        self.last = now
        if now + self.longest >= self.stop_at:
            self._ended_by_clock(now)
            return False
        self.count += 1
        return True

    def expired(self) -> bool:
        """Whether the search must stop now; counts one iteration (a node of alpha-beta)."""
        self.count += 1
        if self.limit is not None and self.count > self.limit:
            return True
        now = self.now()
        if now >= self.stop_at:
            self._ended_by_clock(now)
            return True
        return False

    def _ended_by_clock(self, now: float) -> None:
        """Tell the clock how many iterations its time held (how ``arena.runners.pace`` measures),
        or, for a search with a budget of its own, that it cut the search short."""
        if self.budgeted:
            cut = getattr(self.clock, "cut", None)
            if cut is not None:
                cut()
            return
        record = getattr(self.clock, "record", None)
        if record is not None:
            record(self.count, now - self.start)


def reward(outcome: Outcome, seat: int) -> float:
    """The value of ``outcome`` to ``seat`` in [0, 1]: 1 a win, 0 a loss; a draw is ``seat``'s
    share of the points where the game has them (xtreme: the small boards each side won),
    else 0.5. The two seats' rewards add up to 1."""
    winner = outcome.winner
    if winner is not None:
        return 1.0 if winner == seat else 0.0
    points = outcome.points
    if points:
        total = points[0] + points[1]
        if total > 0:
            return points[seat] / total
    return 0.5


def best_by(items: Sequence[Any], key: Any, rng: random.Random) -> Any:
    """The item of ``items`` with the highest ``key(item)``, ties broken with ``rng``."""
    best_value = -math.inf
    best: list[Any] = []
    for item in items:
        value = key(item)
        if value > best_value:
            best_value, best = value, [item]
        elif value == best_value:
            best.append(item)
    return best[0] if len(best) == 1 else rng.choice(best)


def same_position(a: State, b: State) -> bool:
    """Whether two states are the same position (for tree reuse: the harness may rebuild the
    state the bot sees, so identity alone is not enough)."""
    if a is b:
        return True
    from bots.heuristics import position_key

    return type(a) is type(b) and a.ply == b.ply and position_key(a) == position_key(b)


def random_move(state: State, rng: random.Random) -> int:
    """A uniformly random legal move."""
    moves = state.legal_moves()
    return moves[int(rng.random() * len(moves))]
