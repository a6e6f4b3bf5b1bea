"""Each fast engine against its plain reference (tests/reference), and the published perft counts
(othello's, with its variants, are in tests/test_othello.py)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games import get_game
from tests.reference import RefAdapter, perft, reference, walk

GAMES_WITH_PARAMS = [("tictactoe", {}), ("uttt", {}), ("uttt", {"tiebreak": "boards"}), ("xtreme", {}), ("othello", {})]
IDS = ["tictactoe", "uttt", "uttt-boards", "xtreme", "othello"]


@pytest.mark.parametrize(("name", "params"), GAMES_WITH_PARAMS, ids=IDS)
def test_engine_matches_reference_on_thousands_of_random_positions(name, params):
    rng = random.Random(2019)
    positions = 0
    while positions < 3000:
        positions += walk(name, params, iter(lambda: rng.randrange(1 << 30), None))
    assert positions >= 3000


PLAYOUTS = {"tictactoe": 3000, "uttt": 1000, "xtreme": 300, "othello": 300}


@pytest.mark.parametrize(("name", "params"), GAMES_WITH_PARAMS, ids=IDS)
def test_random_playouts_have_the_reference_distribution(name, params):
    """Fast playouts end as often in each way as plain uniformly random games of the reference."""
    n = PLAYOUTS[name]
    rng = random.Random(5)
    start = get_game(name, **params).initial_state()
    fast = [start.random_playout(rng).winner for _ in range(n)]
    plain = []
    for _ in range(n):
        ref = reference(name).initial(**params)
        while ref.outcome() is None:
            ref = ref.play(rng.choice(ref.legal_moves()))
        plain.append(ref.outcome().winner)
    for result in (0, 1, None):
        assert abs(fast.count(result) - plain.count(result)) / n < 0.1, result


@pytest.mark.parametrize(("name", "params"), GAMES_WITH_PARAMS, ids=IDS)
@settings(max_examples=40, deadline=None)
@given(choices=st.lists(st.integers(0, 1000), max_size=200))
def test_engine_matches_reference_on_generated_games(name, params, choices):
    walk(name, params, choices)


PERFT = {
    "tictactoe": [9, 72, 504, 3024, 15120, 56160, None, None, 255168],
    "uttt": [81, 720, 6336, 55080, 473256, 4020960],
    "xtreme": [162, 2898, 51552, 911520, 16020288],
}
#: depths whose count takes more than a few seconds in pure Python
SLOW_PERFT = {("uttt", 6), ("xtreme", 5), ("xtreme", 4)}

CASES = [
    pytest.param(
        name, depth, count, marks=[pytest.mark.slow] if (name, depth) in SLOW_PERFT else [], id=f"{name}-{depth}"
    )
    for name, counts in PERFT.items()
    for depth, count in enumerate(counts, start=1)
    if count is not None
]


@pytest.mark.parametrize(("name", "depth", "count"), CASES)
def test_perft(name, depth, count):
    assert perft(get_game(name).initial_state(), depth) == count


@pytest.mark.parametrize(
    ("name", "depth", "count"), [(n, d, c) for n, cs in PERFT.items() for d, c in enumerate(cs[:3], 1)]
)
def test_reference_perft(name, depth, count):
    """The references are checked against the same table, so they can be trusted as oracles."""
    assert perft(RefAdapter(reference(name).initial()), depth) == count
