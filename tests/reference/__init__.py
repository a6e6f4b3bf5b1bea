"""Plain, obviously correct reference implementations of the games, to check the fast engines.

Each module has ``initial(**params)`` returning a reference state with ``to_move``,
``legal_moves()`` (sorted ints, the engine's move encoding), ``play(move)`` (a new state),
and ``outcome()`` (``None`` while the game goes on, else an ``arena.games.Outcome``).
They favour clarity over speed: lists of cells and the rules as written in docs/games.md.
"""

import importlib
from types import ModuleType

from arena.games import get_game


def reference(name: str) -> ModuleType:
    """The reference module of the game ``name``."""
    return importlib.import_module(f"tests.reference.{name}")


def walk(name: str, params: dict, choices) -> int:
    """Play both implementations side by side; ``choices`` picks an index into the legal moves."""
    state = get_game(name, **params).initial_state()
    ref = reference(name).initial(**params)
    positions = 1
    assert_same(state, ref)
    for pick in choices:
        legal = state.legal_moves()
        if not legal:
            break
        move = legal[pick % len(legal)]
        state, ref = state.play(move), ref.play(move)
        assert_same(state, ref)
        positions += 1
    return positions


def perft(state, depth: int) -> int:
    """Move sequences of exactly ``depth`` moves (a game that ends early counts once)."""
    if state.is_terminal:
        return 1
    moves = state.legal_moves()
    if depth == 1:
        return len(moves)
    return sum(perft(state.play(move), depth - 1) for move in moves)


class RefAdapter:
    """The reference state seen through the few State members ``perft`` uses."""

    def __init__(self, ref) -> None:
        self.ref = ref
        self.is_terminal = ref.outcome() is not None

    def legal_moves(self):
        return self.ref.legal_moves()

    def play(self, move):
        return RefAdapter(self.ref.play(move))


def assert_same(state, ref) -> None:
    assert state.legal_moves() == ref.legal_moves()
    assert state.is_terminal == (ref.outcome() is not None)
    assert state.outcome == ref.outcome()
    if not state.is_terminal:
        assert state.to_move == ref.to_move
