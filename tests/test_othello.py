"""Othello rules (GAMES.md), the bitboard helpers bots use, and the fast playout."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games import DRAW, WIN, IllegalMoveError, MoveSyntaxError, get_game
from arena.games.othello import PASS, OthelloState, flips, legal_mask
from tests.reference import othello as ref
from tests.test_games_reference import walk

GAME = get_game("othello")


def position(diagram: str, to_move: int = 0) -> OthelloState:
    """A state from eight rows of ``x`` (black), ``o`` (white) and ``.``, row 1 first."""
    cells = "".join(diagram.split())
    assert len(cells) == 64
    black = sum(1 << i for i, cell in enumerate(cells) if cell == "x")
    white = sum(1 << i for i, cell in enumerate(cells) if cell == "o")
    return OthelloState(GAME, black, white, to_move, 0, None)


def reference_of(state: OthelloState) -> ref.RefState:
    """The same position in the reference implementation."""
    cells = state.board_data()["cells"]
    return ref.RefState([list(cells[r * 8 : r * 8 + 8]) for r in range(8)], state.to_move)


def squares(*names: str) -> int:
    """The bitboard of the squares written ``names``."""
    return sum(1 << GAME.parse_move(name) for name in names)


def texts(moves: list[int]) -> list[str]:
    return [GAME.format_move(move) for move in moves]


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
    assert state.render() == "\n".join([
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
    ])  # fmt: skip


def test_notation_is_read_leniently():
    assert GAME.parse_move("  E6 ") == 44
    assert GAME.parse_move("PASS") == PASS
    assert GAME.parse_move(" Pass\n") == PASS
    assert GAME.format_move(PASS) == "pass"


@pytest.mark.parametrize("text", ["i1", "a0", "a9", "a", "a11", "1a", "e 6", "44", "passs", "p"])
def test_text_that_is_no_square_is_a_syntax_error(text):
    with pytest.raises(MoveSyntaxError, match="e.g."):
        GAME.parse_move(text)


@pytest.mark.parametrize("move", [-1, 65, 1.0])
def test_formatting_a_number_that_is_no_move_is_an_error(move):
    with pytest.raises(ValueError, match="not an othello move"):
        GAME.format_move(move)


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


def random_positions(count: int, seed: int):
    """Positions from random games, and random boards the rules could never reach."""
    rng = random.Random(seed)
    for _ in range(count):
        state = GAME.initial_state()
        for _ in range(rng.randrange(60)):
            if state.is_terminal:
                break
            state = state.play(rng.choice(state.legal_moves()))
        yield state
        density = rng.random()
        cells = [rng.choice("xo") if rng.random() < density else "." for _ in range(64)]
        yield position("".join(cells), to_move=rng.randrange(2))


def test_flips_matches_the_reference_on_every_square_of_random_positions():
    for state in random_positions(150, seed=1):
        board = reference_of(state)
        for seat in (0, 1):
            own, opp = state.discs(seat), state.discs(1 - seat)
            for square in range(64):
                row, col = divmod(square, 8)
                expected = sum(1 << (r * 8 + c) for r, c in board.flips(row, col, seat))
                assert flips(own, opp, square) == expected


def test_legal_mask_matches_the_reference_on_random_positions():
    for state in random_positions(300, seed=2):
        board = reference_of(state)
        for seat in (0, 1):
            expected = sum(1 << square for square in board.placements(seat))
            assert legal_mask(state.discs(seat), state.discs(1 - seat)) == expected


@settings(max_examples=200, deadline=None)
@given(choices=st.lists(st.integers(0, 1000), max_size=80))
def test_engine_matches_reference_on_generated_othello_games(choices):
    walk("othello", {}, choices)


# The fast playout


def exact_outcomes(board: ref.RefState) -> dict[int | None, Fraction]:
    """The probability of each winner when both sides play uniformly random legal moves."""
    outcome = board.outcome()
    if outcome is not None:
        return {outcome.winner: Fraction(1)}
    moves = board.legal_moves()
    total: dict[int | None, Fraction] = {}
    for move in moves:
        for winner, p in exact_outcomes(board.play(move)).items():
            total[winner] = total.get(winner, Fraction(0)) + p / len(moves)
    return total


def test_random_playouts_pick_uniformly_among_the_legal_moves():
    # white's three moves decide the game three different ways, so each result must come up
    # a third of the time
    state = position("""
        o . . x o o o o
        o o x x x o o o
        o x o x x x o x
        . x x o o x x x
        x x x o o x o x
        x o x x x o o x
        x x x x x o o x
        x x x x x x x x
    """, to_move=1)
    assert texts(state.legal_moves()) == ["b1", "c1", "a4"]
    results = [exact_outcomes(reference_of(state.play(move))) for move in state.legal_moves()]
    assert results == [{0: 1}, {None: 1}, {1: 1}]
    rng = random.Random(3)
    n = 6000
    winners = [state.random_playout(rng).winner for _ in range(n)]
    for winner in (0, None, 1):
        assert abs(winners.count(winner) / n - 1 / 3) < 0.025, winner


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
    winners = [state.random_playout(rng).winner for _ in range(n)]
    for winner, p in exact.items():
        assert abs(winners.count(winner) / n - p) < 0.025, (winner, float(p))


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
