"""The encodings of positions for the learning bots (arena/learning/features.py, docs/learning.md):
exact values for hand-built positions of every game, and the games' symmetries."""

from __future__ import annotations

import random

import pytest

from arena.games import get_game
from arena.learning.features import encoding_for
from arena.learning.numeric import np


def parts(game, moves) -> dict[str, list[int]]:
    """Each part of the encoding of the position after ``moves``: the indexes holding a 1."""
    encoding = encoding_for(game)
    row = encoding.encode(game.replay(moves))
    assert set(np.unique(row)) <= {0, 1} and row.dtype == np.uint8
    found = {}
    for name, length in encoding.layout:
        start = encoding.offset(name)
        found[name] = np.flatnonzero(row[start : start + length]).tolist()
    return found


def test_tictactoe_is_six_planes_of_nine_cells_seen_from_the_side_to_move():
    row = encoding_for(get_game("tictactoe")).encode(get_game("tictactoe").replay(["0", "4", "1"]))
    assert row.tolist() == [
        0,
        0,
        0,
        0,
        1,
        0,
        0,
        0,
        0,  # mine: o to move holds the centre
        1,
        1,
        0,
        0,
        0,
        0,
        0,
        0,
        0,  # theirs: x holds 0 and 1
        0,
        0,
        1,
        1,
        0,
        1,
        1,
        1,
        1,  # empty
        0,
        0,
        1,
        1,
        0,
        1,
        1,
        1,
        1,  # legal
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,  # wins_mine: no cell completes a line of o
        0,
        0,
        1,
        0,
        0,
        0,
        0,
        0,
        0,  # wins_theirs: x completes 0-1-2 at 2
    ]


def test_a_finished_tictactoe_position_has_no_legal_move():
    found = parts(get_game("tictactoe"), ["0", "3", "1", "4", "2"])
    assert found["legal"] == [] and found["mine"] == [3, 4] and found["theirs"] == [0, 1, 2]


def test_uttt_adds_the_small_boards_and_leaves_closed_boards_out_of_the_legal_moves():
    moves = ["4 4", "4 0", "0 4", "4 8", "8 4", "4 2", "2 4", "4 1", "1 0", "0 1", "1 4"]
    found = parts(get_game("uttt"), moves)
    assert found["mine"] == [1, 36, 37, 38, 44]  # o to move: the board o won (4) and one cell of board 0
    assert found["theirs"] == [4, 9, 13, 22, 40, 76]
    assert len(found["empty"]) == 81 - 11
    assert found["legal"] == [m for m in found["empty"] if m // 9 != 4]  # a free move: every open board
    assert found["wins_mine"] == [] and found["wins_theirs"] == [17]  # x's 0 and 4 of board 1 need 8
    assert (found["won_mine"], found["won_theirs"], found["drawn"]) == ([4], [], [])
    assert len(encoding_for(get_game("uttt")).encode(get_game("uttt").initial_state())) == 6 * 81 + 3 * 9


def test_xtreme_cells_follow_the_move_ints_and_the_legal_moves_show_the_corresponding_boards():
    found = parts(get_game("xtreme"), ["0 0 0"])
    assert found["mine"] == [] and found["theirs"] == [0]
    # cell (0, 0) names the top-left small board of both big boards
    assert found["legal"] == [1, 2, 9, 10, 11, 18, 19, 20, 81, 82, 83, 90, 91, 92, 99, 100, 101]
    assert found["bonus"] == [] and found["won_theirs"] == []
    assert encoding_for(get_game("xtreme")).size == 6 * 162 + 3 * 18 + 1


def test_an_xtreme_bonus_move_is_marked():
    game = get_game("xtreme")
    rng = random.Random(5)
    state = game.initial_state()
    while not state.bonus:
        state = state.play(rng.choice(state.legal_moves()))
    row = encoding_for(game).encode(state)
    assert row[encoding_for(game).offset("bonus")] == 1


def test_othello_is_its_squares_and_the_pass_with_the_board_size_in_the_encoding_name():
    game = get_game("othello", size=6)
    found = parts(game, [])
    assert (found["mine"], found["theirs"]) == ([15, 20], [14, 21])  # black to move
    assert found["legal"] == [8, 13, 22, 27]  # c2, b3, e4, d5
    assert len(found["empty"]) == 32
    encoding = encoding_for(game)
    assert (encoding.name, encoding.moves, encoding.size) == ("othello6", 37, 3 * 36 + 37)
    assert encoding_for(get_game("othello")).name == "othello8"


@pytest.mark.parametrize(
    ("name", "params", "count"),
    [
        ("tictactoe", {}, 8),
        ("uttt", {}, 8),
        ("xtreme", {}, 16),
        ("othello", {}, 4),
        ("othello", {"size": 6, "opening": "free"}, 8),
    ],
)
def test_a_symmetry_of_a_position_is_the_position_of_the_game_played_symmetrically(name, params, count):
    # the standard othello start is kept by half the turns and mirrors only; xtreme's big boards can swap
    game = get_game(name, **params)
    encoding = encoding_for(game)
    symmetries = encoding.symmetries
    assert len(symmetries) == count
    assert symmetries.moves[0].tolist() == list(range(encoding.moves))
    rng = random.Random(3)
    moves = []
    state = game.initial_state()
    while len(moves) < 12 and not state.is_terminal:
        move = rng.choice(state.legal_moves())
        moves.append(move)
        state = state.play(move)
    row, legal = encoding.encode(state), encoding.legal_mask(state)
    for s in range(count):
        image = game.replay([int(symmetries.moves[s][move]) for move in moves])
        assert row[symmetries.features[s]].tolist() == encoding.encode(image).tolist()
        assert legal[symmetries.legal[s]].tolist() == encoding.legal_mask(image).tolist()


def test_encode_many_is_encode_row_by_row():
    game = get_game("uttt")
    states = [game.initial_state(), game.replay(["4 4"]), game.replay(["4 4", "4 0"])]
    encoding = encoding_for(game)
    assert encoding.encode_many(states).tolist() == [encoding.encode(state).tolist() for state in states]
