"""Ultimate tic-tac-toe rules, notation and views (docs/games.md), on positions built by replaying."""

from __future__ import annotations

import random

import pytest

from arena.games import DRAW, WIN, IllegalMoveError, MoveSyntaxError, get_game

UTTT = get_game("uttt")
BOARDS = get_game("uttt", tiebreak="boards")


def moves(text: str) -> list[str]:
    """A move list written ``"B C, B C, ..."``."""
    return text.split(", ")


# x takes cells 0, 1, 2 of small board 0 (the 11th move, '0 2', wins it); the 13th move,
# '3 0', names board 0, which is closed.
X_WINS_BOARD_0 = moves("4 4, 4 0, 0 0, 0 4, 4 1, 1 0, 0 1, 1 4, 4 2, 2 0, 0 2, 2 3, 3 0")
# small board 7 fills up without a line at '7 7' (move 31); move 32, '5 7', names it
BOARD_7_DRAWN = moves(
    "7 1, 1 0, 0 7, 7 2, 2 1, 1 4, 4 4, 4 0, 0 6, 6 1, 1 7, 7 3, 3 0, 0 3, 3 2, 2 4, 4 5, 5 8, "
    "8 7, 7 0, 0 2, 2 7, 7 6, 6 7, 7 4, 4 7, 7 8, 8 3, 3 7, 7 7, 7 5, 5 7"
)
# x wins small boards 0 and 2, then small board 1 with the last move: the top row
X_WINS_TOP_ROW = moves(
    "3 7, 7 1, 1 4, 4 1, 1 6, 6 0, 0 0, 0 1, 1 3, 3 2, 2 4, 4 2, 2 7, 7 0, 0 8, 8 0, 0 4, 4 4, "
    "4 3, 3 4, 4 0, 7 2, 2 1, 1 1, 1 0"
)
# every small board closed, no line on the big board: x and o 4 small boards each, 1 drawn
EQUAL_BOARDS = moves(
    "2 3, 3 4, 4 4, 4 2, 2 1, 1 8, 8 1, 1 0, 0 8, 8 0, 0 7, 7 4, 4 6, 6 8, 8 6, 6 5, 5 4, 4 5, "
    "5 6, 6 0, 0 6, 6 4, 4 8, 8 2, 2 8, 8 7, 7 1, 1 4, 4 7, 7 8, 8 5, 5 7, 7 6, 7 2, 2 6, 3 1, "
    "2 5, 5 8, 8 4, 7 5, 5 2, 2 2, 2 4, 3 6, 3 0, 3 7, 8 8, 8 3"
)
# every small board closed, no line: x 5 small boards, o 3, 1 drawn
MORE_X_BOARDS = moves(
    "1 2, 2 6, 6 8, 8 6, 6 2, 2 3, 3 4, 4 1, 1 0, 0 1, 1 8, 8 3, 3 8, 8 0, 0 0, 0 7, 7 1, 1 7, "
    "7 0, 0 6, 6 0, 0 8, 5 0, 2 0, 5 1, 1 1, 1 4, 4 4, 4 3, 3 5, 5 2, 4 6, 6 5, 7 4, 4 2, 7 7, "
    "7 2, 4 8, 3 1, 3 7, 4 7, 3 2, 4 0, 3 6, 3 0, 4 5"
)
# every small board closed, no line: x 3 small boards, o 6
MORE_O_BOARDS = moves(
    "1 2, 2 5, 5 3, 3 0, 0 4, 4 2, 2 8, 8 0, 0 7, 7 6, 6 8, 8 8, 8 7, 7 0, 0 3, 3 4, 4 1, 1 6, "
    "6 7, 7 8, 8 1, 1 0, 0 8, 8 4, 4 8, 7 7, 4 7, 3 8, 1 1, 1 3, 6 6, 2 2, 2 3, 0 5, 5 8, 2 1, "
    "5 0, 0 1, 5 6, 4 3, 4 4, 0 0, 0 6, 2 0"
)
# o to move with a free move among 2 2, 2 4, 2 6, 2 7 and 6 6, three plies from the end at most
FIVE_FREE_MOVES_LEFT = moves(
    "8 1, 1 1, 1 8, 8 5, 5 0, 0 0, 0 3, 3 7, 7 5, 5 6, 6 0, 0 4, 4 7, 7 3, 3 6, 6 2, 2 3, 3 4, "
    "4 4, 4 6, 6 8, 8 6, 6 7, 7 0, 0 6, 6 4, 4 0, 0 5, 5 8, 8 4, 4 3, 3 3, 3 0, 0 2, 2 5, 5 1, "
    "1 0, 0 8, 8 2, 2 8, 8 7, 7 6, 6 3, 3 1, 1 7, 4 1, 1 3, 6 5, 5 5, 5 4, 4 5, 5 7, 1 4, 2 1, "
    "8 3, 8 8, 8 0, 2 0, 6 1"
)


