"""The course simulator's BigBoard, as arena/host/course_host.py rebuilds it from the rules.

It must agree with the 20 games played under the original course simulator
(``tests/vectors/xtreme_random_games.jsonl``) on every legal-move count, every bonus move, the result
and the final small boards, and offer the simulator's API with its exact return values.
"""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path

import pytest

from tests.fixtures.course.coursekit import COURSE_BOTS, HOST_FILE, PYTHONS, load_course_host

course_host = load_course_host()
BigBoard, CourseGame = course_host.BigBoard, course_host.CourseGame

VECTORS = Path(__file__).parent / "vectors" / "xtreme_random_games.jsonl"
GAMES = [json.loads(line) for line in VECTORS.read_text().splitlines() if line.strip()]
#: course points of a big board's small boards in a draw, row by row (docs/games.md)
DRAW_POINTS = (4, 6, 4, 6, 3, 6, 4, 6, 4)
#: x takes the top row of small board (0, 0) of big board 0, o answering on big board 1
X_WINS_TOP_LEFT = [(0, 0, 0), (1, 0, 0), (0, 0, 1), (1, 0, 3), (0, 0, 2)]


def small_boards(board: BigBoard) -> list[str]:
    return ["".join("".join(row) for row in board.small_boards_status[k]) for k in range(2)]


def played(*moves: tuple[int, int, int]) -> CourseGame:
    """A game after ``moves``, each by the player whose turn it is (bonus moves included)."""
    game = CourseGame()
    for move in moves:
        game.play(move)
    return game


