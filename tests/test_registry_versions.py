"""One canonical form of a bot's parameters: registering a bot again, or declaring in a
tournament the bot that is registered, finds the same version however its parameters are
spelled (``--param`` or YAML, a built-in bot's defaults given or left out, ``1`` for a float
parameter); other parameters are another version."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from arena.contests.roster import stored_params
from tests.fixtures.harnesskit import BOTS


def stored(cli) -> list[dict]:
    """The stored bots ``arena bots --json`` lists (the built-in ones left out)."""
    result = cli("bots", "--json")
    assert result.exit_code == 0, result.output
    return [bot for bot in json.loads(result.stdout) if not bot["built_in"]]


def versions(cli) -> list[tuple[str, int, dict, bool]]:
    return [(b["name"], b["version"], b["params"], b["registered"]) for b in stored(cli)]


def register(cli, *args: str) -> str:
    """``arena register ARGS --no-smoke``'s line saying what it stored."""
    result = cli("register", *args, "--no-smoke")
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()[0]


# ---------------------------------------------------------------- the canonical form


def test_a_built_in_bots_defaults_are_left_out():
    assert stored_params("python", "bots.uct", Path.cwd(), {"iterations": 5, "reuse": True}) == '{"iterations":5}'


def test_keys_are_sorted_and_an_int_for_a_float_parameter_is_a_float():
    assert stored_params("python", "bots.uct", Path.cwd(), {"iterations": 5, "c": 1}) == '{"c":1.0,"iterations":5}'


def test_another_bots_parameters_are_kept_as_given_with_their_keys_sorted():
    params = {"offset": 0, "b": 1.0, "a": [1, 2]}
    assert stored_params("python", str(BOTS / "takes_params.py"), Path.cwd(), params) == (
        '{"a":[1,2],"b":1.0,"offset":0}'
    )


def test_a_built_in_bots_file_is_the_built_in_bot():
    import bots.uct

    assert stored_params("python", bots.uct.__file__, Path.cwd(), {"reuse": True}) == "{}"


def test_a_parameter_a_built_in_bot_does_not_have_is_refused_at_registration(cli):
    result = cli("register", "bots.uct", "--param", "depth=3", "--no-smoke")
    assert str(result.exception) == (
        "bot 'uct' has no parameter 'depth'; its parameters: c=1.4142135623730951, iterations=None, reuse=True"
    )
    assert stored(cli) == []


# ---------------------------------------------------------------- registering again


@pytest.mark.parametrize(
    "again",
    [
        ["--param", "iterations=5", "--param", "reuse=true"],
        ["--param", "reuse=true", "--param", "iterations=5"],
        ["--param", "iterations=5", "--param", "c=1.4142135623730951"],
    ],
    ids=["a default given", "another order", "a float default given"],
)
def test_registering_a_built_in_bot_again_with_its_defaults_spelled_out_changes_nothing(cli, again):
    assert register(cli, "bots.uct", "--name", "mcts", "--param", "iterations=5") == (
        "registered: mcts v1 (python bots.uct), games: tictactoe, uttt, xtreme, othello"
    )
    assert register(cli, "bots.uct", "--name", "mcts", *again).startswith("unchanged: mcts v1 (python bots.uct)")
    assert versions(cli) == [("mcts", 1, {"iterations": 5}, True)]


def test_an_int_and_a_float_for_a_float_parameter_are_one_version(cli):
    register(cli, "bots.uct", "--name", "mcts", "--param", "c=1")
    assert register(cli, "bots.uct", "--name", "mcts", "--param", "c=1.0").startswith("unchanged: mcts v1 ")
    assert versions(cli) == [("mcts", 1, {"c": 1.0}, True)]


def test_a_built_in_bot_with_other_parameters_is_a_new_version(cli):
    register(cli, "bots.uct", "--name", "mcts", "--param", "iterations=5")
    assert register(cli, "bots.uct", "--name", "mcts", "--param", "iterations=6").startswith("new version: mcts v2 ")
    assert versions(cli) == [("mcts", 1, {"iterations": 5}, True), ("mcts", 2, {"iterations": 6}, True)]