def illegal_message(state, text: str) -> str:
    with pytest.raises(IllegalMoveError) as error:
        state.play(UTTT.parse_move(text))
    return str(error.value)


# --- where a move may go -------------------------------------------------------------------


def test_first_move_is_free_on_all_81_cells():
    state = UTTT.initial_state()
    assert state.forced_board is None
    assert state.legal_moves() == list(range(81))


def test_the_cell_played_names_the_next_small_board():
    state = UTTT.replay(["0 4"])
    assert state.forced_board == 4
    assert state.legal_moves() == [36, 37, 38, 39, 40, 41, 42, 43, 44]


def test_the_named_board_excludes_its_occupied_cells():
    state = UTTT.replay(["4 4", "4 0", "0 4"])
    assert state.forced_board == 4
    assert state.legal_moves() == [37, 38, 39, 41, 42, 43, 44]


def test_a_won_small_board_is_closed():
    state = UTTT.replay(X_WINS_BOARD_0[:11])
    assert state.small_status() == "x--------"
    assert not state.is_terminal


def test_a_won_named_board_gives_a_free_move_among_open_boards_only():
    state = UTTT.replay(X_WINS_BOARD_0)
    assert state.forced_board is None
    occupied = {9, 13, 18, 21, 27, 36, 37, 38, 40}  # outside board 0, whose 5 empty cells are shut
    assert state.legal_moves() == [m for m in range(9, 81) if m not in occupied]


def test_a_full_small_board_without_a_line_is_drawn_and_closed():
    state = UTTT.replay(BOARD_7_DRAWN[:31])
    assert state.small_status() == "-------d-"
    assert state.masks[0][7] | state.masks[1][7] == 0b111111111


def test_a_full_named_board_gives_a_free_move():
    state = UTTT.replay(BOARD_7_DRAWN)
    assert state.forced_board is None
    empty_cells = (
        "0 1 4 5 8 10 11 12 14 15 17 18 20 21 23 24 26 28 30 31 32 33 35 37 38 39 "
        "42 44 45 46 47 48 49 50 51 54 56 57 58 59 60 62 72 73 74 76 77 78 80"
    )
    assert state.legal_moves() == [int(cell) for cell in empty_cells.split()]


# --- how the game ends ---------------------------------------------------------------------


def test_three_small_boards_in_a_row_win_the_game():
    before = UTTT.replay(X_WINS_TOP_ROW[:-1])
    assert before.small_status() == "x-x----o-" and not before.is_terminal
    state = before.play(UTTT.parse_move(X_WINS_TOP_ROW[-1]))
    assert state.small_status() == "xxx----o-"
    assert state.is_terminal
    assert state.outcome == WIN[0]
    assert state.legal_moves() == []
    assert state.forced_board is None


def test_every_board_closed_without_a_line_is_a_draw():
    state = UTTT.replay(MORE_X_BOARDS)
    assert state.small_status() == "oxoxdxxxo"
    assert state.outcome == DRAW
    assert state.legal_moves() == []


def test_tiebreak_boards_gives_the_game_to_more_small_boards_won():
    assert BOARDS.replay(MORE_X_BOARDS).outcome == WIN[0]
    assert BOARDS.replay(MORE_O_BOARDS).small_status() == "xoooxxxoo"
    assert BOARDS.replay(MORE_O_BOARDS).outcome == WIN[1]


def test_tiebreak_boards_with_equal_counts_is_a_draw():
    state = BOARDS.replay(EQUAL_BOARDS)
    assert state.small_status() == "xoxoxxood"
    assert state.outcome == DRAW


def test_tiebreak_does_not_change_a_line_win():
    assert BOARDS.replay(X_WINS_TOP_ROW).outcome == WIN[0]


def test_without_tiebreak_more_small_boards_is_still_a_draw():
    assert UTTT.replay(MORE_O_BOARDS).outcome == DRAW


# --- why a move is illegal -----------------------------------------------------------------


def test_playing_an_occupied_cell_says_so():
    state = UTTT.replay(["4 4", "4 0", "0 4"])
    assert illegal_message(state, "4 4") == ("uttt move '4 4' is illegal: cell 4 of small board 4 is occupied")


def test_playing_outside_the_named_board_names_the_board_required():
    state = UTTT.replay(["4 4"])
    assert illegal_message(state, "0 0") == ("uttt move '0 0' is illegal: the move must be played in small board 4")


def test_playing_in_a_closed_board_says_it_is_closed_and_by_whom():
    state = UTTT.replay(X_WINS_BOARD_0)
    assert illegal_message(state, "0 3") == ("uttt move '0 3' is illegal: small board 0 is closed (won by x)")


def test_playing_in_a_drawn_board_says_it_is_drawn():
    state = UTTT.replay(BOARD_7_DRAWN)
    assert illegal_message(state, "7 0") == ("uttt move '7 0' is illegal: small board 7 is closed (drawn)")


