"""The course host's side of the rules, in-process: what a course bot is given (old_move, flag,
a copy of the board), what it must return, and how its file and class are found."""

from __future__ import annotations

import inspect
import random
import subprocess
import sys
import textwrap

import pytest

from tests.fixtures.course.coursekit import COURSE_BOTS, HOST_FILE, load_course_host, python27

course_host = load_course_host()
Forfeit, Host, OutOfStep = course_host.Forfeit, course_host.Host, course_host.OutOfStep

XTREME = {"name": "xtreme", "params": {}}


@pytest.fixture(autouse=True)
def _keep_random_state():
    """The host seeds the global ``random`` module for its bot at each new game; in-process
    that would be this test process's generator, so it is put back afterwards."""
    state = random.getstate()
    yield
    random.setstate(state)


class Scripted:
    """A course bot that plays the given moves in order and records how it was called."""

    def __init__(self, *moves):
        self.moves = list(moves)
        self.calls = []

    def move(self, board, old_move, flag):
        self.calls.append((board, old_move, flag))
        return self.moves.pop(0)


def started(seat: int = 0, bot=None, path: str = "records_calls.py") -> Host:
    """A host that has answered ``new_game`` for ``seat``, its bot replaced by ``bot`` if given."""
    host = Host(str(COURSE_BOTS / path))
    reply = host.new_game({"type": "new_game", "game": XTREME, "seat": seat, "seed": 7, "move_time": 1.0})
    assert reply["type"] == "ready"
    if bot is not None:
        host.bot = bot
    return host


def ask(host: Host, ply: int, *moves: str) -> dict:
    return host.move({"type": "move", "ply": ply, "moves": list(moves), "time": 1.0})


def test_new_game_answers_ready_for_xtreme_with_the_class_docstring():
    reply = Host(str(COURSE_BOTS / "team2.py")).new_game(
        {"type": "new_game", "game": XTREME, "seat": 0, "seed": 1, "move_time": 1.0}
    )
    assert reply["games"] == ["xtreme"]
    assert reply["description"].startswith("One step: wins the game now if a valid move does")


def test_other_games_are_refused():
    reply = Host(str(COURSE_BOTS / "team1.py")).new_game(
        {"type": "new_game", "game": {"name": "uttt", "params": {}}, "seat": 0, "seed": 1, "move_time": 1.0}
    )
    assert reply == {"type": "error", "kind": "exception", "message": "course bots play xtreme only, not 'uttt'"}


def test_first_move_gets_no_old_move_the_x_flag_and_an_empty_board():
    host = started(0)
    assert ask(host, 0) == {"type": "move", "move": "0 0 0"}
    [(old_move, flag, cells)] = host.bot.calls
    assert (old_move, flag, cells) == ((-1, -1, -1), "x", "-" * 162)


def test_second_seat_plays_o_after_the_opponents_move():
    host = started(1)
    assert ask(host, 1, "1 4 4") == {"type": "move", "move": "0 3 3"}
    [(old_move, flag, cells)] = host.bot.calls
    assert (old_move, flag) == ((1, 4, 4), "o")
    assert cells[81 + 4 * 9 + 4] == "x" and cells.count("-") == 161


def test_own_moves_are_kept_on_the_board():
    host = started(0, Scripted((0, 0, 0), (0, 0, 1)))
    ask(host, 0)
    ask(host, 2, "1 0 0")
    board, old_move, _ = host.bot.calls[1]
    assert old_move == (1, 0, 0)
    assert board.big_boards_status[0][0][0] == "x" and board.big_boards_status[1][0][0] == "o"


def test_bonus_move_old_move_is_the_bots_own_winning_move():
    host = started(0, Scripted((0, 0, 0), (0, 0, 1), (0, 0, 2), (1, 1, 8)))
    ask(host, 0)
    ask(host, 2, "1 0 0")
    assert ask(host, 4, "1 0 3") == {"type": "move", "move": "0 0 2"}  # wins small board (0, 0)
    assert ask(host, 5) == {"type": "move", "move": "1 1 8"}  # the bonus move
    board, old_move, flag = host.bot.calls[3]
    assert (old_move, flag) == ((0, 0, 2), "x")
    assert board.small_boards_status[0][0][0] == "x"


