"""OpenSpiel's games through arena's game contract (the extra ``arena[openspiel]``).

``openspiel_game("goofspiel(num_cards=6,players=3)")`` makes an arena ``Game`` of any OpenSpiel
game that is sequential or simultaneous, with or without chance and hidden information, named
in OpenSpiel's own game-string syntax (a tournament: ``game: {openspiel: connect_four}``).
``pyspiel`` is imported only when such a game is first made.

What maps to what:

- seats are OpenSpiel's players; ``to_move`` is its current player (``CHANCE`` at a chance node,
  ``SIMULTANEOUS`` at a simultaneous one, as in OpenSpiel); returns are its ``returns()``.
- moves: a player's action ``a`` is the int ``a``; a chance outcome ``o`` is the int
  ``num_distinct_actions + o`` (OpenSpiel numbers both from 0, and arena's ``format_move`` sees
  the int alone). A chance outcome is written ``chance o`` (``chance 3``). A player's action is
  written as OpenSpiel's action string where the strings name the actions alone: every action
  met in up to ``LABEL_GAMES`` seeded random games when the game is made has the same string
  for every player and in every state, all are different and none is a number (``d3`` in
  othello, ``a5a4`` in breakthrough, ``Bet`` in kuhn poker; an action never met is written as
  its number); else as its number (``3``: connect four's column, tic-tac-toe's cell,
  othello's square with 64 the pass, as OpenSpiel numbers them). The number is always read too.
- ``HIDDEN`` where the game's information is imperfect: a seat's ``view`` holds OpenSpiel's
  information-state string for it (its observation string where the game has none), never
  another seat's moves; ``view(None)`` the whole state, ``str(state)``.
- ``MAX_LENGTH``: OpenSpiel's ``max_game_length`` (each simultaneous step counted once a seat)
  plus its most chance nodes.

Games arena cannot play are refused (``OpenSpielError``) with the reason: mean-field games, games
of one player, games without action numbers (action structs only), games that need a
parameter given (``turn_based_simultaneous_game`` without ``game=``). ``playable()`` lists which
games are playable and why others are not.
"""

from __future__ import annotations

import importlib
import os
import random
import sys
from bisect import bisect_left
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from typing import Any, ClassVar

from arena.games.base import (
    CHANCE,
    SIMULTANEOUS,
    Game,
    IllegalMoveError,
    Move,
    Outcome,
    State,
    UnknownGameError,
)

#: OpenSpiel's current player once the game is over
TERMINAL = -4
#: the key of a game's ``source`` (and of a tournament's ``game:``) that names an OpenSpiel game,
#: and the key of the open-spiel version its games are played with
SOURCE_KEY = "openspiel"
VERSION_KEY = "openspiel_version"
#: how a chance outcome is written: ``chance 3``
CHANCE_WORD = "chance"
#: the seeded random games played when a game is made, to see whether its action strings name
#: each action alone (the same in every state), and the most moves they play in all
LABEL_GAMES = 20
LABEL_MOVES = 3000
#: the longest game string read
MAX_GAME_STRING = 1000
#: a state's OpenSpiel state made again after a child took it: every this many states on the
#: way from the ancestor it is made from keep a clone too (``OpenSpielState._made_again``)
REMADE_EVERY = 16


class OpenSpielError(UnknownGameError):
    """An OpenSpiel game that cannot be made: open-spiel not installed, an unknown game, a bad
    parameter, or a game arena cannot play."""


def pyspiel_module() -> Any:
    """OpenSpiel's ``pyspiel``, imported on first use; ``OpenSpielError`` saying how to install it."""
    try:
        return importlib.import_module("pyspiel")
    except ImportError:
        raise OpenSpielError("OpenSpiel's games need the open-spiel package: pip install 'arena[openspiel]'") from None


