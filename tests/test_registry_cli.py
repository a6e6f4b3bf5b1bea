"""Registering bots with ``arena register``: the bot is loaded in its own process, plays a smoke
game against the random bot, and is stored with its kind, target, parameters and code hash only
if it passes; a changed file is a new version; ``arena bots`` lists them."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

import pytest

from arena.contests.registration import RegistrationError
from tests.fixtures.harnesskit import BOTS, COMMANDS, NODE_BOT, REPO, arena, needs_node, without_root_warning


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def listed(cli) -> list[dict]:
    """The stored bots ``arena bots --json`` lists (the built-in ones left out)."""
    result = cli("bots", "--json")
    assert result.exit_code == 0, result.output
    return [bot for bot in json.loads(result.stdout) if not bot["built_in"]]


@pytest.fixture
def shifty(tmp_path, monkeypatch) -> Path:
    """A copy of the takes_params bot in the current folder (tmp_path), to register and edit."""
    monkeypatch.chdir(tmp_path)
    return Path(shutil.copy(BOTS / "takes_params.py", tmp_path / "shifty.py"))


# ---------------------------------------------------------------- success


def test_register_reports_the_new_bot_and_the_games_it_plays(cli, shifty):
    result = cli("register", "shifty.py", "--name", "shifty", "--param", "offset=2")
    assert result.exit_code == 0, result.output
    assert result.stdout == f"registered: shifty v1 (python {shifty}), games: tictactoe, uttt\n"


def test_register_stores_kind_target_parameters_and_code_hash(cli, shifty):
    cli("register", "shifty.py", "--name", "shifty", "--param", "offset=2")
    assert listed(cli) == [
        {
            "name": "shifty",
            "version": 1,
            "kind": "python",
            "target": str(shifty),
            "params": {"offset": 2},
            "games": ["tictactoe", "uttt"],
            "registered": True,
            "built_in": False,
            "code_hash": sha256(shifty),
            "description": "Plays the legal move at index `offset` (modulo their number); `offset` must be an int.",
        }
    ]


def test_registering_the_same_file_again_changes_nothing(cli, shifty):
    cli("register", "shifty.py", "--name", "shifty")
    result = cli("register", "shifty.py", "--name", "shifty")
    assert result.stdout == f"unchanged: shifty v1 (python {shifty}), games: tictactoe, uttt\n"
    assert [b["version"] for b in listed(cli)] == [1]


def test_registering_a_changed_file_adds_a_new_version(cli, shifty):
    cli("register", "shifty.py", "--name", "shifty")
    first = sha256(shifty)
    shifty.write_text(shifty.read_text() + "\n# tuned\n")
    result = cli("register", "shifty.py", "--name", "shifty")
    assert result.stdout == f"new version: shifty v2 (python {shifty}), games: tictactoe, uttt\n"
    assert [(b["version"], b["code_hash"]) for b in listed(cli)] == [(1, first), (2, sha256(shifty))]


def test_registering_other_parameters_adds_a_new_version(cli, shifty):
    cli("register", "shifty.py", "--name", "shifty", "--param", "offset=1")
    result = cli("register", "shifty.py", "--name", "shifty", "--param", "offset=3")
    assert result.stdout.startswith("new version: shifty v2 ")
    assert [b["params"] for b in listed(cli)] == [{"offset": 1}, {"offset": 3}]


def test_register_a_module_by_its_dotted_name(cli, monkeypatch):
    from bots.randombot import GAMES

    monkeypatch.chdir(REPO)
    result = cli("register", "bots.randombot", "--game", "uttt")
    assert result.stdout == f"registered: randombot v1 (python bots.randombot), games: {', '.join(GAMES)}\n"
    (bot,) = listed(cli)
    assert (bot["kind"], bot["target"], bot["code_hash"]) == (
        "python",
        "bots.randombot",
        sha256(REPO / "bots" / "randombot.py"),
    )


def test_register_smoke_tests_each_game_asked_for(cli, shifty):
    result = cli("register", "shifty.py", "--game", "uttt", "--game", "tictactoe")
    assert result.stdout == f"registered: shifty v1 (python {shifty}), games: tictactoe, uttt\n"


# ---------------------------------------------------------------- failures

FAILURES = {
    "exception-in-move": (
        ["raises_in_move.py"],
        "smoke game of tictactoe against random: the bot forfeited "
        "(crash) after 0 moves: RuntimeError: deliberate failure in move",
    ),
    "hangs": (
        ["hangs_in_move.py", "--move-time", "0.2"],
        "smoke game of tictactoe against random: the bot "
        "forfeited (timeout) after 0 moves: no reply within 0.200 s + 0.100 s grace of wall time (",
    ),
    "illegal-move": (
        ["plays_occupied_cell.py"],
        "smoke game of tictactoe against random: the bot forfeited (illegal_move) after 2 moves: ",
    ),
    "import-error": (
        ["fails_to_import.py"],
        "cannot be loaded: BotLoadError: bot file '{path}' failed to import: "
        "ModuleNotFoundError: No module named 'arena_no_such_module_for_tests'",
    ),
    "not-a-bot": (
        ["no_move_function.py"],
        "bot '{path}' has neither make_bot(game, seat, rng, **params) nor move(state, clock); define one of them",
    ),
    "bad-parameter": (
        ["takes_params.py", "--param", "offset=x"],
        "the bot forfeited (crash) after 0 moves: BotParameterError: offset must be an int, not 'x'",
    ),
    "wrong-game": (
        ["plays_occupied_cell.py", "--game", "uttt"],
        "bot 'plays_occupied_cell' does not play 'uttt'; it plays tictactoe",
    ),
    "unknown-game": (
        ["first_legal.py", "--game", "chess"],
        "--game 'chess': unknown game 'chess'; the games are: othello, tictactoe, uttt, xtreme",
    ),
    "missing-file": (["no_such_bot.py"], "no bot file 'no_such_bot.py'"),
}


@pytest.mark.parametrize("case", FAILURES)
def test_a_bot_that_fails_is_not_registered_and_the_message_says_why(cli, monkeypatch, case):
    monkeypatch.chdir(BOTS)
    args, message = FAILURES[case]
    result = cli("register", *args)
    assert isinstance(result.exception, RegistrationError), result.output
    assert message.format(path=BOTS / args[0]) in str(result.exception)
    assert listed(cli) == []


def test_a_failed_registration_prints_the_reason_and_exits_2_without_a_traceback(tmp_path):
    result = arena("register", str(BOTS / "raises_in_move.py"), "--db", f"sqlite:///{tmp_path / 'a.db'}", cwd=tmp_path)
    assert result.returncode == 2
    assert without_root_warning(result.stderr).startswith(
        "smoke game of tictactoe against random, the bot as x, 2 s a move (wall clock):\n"
        "error: smoke game of tictactoe against random: the bot forfeited (crash) after 0 moves: RuntimeError: "
        "deliberate failure in move\n"
    )
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_an_error_message_that_looks_like_markup_is_printed_as_it_is(tmp_path):
    # The CLI prints errors through rich markup; text quoted from a bot must be escaped, or
    # "[/x]" raises MarkupError (a traceback) and "[bold]" vanishes.
    result = arena(
        "register", str(BOTS / "raises_markup_like.py"), "--db", f"sqlite:///{tmp_path / 'a.db'}", cwd=tmp_path
    )
    assert result.returncode == 2
    assert without_root_warning(result.stderr).startswith(
        "smoke game of tictactoe against random, the bot as x, 2 s a move (wall clock):\n"
        "error: smoke game of tictactoe against random: the bot forfeited (crash) after 0 moves: ValueError: bad "
        "[bold]value[/bold] in [/x]\n"
    )


def test_register_needs_a_target_or_a_command_but_not_both(cli):
    for args in ([], ["bots.randombot", "--command", "node bot.js"]):
        result = cli("register", *args)
        assert str(result.exception) == (
            'give either a bot file or module, or --command "PROGRAM ARGS", or an engine\'s --uci, --ugi or --gtp '
            '"PROGRAM ARGS"'
        )


def test_a_parameter_must_be_written_key_equals_value(cli):
    result = cli("register", "bots.randombot", "--param", "depth")
    assert str(result.exception) == "--param 'depth': write key=value, e.g. --param c=1.4"


# ---------------------------------------------------------------- command bots


@needs_node
def test_register_the_node_bot_by_its_command(cli):
    result = cli("register", "--command", f"node {NODE_BOT}", "--name", "node-random")
    assert result.stdout == f"registered: node-random v1 (command node {NODE_BOT}), games: tictactoe\n"
    (bot,) = listed(cli)
    assert (bot["name"], bot["kind"], bot["target"], bot["params"], bot["registered"]) == (
        "node-random",
        "command",
        f"node {NODE_BOT}",
        {},
        True,
    )


@needs_node
def test_register_the_node_bot_for_ultimate_tic_tac_toe(cli):
    result = cli("register", "--command", f"node {NODE_BOT}", "--name", "node-random", "--game", "uttt")
    assert result.stdout == f"registered: node-random v1 (command node {NODE_BOT}), games: uttt\n"


@needs_node
def test_register_a_command_with_a_script_path_relative_to_the_current_folder(cli, monkeypatch):
    # A user in the repository types the path as they see it; the bot runs in a private
    # temporary folder, so a relative script argument must be resolved before it starts.
    monkeypatch.chdir(REPO)
    result = cli("register", "--command", "node examples/node/random_bot.js", "--name", "node-random")
    assert result.exception is None, result.exception
    assert listed(cli)[0]["name"] == "node-random"


@needs_node
def test_registering_a_changed_command_script_adds_a_new_version(cli, tmp_path):
    # The code hash is what tells versions apart; a command bot has none, so an edited
    # script is not noticed.
    script = Path(shutil.copy(NODE_BOT, tmp_path / "bot.js"))
    cli("register", "--command", f"node {script}", "--name", "js")
    script.write_text(script.read_text() + "\n// tuned\n")
    result = cli("register", "--command", f"node {script}", "--name", "js")
    assert result.stdout.startswith("new version: js v2 ")


def test_a_command_bot_that_breaks_the_protocol_is_not_registered(cli):
    result = cli("register", "--command", f"{sys.executable} {COMMANDS / 'not_json.py'}", "--name", "chatty")
    assert str(result.exception) == (
        "smoke game of tictactoe against random: the bot forfeited "
        "(protocol_error) after 0 moves: reply is not JSON: 'move 4'"
    )
    assert listed(cli) == []


# ---------------------------------------------------------------- the description


def test_a_bots_description_is_the_first_paragraph_of_its_module_docstring_on_one_line(tmp_path):
    from arena.host.python_host import Host

    path = tmp_path / "two_paragraphs.py"
    path.write_text(
        '"""Plays first:\n   the first legal move.\n\nNot this paragraph."""\n\n'
        "def move(state, clock):\n    return state.legal_moves()[0]\n"
    )
    assert Host(str(path), {}).describe()["description"] == "Plays first: the first legal move."
