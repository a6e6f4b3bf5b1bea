"""Run as root, arena runs its bots as root, and they can read root's files in the folders they
may read: the commands that start bots (``run``, ``register``, ``play``) say so in one line on
stderr, once, before the first bot starts; as any other user, and in commands that start no
bot, they say nothing of it."""

from __future__ import annotations

import os

import pytest

from arena.commands.cli import ROOT_WARNING
from tests.builders import create, league_config
from tests.fixtures.harnesskit import BOTS

TOURNAMENT = f"""\
name: rooted
game: tictactoe
workers: 2
bots:
  a: {{path: {BOTS / "first_legal.py"}}}
  b: {{path: {BOTS / "first_legal.py"}}}
  c: {{path: {BOTS / "first_legal.py"}}}
stages:
  - {{name: group, games_per_pair: 2, advance: 2}}
  - {{name: final, games_per_pair: 2}}
"""


@pytest.fixture(params=[0, 1000], ids=["root", "user"])
def uid(request, monkeypatch) -> int:
    """The effective user id arena sees: root, or an ordinary user."""
    monkeypatch.setattr(os, "geteuid", lambda: request.param)
    return request.param


def commands(tmp_path) -> dict[str, tuple[list[str], str]]:
    """Each command that starts bots: its arguments and its standard input."""
    (tmp_path / "t.yaml").write_text(TOURNAMENT)
    return {
        "run": (["run", str(tmp_path / "t.yaml"), "-q"], ""),
        "register": (["register", str(BOTS / "first_legal.py"), "--name", "firstie"], ""),
        "play": (["play", "tictactoe", "--bot", str(BOTS / "first_legal.py")], "4\nquit\n"),
    }


@pytest.mark.parametrize("command", ["run", "register", "play"])
def test_a_command_that_starts_bots_warns_once_when_run_as_root(cli, tmp_path, uid, command):
    args, stdin = commands(tmp_path)[command]
    result = cli(*args, input=stdin)
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines().count(ROOT_WARNING) == (1 if uid == 0 else 0)


def test_the_warning_is_one_line_however_narrow_the_terminal(cli, tmp_path, uid):
    args, _ = commands(tmp_path)["register"]
    result = cli(*args, "--no-smoke", env={"COLUMNS": "40"})
    assert result.stderr == (ROOT_WARNING + "\n" if uid == 0 else "")


@pytest.mark.parametrize("command", [["tournaments"], ["bots"], ["games"]])
def test_a_command_that_starts_no_bot_does_not_warn(cli, uid, command):
    create(cli.db, league_config())  # a tournament to list ('arena games' of none says how to run one)
    result = cli(*command)
    assert (result.exit_code, result.stderr) == (0, "")


def test_a_command_refused_before_any_bot_starts_does_not_warn(cli, uid):
    result = cli("register", "no_such_file.py")
    assert ROOT_WARNING not in result.output
