"""The smoke game of ``arena register``: the bot's seat (``--as``), a partial game
(``--smoke-moves``), none (``--no-smoke``), its progress a line a move of the bot, and what a
timeout says to change."""

from __future__ import annotations

import json
import re
import sys

import pytest

from arena.contests.registration import RegistrationError
from tests.fixtures.harnesskit import BOTS, COMMANDS, without_root_warning

#: a progress line of a move of the bot: its number, the move, its time (and CPU time, where measured)
MOVE_LINE = r"  move {number}: {move} in \d+\.\d\d s( \(\d+\.\d\d s of CPU\))?"


def stored(cli) -> list[dict]:
    """The stored bots ``arena bots --json`` lists (the built-in ones left out)."""
    return [bot for bot in json.loads(cli("bots", "--json").stdout) if not bot["built_in"]]


def test_each_move_of_the_bot_is_a_progress_line_with_its_number_move_and_time(cli):
    result = cli("register", str(BOTS / "first_legal.py"), "--name", "first")
    assert result.exit_code == 0, result.output
    first, *moves = without_root_warning(result.stderr).splitlines()
    assert first == "smoke game of tictactoe against random, the bot as x, 2 s a move (wall clock):"
    assert re.fullmatch(MOVE_LINE.format(number=1, move="0"), moves[0]), moves[0]
    assert [int(line.split(":")[0].split()[1]) for line in moves] == list(range(1, len(moves) + 1))
    assert 3 <= len(moves) <= 5


def test_smoke_moves_stops_the_game_after_that_many_moves_of_the_bot_and_says_so(cli):
    result = cli("register", str(BOTS / "first_legal.py"), "--name", "first", "--game", "uttt", "--smoke-moves", "2")
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        f"registered: first v1 (python {BOTS / 'first_legal.py'}), games: uttt\n"
        "smoke game of uttt stopped after the bot's 2 moves as x (--smoke-moves): a partial game, which "
        "shows the bot loads and plays, not that it lasts a whole game\n"
    )
    first, *moves = without_root_warning(result.stderr).splitlines()
    assert first == "smoke game of uttt against random, the bot as x, 2 s a move (wall clock):"
    assert len(moves) == 2
    assert re.fullmatch(MOVE_LINE.format(number=1, move="0 0"), moves[0]), moves[0]
    assert re.fullmatch(MOVE_LINE.format(number=2, move=r"\d \d"), moves[1]), moves[1]


def test_a_game_that_ends_before_the_smoke_moves_is_a_whole_game(cli):
    result = cli("register", str(BOTS / "first_legal.py"), "--name", "first", "--smoke-moves", "50")
    assert result.exit_code == 0, result.output
    assert result.stdout == f"registered: first v1 (python {BOTS / 'first_legal.py'}), games: tictactoe\n"


def test_as_seats_the_bot_second_in_the_smoke_game(cli):
    result = cli("register", str(BOTS / "plays_second_only.py"), "--as", "o", "--smoke-moves", "1")
    assert result.exit_code == 0, result.output
    assert (
        without_root_warning(result.stderr).splitlines()[0]
        == "smoke game of tictactoe against random, the bot as o, 2 s a move (wall clock):"
    )
    assert [bot["name"] for bot in stored(cli)] == ["plays_second_only"]


def test_without_as_the_bot_moves_first(cli):
    result = cli("register", str(BOTS / "plays_second_only.py"))
    assert isinstance(result.exception, RegistrationError)
    assert str(result.exception).startswith(
        "smoke game of tictactoe against random: the bot forfeited (crash) after 0 moves: "
        "RuntimeError: plays second only, not seat 0"
    )


def test_as_takes_the_seat_names_of_the_game(cli):
    result = cli(
        "register", str(BOTS / "plays_second_only.py"), "--game", "othello", "--as", "white", "--smoke-moves", "1"
    )
    assert result.exit_code == 0, result.output
    assert without_root_warning(result.stderr).splitlines()[0] == (
        "smoke game of othello against random, the bot as white, 2 s a move (wall clock):"
    )