def test_bot_gets_a_deep_copy_of_the_board():
    host = started(1, Scripted((0, 3, 3)))
    ask(host, 1, "1 4 4")
    board = host.bot.calls[0][0]
    real = host.game.board
    assert board is not real
    assert board.big_boards_status[1] is not real.big_boards_status[1]
    assert board.big_boards_status[1][4] is not real.big_boards_status[1][4]
    assert board.small_boards_status[0][0] is not real.small_boards_status[0][0]
    assert type(board) is type(real)


class Updates:
    """Plays a valid cell on the board it was given: a course forfeit."""

    def move(self, board, old_move, flag):
        cell = board.find_valid_move_cells(old_move)[0]
        board.update(old_move, cell, flag)
        return cell


class UpdatesAndRestores:
    """Tries a cell on the board it was given and takes it back: the board ends as it was."""

    def move(self, board, old_move, flag):
        cell = board.find_valid_move_cells(old_move)[0]
        board.big_boards_status[cell[0]][cell[1]][cell[2]] = flag
        board.big_boards_status[cell[0]][cell[1]][cell[2]] = "-"
        return cell


class Replaces:
    """Replaces the board's small boards with something else."""

    def move(self, board, old_move, flag):
        board.small_boards_status = None
        return (0, 0, 0)


@pytest.mark.parametrize("bot", [Updates(), Replaces()], ids=["updates", "replaces"])
def test_changing_the_board_given_is_an_illegal_move(bot):
    host = started(0, bot)
    with pytest.raises(Forfeit) as raised:
        ask(host, 0)
    assert raised.value.kind == "illegal_move"
    assert raised.value.message == "the bot changed the board it was given in move() (the course forfeits that)"


def test_a_board_changed_and_changed_back_is_no_forfeit():
    assert ask(started(0, UpdatesAndRestores()), 0) == {"type": "move", "move": "0 0 0"}


@pytest.mark.parametrize(
    ("value", "named"),
    [
        ([0, 0, 0], "[0, 0, 0] (list of int, int, int)"),
        ((0.0, 0.0, 0.0), "(0.0, 0.0, 0.0) (tuple of float, float, float)"),
        ((0, True, 0), "(0, True, 0) (tuple of int, bool, int)"),
        ((0, 0), "(0, 0) (tuple of int, int)"),
        ((0, 0, 0, 0), "(0, 0, 0, 0) (tuple of int, int, int, int)"),
        (None, "None (NoneType)"),
        ("0 0 0", "'0 0 0' (str)"),
    ],
)
def test_a_move_that_is_not_a_tuple_of_three_plain_ints_is_an_illegal_move(value, named):
    with pytest.raises(Forfeit) as raised:
        ask(started(0, Scripted(value)), 0)
    assert raised.value.kind == "illegal_move"
    assert raised.value.message == f"move() returned {named}, not a tuple of three plain ints (k, row, col)"


def test_numpy_ints_are_an_illegal_move():
    numpy = pytest.importorskip("numpy")
    move = (numpy.int64(0), numpy.int64(0), numpy.int64(0))
    with pytest.raises(Forfeit) as raised:
        ask(started(0, Scripted(move)), 0)
    assert raised.value.kind == "illegal_move"
    assert "(tuple of int64, int64, int64)" in raised.value.message


def test_a_well_formed_invalid_cell_is_passed_on_for_the_engine_to_judge():
    host = started(0, Scripted((0, 0, 0), (0, 0, 0)))
    ask(host, 0)
    assert ask(host, 2, "0 0 1") == {"type": "move", "move": "0 0 0"}  # occupied: the harness says so


class Raises:
    LINE = inspect.currentframe().f_lineno + 3

    def move(self, board, old_move, flag):
        return {}["no such key"]


class RunsOutOfMemory:
    def move(self, board, old_move, flag):
        raise MemoryError()


def test_an_exception_in_move_is_an_error_reply_with_the_bots_traceback():
    reply = ask(started(0, Raises()), 0)
    assert reply["type"] == "error" and reply["kind"] == "exception"
    first, *frames = reply["message"].splitlines()
    assert first == "move() raised KeyError: 'no such key'"
    assert frames[0].endswith(f'test_course_host.py", line {Raises.LINE}, in move')
    assert frames[1].strip() == 'return {}["no such key"]'
    assert "arena/host/course_host.py" not in reply["message"]  # the host's own frames are left out


