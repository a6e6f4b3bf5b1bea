"""Othello rules (arena/games/othello.py) on every board size, opening and scoring, the bitboard
helpers bots use, and the fast playout."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games import DRAW, WIN, GameParameterError, IllegalMoveError, MoveSyntaxError, Outcome, get_game
from arena.games.othello import PASS, SIZES, OthelloState, flips, legal_mask
from tests.reference import RefAdapter, perft, walk
from tests.reference import othello as ref

GAME = get_game("othello")
SMALL = get_game("othello", size=6)
LARGE = get_game("othello", size=10)
FREE = get_game("othello", opening="free")
WOF = get_game("othello", scoring="wof")
#: every combination of the parameters
VARIANTS = [
    {"size": size, "opening": opening, "scoring": scoring}
    for size in SIZES
    for opening in ("standard", "free")
    for scoring in ("count", "wof")
]


def position(diagram: str, to_move: int = 0, game=GAME) -> OthelloState:
    """A state from the rows of ``x`` (black), ``o`` (white) and ``.``, row 1 first."""
    cells = "".join(diagram.split())
    assert len(cells) == game.size**2
    black = sum(1 << i for i, cell in enumerate(cells) if cell == "x")
    white = sum(1 << i for i, cell in enumerate(cells) if cell == "o")
    return OthelloState(game, black, white, to_move, 0, None)


def discs_on(game, black: tuple[str, ...], white: tuple[str, ...], to_move: int = 0) -> OthelloState:
    """A state with discs on the squares named."""
    return OthelloState(game, squares(*black, game=game), squares(*white, game=game), to_move, 0, None)


def reference_of(state: OthelloState) -> ref.RefState:
    """The same position in the reference implementation."""
    n = state.game.size
    cells = state.board_data()["cells"]
    params = state.game.params
    board = [list(cells[r * n : r * n + n]) for r in range(n)]
    return ref.RefState(board, state.to_move, params["opening"], params["scoring"])


def squares(*names: str, game=GAME) -> int:
    """The bitboard of the squares written ``names``."""
    return sum(1 << game.parse_move(name) for name in names)


def texts(moves: list[int], game=GAME) -> list[str]:
    return [game.format_move(move) for move in moves]


# The parameters


def test_the_default_game_is_8x8_with_the_standard_opening_scored_by_count():
    assert GAME.params == {"size": 8, "opening": "standard", "scoring": "count"}
    assert get_game("othello", size=8, opening="standard", scoring="count") == GAME


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"size": 7}, "game 'othello': parameter 'size' cannot be 7; choose one of 6, 8, 10"),
        ({"size": 8.0}, "game 'othello': parameter 'size' cannot be 8.0; choose one of 6, 8, 10"),
        (
            {"opening": "random"},
            "game 'othello': parameter 'opening' cannot be 'random'; choose one of 'standard', 'free'",
        ),
        ({"scoring": "points"}, "game 'othello': parameter 'scoring' cannot be 'points'; choose one of 'count', 'wof'"),
    ],
    ids=["size-7", "size-8.0", "opening", "scoring"],
)
def test_a_parameter_value_the_game_does_not_have_is_refused_with_the_choices(params, message):
    with pytest.raises(GameParameterError) as error:
        get_game("othello", **params)
    assert str(error.value) == message


# The start and the moves


def test_start_has_white_on_d4_e5_and_black_on_e4_d5():
    state = GAME.initial_state()
    assert state.black == squares("e4", "d5") == 1 << 28 | 1 << 35
    assert state.white == squares("d4", "e5") == 1 << 27 | 1 << 36
    assert (state.to_move, state.ply, state.last_move) == (0, 0, None)


def test_black_has_four_opening_moves():
    state = GAME.initial_state()
    assert state.legal_moves() == [19, 26, 37, 44]
    assert texts(state.legal_moves()) == ["d3", "c4", "f5", "e6"]


def test_6x6_and_10x10_start_with_the_four_centre_discs_placed_as_on_8x8():
    small, large = SMALL.initial_state(), LARGE.initial_state()
    assert (small.black, small.white) == (squares("d3", "c4", game=SMALL), squares("c3", "d4", game=SMALL))
    assert (large.black, large.white) == (squares("f5", "e6", game=LARGE), squares("e5", "f6", game=LARGE))


def test_black_has_four_opening_moves_on_6x6_and_10x10():
    assert texts(SMALL.initial_state().legal_moves(), SMALL) == ["c2", "b3", "e4", "d5"]
    assert texts(LARGE.initial_state().legal_moves(), LARGE) == ["e4", "d5", "g6", "f7"]


def test_a_placement_flips_the_bracketed_disc_and_passes_the_turn():
    state = GAME.initial_state().play(GAME.parse_move("d3"))
    assert state.black == squares("d3", "d4", "e4", "d5")
    assert state.white == squares("e5")
    assert (state.to_move, state.ply, state.last_move) == (1, 1, 19)
    assert texts(state.legal_moves()) == ["c3", "e3", "c5"]


def test_a_placement_flips_along_several_lines_at_once():
    state = position("""
        . . . . . . . .
        . x . x . . . .
        . . o o . . . .
        o o o . o o x .
        . . . o o . . .
        . . . x . . . .
        . . . . . . . .
        . . . . . . . .
    """)
    # up-left c3 (to b2), up d3 (to d2), right e4 f4 (to g4), down d5 (to d6); the run to the
    # left, c4 b4 a4, meets the edge and the one down-right, e5, an empty square: both stay
    flipped = squares("c3", "d3", "e4", "f4", "d5")
    assert flips(state.black, state.white, GAME.parse_move("d4")) == flipped
    after = state.play(GAME.parse_move("d4"))
    assert after.black == state.black | flipped | squares("d4")
    assert after.white == squares("a4", "b4", "c4", "e5")


def test_runs_of_eight_discs_across_a_10x10_board_are_bracketed():
    row = [f"{letter}1" for letter in "bcdefghi"]
    column = [f"a{number}" for number in range(2, 10)]
    diagonal = [f"{letter}{number}" for number, letter in enumerate("bcdefghi", 2)]
    state = discs_on(LARGE, ("a1",), (*row, *column, *diagonal))
    assert texts(state.legal_moves(), LARGE) == ["j1", "a10", "j10"]
    after = state.play(LARGE.parse_move("j10"))
    assert after.black == squares("a1", "j10", *diagonal, game=LARGE)


def test_a_run_that_ends_on_an_empty_square_flips_nothing():
    state = position("""
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . o o . x . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
    """)
    assert flips(state.black, state.white, GAME.parse_move("b4")) == 0
    assert flips(state.black, state.white, GAME.parse_move("e4")) == 0
    assert legal_mask(state.black, state.white) == 0


# Passing and the end


#: black (to move) has no placement: its only disc, b1, faces white's a1 against the edge
MUST_PASS = """
    o x . . . . . .
    . . . . . . . .
    . . . . . . . .
    . . . . . . . .
    . . . . . . . .
    . . . . . . . .
    . . . . . . . .
    . . . . . . . .