@contextmanager
def _quiet() -> Iterator[None]:
    """OpenSpiel's C++ code writes every error it raises to stderr as well (an unknown game: the
    list of every game); arena says what went wrong once, itself."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def game_string(name: str, params: Mapping[str, Any] | None = None) -> str:
    """OpenSpiel's game string for ``name`` (a short name or a game string with parameters)
    with ``params`` added (they win over the string's), in OpenSpiel's canonical form."""
    pyspiel = pyspiel_module()
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_GAME_STRING:
        raise OpenSpielError(f"{name!r} is not an OpenSpiel game: give its name, e.g. connect_four")
    text = name.strip()
    try:
        with _quiet():
            parsed: dict[str, Any] = dict(pyspiel.game_parameters_from_string(text))
    except Exception as error:
        raise OpenSpielError(f"OpenSpiel game {text!r} cannot be read: {_said(error)}") from None
    short = parsed.get("name")
    if not isinstance(short, str) or short not in pyspiel.registered_names():
        raise OpenSpielError(
            f"unknown OpenSpiel game {short or text!r}; 'arena game openspiel' lists the playable ones"
        )
    for key, value in (params or {}).items():
        if not isinstance(key, str) or isinstance(value, (dict, list)) or value is None:
            raise OpenSpielError(f"OpenSpiel game {short!r}: parameter {key!r} cannot be {value!r}")
        parsed[key] = value
    canonical: str = pyspiel.game_parameters_to_string(parsed)
    return canonical


def _said(error: BaseException) -> str:
    """An OpenSpiel error's message, first lines only (an unknown name lists every game)."""
    lines = str(error).strip().splitlines() or [type(error).__name__]
    return " ".join(lines[:2])[:300]


def installed_version() -> str:
    """The version of the open-spiel package installed (its games' rules and numbering)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("open-spiel")
    except PackageNotFoundError:
        return "unknown"


def openspiel_from_spec(spec: Mapping[str, Any]) -> OpenSpielGame:
    """The OpenSpiel game of a stored spec (``Game.spec()``), refused if the installed open-spiel
    is not the version its games were played with: another version may number or write the
    moves of its records otherwise."""
    game = openspiel_game(spec[SOURCE_KEY], spec.get("params") or None)
    played = spec.get(VERSION_KEY)
    installed = installed_version()
    if played is not None and played != installed:
        raise OpenSpielError(
            f"the games of OpenSpiel's {game.name} were played with open-spiel {played}, and {installed} is "
            f"installed: install that version (pip install 'open-spiel=={played}') to read or resume them"
        )
    return game


def openspiel_game(name: str, params: Mapping[str, Any] | None = None) -> OpenSpielGame:
    """The arena game of the OpenSpiel game ``name`` (``connect_four`` or
    ``"goofspiel(num_cards=6,players=3)"``) with ``params`` added; ``OpenSpielError`` for a game
    that does not exist, a bad parameter, or one arena cannot play."""
    return openspiel_class(game_string(name, params))()


@cache
def openspiel_class(text: str) -> type[OpenSpielGame]:
    """The ``Game`` class of the OpenSpiel game ``text`` (a canonical game string), made once a
    process: its name, seats, most records and hidden information are the game's."""
    pyspiel = pyspiel_module()
    try:
        with _quiet():
            loaded = pyspiel.load_game(text)
    except Exception as error:
        raise OpenSpielError(f"OpenSpiel game {text!r} cannot be made: {_said(error)}") from None
    problem = unplayable(loaded)
    if problem is not None:
        raise OpenSpielError(f"OpenSpiel game {text!r} cannot be played in arena: {problem}")
    kind = loaded.get_type()
    players = loaded.num_players()
    simultaneous = kind.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    length = loaded.max_game_length() * (players if simultaneous else 1) + max(0, loaded.max_chance_nodes_in_history())
    hidden = kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    attributes: dict[str, Any] = {
        "name": kind.short_name,
        "PLAYERS": (players, players),
        "MAX_LENGTH": length,
        "HIDDEN": hidden,
        "source": {SOURCE_KEY: text, VERSION_KEY: installed_version()},
        "spiel": loaded,
        "__module__": __name__,
        "__qualname__": f"OpenSpielGame[{text}]",
    }
    cls = type(f"OpenSpielGame[{text}]", (OpenSpielGame,), attributes)
    return cls


def unplayable(loaded: Any) -> str | None:
    """Why arena cannot play the OpenSpiel game ``loaded``, or ``None`` if it can."""
    pyspiel = pyspiel_module()

    kind = loaded.get_type()
    if kind.dynamics not in (pyspiel.GameType.Dynamics.SEQUENTIAL, pyspiel.GameType.Dynamics.SIMULTANEOUS):
        return "a mean-field game (arena plays sequential and simultaneous games)"
    if loaded.num_players() < 2:
        return f"a game of {loaded.num_players()} player (arena's games have two seats or more)"
    if loaded.num_distinct_actions() < 1:
        return "its actions are structs, not numbers"
    if kind.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC:
        return "its chance is sampled inside the game (arena draws every chance outcome itself)"
    if loaded.max_game_length() < 1:
        return "it has no bound on its length"
    return None


def playable() -> list[tuple[str, str | None]]:
    """Every registered OpenSpiel game's short name and why arena cannot play it with its
    default parameters (``None``: it can)."""
    pyspiel = pyspiel_module()
    found: list[tuple[str, str | None]] = []
    for kind in sorted(pyspiel.registered_games(), key=lambda kind: kind.short_name):
        try:
            with _quiet():
                loaded = pyspiel.load_game(kind.short_name)
        except Exception as error:
            found.append((kind.short_name, f"cannot be made with its defaults: {_said(error)}"))
            continue
        found.append((kind.short_name, unplayable(loaded)))
    return found


class OpenSpielGame(Game):
    """An OpenSpiel game seen through arena's contract (made by ``openspiel_class``: one class
    a game string, its attributes the game's)."""

    name: ClassVar[str] = "openspiel"
    #: the loaded ``pyspiel.Game``
    spiel: ClassVar[Any] = None
    NOTATION = "a move is OpenSpiel's action number or string (e.g. '0'); a chance outcome 'chance N'"

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        spiel = self.spiel
        if spiel is None:
            raise OpenSpielError("make an OpenSpiel game with openspiel_game(name)")
        #: the number of player actions: a chance outcome ``o`` is the move ``actions + o``
        self.actions: int = spiel.num_distinct_actions()
        self.outcomes: int = max(0, spiel.max_chance_outcomes())
        #: every seat, in order
        self.everyone: tuple[int, ...] = tuple(range(self.players))
        #: whether a seat's view is OpenSpiel's information-state string (else its observation's)
        self.informed: bool = bool(spiel.get_type().provides_information_state_string)
        self.labels: list[str] | None = _labels(spiel, self.actions)
        #: how the observation tensor draws the board, where it does (``Layout``)
        self.layout: Layout | None = _layout(spiel)
        self.by_label: dict[str, Move] = {} if self.labels is None else {t: a for a, t in enumerate(self.labels)}
        example = next((text for text in self.labels or () if not text.isdecimal()), "0")
        self.NOTATION = (
            f"a move is OpenSpiel's action string or number (e.g. '{example}'); a chance outcome '{CHANCE_WORD} N'"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        # a process that unpickles it checks it has the same open-spiel as the one that pickled it
        return (openspiel_from_spec, (self.spec(),))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OpenSpielGame) and self.source_string() == other.source_string()

    def __hash__(self) -> int:
        return hash(self.source_string())

    def __repr__(self) -> str:
        return f"openspiel_game({self.source_string()!r})"

    def source_string(self) -> str:
        """The OpenSpiel game string this game was made from."""
        assert self.source is not None
        return self.source[SOURCE_KEY]

    def initial_state(self) -> OpenSpielState:
        return _position(self, self.spiel.new_initial_state(), 0, None)

    def parse_move(self, text: str) -> Move:
        stripped = text.strip() if isinstance(text, str) else ""
        move = self.by_label.get(stripped)
        if move is not None:
            return move
        if stripped.startswith(CHANCE_WORD):
            number = stripped[len(CHANCE_WORD) :].strip()
            if number.isdecimal() and number.isascii() and len(number) < 10 and int(number) < self.outcomes:
                return self.actions + int(number)
            raise self.syntax_error(text)
        if stripped.isdecimal() and stripped.isascii() and len(stripped) < 10 and int(stripped) < self.actions:
            return int(stripped)
        raise self.syntax_error(text)

    def format_move(self, move: Move) -> str:
        if type(move) is not int or not 0 <= move < self.actions + self.outcomes:
            raise ValueError(f"{move!r} is not a {self.name} move")
        if move >= self.actions:
            return f"{CHANCE_WORD} {move - self.actions}"
        return str(move) if self.labels is None else self.labels[move]


def _labels(spiel: Any, actions: int) -> list[str] | None:
    """Each player action's text: OpenSpiel's string for it where the strings name the actions
    alone, its number for an action never met. The strings are read for the actions met as
    legal moves in a few seeded random games (OpenSpiel writes only a legal action safely);
    they name the actions alone if each has the same string for every player and in every state
    met, and they are all different, none a number or a chance outcome's text. Else ``None``:
    every move is written as its number."""
    labels: dict[int, str] = {}
    players = spiel.num_players()
    rng = random.Random(0)
    moves = 0
    for _ in range(LABEL_GAMES):
        state = spiel.new_initial_state()
        while not state.is_terminal() and moves < LABEL_MOVES:
            moves += 1
            if state.is_chance_node():
                outcomes, weights = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, weights)[0])
                continue
            acting = range(players) if state.is_simultaneous_node() else [state.current_player()]
            joint = {player: state.legal_actions(player) for player in acting}
            for player, legal in joint.items():
                for action in legal:
                    text = state.action_to_string(player, action)
                    if labels.setdefault(action, text) != text:
                        return None
            if state.is_simultaneous_node():
                state.apply_actions([rng.choice(joint[p]) if joint[p] else 0 for p in range(players)])
            else:
                state.apply_action(rng.choice(joint[state.current_player()]))
        if len(labels) == actions:
            break
    met = list(labels.values())
    plain = all(
        text and text == text.strip() and len(text) <= 40 and not text.isdecimal() and not text.startswith(CHANCE_WORD)
        for text in met
    )
    if not met or not plain or len(set(met)) != len(met):
        return None
    return [labels.get(action, str(action)) for action in range(actions)]


