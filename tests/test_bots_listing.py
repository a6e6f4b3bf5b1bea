"""``arena bots`` lists the built-in bots, each with its parameters' defaults, its games and its
description, beside the registered and declared ones; a bot's description is the first
paragraph of its module's docstring."""

from __future__ import annotations

import json

import bots
from tests.fixtures.harnesskit import BOTS


def listed(cli) -> list[dict]:
    result = cli("bots", "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_bots_json_lists_every_built_in_bot_after_the_stored_ones(cli):
    assert cli("register", str(BOTS / "first_legal.py"), "--name", "first", "--no-smoke").exit_code == 0
    rows = listed(cli)
    assert [(row["name"], row["built_in"]) for row in rows] == [("first", False)] + [
        (f"bots.{name}", True) for name in bots.BOTS + bots.LEARNED + bots.OUTSIDE
    ]


def test_a_built_in_bot_is_listed_with_its_parameters_defaults_games_and_description(cli):
    (uct,) = [row for row in listed(cli) if row["name"] == "bots.uct"]
    assert uct == {
        "name": "bots.uct",
        "version": None,
        "kind": "python",
        "target": "bots.uct",
        "params": {"c": 1.4142135623730951, "iterations": None, "reuse": True},
        "games": ["tictactoe", "uttt", "xtreme", "othello"],
        "registered": False,
        "built_in": True,
        "code_hash": None,
        "description": "UCT: Monte-Carlo tree search with UCB1 selection and uniformly random playouts.",
    }


def test_a_learning_bot_is_listed_with_its_model_parameter(cli):
    (nnvalue,) = [row for row in listed(cli) if row["name"] == "bots.nnvalue"]
    assert nnvalue["params"] == {"model": None}


def test_the_table_marks_built_in_bots_and_writes_parameters_as_name_equals_default(cli):
    result = cli("bots")
    assert result.exit_code == 0, result.output
    (line,) = [line for line in result.stdout.splitlines() if line.startswith("│ bots.uct ")]
    cells = [cell.strip() for cell in line.strip("│ ").split("│")]
    assert cells == [
        "bots.uct",
        "built-in",
        "python",
        "bots.uct",
        "c=1.4142135623730951, iterations=null, reuse=true",
        "tictactoe, uttt, xtreme, othello",
        "UCT: Monte-Carlo tree search with UCB1 selection and uniformly random playouts.",
    ]


def test_the_table_writes_a_registered_bots_parameters_as_name_equals_value(cli):
    registered = cli("register", "bots.uct", "--name", "mcts", "-p", "iterations=5", "-p", "c=1.5", "--no-smoke")
    assert registered.exit_code == 0, registered.output
    (line,) = [line for line in cli("bots").stdout.splitlines() if line.startswith("│ mcts ")]
    assert [cell.strip() for cell in line.strip("│ ").split("│")][:5] == [
        "mcts",
        "v1",
        "python",
        "bots.uct",
        "c=1.5, iterations=5",
    ]


def test_a_description_of_several_lines_is_its_first_paragraph_on_one_line(cli):
    (unreliable,) = [row for row in listed(cli) if row["name"] == "bots.unreliable"]
    assert unreliable["description"] == (
        "Unreliable: plays like another built-in bot, but now and then breaks a rule the way real "
        "entries did: it overruns its time, plays an illegal move, or crashes."
    )


def test_a_registered_bots_description_is_the_first_paragraph_of_its_docstring(cli):
    assert cli("register", str(BOTS / "plays_second_only.py"), "--no-smoke").exit_code == 0
    (bot,) = [row for row in listed(cli) if not row["built_in"]]
    assert bot["description"] == (
        "Plays the first legal move when it moves second; made to move first, it raises in "
        "make_bot: a bot that can only answer an opening."
    )
