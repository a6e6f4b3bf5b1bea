"""Course bot files playing through arena's harness, under Python 3 and Python 2.7: whole games
against the random bot, each course forfeit with its termination, and registration."""

from __future__ import annotations

import json
import sys

import pytest

from arena.contests.registration import RegistrationError
from arena.core.botspec import BotSpec
from arena.core.gameloop import play_game
from arena.core.records import Termination
from arena.core.timing import TimeControl
from arena.entrants import course
from arena.entrants.kinds import kind_of
from arena.games import get_game
from arena.runners.worker import GameWorker
from arena.sandbox.interpreter import InterpreterError, check_interpreter
from tests.fixtures.course.coursekit import COURSE_BOTS, HOST_FILE, PYTHONS, has_numpy, python27
from tests.fixtures.harnesskit import bot_stderr

RANDOM = BotSpec("random", "python", "bots.randombot")


def course_bot(file: str, python: str, **params) -> BotSpec:
    return BotSpec(file, "course2019", str(COURSE_BOTS / f"{file}.py"), json.dumps(params), python)


def play(spec: BotSpec, seat: int = 0, move: float = 2.0, seeds: tuple[int, int] = (11, 12)):
    """One xtreme game of ``spec`` against the random bot, ``spec`` in ``seat``; its record."""
    with GameWorker(fork=False) as worker:
        players = [worker.player(spec), worker.player(RANDOM)]
        if seat == 1:
            players.reverse()
        return play_game(get_game("xtreme"), tuple(players), seeds, TimeControl(move=move, grace=0.05, startup=20.0))


@pytest.mark.parametrize("python", PYTHONS)
@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("file", ["team1", "team2"])
def test_course_bot_plays_a_whole_game(file, seat, python):
    record = play(course_bot(file, python), seat)
    assert record.termination is Termination.NORMAL, record.detail
    assert record.offender is None
    if record.winner is None:  # a draw: the small boards each won (drawn ones score nothing)
        assert sum(record.points) <= 86
    else:
        assert record.points == ((86, 0) if record.winner == 0 else (0, 86))
    assert {m.seat for m in record.moves} == {0, 1}


def test_course_bot_games_are_reproducible_from_their_seeds():
    first, second = (play(course_bot("team1", sys.executable), seeds=(5, 6)) for _ in range(2))
    assert [m.move for m in first.moves] == [m.move for m in second.moves]


FORFEITS = [
    (
        "changes_board",
        Termination.ILLEGAL_MOVE,
        "the bot changed the board it was given in move() (the course forfeits that)",
    ),
    ("returns_list", Termination.ILLEGAL_MOVE, "(list of int, int, int), not a tuple of three plain ints"),
    ("returns_floats", Termination.ILLEGAL_MOVE, "(tuple of float, float, float), not a tuple of three plain ints"),
    ("returns_numpy_ints", Termination.ILLEGAL_MOVE, "(tuple of int64, int64, int64), not a tuple of three plain ints"),
    ("plays_occupied", Termination.ILLEGAL_MOVE, "0 0 0 is illegal in xtreme: cell 0 0 0 is occupied (by x)"),
    ("raises", Termination.CRASH, "move() raised ValueError: deliberate failure on move 3"),
    ("hoards_memory", Termination.RESOURCE_LIMIT, "move() raised MemoryError"),
    ("two_classes", Termination.CRASH, "two_classes.py defines several classes with a move method (First, Last)"),
    ("sleeps", Termination.TIMEOUT, "no reply within 0.300 s + 0.050 s grace of wall time ("),
]


@pytest.mark.parametrize("python", PYTHONS)
@pytest.mark.parametrize(("file", "termination", "detail"), FORFEITS, ids=[f[0] for f in FORFEITS])
def test_course_forfeit_has_its_termination(file, termination, detail, python):
    if file == "returns_numpy_ints" and not has_numpy(python):
        pytest.skip(f"numpy is not installed for {python}")
    record = play(course_bot(file, python), move=0.3 if file == "sleeps" else 2.0)
    assert (record.termination, record.offender, record.winner) == (termination, 0, 1)
    assert detail in record.detail
    assert record.points == (0, 86)


@pytest.mark.parametrize("python", PYTHONS)
def test_class_parameter_picks_the_class(python):
    record = play(course_bot("two_classes", python, **{"class": "Last"}))
    assert record.termination is Termination.NORMAL, record.detail


@pytest.mark.parametrize("python", PYTHONS)
def test_what_a_bot_prints_goes_to_stderr_not_the_protocol(python):
    record = play(course_bot("prints", python))
    assert record.termination is Termination.NORMAL, record.detail
    output = bot_stderr(record.stderr[0])
    assert "thinking about 162 cells" in output and "written on fd 1" in output
    assert "------+-------+------" in output  # board.print_board()