def test_a_seat_the_game_does_not_have_is_refused_before_the_bot_starts(cli):
    result = cli("register", str(BOTS / "first_legal.py"), "--game", "othello", "--as", "x")
    assert str(result.exception) == "--as: 'x' is no seat of othello: choose black, white, first or second"
    assert without_root_warning(result.stderr) == ""


def test_no_smoke_registers_a_bot_that_loads_without_playing_a_move_and_says_so(cli):
    result = cli("register", str(BOTS / "raises_in_move.py"), "--name", "raises", "--no-smoke")
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        f"registered: raises v1 (python {BOTS / 'raises_in_move.py'}), games: tictactoe\n"
        "no smoke game was played (--no-smoke): the bot loaded and described itself, but has not played a move\n"
    )
    assert without_root_warning(result.stderr) == ""


def test_no_smoke_still_refuses_a_bot_that_does_not_load(cli):
    result = cli("register", str(BOTS / "no_move_function.py"), "--no-smoke")
    assert isinstance(result.exception, RegistrationError)
    assert "has neither make_bot(game, seat, rng, **params) nor move(state, clock)" in str(result.exception)
    assert stored(cli) == []


def test_no_smoke_is_refused_for_a_command_bot(cli):
    result = cli("register", "--command", f"{sys.executable} {COMMANDS / 'not_json.py'}", "--no-smoke")
    assert str(result.exception) == (
        "--no-smoke: a command bot is checked by its smoke game alone (it need not answer describe); "
        "register it with a short one instead, e.g. --smoke-moves 1"
    )


def test_no_smoke_and_smoke_moves_together_are_refused(cli):
    result = cli("register", str(BOTS / "first_legal.py"), "--no-smoke", "--smoke-moves", "2")
    assert str(result.exception) == (
        "--no-smoke plays no game, so --smoke-moves has none to stop; give one or the other"
    )


def test_a_first_move_timeout_says_to_raise_the_move_time_or_play_no_game(cli):
    result = cli("register", str(BOTS / "hangs_in_move.py"), "--move-time", "0.2")
    assert isinstance(result.exception, RegistrationError)
    first_line = str(result.exception).splitlines()[0]
    assert first_line.startswith("smoke game of tictactoe against random: the bot forfeited (timeout) after 0 moves: ")
    assert first_line.endswith(
        "; give it more time a move with --move-time (now 0.2 s), or register it without a game with --no-smoke"
    )


def test_a_later_timeout_also_says_how_many_smoke_moves_it_made_in_time(cli):
    result = cli("register", str(BOTS / "hangs_after_two_moves.py"), "--move-time", "0.2")
    assert isinstance(result.exception, RegistrationError)
    first_line = str(result.exception).splitlines()[0]
    assert first_line.startswith("smoke game of tictactoe against random: the bot forfeited (timeout) after 4 moves: ")
    assert first_line.endswith(
        "; give it more time a move with --move-time (now 0.2 s), stop the smoke game after the 2 moves it "
        "made in time with --smoke-moves 2, or register it without a game with --no-smoke"
    )


def test_the_smoke_moves_a_timeout_names_register_the_bot(cli):
    result = cli("register", str(BOTS / "hangs_after_two_moves.py"), "--move-time", "0.2", "--smoke-moves", "2")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("registered: hangs_after_two_moves v1 ")


@pytest.mark.parametrize("value", ["0", "-1"])
def test_smoke_moves_is_at_least_one(cli, value):
    result = cli("register", str(BOTS / "first_legal.py"), "--smoke-moves", value)
    assert result.exit_code == 2
    assert "Invalid value for '--smoke-moves'" in result.stderr


def test_on_a_terminal_the_move_being_thought_about_is_a_live_line_counting_seconds():
    import io
    import time

    from rich.console import Console

    from arena.commands.smoke import SmokeDisplay

    display = SmokeDisplay()
    screen = io.StringIO()
    display.console = Console(file=screen, force_terminal=True, width=100)
    display.thinking(3)
    time.sleep(0.6)
    display.moved(3, "1 4 4", 0.6, None)
    display.ended()
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", screen.getvalue())
    assert re.search(r"  move 3: thinking, 0\.[1-6] s", shown), shown
    assert shown.endswith("  move 3: 1 4 4 in 0.60 s\n")