@dataclass(frozen=True)
class Layout:
    """How a game's observation tensor (seen by seat 0) draws its board: ``planes`` of ``rows``
    by ``cols`` cells, each cell in one plane; ``marks`` the mark of each plane (``""`` the empty
    one); ``flipped`` when the tensor's first row is the bottom one (connect four)."""

    planes: int
    rows: int
    cols: int
    marks: tuple[str, ...]
    flipped: bool


def _layout(spiel: Any) -> Layout | None:
    """The board of a game of two seats whose observation tensor is planes of a grid, each cell
    in one plane: an empty plane and one plane a seat, found from the first moves (each cell a
    move changes takes its mover's plane, or the empty one where a piece left it); ``None`` for
    any other tensor (then the position is shown as OpenSpiel's text)."""
    kind = spiel.get_type()
    shape = spiel.observation_tensor_shape() if kind.provides_observation_tensor else []
    if (
        spiel.num_players() != 2
        or len(shape) != 3
        or shape[0] != 3
        or kind.information != kind.information.PERFECT_INFORMATION
    ):
        return None
    planes, rows, cols = shape
    size = rows * cols
    state = spiel.new_initial_state()
    news: list[set[int]] = []
    lines: list[tuple[int, int]] = []  # (tensor row, text line) of moves that changed one of each
    try:
        before = _cells(state.observation_tensor(0), planes, size)
        text = str(state).splitlines()
        if len(text) < rows:  # the tensor's grid is not the board the game shows (dots and boxes)
            return None
        for _ in range(10):
            if state.is_terminal() or state.is_chance_node() or state.is_simultaneous_node():
                break
            state.apply_action(state.legal_actions()[0])
            after = _cells(state.observation_tensor(0), planes, size)
            if after is None or before is None:
                return None
            changed = [cell for cell in range(size) if before[cell] != after[cell]]
            if len(news) < 2:
                news.append({after[cell] for cell in changed})
            shown = str(state).splitlines()
            moved_lines = {n for n, (old, new) in enumerate(zip(text, shown)) if old != new}
            moved_rows = {cell // cols for cell in changed}
            if len(moved_rows) == 1 and len(moved_lines) == 1:
                lines.append((moved_rows.pop(), moved_lines.pop()))
            before, text = after, shown
    except Exception:
        return None
    if len(news) < 2:
        return None
    common = news[0] & news[1]
    if len(common) == 1 and len(news[0]) == len(news[1]) == 2:
        (empty,) = common
        (first,), (second,) = news[0] - common, news[1] - common
    elif not common and len(news[0]) == len(news[1]) == 1:
        (first,), (second,) = news
        (empty,) = set(range(planes)) - {first, second}
    else:
        return None
    marks = [""] * planes
    marks[first], marks[second] = "x", "o"
    rows_apart = [(b[0] - a[0], b[1] - a[1]) for a, b in pairwise(lines) if b[0] != a[0]]
    flipped = bool(rows_apart) and rows_apart[0][0] * rows_apart[0][1] < 0
    return Layout(planes, rows, cols, tuple(marks), flipped) if marks[empty] == "" else None


def _cells(tensor: Sequence[float], planes: int, size: int) -> list[int] | None:
    """The plane each cell is in, or ``None`` unless every cell is in exactly one."""
    found = []
    for cell in range(size):
        where = [plane for plane in range(planes) if tensor[plane * size + cell] > 0.5]
        if len(where) != 1:
            return None
        found.append(where[0])
    return found


class OpenSpielState(State):
    """A position over an OpenSpiel state (made by ``_position``). Seen from outside it never
    changes, but its first child may take its OpenSpiel state and play on it in place, as
    OpenSpiel's own loops do, instead of on a clone: a game walked state after state (the
    harness's loop, a replay) makes no clone. A state whose OpenSpiel state was taken makes it
    again when next read, from its nearest ancestor that still holds one (``_made_again``), and
    keeps it for good. Until then a state keeps the states it was played from (small: what they
    held is lent on). A state that holds its OpenSpiel state for good (a game's first, one
    unpickled, one made again, one whose ``spiel`` was read, one ``shared``) plays its children
    on clones. Another thread reads a state while this one plays on from it only through
    ``shared()``."""

    __slots__ = (
        "_moves",
        "_parent",
        "_player",
        "_spiel",
        "_step",
        "game",
        "is_terminal",
        "last_move",
        "ply",
        "to_move",
    )

    game: OpenSpielGame
    is_terminal: bool
    _spiel: Any
    _parent: OpenSpielState | None
    _step: Any
    _player: int
    _moves: Any

    @property
    def spiel(self) -> Any:
        """The ``pyspiel.State`` of this position: read it, never apply to it. Once read here
        it stays this state's (no child takes it), whoever keeps it."""
        spiel = self._held()
        self._parent = None
        return spiel

    def _held(self) -> Any:
        """This state's OpenSpiel state, made again if a child took it."""
        spiel = self._spiel
        return self._made_again() if spiel is None else spiel

    def _made_again(self) -> Any:
        """This state's OpenSpiel state made again after a child took it: the steps from the
        nearest ancestor that holds one down to this one played on a clone of its, this state
        and every ``REMADE_EVERY``-th on the way keeping a clone for good (a state read after
        it is made from one of those in at most that many steps; a long way makes few clones)."""
        path = []
        state: OpenSpielState | None = self
        while state is not None and state._spiel is None:
            path.append(state)
            state = state._parent
        assert state is not None, "a state without a parent holds its OpenSpiel state"
        spiel = state._spiel.clone()
        last = len(path) - 1
        for count, lent in enumerate(reversed(path)):
            step = lent._step
            if type(step) is int:
                spiel.apply_action(step)
            else:
                spiel.apply_actions(step)
            if count == last or count % REMADE_EVERY == REMADE_EVERY - 1:
                lent._spiel, lent._parent = spiel, None
                if count != last:
                    spiel = spiel.clone()
        return spiel

    def __reduce__(self) -> tuple[Any, ...]:
        return (_replayed, (self.game, self._held().serialize(), self.ply, self.last_move))

    def shared(self) -> OpenSpielState:
        return _position(self.game, self._held().clone(), self.ply, self.last_move)

    def actors(self) -> tuple[int, ...]:
        player = self._player
        if player == SIMULTANEOUS:
            return (self._moves or self._joint())[1]
        return (player,) if player >= 0 else ()

    def _actions(self) -> list[Move]:
        """The mover's legal actions (on a seat's turn)."""
        legal: list[Move] | None = self._moves
        if legal is None:
            legal = self._moves = self._held().legal_actions()
        return legal

    def _joint(self) -> tuple[list[list[Move]], tuple[int, ...]]:
        """Each seat's legal actions at a simultaneous step, and the seats that have any."""
        joint: tuple[list[list[Move]], tuple[int, ...]] | None = self._moves
        if joint is None:
            spiel = self._held()
            game = self.game
            legal = list(map(spiel.legal_actions, game.everyone))
            actors = game.everyone if all(legal) else tuple([seat for seat, moves in enumerate(legal) if moves])
            joint = self._moves = (legal, actors)
        return joint

    def legal_moves(self) -> list[Move]:
        player = self._player
        if player >= 0:
            legal = self._moves
            if legal is None:
                legal = self._moves = self._held().legal_actions()
            return legal[:]  # type: ignore[no-any-return]
        if player == CHANCE:
            base = self.game.actions
            return [base + outcome for outcome, _ in self._chances()]
        return []

    def moves_of(self, seat: int) -> list[Move]:
        player = self._player
        if player == SIMULTANEOUS and 0 <= seat < self.game.players:
            return (self._moves or self._joint())[0][seat][:]
        return list(self._actions()) if player >= 0 and seat == player else []

    def chance_outcomes(self) -> list[tuple[Move, float]]:
        if self._player != CHANCE:
            return []
        base = self.game.actions
        return [(base + outcome, chance) for outcome, chance in self._chances()]

    def _chances(self) -> list[tuple[int, float]]:
        """OpenSpiel's chance outcomes with their probabilities, in increasing order (at a
        chance node)."""
        chances: list[tuple[int, float]] | None = self._moves
        if chances is None:
            chances = self._moves = self._held().chance_outcomes()
            chances.sort()
        return chances

    def is_legal(self, move: Move) -> bool:
        if self._player >= 0:
            return move in self._actions()
        return move in self.legal_moves()

    def play(self, move: Move) -> OpenSpielState:
        player = self._player
        game = self.game
        if player >= 0:
            legal = self._moves
            if legal is None:
                legal = self._moves = self._held().legal_actions()
            if type(move) is not int or move not in legal:
                shown = game.format_move(move) if type(move) is int and 0 <= move < game.actions else repr(move)
                raise IllegalMoveError(f"{shown} is illegal in {game.name} now")
            action = move
        elif player == CHANCE:
            action = move - game.actions if type(move) is int else -1
            if not _outcome_of(action, self._moves or self._chances()):
                raise IllegalMoveError(f"{move!r} is illegal in {game.name}: it is not a chance outcome here")
        elif player == SIMULTANEOUS:
            raise IllegalMoveError(f"{move!r} is illegal in {game.name}: several seats act at once now (play_joint)")
        else:
            raise IllegalMoveError(f"{move!r} is illegal in {game.name}: the game is over")
        spiel = self._spiel
        if spiel is None or self._parent is None:  # a clone, else this state's own lent to its first child
            spiel = self._held().clone()
        else:
            self._spiel = None
        spiel.apply_action(action)
        return _position(game, spiel, self.ply + 1, move, self, action)

    def play_joint(self, moves: Sequence[Move]) -> OpenSpielState:
        game = self.game
        if self._player != SIMULTANEOUS:
            if len(moves) == 1:
                return self.play(moves[0])
            raise IllegalMoveError(f"{list(moves)!r} is illegal in {game.name}: no simultaneous step now")
        legal, actors = self._moves or self._joint()
        if len(moves) != len(actors):
            raise IllegalMoveError(f"{list(moves)!r} is illegal in {game.name}: each of the {len(actors)} seats acts")
        joint = list(moves) if actors is game.everyone else [0] * game.players
        for seat, move in zip(actors, moves):
            if type(move) is not int or move not in legal[seat]:
                raise IllegalMoveError(f"{move!r} is illegal in {game.name} for seat {seat + 1}")
            joint[seat] = move
        spiel = self._spiel
        if spiel is None or self._parent is None:  # (as in ``play``)
            spiel = self._held().clone()
        else:
            self._spiel = None
        spiel.apply_actions(joint)
        return _position(game, spiel, self.ply + len(moves), moves[-1], self, joint)

    def returns(self) -> tuple[float, ...]:
        if self._player != TERMINAL:
            raise ValueError("the game is not over: it has no returns yet")
        return tuple(self._held().returns())  # (floats: OpenSpiel's doubles)

    def random_playout(self, rng: random.Random) -> Outcome:
        # the fast path: one clone played on in place, as OpenSpiel's own loops do
        spiel = self._held().clone()
        players = self.game.players
        choice, choices = rng.choice, rng.choices
        while not spiel.is_terminal():
            if spiel.is_chance_node():
                outcomes, weights = zip(*spiel.chance_outcomes())
                spiel.apply_action(choices(outcomes, weights)[0])
            elif spiel.is_simultaneous_node():
                spiel.apply_actions([choice(spiel.legal_actions(p) or [0]) for p in range(players)])
            else:
                spiel.apply_action(choice(spiel.legal_actions()))
        return Outcome.from_returns(spiel.returns())

    def render(self) -> str:
        return str(self._held())

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may know: in a game of hidden information OpenSpiel's information-state
        string for it (its observation string where the game has none) and what arena tells it
        anyway (who acts, its legal moves), never another seat's moves; else, and for ``None``
        (a spectator), the whole state."""
        game = self.game
        if seat is None or not game.HIDDEN or self._player == TERMINAL:
            return self.to_dict()
        spiel = self._held()
        known = spiel.information_state_string(seat) if game.informed else spiel.observation_string(seat)
        return {
            "game": game.name,
            "seat": seat,
            "ply": self.ply,
            "to_move": self.to_move,
            "actors": list(self.actors()),
            "legal": [game.format_move(move) for move in self.moves_of(seat)],
            "terminal": False,
            "winner": None,
            "points": None,
            "returns": None,
            "information": known,
        }

    def board(self) -> dict[str, Any] | None:
        """The board the observation tensor draws (seat 0's, which sees it all), where it draws
        one (``OpenSpielGame.layout``)."""
        layout = self.game.layout
        if layout is None:
            return None
        size = layout.rows * layout.cols
        cells = _cells(self._held().observation_tensor(0), layout.planes, size)
        if cells is None:
            return None
        marks = [layout.marks[plane] for plane in cells]
        if layout.flipped:
            marks = [
                mark
                for row in range(layout.rows - 1, -1, -1)
                for mark in marks[row * layout.cols : (row + 1) * layout.cols]
            ]
        return {"boards": [{"rows": layout.rows, "cols": layout.cols, "cells": marks}]}

    def board_data(self) -> dict[str, Any]:
        """The board where the tensor draws one, OpenSpiel's text of the state, and OpenSpiel's
        string of each legal move here (its notation may be the action's number)."""
        spiel = self._held()
        data = {**(self.board() or {}), "state": str(spiel)}
        player = spiel.current_player()
        if player >= 0:
            data["actions"] = [spiel.action_to_string(player, action) for action in spiel.legal_actions()]
        return data


def _position(
    game: OpenSpielGame,
    spiel: Any,
    ply: int,
    last_move: Move | None,
    parent: OpenSpielState | None = None,
    step: Any = None,
) -> OpenSpielState:
    """The state of OpenSpiel's ``spiel`` (made without a call of the class, which costs a
    move as much as the rest of ``play``). ``parent`` and ``step``: the state it was played
    from and the action (or joint actions) played there, for a state that may lend ``spiel``
    to its first child; ``None`` for one that holds it for good."""
    state = _new(OpenSpielState)
    state.game = game
    # the ``pyspiel.State`` (``None`` once a child took it: ``spiel`` makes it again)
    state._spiel = spiel
    state._parent = parent
    state._step = step
    state.ply = ply
    state.last_move = last_move
    # OpenSpiel's current player, read once: a seat, CHANCE, SIMULTANEOUS or TERMINAL
    player: int = spiel.current_player()
    state._player = player
    # a seat, CHANCE or SIMULTANEOUS (OpenSpiel's numbers for these are arena's); seat 0 at the end
    state.to_move = player if player >= SIMULTANEOUS else 0
    state.is_terminal = player == TERMINAL
    # what may be done here, read once when first asked for: the mover's legal actions on a
    # seat's turn, each seat's and the seats acting at a simultaneous step, OpenSpiel's chance
    # outcomes at a chance node
    state._moves = None
    return state


_new = object.__new__


def _outcome_of(action: int, chances: list[tuple[int, float]]) -> bool:
    """Whether ``action`` is one of the outcomes ``chances`` (in increasing order)."""
    at = bisect_left(chances, (action,))  # the first outcome not below it
    return at < len(chances) and chances[at][0] == action


def _replayed(game: OpenSpielGame, serialized: str, ply: int, last_move: Move | None) -> OpenSpielState:
    """A state unpickled: its OpenSpiel state made again from OpenSpiel's serialization."""
    return _position(game, game.spiel.deserialize_state(serialized), ply, last_move)