def test_a_version_stored_with_its_defaults_spelled_out_is_found_again(cli, tmp_path):
    register(cli, "bots.uct", "--name", "mcts", "--param", "iterations=5")
    with sqlite3.connect(tmp_path / "arena.sqlite3") as connection:  # as arena stored it before
        connection.execute("""UPDATE bots SET params = '{"iterations": 5, "reuse": true}'""")
    assert register(cli, "bots.uct", "--name", "mcts", "--param", "iterations=5").startswith("unchanged: mcts v1 ")


# ---------------------------------------------------------------- declaring what is registered


@pytest.fixture
def folder(tmp_path, monkeypatch) -> Path:
    """The current folder, holding the takes_params bot."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(BOTS / "takes_params.py", tmp_path)
    return tmp_path


def run_tournament(cli, folder: Path, bots: str) -> None:
    """Run a one-stage tictactoe tournament of ``bots`` (YAML of the bots: mapping) and a random bot."""
    (folder / "t.yaml").write_text(
        "name: t\ngame: tictactoe\nseed: 1\ntime: {move: 1.0}\nworkers: 1\n"
        f"bots:\n{bots}  rand: {{module: bots.randombot}}\nstages:\n  - {{games_per_pair: 1}}\n"
    )
    result = cli("run", str(folder / "t.yaml"), "-q")
    assert result.exit_code == 0, result.output


def test_declaring_the_registered_built_in_bot_with_its_defaults_spelled_out_plays_that_version(cli, folder):
    register(cli, "bots.uct", "--name", "mcts", "--param", "iterations=5")
    run_tournament(
        cli, folder, "  mcts: {module: bots.uct, params: {iterations: 5, reuse: true, c: 1.4142135623730951}}\n"
    )
    assert versions(cli) == [("mcts", 1, {"iterations": 5}, True), ("rand", 1, {}, False)]


def test_declaring_a_registered_file_bot_with_yaml_parameters_plays_that_version(cli, folder):
    register(cli, "takes_params.py", "--name", "shifty", "--param", "offset=2")
    run_tournament(cli, folder, "  shifty: {path: takes_params.py, params: {offset: 2}}\n")
    assert versions(cli) == [("rand", 1, {}, False), ("shifty", 1, {"offset": 2}, True)]


def test_registering_a_declared_bot_with_param_options_finds_its_version(cli, folder):
    run_tournament(cli, folder, "  mcts: {module: bots.uct, params: {iterations: 5, reuse: true}}\n")
    assert register(cli, "bots.uct", "--name", "mcts", "--param", "iterations=5").startswith("unchanged: mcts v1 ")
    assert versions(cli) == [("mcts", 1, {"iterations": 5}, True), ("rand", 1, {}, False)]


def test_declaring_a_registered_built_in_bot_from_another_folder_plays_that_version(cli, folder):
    register(cli, "bots.uct", "--name", "mcts", "--param", "iterations=5")
    (folder / "elsewhere").mkdir()
    run_tournament(cli, folder / "elsewhere", "  mcts: {module: bots.uct, params: {iterations: 5}}\n")
    assert versions(cli) == [("mcts", 1, {"iterations": 5}, True), ("rand", 1, {}, False)]


def test_a_command_bot_declared_from_another_folder_is_another_version(cli, folder):
    from arena.contests.config import BotDef
    from arena.contests.roster import bot_row
    from arena.store.database import open_store

    command = BotDef(command="python3 bot.py")
    (folder / "elsewhere").mkdir()
    with open_store(cli.db).begin() as session:
        first = bot_row(session, "cmd", command, folder)
        again = bot_row(session, "cmd", command, folder)
        moved = bot_row(session, "cmd", command, folder / "elsewhere")
        assert (first.version, again.version, moved.version) == (1, 1, 2)
