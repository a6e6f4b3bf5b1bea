"""``State.board()`` of arena's four games (docs/games.md, "Boards"): the exact boards of small
positions, every board of random games checked against the legal moves and the format, and
``to_dict()`` left as it was (the games' own ``board_data()``, no ``boards`` merged in)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from arena.games import Game, get_game
from arena.games.base import State
from arena.games.othello import OthelloState
from arena.results.pages import checked_boards

# records of tests/test_uttt.py and tests/test_xtreme.py (a test module imports none of another's)
BOARD_7_DRAWN = [
    "7 1",
    "1 0",
    "0 7",
    "7 2",
    "2 1",
    "1 4",
    "4 4",
    "4 0",
    "0 6",
    "6 1",
    "1 7",
    "7 3",
    "3 0",
    "0 3",
    "3 2",
    "2 4",
    "4 5",
    "5 8",
    "8 7",
    "7 0",
    "0 2",
    "2 7",
    "7 6",
    "6 7",
    "7 4",
    "4 7",
    "7 8",
    "8 3",
    "3 7",
    "7 7",
    "7 5",
    "5 7",
]
X_WINS_BOARD_0 = ["4 4", "4 0", "0 0", "0 4", "4 1", "1 0", "0 1", "1 4", "4 2", "2 0", "0 2", "2 3", "3 0"]
X_WINS_TOP_ROW = [
    "3 7",
    "7 1",
    "1 4",
    "4 1",
    "1 6",
    "6 0",
    "0 0",
    "0 1",
    "1 3",
    "3 2",
    "2 4",
    "4 2",
    "2 7",
    "7 0",
    "0 8",
    "8 0",
    "0 4",
    "4 4",
    "4 3",
    "3 4",
    "4 0",
    "7 2",
    "2 1",
    "1 1",
    "1 0",
]
BOTH_CORNERS = ["0 0 0", "1 0 0", "0 1 1", "1 3 3", "0 2 2", "0 6 6", "1 0 1", "0 0 3", "1 0 2", "1 0 6"]
X_WINS_ON_BIG_BOARD_1 = [
    "1 5 4",
    "1 7 5",
    "1 4 8",
    "0 4 7",
    "1 5 3",
    "0 7 0",
    "1 3 2",
    "0 1 6",
    "1 5 0",
    "0 7 2",
    "1 4 6",
    "0 3 0",
    "1 2 2",
    "0 7 6",
    "1 4 1",
    "1 5 5",
    "1 8 6",
    "0 8 2",
    "0 7 8",
    "1 4 7",
]

TICTACTOE = get_game("tictactoe")
UTTT = get_game("uttt")
XTREME = get_game("xtreme")
OTHELLO = get_game("othello")
SMALL_OTHELLO = get_game("othello", size=6)
WOF_OTHELLO = get_game("othello", size=6, scoring="wof")

#: every game and variant the random games are checked on
GAMES = [
    TICTACTOE,
    UTTT,
    get_game("uttt", tiebreak="boards"),
    XTREME,
    OTHELLO,
    SMALL_OTHELLO,
    get_game("othello", size=10),
    get_game("othello", opening="free"),
    WOF_OTHELLO,
]

#: the keys of each game's ``to_dict()``: the common ones and its own ``board_data()``
COMMON_KEYS = {"game", "ply", "to_move", "last_move", "legal", "terminal", "winner", "points"}
OWN_KEYS = {
    "tictactoe": {"cells"},
    "uttt": {"cells", "small", "forced"},
    "xtreme": {"cells", "small", "allowed", "bonus"},
    "othello": {"cells", "black", "white"},
}

#: uttt's 9x9 grid: the cells of small board 4 (the centre), of small board 2 (top right)
CENTRE = [30, 31, 32, 39, 40, 41, 48, 49, 50]
TOP_RIGHT = [6, 7, 8, 15, 16, 17, 24, 25, 26]
BOTTOM_RIGHT = [60, 61, 62, 69, 70, 71, 78, 79, 80]


def board_of(game: Game, record: list[str], index: int = 0) -> dict[str, Any]:
    """The ``index``-th board of the position after ``record``."""
    return game.replay(record).board()["boards"][index]


def marked(size: int, **cells: str) -> list[str]:
    """``size`` empty cells but those given as ``c<index>=mark``."""
    out = [""] * size
    for name, mark in cells.items():
        out[int(name[1:])] = mark
    return out


def moves_at(size: int, texts: dict[int, str]) -> list[str | None]:
    """``size`` cells without a move but those of ``texts`` (cell -> move text)."""
    return [texts.get(i) for i in range(size)]


# -- tictactoe -------------------------------------------------------------------------------


def test_tictactoe_start_is_an_empty_board_every_cell_playable():
    assert TICTACTOE.initial_state().board() == {
        "boards": [
            {
                "rows": 3,
                "cols": 3,
                "cells": [""] * 9,
                "highlight": [],
                "last": [],
                "moves": [str(i) for i in range(9)],
            }
        ]
    }


def test_tictactoe_after_two_moves_marks_the_last_and_leaves_the_taken_cells_unplayable():
    board = board_of(TICTACTOE, ["4", "0"])
    assert board["cells"] == ["o", "", "", "", "x", "", "", "", ""]
    assert board["last"] == [0] and board["highlight"] == []
    assert board["moves"] == [None, "1", "2", "3", None, "5", "6", "7", "8"]


def test_tictactoe_win_highlights_the_line_and_offers_no_move():
    board = board_of(TICTACTOE, ["0", "3", "1", "4", "2"])
    assert board["cells"] == ["x", "x", "x", "o", "o", "", "", "", ""]
    assert (board["highlight"], board["last"], board["moves"]) == ([0, 1, 2], [2], [None] * 9)


def test_tictactoe_a_move_that_makes_two_lines_highlights_both():
    board = board_of(TICTACTOE, ["1", "4", "2", "5", "3", "7", "6", "8", "0"])
    assert board["cells"] == ["x", "x", "x", "x", "o", "o", "x", "o", "o"]
    assert (board["highlight"], board["last"]) == ([0, 1, 2, 3, 6], [0])


def test_tictactoe_draw_highlights_nothing():
    state = TICTACTOE.replay(["4", "0", "8", "2", "1", "7", "6", "3", "5"])
    assert state.is_terminal and state.outcome.winner is None
    board = state.board()["boards"][0]
    assert board["cells"] == ["o", "x", "o", "o", "x", "x", "x", "o", "x"]
    assert (board["highlight"], board["last"], board["moves"]) == ([], [5], [None] * 9)


# -- uttt ------------------------------------------------------------------------------------


def test_uttt_start_every_cell_playable_with_its_board_and_cell():
    grid, small = UTTT.initial_state().board()["boards"]
    assert (grid["rows"], grid["cols"], grid["cells"]) == (9, 9, [""] * 81)
    assert grid["highlight"] == list(range(81)) and grid["last"] == []
    # grid cell row * 9 + col is small board row // 3 * 3 + col // 3, cell row % 3 * 3 + col % 3
    assert grid["moves"][:12] == ["0 0", "0 1", "0 2", "1 0", "1 1", "1 2", "2 0", "2 1", "2 2", "0 3", "0 4", "0 5"]
    assert (grid["moves"][30], grid["moves"][40], grid["moves"][8], grid["moves"][72], grid["moves"][80]) == (
        "4 0",
        "4 4",
        "2 2",
        "6 6",
        "8 8",
    )
    assert small == {
        "rows": 3,
        "cols": 3,
        "cells": [""] * 9,
        "label": "small boards",
        "highlight": list(range(9)),
        "last": [],
    }
    assert UTTT.initial_state().board()["notes"] == ["small boards won: x 0, o 0"]


def test_uttt_after_two_moves_the_forced_small_board_is_highlighted():
    state = UTTT.replay(["4 4", "4 0"])
    grid, small = state.board()["boards"]
    assert grid["cells"] == marked(81, c40="x", c30="o")
    assert (grid["last"], grid["highlight"]) == ([30], [0, 1, 2, 9, 10, 11, 18, 19, 20])
    assert grid["moves"] == moves_at(
        81,
        {0: "0 0", 1: "0 1", 2: "0 2", 9: "0 3", 10: "0 4", 11: "0 5"}
        | {
            18: "0 6",
            19: "0 7",
            20: "0 8",
        },
    )
    assert (small["cells"], small["highlight"], small["last"]) == ([""] * 9, [0], [4])


def test_uttt_a_won_small_board_shows_on_the_small_boards():
    state = UTTT.replay(X_WINS_BOARD_0[:11])  # x's '0 2' wins small board 0, names small board 2
    grid, small = state.board()["boards"]
    assert grid["cells"][:3] == ["x", "x", "x"] and grid["last"] == [2]
    assert grid["highlight"] == TOP_RIGHT
    assert [i for i, move in enumerate(grid["moves"]) if move] == [7, 8, 15, 16, 17, 24, 25, 26]  # '2 0' is o's
    assert (small["cells"], small["highlight"], small["last"]) == (marked(9, c0="x"), [2], [0])
    assert state.board()["notes"] == ["small boards won: x 1, o 0"]


def test_uttt_a_move_sent_to_a_closed_board_highlights_every_open_one():
    state = UTTT.replay(X_WINS_BOARD_0)  # '3 0' names small board 0, which x won: a free move
    grid, small = state.board()["boards"]
    assert small["highlight"] == [1, 2, 3, 4, 5, 6, 7, 8]
    assert grid["highlight"] == sorted(set(range(81)) - {0, 1, 2, 9, 10, 11, 18, 19, 20})


def test_uttt_a_full_small_board_is_d():
    state = UTTT.replay(BOARD_7_DRAWN)
    small = state.board()["boards"][1]
    assert small["cells"][7] == "d" and 7 not in small["highlight"]
    assert state.board()["notes"] == ["small boards won: x 0, o 0; 1 full without a line"]


def test_uttt_win_highlights_the_line_of_small_boards():
    state = UTTT.replay(X_WINS_TOP_ROW)
    grid, small = state.board()["boards"]
    assert state.outcome.winner == 0
    assert (grid["highlight"], grid["moves"]) == ([], [None] * 81)
    assert small["cells"][:3] == ["x", "x", "x"] and small["highlight"] == [0, 1, 2] and small["last"] == [1]


# -- xtreme ----------------------------------------------------------------------------------


def test_xtreme_start_two_labelled_big_boards_then_their_small_boards():
    data = XTREME.initial_state().board()
    big0, big1, small0, small1 = data["boards"]
    for k, big in enumerate((big0, big1)):
        assert (big["rows"], big["cols"], big["label"], big["cells"]) == (9, 9, f"big board {k}", [""] * 81)
        assert big["highlight"] == list(range(81)) and big["last"] == []
        assert big["moves"] == [f"{k} {i // 9} {i % 9}" for i in range(81)]
    for k, small in enumerate((small0, small1)):
        assert small == {
            "rows": 3,
            "cols": 3,
            "cells": [""] * 9,
            "label": f"small boards {k}",
            "highlight": list(range(9)),
            "last": [],
        }
    assert data["notes"] == ["course points so far: x 0, o 0"]


def test_xtreme_correspondence_highlights_the_small_board_on_both_big_boards():
    big0, big1, small0, small1 = XTREME.replay(["0 4 4", "1 4 4"]).board()["boards"]
    assert big0["cells"] == marked(81, c40="x") and big1["cells"] == marked(81, c40="o")
    assert (big0["last"], big1["last"], small0["last"], small1["last"]) == ([], [40], [], [4])
    assert big0["highlight"] == big1["highlight"] == CENTRE
    assert (small0["highlight"], small1["highlight"]) == ([4], [4])
    assert big0["moves"] == moves_at(81, {i: f"0 {i // 9} {i % 9}" for i in CENTRE if i != 40})
    assert big1["moves"] == moves_at(81, {i: f"1 {i // 9} {i % 9}" for i in CENTRE if i != 40})


def test_xtreme_a_won_small_board_scores_and_earns_a_bonus_move():
    data = XTREME.replay(BOTH_CORNERS[:5]).board()  # x's '0 2 2' wins small board (0, 0) of big board 0
    big0, big1, small0, small1 = data["boards"]
    assert [big0["cells"][i] for i in (0, 10, 20)] == ["x", "x", "x"] and big0["last"] == [20]
    assert big0["highlight"] == big1["highlight"] == BOTTOM_RIGHT  # cell (2, 2): small board (2, 2)
    assert (small0["cells"], small1["cells"]) == (marked(9, c0="x"), [""] * 9)
    assert (small0["highlight"], small1["highlight"], small0["last"]) == ([8], [8], [0])
    assert data["notes"] == ["course points so far: x 4, o 0", "x plays a bonus move"]
    later = XTREME.replay(BOTH_CORNERS[:9]).board()  # o's '1 0 2' wins small board (0, 0) of big board 1
    assert [board["cells"] for board in later["boards"][2:]] == [marked(9, c0="x"), marked(9, c0="o")]
    assert later["notes"] == ["course points so far: x 4, o 4", "o plays a bonus move"]


def test_xtreme_win_highlights_the_line_on_its_big_board_and_gives_the_course_points():
    state = XTREME.replay(X_WINS_ON_BIG_BOARD_1)
    data = state.board()
    big0, big1, small0, small1 = data["boards"]
    assert small1["cells"][3:6] == ["x", "x", "x"]
    assert (small0["highlight"], small1["highlight"]) == ([], [3, 4, 5])
    assert big0["highlight"] == big1["highlight"] == [] and big0["moves"] == big1["moves"] == [None] * 81
    assert data["notes"] == ["course points: x 86, o 0"]


# -- othello ---------------------------------------------------------------------------------


def test_othello_start_shows_the_four_discs_and_black_placements():
    data = OTHELLO.initial_state().board()
    [board] = data["boards"]
    assert (board["rows"], board["cols"]) == (8, 8)
    assert board["cells"] == marked(64, c27="w", c28="b", c35="b", c36="w")
    assert (board["highlight"], board["last"]) == ([19, 26, 37, 44], [])
    assert board["moves"] == moves_at(64, {19: "d3", 26: "c4", 37: "f5", 44: "e6"})
    assert data["notes"] == ["black 2, white 2"]


def test_othello_after_a_move_its_flips_and_the_white_placements():
    data = OTHELLO.replay(["d3"]).board()
    [board] = data["boards"]
    assert board["cells"] == marked(64, c19="b", c27="b", c28="b", c35="b", c36="w")
    assert (board["highlight"], board["last"]) == ([18, 20, 34], [19])
    assert board["moves"] == moves_at(64, {18: "c3", 20: "e3", 34: "c5"})
    assert data["notes"] == ["black 4, white 1"]


def test_othello_small_board_start():
    [board] = SMALL_OTHELLO.initial_state().board()["boards"]
    assert (board["rows"], board["cols"]) == (6, 6)
    assert board["cells"] == marked(36, c14="w", c15="b", c20="b", c21="w")
    assert board["moves"] == moves_at(36, {8: "c2", 13: "b3", 22: "e4", 27: "d5"})


def test_othello_a_pass_is_a_note_and_no_cell():
    state = OthelloState(SMALL_OTHELLO, 1 << 1, 1 << 0, 0, 0, None)  # black b1 against white a1 at the edge
    data = state.board()
    [board] = data["boards"]
    assert state.legal_moves() == [36]
    assert board["cells"] == marked(36, c0="w", c1="b")
    assert (board["highlight"], board["last"], board["moves"]) == ([], [], [None] * 36)
    assert data["notes"] == ["black 1, white 1", "black has no placement and must pass"]
    after = state.play(36).board()
    assert after["boards"][0]["last"] == [] and after["boards"][0]["moves"] == moves_at(36, {2: "c1"})
    assert after["notes"] == ["black 1, white 1"]


def test_othello_wof_end_notes_the_points_with_the_empty_squares():
    state = OthelloState(WOF_OTHELLO, 1 << 1, 0, 1, 0, None)  # nobody can move: black wins 1-0
    data = state.board()
    assert state.is_terminal and data["boards"][0]["moves"] == [None] * 36
    assert data["notes"] == ["black 1, white 0", "with the empty squares: black 36, white 0"]


# -- every game: random games ----------------------------------------------------------------


def random_states(game: Game, seed: int) -> list[State]:
    """Every position of one uniformly random game."""
    rng = random.Random(seed)
    state = game.initial_state()
    states = [state]
    while not state.is_terminal:
        state = state.play(rng.choice(state.legal_moves()))
        states.append(state)
    return states


@pytest.mark.parametrize("game", GAMES, ids=repr)
def test_boards_of_random_games_are_well_formed_and_offer_exactly_the_legal_moves(game):
    marks = set(game.MARKS) | {"", "d"}
    for seed in range(3):
        for state in random_states(game, seed):
            data = state.board()
            assert json.loads(json.dumps(data)) == data
            offered = []
            for board in data["boards"]:
                size = board["rows"] * board["cols"]
                assert len(board["cells"]) == size and set(board["cells"]) <= marks
                assert all(0 <= i < size for key in ("highlight", "last") for i in board.get(key, []))
                if "moves" in board:
                    assert len(board["moves"]) == size
                    offered += [game.parse_move(text) for text in board["moves"] if text is not None]
            legal = state.legal_moves()
            if game.name == "othello" and legal == [game.geometry.pass_move]:
                legal = []
            assert sorted(offered) == legal  # each legal move in exactly one cell
            # the generic pages take the boards as they are
            checked = checked_boards(data)
            assert checked is not None and checked["boards"] == data["boards"]
            assert checked["notes"] == data.get("notes", [])


@pytest.mark.parametrize("game", [TICTACTOE, UTTT, XTREME, OTHELLO], ids=repr)
def test_board_cells_agree_with_board_data(game):
    """The boards' cells are ``board_data()``'s, cell for cell, through each game's mapping."""
    for state in random_states(game, 7):
        data, boards = state.board_data(), state.board()["boards"]
        for board in boards:
            for move in board.get("moves", ()):
                if move is not None:
                    assert state.is_legal(game.parse_move(move))
        if game.name == "uttt":
            grid = boards[0]
            texts = [game.format_move(m) for m in range(81)]
            cell_of_move = {text: i for i, text in enumerate(UTTT.initial_state().board()["boards"][0]["moves"])}
            assert [grid["cells"][cell_of_move[t]] or "." for t in texts] == list(data["cells"])
            assert "".join(c or "-" for c in boards[1]["cells"]) == data["small"]
        elif game.name == "xtreme":
            assert ["".join(c or "." for c in board["cells"]) for board in boards[:2]] == data["cells"]
            assert "".join(c or "-" for board in boards[2:] for c in board["cells"]) == data["small"]
        else:
            assert "".join(c or "." for c in boards[0]["cells"]) == data["cells"]