def test_python2_file_runs_under_python27():
    python, why = python27()
    if python is None:
        pytest.skip(why)
    record = play(course_bot("old_style", python))
    assert record.termination is Termination.NORMAL, record.detail
    assert "playing (" in bot_stderr(record.stderr[0])


def test_python2_file_under_python3_crashes_with_a_hint():
    record = play(course_bot("old_style", sys.executable))
    assert record.termination is Termination.CRASH
    assert record.detail.startswith("loading old_style.py raised SyntaxError: ")
    assert "run it with a Python 2.7 interpreter" in record.detail


# -- registration --------------------------------------------------------------------------------


@pytest.mark.parametrize("python", PYTHONS)
def test_register_course_bot_with_its_interpreter(cli, python):
    result = cli("register", str(COURSE_BOTS / "team2.py"), "--interface", "course2019", "--python", python)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("registered: team2 v1 (course2019 ")
    listed = cli("bots", "--json")
    assert listed.exit_code == 0, listed.output
    [bot] = [row for row in json.loads(listed.stdout) if not row["built_in"]]
    assert (bot["name"], bot["kind"], bot["games"]) == ("team2", "course2019", ["xtreme"])
    assert bot["description"].startswith("One step: wins the game now")


def test_register_with_a_missing_interpreter_says_so(cli):
    result = cli(
        "register", str(COURSE_BOTS / "team1.py"), "--interface", "course2019", "--python", "/nonexistent/python2.7"
    )
    assert isinstance(result.exception, InterpreterError)
    assert str(result.exception).startswith("interpreter '/nonexistent/python2.7' not found; give the path")


def test_register_ambiguous_file_says_how_to_choose(cli):
    result = cli("register", str(COURSE_BOTS / "two_classes.py"), "--interface", "course2019")
    assert isinstance(result.exception, RegistrationError)
    assert str(result.exception).endswith(
        "two_classes.py defines several classes with a move method (First, Last) and none is named "
        "after the file; choose one with the bot parameter class (arena register ... --param "
        "class=NAME, or params: {class: NAME} in the tournament file)"
    )
    chosen = cli("register", str(COURSE_BOTS / "two_classes.py"), "--interface", "course2019", "--param", "class=First")
    assert chosen.exit_code == 0, chosen.output


# -- arena.entrants.course ------------------------------------------------------------------------------


def test_a_course_bot_runs_the_host_file_of_the_package():
    course_bots = kind_of("course2019")
    spec = BotSpec("t7", "course2019", "/bots/team7.py", '{"class": "Team7"}', sys.executable)
    assert course_bots.command(spec, None) == [sys.executable, str(HOST_FILE), "--class", "Team7", "/bots/team7.py"]
    assert HOST_FILE.is_file() and HOST_FILE.parent.parts[-2:] == ("arena", "host")
    assert course_bots.command(BotSpec("t7", "course2019", "/bots/team7.py", python="python2.7"), None) == [
        "python2.7",
        str(HOST_FILE),
        "/bots/team7.py",
    ]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"depth": 3}, "a course bot takes no parameter but 'class' (the bot class in its file), not 'depth'"),
        ({"class": "Team 7"}, "the parameter class must be a class name, e.g. class=Team7, not 'Team 7'"),
        ({"class": 7}, "the parameter class must be a class name, e.g. class=Team7, not 7"),
    ],
)
def test_course_parameters_other_than_a_class_name_are_refused(params, message):
    with pytest.raises(course.CourseBotError) as raised:
        course.check_params(params)
    assert str(raised.value) == message


def test_check_interpreter_gives_the_version():
    assert check_interpreter(sys.executable) == f"Python {sys.version.split()[0]}"


def test_check_interpreter_reads_python2_version_from_stderr():
    python, why = python27()
    if python is None:
        pytest.skip(why)
    assert check_interpreter(python) == "Python 2.7.18"


def test_check_interpreter_explains_a_missing_interpreter():
    with pytest.raises(InterpreterError) as raised:
        check_interpreter("/nonexistent/python")
    assert str(raised.value) == (
        "interpreter '/nonexistent/python' not found; give the path or name of an installed Python "
        '(2.7 or 3.x), e.g. --python python2.7 or --python "$(pyenv prefix 2.7.18)/bin/python2.7"'
    )


@pytest.mark.parametrize(
    ("script", "message"),
    [
        ("#!/bin/sh\necho nope >&2\nexit 3\n", "is not a working Python interpreter (--version gave status 3: 'nope')"),
        ("#!/bin/sh\necho 'Ruby 3.2'\n", "is not a working Python interpreter (--version gave status 0: 'Ruby 3.2')"),
        ("no shebang, not a program\n", "Exec format error"),
    ],
)
def test_check_interpreter_refuses_what_is_not_python(tmp_path, script, message):
    program = tmp_path / "python"
    program.write_text(script)
    program.chmod(0o755)
    with pytest.raises(InterpreterError) as raised:
        check_interpreter(str(program))
    assert message in str(raised.value)