def test_memory_error_in_move_is_a_resource_limit():
    reply = ask(started(0, RunsOutOfMemory()), 0)
    assert (reply["type"], reply["kind"]) == ("error", "resource_limit")
    assert reply["message"].startswith("move() raised MemoryError\n")


def test_a_request_out_of_step_is_refused():
    host = started(0)
    with pytest.raises(OutOfStep, match="harness at ply 2, host at ply 0 with x to move"):
        ask(host, 2)


def test_a_move_request_in_the_opponents_turn_is_refused():
    with pytest.raises(OutOfStep, match="host at ply 0 with x to move"):
        ask(started(1), 0)


def test_each_game_gets_a_fresh_instance():
    host = started(0)
    first = host.bot
    host.game_over()
    host.new_game({"type": "new_game", "game": XTREME, "seat": 1, "seed": 8, "move_time": 1.0})
    assert host.bot is not first and host.bot.calls == []


def test_describe_answers_with_the_class_docstring_and_no_parameters():
    assert Host(str(COURSE_BOTS / "team1.py")).describe() == {
        "type": "description",
        "games": ["xtreme"],
        "parameters": None,
        "description": "Random: a uniformly random cell among the board's valid move cells.",
    }


# -- finding the class --------------------------------------------------------------------------


def bot_file(tmp_path, name: str, source: str) -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return str(path)


TWO_BOTS = """
    # Two bots in one file.
    class Helper(object):
        def move(self, board, old_move, flag):
            return (0, 0, 0)

    class Team7:
        def move(self, board, old_move, flag):
            return (0, 0, 1)
"""


def test_class_named_after_the_file_is_chosen(tmp_path):
    host = Host(bot_file(tmp_path, "team7.py", TWO_BOTS))
    host.load()
    assert host.cls.__name__ == "Team7"


def test_class_option_chooses_the_class(tmp_path):
    host = Host(bot_file(tmp_path, "team7.py", TWO_BOTS), "Helper")
    host.load()
    assert host.cls.__name__ == "Helper"


def test_the_only_class_with_a_move_method_is_chosen(tmp_path):
    source = """
        import collections
        class Node:
            pass
        class Agent:
            def move(self, board, old_move, flag):
                return (0, 0, 0)
    """
    host = Host(bot_file(tmp_path, "mybot.py", source))
    host.load()
    assert host.cls.__name__ == "Agent"


def test_several_classes_and_none_named_after_the_file_is_an_error_saying_how_to_choose(tmp_path):
    host = Host(bot_file(tmp_path, "mybot.py", TWO_BOTS))
    with pytest.raises(course_host.NoBotClass) as raised:
        host.load()
    assert str(raised.value) == (
        "mybot.py defines several classes with a move method (Helper, Team7) and none is named "
        "after the file; choose one with the bot parameter class (arena register ... --param "
        "class=NAME, or params: {class: NAME} in the tournament file)"
    )


def test_no_class_with_a_move_method_is_an_error_naming_the_classes(tmp_path):
    host = Host(bot_file(tmp_path, "team3.py", "class Team3:\n    def play(self):\n        pass\n"))
    with pytest.raises(
        course_host.NoBotClass,
        match=r"team3.py defines no class with a move\(board, "
        r"old_move, flag\) method \(classes found: Team3\)",
    ):
        host.load()


def test_a_class_option_that_names_no_bot_class_is_an_error(tmp_path):
    host = Host(bot_file(tmp_path, "team7.py", TWO_BOTS), "Team8")
    with pytest.raises(
        course_host.NoBotClass,
        match=r"team7\.py has no class 'Team8' with a move method; its classes with one: Helper, Team7",
    ):
        host.load()


def test_a_files_first_comment_is_not_its_description(tmp_path):
    host = Host(bot_file(tmp_path, "team7.py", TWO_BOTS))
    assert host.describe()["description"] == ""