def fill(board: BigBoard, k: int, board_row: int, board_col: int, pattern: str) -> None:
    """Write the 9 cells of a small board directly (``pattern`` row by row, '-' empty)."""
    for i, symbol in enumerate(pattern):
        board.big_boards_status[k][3 * board_row + i // 3][3 * board_col + i % 3] = symbol


@pytest.mark.parametrize("record", GAMES, ids=[f"seed{g['seed']}" for g in GAMES])
def test_vector_game_replays_exactly(record):
    game = CourseGame()
    for ply, (move, mover, count) in enumerate(zip(record["moves"], record["movers"], record["legal_counts"])):
        assert not game.over, f"over before ply {ply}"
        assert game.board.find_terminal_state() == ("CONTINUE", "-")
        cells = game.board.find_valid_move_cells(game.last_move)
        assert len(cells) == count, f"ply {ply}"
        assert tuple(move) in cells
        assert "xo"[game.to_move] == mover, f"ply {ply}: wrong player (bonus move)"
        game.play(tuple(move))
    assert game.over
    expected = (record["winner"], "WON") if record["result"] == "WON" else ("NONE", "DRAW")
    assert game.board.find_terminal_state() == expected
    assert small_boards(game.board) == record["small_boards"]
    if record["result"] == "DRAW":
        status = "".join(record["small_boards"])
        points = [sum(DRAW_POINTS[i % 9] for i, s in enumerate(status) if s == who) for who in "xo"]
        assert points == record["points"]


@pytest.mark.parametrize("python", PYTHONS)
def test_vector_games_replay_under_each_interpreter(python):
    """The same replay, inside the interpreter course bots run under (2.7 included)."""
    done = subprocess.run(
        [python, str(COURSE_BOTS / "replay_vectors.py"), str(HOST_FILE), str(VECTORS)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stderr == ""
    assert done.stdout.strip() == str(len(GAMES))


def test_new_board_is_empty_and_shaped_like_the_simulators():
    board = BigBoard()
    assert type(board.big_boards_status) is tuple and len(board.big_boards_status) == 2
    assert type(board.small_boards_status) is tuple and len(board.small_boards_status) == 2
    assert board.big_boards_status[1] == [["-"] * 9 for _ in range(9)]
    assert board.small_boards_status[0] == [["-"] * 3 for _ in range(3)]
    assert board.big_boards_status[0][0] is not board.big_boards_status[0][1]


def test_first_move_is_free_on_both_big_boards():
    cells = BigBoard().find_valid_move_cells((-1, -1, -1))
    assert len(cells) == 162
    assert cells[0] == (0, 0, 0) and cells[-1] == (1, 8, 8)
    assert all(type(cell) is tuple for cell in cells)


def test_move_corresponds_to_the_small_board_on_either_big_board():
    game = played((0, 4, 5))  # cell (1, 2) of its small board
    cells = game.board.find_valid_move_cells(game.last_move)
    expected = [(k, r, c) for k in (0, 1) for r in (3, 4, 5) for c in (6, 7, 8) if (k, r, c) != (0, 4, 5)]
    assert cells == expected


def test_only_the_open_one_of_the_two_corresponding_boards_is_allowed():
    board = BigBoard()
    fill(board, 1, 0, 0, "xxx------")
    board.small_boards_status[1][0][0] = "x"
    cells = board.find_valid_move_cells((0, 3, 3))
    assert cells == [(0, r, c) for r in range(3) for c in range(3)]


def test_both_corresponding_boards_closed_makes_the_move_free():
    board = BigBoard()
    fill(board, 0, 0, 0, "ooo------")
    board.small_boards_status[0][0][0] = "o"
    fill(board, 1, 0, 0, "xoxxoxoxo")
    board.small_boards_status[1][0][0] = "d"
    cells = board.find_valid_move_cells((1, 6, 6))
    assert len(cells) == 162 - 9 - 9
    assert not any(r < 3 and c < 3 for _, r, c in cells)


def test_update_plays_a_valid_move_and_reports_no_small_board_won():
    board = BigBoard()
    assert board.update((-1, -1, -1), (1, 2, 7), "x") == ("SUCCESSFUL", False)
    assert board.big_boards_status[1][2][7] == "x"


def test_update_refuses_an_invalid_move_and_leaves_the_board_alone():
    game = played((0, 0, 0))
    before = copy.deepcopy(game.board)
    assert game.board.update((0, 0, 0), (0, 4, 4), "o") == ("UNSUCCESSFUL", False)  # wrong small board
    assert game.board.update((0, 0, 0), (0, 0, 0), "o") == ("UNSUCCESSFUL", False)  # occupied
    assert game.board.big_boards_status == before.big_boards_status
    assert game.board.small_boards_status == before.small_boards_status


def test_update_marks_a_won_small_board_with_the_winner():
    board = BigBoard()
    fill(board, 0, 1, 1, "o-o------")
    assert board.update((1, 1, 1), (0, 3, 4), "o") == ("SUCCESSFUL", True)
    assert board.small_boards_status[0][1][1] == "o"


def test_update_marks_a_full_small_board_without_a_line_drawn():
    board = BigBoard()
    fill(board, 1, 2, 2, "xoxxoxox-")
    assert board.update((0, 2, 2), (1, 8, 8), "o") == ("SUCCESSFUL", False)
    assert board.small_boards_status[1][2][2] == "d"


@pytest.mark.parametrize("move", [(0, 0, 0.0), (0, True, 0), [0, 0], (0, 0, 0, 0), None, "0 0 0", (0, 0, "0")])
def test_check_valid_move_wants_three_plain_ints(move):
    assert BigBoard().check_valid_move((-1, -1, -1), move) is False


def test_check_valid_move_rejects_numpy_ints():
    numpy = pytest.importorskip("numpy")
    assert BigBoard().check_valid_move((-1, -1, -1), (numpy.int64(0), 0, 0)) is False


def test_check_valid_move_accepts_a_valid_cell():
    assert BigBoard().check_valid_move((-1, -1, -1), (1, 8, 8)) is True
    assert played((0, 0, 0)).board.check_valid_move((0, 0, 0), (1, 2, 2)) is True


def test_three_small_boards_in_a_line_win():
    board = BigBoard()
    board.small_boards_status[1][0][2] = board.small_boards_status[1][1][1] = "o"
    assert board.find_terminal_state() == ("CONTINUE", "-")
    board.small_boards_status[1][2][0] = "o"
    assert board.find_terminal_state() == ("o", "WON")


def test_small_boards_in_a_line_across_the_two_big_boards_do_not_win():
    board = BigBoard()
    board.small_boards_status[0][0][0] = board.small_boards_status[0][0][1] = "x"
    board.small_boards_status[1][0][2] = "x"
    assert board.find_terminal_state() == ("CONTINUE", "-")


def test_a_line_of_drawn_small_boards_is_no_win():
    board = BigBoard()
    board.small_boards_status[0][1] = ["d", "d", "d"]
    assert board.find_terminal_state() == ("CONTINUE", "-")


def test_every_small_board_closed_without_a_line_is_a_draw():
    board = BigBoard()
    for k in range(2):
        board.small_boards_status[k][:] = [["x", "o", "x"], ["x", "o", "o"], ["o", "x", "d"]]
    assert board.find_terminal_state() == ("NONE", "DRAW")


def test_winning_a_small_board_earns_a_bonus_move():
    game = played(*X_WINS_TOP_LEFT)
    assert game.board.small_boards_status[0][0][0] == "x"
    assert game.to_move == 0 and game.bonus
    # the bonus move obeys correspondence to x's own winning move (0, 0, 2): small board (0, 2)
    assert set(game.board.find_valid_move_cells(game.last_move)) == {
        (k, r, c) for k in (0, 1) for r in range(3) for c in range(6, 9)
    }


def test_bonus_move_does_not_chain():
    game = CourseGame()
    fill(game.board, 1, 0, 2, "xx-------")
    for move in X_WINS_TOP_LEFT:
        game.play(move)
    game.play((1, 0, 8))  # the bonus move wins small board (0, 2) of big board 1 too
    assert game.board.small_boards_status[1][0][2] == "x"
    assert game.to_move == 1 and not game.bonus


def test_print_board_shows_both_big_boards(capsys):
    played((0, 4, 4), (1, 3, 3)).board.print_board()
    lines = capsys.readouterr().out.splitlines()
    assert lines[3] == "------+-------+------    ------+-------+------"
    assert lines[4] == "- - - | - - - | - - -    - - - | o - - | - - -"
    assert lines[5] == "- - - | - x - | - - -    - - - | - - - | - - -"
    assert lines[12] == "- - -                    - - -"