def test_playing_after_the_game_is_over_says_so():
    state = UTTT.replay(X_WINS_TOP_ROW)
    assert illegal_message(state, "4 8") == "uttt move '4 8' is illegal: the game is over"


@pytest.mark.parametrize("move", [81, -1, 1000, True, "4 4"])
def test_a_move_outside_the_board_is_no_such_cell(move):
    state = UTTT.initial_state()
    assert not state.is_legal(move)
    with pytest.raises(IllegalMoveError, match=f"uttt move {move!r} is illegal: there is no such"):
        state.play(move)


def test_replay_names_the_ply_of_an_illegal_move():
    with pytest.raises(IllegalMoveError, match=r"^ply 2: uttt move '0 0' is illegal: the move must"):
        UTTT.replay(["4 4", "0 0"])


# --- notation ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("4 4", 40),
        ("0 0", 0),
        ("8 8", 80),
        ("2 7", 25),
        ("  4   4  ", 40),
        ("\t8\t0\n", 72),
        ("4,4", 40),
        ("4 , 4", 40),
        (" 3,5 ", 32),
    ],
)
def test_notation_is_board_then_cell_with_space_or_comma(text, move):
    assert UTTT.parse_move(text) == move


@pytest.mark.parametrize("text", ["44", "4 9", "9 4", "4,,4", "4 4 4", "4;4", "a b", "-1 4", "4.0 4", "4", "", None])
def test_other_text_is_a_syntax_error_naming_the_notation(text):
    with pytest.raises(MoveSyntaxError) as error:
        UTTT.parse_move(text)
    assert "e.g. '4 4'" in str(error.value)


def test_format_move_writes_board_space_cell():
    assert [UTTT.format_move(m) for m in (0, 8, 9, 40, 80)] == ["0 0", "0 8", "1 0", "4 4", "8 8"]


def test_format_move_rejects_a_number_outside_the_board():
    with pytest.raises(ValueError, match="81"):
        UTTT.format_move(81)


# --- views for bots and reports ------------------------------------------------------------


def test_masks_hold_each_seats_cells_per_small_board():
    state = UTTT.replay(["4 4", "4 0", "0 4"])
    assert state.masks == ((0b10000, 0, 0, 0, 0b10000, 0, 0, 0, 0), (0, 0, 0, 0, 0b1, 0, 0, 0, 0))
    assert state.to_move == 1 and state.ply == 3 and state.last_move == 4


def test_render_shows_the_grid_the_small_boards_and_where_to_move():
    assert UTTT.replay(X_WINS_BOARD_0).render() == "\n".join(
        [
            " x x x | o . . | o . .",
            " . o . | . o . | o . .",
            " . . . | . . . | . . .",
            "-------+-------+-------",
            " x . . | o x x | . . .",
            " . . . | . x . | . . .",
            " . . . | . . . | . . .",
            "-------+-------+-------",
            " . . . | . . . | . . .",
            " . . . | . . . | . . .",
            " . . . | . . . | . . .",
            "small boards: x - - / - - - / - - -",
            "o to move in any open small board",
        ]
    )


def test_render_says_where_the_next_move_must_go_and_who_won():
    assert UTTT.replay(["4 4"]).render().splitlines()[-1] == "o to move in small board 4"
    assert UTTT.replay(X_WINS_TOP_ROW).render().splitlines()[-1] == "game over: x wins"
    assert UTTT.replay(EQUAL_BOARDS).render().splitlines()[-1] == "game over: draw"


def test_board_data_is_cells_small_status_and_forced_board():
    assert UTTT.replay(["4 4", "4 0"]).board_data() == {
        "cells": "." * 36 + "o...x" + "." * 40,
        "small": "---------",
        "forced": 0,
    }


# --- random playouts -----------------------------------------------------------------------


def test_random_playout_uses_only_the_rng_it_is_given():
    state = UTTT.replay(["4 4"])
    global_state = random.getstate()
    first = [state.random_playout(random.Random(9)) for _ in range(5)]
    again = [state.random_playout(random.Random(9)) for _ in range(5)]
    assert first == again
    assert random.getstate() == global_state


def test_random_playout_draws_a_free_move_uniformly_over_cells_not_boards():
    # o to move, free, 4 cells in board 2 and 1 in board 6; '6 6' wins at once. Enumerating
    # the few uniform games left gives o 3/10 and draws 7/10; picking a board first, then a
    # cell, would give o at least 1/2.
    state = UTTT.replay(FIVE_FREE_MOVES_LEFT)
    assert [UTTT.format_move(m) for m in state.legal_moves()] == ["2 2", "2 4", "2 6", "2 7", "6 6"]
    rng = random.Random(3)
    winners = [state.random_playout(rng).winner for _ in range(4000)]
    assert set(winners) == {1, None}
    assert abs(winners.count(1) / 4000 - 0.3) < 0.03