"""


def test_a_player_without_a_placement_must_pass_and_it_is_the_only_legal_move():
    state = position(MUST_PASS)
    assert legal_mask(state.black, state.white) == 0
    assert state.legal_moves() == [PASS]
    assert not state.is_terminal


def test_a_pass_gives_the_turn_back_and_changes_no_disc():
    state = position(MUST_PASS).play(PASS)
    assert (state.to_move, state.ply, state.last_move) == (1, 1, PASS)
    assert (state.black, state.white) == (squares("b1"), squares("a1"))
    assert texts(state.legal_moves()) == ["c1"]


def test_the_game_ends_when_neither_player_can_move_before_the_board_is_full():
    state = GAME.replay(["d3", "c3", "b3", "d2", "e1", "d6", "d7", "e3", "f4"])
    assert state.is_terminal and state.legal_moves() == []
    assert (state.count(0), state.count(1)) == (13, 0)
    assert state.outcome == WIN[0]


def test_a_stalemate_with_discs_left_on_both_sides_ends_the_game():
    state = position("""
        x . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . o o
    """)
    assert state.is_terminal
    assert state.outcome == WIN[1]


def test_a_full_board_with_more_black_discs_is_a_black_win():
    state = position("x" * 33 + "o" * 31, to_move=1)
    assert state.legal_moves() == []
    assert state.outcome == WIN[0]


def test_equal_discs_at_the_end_is_a_draw():
    state = position("x" * 32 + "o" * 32)
    assert state.outcome == DRAW
    assert state.outcome.points is None


def test_the_outcome_is_none_while_the_game_goes_on():
    assert GAME.initial_state().outcome is None
    assert position(MUST_PASS).outcome is None


# The free opening


def test_the_free_opening_starts_empty_with_the_four_centre_squares_to_fill():
    state = FREE.initial_state()
    assert (state.black, state.white, state.to_move) == (0, 0, 0)
    assert texts(state.legal_moves()) == ["d4", "e4", "d5", "e5"]


def test_the_free_opening_fills_the_centre_of_6x6_and_10x10():
    small = get_game("othello", size=6, opening="free")
    large = get_game("othello", size=10, opening="free")
    assert texts(small.initial_state().legal_moves(), small) == ["c3", "d3", "c4", "d4"]
    assert texts(large.initial_state().legal_moves(), large) == ["e5", "f5", "e6", "f6"]


def test_free_opening_placements_take_turns_on_the_free_centre_squares_and_flip_nothing():
    state = FREE.replay(["e5", "d5"])
    assert (state.black, state.white) == (squares("e5"), squares("d5"))
    assert texts(state.legal_moves()) == ["d4", "e4"]
    state = state.play(GAME.parse_move("e4")).play(GAME.parse_move("d4"))
    assert (state.black, state.white) == (squares("e4", "e5"), squares("d4", "d5"))
    assert (state.to_move, state.ply, state.last_move) == (0, 4, GAME.parse_move("d4"))


def test_after_the_free_opening_placements_must_flip_as_usual():
    state = FREE.replay(["e5", "d5", "e4", "d4"])
    assert texts(state.legal_moves()) == ["c3", "c4", "c5", "c6"]
    after = state.play(GAME.parse_move("c6"))
    assert (after.black, after.white) == (squares("e4", "d5", "e5", "c6"), squares("d4"))


def test_a_placement_off_the_centre_during_the_free_opening_is_illegal_though_it_would_flip():
    state = FREE.replay(["d4", "d5"])  # d6 would bracket white's d5 against black's d4
    with pytest.raises(IllegalMoveError) as error:
        state.play(GAME.parse_move("d6"))
    assert str(error.value) == (
        "d6 is illegal in othello: the first four discs go on the centre squares (d4, e4, d5, e5)"
    )


def test_nobody_may_pass_during_the_free_opening():
    with pytest.raises(IllegalMoveError, match="pass is illegal in othello: black cannot pass while a move exists"):
        FREE.initial_state().play(PASS)


# Scoring


#: white wins 2-1 with 61 empty squares: nobody can bracket anything
STALEMATE = {"black": ("a1",), "white": ("g8", "h8")}


def test_count_scoring_gives_the_winner_and_no_points():
    assert discs_on(GAME, **STALEMATE).outcome == WIN[1] == Outcome(1, None)


def test_wof_scoring_gives_the_empty_squares_to_the_winner():
    assert discs_on(WOF, **STALEMATE).outcome == Outcome(1, (1, 63))


@pytest.mark.parametrize(("size", "points"), [(6, (1, 35)), (10, (1, 99))])
def test_wof_scoring_gives_the_empty_squares_to_the_winner_on_every_size(size, points):
    game = get_game("othello", size=size, scoring="wof")
    last, before_last = game.format_move(size * size - 1), game.format_move(size * size - 2)
    assert discs_on(game, ("a1",), (before_last, last)).outcome == Outcome(1, points)


def test_wof_scoring_splits_the_empty_squares_on_a_draw():
    state = discs_on(WOF, ("a1",), ("h8",))
    assert state.is_terminal
    assert state.outcome == Outcome(None, (32, 32))


def test_wof_scoring_of_a_full_board_is_the_disc_count():
    assert position("x" * 33 + "o" * 31, game=WOF).outcome == Outcome(0, (33, 31))


def test_a_forfeit_under_wof_gives_the_opponent_every_square():
    assert WOF.initial_state().forfeit_outcome(0) == Outcome(1, (0, 64))
    assert WOF.initial_state().forfeit_outcome(1) == Outcome(0, (64, 0))
    assert GAME.initial_state().forfeit_outcome(0) == WIN[1]


def test_the_render_of_a_game_over_under_wof_shows_the_points():
    assert discs_on(WOF, **STALEMATE).render().splitlines()[-1] == (
        "black (x) 1, white (o) 2; game over: white wins, 1-63 with the empty squares"
    )


# Illegal moves say why


@pytest.mark.parametrize(
    ("diagram", "move", "reason"),
    [
        (None, "d4", "d4 is occupied"),
        (None, "a1", "a1 flips nothing"),
        (None, "pass", "pass is illegal in othello: black cannot pass while a move exists"),
        (MUST_PASS, "h8", "h8 is illegal in othello: black has no placement and must pass"),
        ("x" * 64, "pass", "pass is illegal in othello: the game is over"),
    ],
    ids=["occupied", "flips-nothing", "cannot-pass", "must-pass", "game-over"],
)
def test_an_illegal_move_says_which_move_and_why(diagram, move, reason):
    state = GAME.initial_state() if diagram is None else position(diagram)
    with pytest.raises(IllegalMoveError, match=reason):
        state.play(GAME.parse_move(move))


@pytest.mark.parametrize("move", [-1, 65, 100, True, "d3", None])
def test_a_move_that_is_no_square_is_illegal(move):
    with pytest.raises(IllegalMoveError, match="no such square"):
        GAME.initial_state().play(move)
    assert not GAME.initial_state().is_legal(move)


def test_a_finished_game_rejects_a_placement_as_over():
    state = GAME.replay(["d3", "c3", "b3", "d2", "e1", "d6", "d7", "e3", "f4"])
    with pytest.raises(IllegalMoveError, match="a8 is illegal in othello: the game is over"):
        state.play(GAME.parse_move("a8"))


# Notation


def test_a1_is_the_top_left_corner_and_h8_the_bottom_right():
    assert GAME.parse_move("a1") == 0
    assert GAME.parse_move("h1") == 7
    assert GAME.parse_move("a8") == 56
    assert GAME.parse_move("h8") == 63
    assert GAME.format_move(0) == "a1" and GAME.format_move(63) == "h8"


def test_the_render_shows_a1_top_left_with_counts_and_legal_moves():
    state = position(MUST_PASS).play(PASS)
    assert state.render() == "\n".join(
        [
            "  a b c d e f g h",
            "1 o x * . . . . .",
            "2 . . . . . . . .",
            "3 . . . . . . . .",
            "4 . . . . . . . .",
            "5 . . . . . . . .",
            "6 . . . . . . . .",
            "7 . . . . . . . .",
            "8 . . . . . . . .",
            "black (x) 1, white (o) 1; white to move",
        ]
    )


def test_notation_is_read_leniently():
    assert GAME.parse_move("  E6 ") == 44
    assert GAME.parse_move("PASS") == PASS
    assert GAME.parse_move(" Pass\n") == PASS
    assert GAME.format_move(PASS) == "pass"


@pytest.mark.parametrize("text", ["i1", "a0", "a9", "a", "a11", "1a", "e 6", "44", "passs", "p"])
def test_text_that_is_no_square_is_a_syntax_error(text):
    with pytest.raises(MoveSyntaxError, match=r"e\.g\."):
        GAME.parse_move(text)


@pytest.mark.parametrize("move", [-1, 65, 1.0])
def test_formatting_a_number_that_is_no_move_is_an_error(move):
    with pytest.raises(ValueError, match="not an othello move"):
        GAME.format_move(move)


@pytest.mark.parametrize("size", SIZES)
def test_notation_round_trips_on_every_square_of_every_size(size):
    game = get_game("othello", size=size)
    names = [f"{column}{row}" for row in range(1, size + 1) for column in "abcdefghij"[:size]]
    assert [game.format_move(square) for square in range(size * size)] == names
    assert [game.parse_move(name) for name in names] == list(range(size * size))


def test_j10_is_the_bottom_right_corner_of_10x10_and_f6_of_6x6():
    assert (LARGE.parse_move("a10"), LARGE.parse_move("j1"), LARGE.parse_move("j10")) == (90, 9, 99)
    assert (SMALL.parse_move("f1"), SMALL.parse_move("a6"), SMALL.parse_move("f6")) == (5, 30, 35)


def test_the_pass_is_the_number_after_the_last_square():
    assert (SMALL.parse_move("pass"), GAME.parse_move("pass"), LARGE.parse_move("pass")) == (36, PASS, 100)
    assert PASS == 64
    assert (SMALL.format_move(36), LARGE.format_move(100)) == ("pass", "pass")


def test_the_notation_names_the_columns_and_rows_of_the_board():
    assert SMALL.NOTATION == (
        "a move is a square, column letter a-f then row number 1-6, a1 the top-left corner (e.g. 'd3'), "
        "or 'pass' when there is no placement"
    )
    assert LARGE.NOTATION.startswith("a move is a square, column letter a-j then row number 1-10,")
    assert GAME.NOTATION.startswith("a move is a square, column letter a-h then row number 1-8,")


@pytest.mark.parametrize(("game", "text"), [(SMALL, "h8"), (SMALL, "a7"), (SMALL, "g1"), (GAME, "j10"), (GAME, "i1")])
def test_a_square_off_the_board_is_a_syntax_error_naming_the_board_size(game, text):
    with pytest.raises(MoveSyntaxError) as error:
        game.parse_move(text)
    n = game.size
    assert str(error.value) == f"{text!r} is off the {n}x{n} othello board; {game.NOTATION}"


def test_formatting_a_number_past_the_pass_names_the_moves_of_the_board():
    with pytest.raises(ValueError, match="101 is not") as error:
        LARGE.format_move(101)
    assert str(error.value) == "101 is not an othello move (0-99 or 100 for the pass)"


def test_a_number_past_the_pass_is_no_square_on_any_size():
    with pytest.raises(IllegalMoveError) as error:
        SMALL.initial_state().play(37)
    assert str(error.value) == "37 is illegal in othello: there is no such square (squares are 0-35, 36 is the pass)"


def test_the_render_of_10x10_right_aligns_the_row_numbers():
    assert LARGE.initial_state().render() == "\n".join(
        [
            "   a b c d e f g h i j",
            " 1 . . . . . . . . . .",
            " 2 . . . . . . . . . .",
            " 3 . . . . . . . . . .",
            " 4 . . . . * . . . . .",
            " 5 . . . * o x . . . .",
            " 6 . . . . x o * . . .",
            " 7 . . . . . * . . . .",
            " 8 . . . . . . . . . .",
            " 9 . . . . . . . . . .",
            "10 . . . . . . . . . .",
            "black (x) 2, white (o) 2; black to move",
        ]
    )


# Data for bots and reports


def test_discs_and_count_give_each_seat_its_bitboard_and_number():
    state = GAME.initial_state().play(GAME.parse_move("d3"))
    assert state.discs(0) == state.black == squares("d3", "d4", "e4", "d5")
    assert state.discs(1) == state.white == squares("e5")
    assert (state.count(0), state.count(1)) == (4, 1)


def test_board_data_is_the_cells_row_by_row_and_the_counts():
    data = GAME.initial_state().play(GAME.parse_move("d3")).board_data()
    assert data == {
        "cells": "." * 19 + "b" + "." * 7 + "bb" + "." * 6 + "bw" + "." * 27,
        "black": 4,
        "white": 1,
    }


def test_board_data_of_6x6_has_a_cell_for_each_of_its_36_squares():
    assert SMALL.initial_state().board_data() == {
        "cells": "." * 14 + "wb" + "." * 4 + "bw" + "." * 14,
        "black": 2,
        "white": 2,
    }


def test_the_module_helpers_are_the_8x8_boards():
    assert (flips, legal_mask) == (GAME.geometry.flips, GAME.geometry.legal_mask)


def random_positions(count: int, seed: int, game=GAME):
    """Positions from random games, and random boards the rules could never reach."""
    rng = random.Random(seed)
    for _ in range(count):
        state = game.initial_state()
        for _ in range(rng.randrange(game.size**2 - 4)):
            if state.is_terminal:
                break
            state = state.play(rng.choice(state.legal_moves()))
        yield state
        density = rng.random()
        cells = [rng.choice("xo") if rng.random() < density else "." for _ in range(game.size**2)]
        yield position("".join(cells), to_move=rng.randrange(2), game=game)


@pytest.mark.parametrize("size", SIZES)
def test_flips_matches_the_reference_on_every_square_of_random_positions(size):
    game = get_game("othello", size=size)
    for state in random_positions(150, seed=1, game=game):
        board = reference_of(state)
        for seat in (0, 1):
            own, opp = state.discs(seat), state.discs(1 - seat)
            for square in range(size * size):
                row, col = divmod(square, size)
                expected = sum(1 << (r * size + c) for r, c in board.flips(row, col, seat))
                assert game.geometry.flips(own, opp, square) == expected


@pytest.mark.parametrize("size", SIZES)
def test_legal_mask_matches_the_reference_on_random_positions(size):
    game = get_game("othello", size=size)
    for state in random_positions(300, seed=2, game=game):
        board = reference_of(state)
        for seat in (0, 1):
            expected = sum(1 << square for square in board.placements(seat))
            assert game.geometry.legal_mask(state.discs(seat), state.discs(1 - seat)) == expected


@settings(max_examples=200, deadline=None)
@given(choices=st.lists(st.integers(0, 1000), max_size=80))
def test_engine_matches_reference_on_generated_othello_games(choices):
    walk("othello", {}, choices)


#: random games a variant is checked on: fewer on the bigger boards, whose games are longer
RANDOM_GAMES = {6: 200, 8: 80, 10: 30}


@pytest.mark.parametrize("params", VARIANTS, ids=lambda p: "-".join(map(str, p.values())))
def test_engine_and_reference_agree_at_every_ply_of_random_games(params):
    """Legal moves, whose turn, the end, the winner and the points, ply by ply."""
    rng = random.Random(params["size"])
    for _ in range(RANDOM_GAMES[params["size"]]):
        walk("othello", params, iter(lambda: rng.randrange(1 << 30), None))


# Perft: the move sequences of exactly ``depth`` moves from the start (a pass is a move)

#: the published counts of the standard game
PUBLISHED_PERFT = [4, 12, 56, 244, 1396, 8200, 55092, 390216]
#: the other boards and the free opening, as both the engine and the reference count them
VARIANT_PERFT = {
    "6x6": ({"size": 6}, [4, 12, 56, 244, 1364, 7604, 47740]),
    "10x10": ({"size": 10}, [4, 12, 56, 244, 1396, 8200, 55180]),
    "free": ({"opening": "free"}, [4, 12, 24, 24, 96, 320, 1536]),
}


@pytest.mark.parametrize(("depth", "count"), list(enumerate(PUBLISHED_PERFT, 1)), ids=lambda v: str(v))
def test_perft_of_the_standard_game_matches_the_published_counts(depth, count):
    assert perft(GAME.initial_state(), depth) == count


def test_the_reference_perft_of_the_standard_game_matches_the_published_counts():
    assert [perft(RefAdapter(ref.initial()), depth) for depth in range(1, 6)] == PUBLISHED_PERFT[:5]


@pytest.mark.parametrize("name", VARIANT_PERFT)
def test_perft_of_the_other_boards_and_the_free_opening(name):
    params, counts = VARIANT_PERFT[name]
    start = get_game("othello", **params).initial_state()
    assert [perft(start, depth) for depth in range(1, len(counts) + 1)] == counts


@pytest.mark.parametrize("name", VARIANT_PERFT)
def test_the_reference_agrees_on_the_perft_of_the_other_boards_and_the_free_opening(name):
    params, counts = VARIANT_PERFT[name]
    assert perft(RefAdapter(ref.initial(**params)), len(counts)) == counts[-1]


# The fast playout


def exact_outcomes(board: ref.RefState) -> dict[Outcome, Fraction]:
    """The probability of each outcome when both sides play uniformly random legal moves."""
    outcome = board.outcome()
    if outcome is not None:
        return {outcome: Fraction(1)}
    moves = board.legal_moves()
    total: dict[Outcome, Fraction] = {}
    for move in moves:
        for result, p in exact_outcomes(board.play(move)).items():
            total[result] = total.get(result, Fraction(0)) + p / len(moves)
    return total


def test_random_playouts_pick_uniformly_among_the_legal_moves():
    # white's three moves decide the game three different ways, so each result must come up
    # a third of the time
    state = position(
        """
        o . . x o o o o
        o o x x x o o o
        o x o x x x o x
        . x x o o x x x
        x x x o o x o x
        x o x x x o o x
        x x x x x o o x
        x x x x x x x x
    """,
        to_move=1,
    )
    assert texts(state.legal_moves()) == ["b1", "c1", "a4"]
    results = [exact_outcomes(reference_of(state.play(move))) for move in state.legal_moves()]
    assert results == [{WIN[0]: 1}, {DRAW: 1}, {WIN[1]: 1}]
    rng = random.Random(3)
    n = 6000
    outcomes = Counter(state.random_playout(rng) for _ in range(n))
    for outcome in (WIN[0], DRAW, WIN[1]):
        assert abs(outcomes[outcome] / n - 1 / 3) < 0.025, outcome


def test_random_playouts_end_in_the_exact_proportions_of_uniform_play():
    # eight empty squares, passes and early ends on the way, and all three results possible
    state = position("""
        x x x x x x . .
        x x o o o x o .
        x o x o o o o o
        x o o x o o o o
        x o x o x o o o
        x x o x o x o .
        x o x x x o x .
        . . x x x x x .
    """)
    exact = exact_outcomes(reference_of(state))
    assert len(exact) == 3
    rng = random.Random(3)
    n = 6000
    outcomes = Counter(state.random_playout(rng) for _ in range(n))
    for outcome, p in exact.items():
        assert abs(outcomes[outcome] / n - p) < 0.025, (outcome, float(p))


@pytest.mark.parametrize("size", [6, 10])
def test_random_playouts_on_6x6_and_10x10_end_in_the_exact_proportions_of_wof_scores(size):
    # seven empty squares left by a random game: all three results, and many scores, possible
    game = get_game("othello", size=size, scoring="wof")
    rng = random.Random(0)
    state = game.initial_state()
    while size * size - state.count(0) - state.count(1) > 7:
        state = state.play(rng.choice(state.legal_moves()))
    exact = exact_outcomes(reference_of(state))
    assert {outcome.winner for outcome in exact} == {0, 1, None}
    n = 6000
    outcomes = Counter(state.random_playout(rng) for _ in range(n))
    assert set(outcomes) <= set(exact)
    for outcome, p in exact.items():
        assert abs(outcomes[outcome] / n - p) < 0.025, (outcome, float(p))


def test_random_playouts_through_the_free_opening_end_as_often_in_each_way_as_reference_games():
    game = get_game("othello", size=6, opening="free")
    rng = random.Random(5)
    n = 300
    fast = Counter(game.initial_state().random_playout(rng).winner for _ in range(n))
    plain: Counter = Counter()
    for _ in range(n):
        board = ref.initial(size=6, opening="free")
        while board.outcome() is None:
            board = board.play(rng.choice(board.legal_moves()))
        plain[board.outcome().winner] += 1
    for winner in (0, 1, None):
        assert abs(fast[winner] - plain[winner]) / n < 0.1, winner


def test_a_random_playout_draws_only_from_the_rng_it_is_given():
    state = GAME.initial_state()
    random.seed(0)
    before = random.getstate()
    first = [state.random_playout(random.Random(9)) for _ in range(20)]
    assert random.getstate() == before
    assert [state.random_playout(random.Random(9)) for _ in range(20)] == first


def test_a_random_playout_from_a_forced_pass_plays_on():
    state = position(MUST_PASS)
    # black passes, white must take c1, then nobody can move: white wins 3-0
    assert state.random_playout(random.Random(0)) == WIN[1]