# -- to_dict() is as it was ------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES, ids=repr)
def test_to_dict_keeps_its_keys_and_does_not_merge_the_boards(game, monkeypatch):
    states = random_states(game, 1)
    with_board = [state.to_dict() for state in states]
    monkeypatch.setattr(type(states[0]), "board", lambda self: None)
    assert [state.to_dict() for state in states] == with_board
    for data in with_board:
        assert set(data) == COMMON_KEYS | OWN_KEYS[game.name]


def test_to_dict_values_of_given_positions():
    common = {"terminal": False, "winner": None, "points": None}
    assert TICTACTOE.replay(["4", "0"]).to_dict() == {
        "game": "tictactoe",
        "ply": 2,
        "to_move": 0,
        "last_move": "0",
        "legal": ["1", "2", "3", "5", "6", "7", "8"],
        **common,
        "cells": "o...x....",
    }
    assert UTTT.replay(["4 4", "4 0"]).to_dict() == {
        "game": "uttt",
        "ply": 2,
        "to_move": 0,
        "last_move": "4 0",
        "legal": [f"0 {c}" for c in range(9)],
        **common,
        "cells": "." * 36 + "o...x" + "." * 40,
        "small": "---------",
        "forced": 0,
    }
    assert XTREME.replay(["1 4 4"]).to_dict() == {
        "game": "xtreme",
        "ply": 1,
        "to_move": 1,
        "last_move": "1 4 4",
        "legal": [f"{k} {r} {c}" for k in (0, 1) for r in (3, 4, 5) for c in (3, 4, 5) if (k, r, c) != (1, 4, 4)],
        **common,
        "cells": ["." * 81, "." * 40 + "x" + "." * 40],
        "small": "-" * 18,
        "allowed": [4, 13],
        "bonus": False,
    }
    assert OTHELLO.replay(["d3"]).to_dict() == {
        "game": "othello",
        "ply": 1,
        "to_move": 1,
        "last_move": "d3",
        "legal": ["c3", "e3", "c5"],
        **common,
        "cells": "." * 19 + "b" + "." * 7 + "bb" + "." * 6 + "bw" + "." * 27,
        "black": 4,
        "white": 1,
    }