def test_the_description_is_the_first_paragraph_of_the_files_docstring_before_the_classs(tmp_path):
    source = (
        '"""Team 4:\n   minimax, depth 3.\n\nTuned by hand."""\n'
        'class Team4:\n    """A class docstring."""\n    def move(self, b, o, f):\n        pass\n'
    )
    assert Host(bot_file(tmp_path, "team4.py", source)).describe()["description"] == "Team 4: minimax, depth 3."


def test_the_description_is_the_first_paragraph_of_the_classs_docstring_when_the_file_has_none(tmp_path):
    source = (
        '# Team 5\nclass Team5:\n    """Greedy:\n    takes a small board.\n\n    More."""\n'
        "    def move(self, b, o, f):\n        pass\n"
    )
    assert Host(bot_file(tmp_path, "team5.py", source)).describe()["description"] == "Greedy: takes a small board."


def test_a_file_that_does_not_load_gives_an_error_reply_through_serve(tmp_path):
    import json
    import os

    path = bot_file(tmp_path, "team6.py", "class Team6:\n    def move(self, b, o, f):\n        print 'hi'\n")
    requests_in, requests_out = os.pipe()
    replies_in, replies_out = os.pipe()
    os.write(requests_out, b'{"type":"describe"}\n{"type":"quit"}\n')
    os.close(requests_out)
    course_host.serve(Host(path), requests_in, replies_out)
    os.close(replies_out)
    with os.fdopen(replies_in, "rb") as stream:
        [line] = stream.read().splitlines()
    os.close(requests_in)
    reply = json.loads(line)
    assert reply["kind"] == "exception"
    assert reply["message"].startswith("loading team6.py raised SyntaxError: ")
    assert reply["message"].endswith(
        "(a Python 2 file? run it with a Python 2.7 interpreter: arena register ... --python python2.7)"
    )


# -- the one-step fixture bot, team2 -------------------------------------------------------------


def one_step_position(symbol: str):
    """A board where ``symbol`` wins the game by taking (0, 0, 8): it holds small boards (0, 0)
    and (0, 1) of big board 0 and two cells of the top row of (0, 2); the move goes to (0, 2)."""
    board = course_host.BigBoard()
    board.small_boards_status[0][0][0] = board.small_boards_status[0][0][1] = symbol
    board.big_boards_status[0][0][6] = board.big_boards_status[0][0][7] = symbol
    return board, (1, 3, 5)  # cell (0, 2): small board (0, 2) of either big board


def team2():
    host = Host(str(COURSE_BOTS / "team2.py"))
    host.load()
    return host.cls()


@pytest.mark.parametrize("flag", ["x", "o"])
def test_one_step_bot_wins_the_game_when_a_move_does(flag):
    board, old_move = one_step_position(flag)
    assert team2().move(board, old_move, flag) == (0, 0, 8)


@pytest.mark.parametrize("flag", ["x", "o"])
def test_one_step_bot_blocks_the_opponents_winning_cell(flag):
    board, old_move = one_step_position("o" if flag == "x" else "x")
    assert team2().move(board, old_move, flag) == (0, 0, 8)


class Exits:
    def move(self, board, old_move, flag):
        sys.exit(3)


def test_sys_exit_in_move_is_an_error_reply():
    reply = ask(started(0, Exits()), 0)
    assert (reply["type"], reply["kind"]) == ("error", "exception")
    assert reply["message"].startswith("move() raised SystemExit: 3\n")


def test_python2_long_is_not_a_plain_int():
    python, why = python27()
    if python is None:
        pytest.skip(why)
    script = (
        f"import imp; host = imp.load_source('course_host', {str(HOST_FILE)!r})\n"
        "print(host.BigBoard().check_valid_move((-1, -1, -1), (0L, 0, 0)))\n"
        "try:\n    host.check_reply((0L, 0, 0))\nexcept host.Forfeit as f:\n    print(f.kind + ': ' + f.message)\n"
    )
    done = subprocess.run([python, "-c", script], capture_output=True, text=True, timeout=30)
    assert done.stdout.splitlines() == [
        "False",
        "illegal_move: move() returned (0L, 0, 0) (tuple of long, int, int), not a tuple of three plain "
        "ints (k, row, col)",
    ]
