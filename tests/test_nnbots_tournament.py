"""The learning bots in a real tournament: sandboxed bot processes read only their own code, so
a model kept in the bot's package (copied with it into its bundle) is read, and a model file
named by the ``model`` parameter elsewhere is not, which the forfeited games say
(docs/learning.md)."""

from __future__ import annotations

import random
import sqlite3

import pytest

from arena.contests.config import parse_config
from arena.contests.tournament import TournamentRun
from arena.games import get_game
from arena.learning.dataset import PlayedGame, dataset_from_games
from arena.learning.training import Settings, train
from arena.runners.local import LocalRunner
from arena.sandbox import landlock
from arena.store.database import open_store

pytestmark = pytest.mark.slow

PACKAGE = '''"""nnvalue with its tic-tac-toe model kept beside this file."""

from pathlib import Path

import bots.nnvalue as nnvalue

GAMES = ("tictactoe",)
PARAMETERS = {}
MODEL = str(Path(__file__).with_name("tictactoe.npz"))


def make_bot(game, seat, rng, **params):
    return nnvalue.make_bot(game, seat, rng, model=MODEL, **params)
'''


@pytest.fixture(scope="module")
def games(tmp_path_factory) -> dict[str, list[sqlite3.Row]]:
    """A tournament of a packaged nnvalue, nnvalue with a model file outside its package, and
    a random bot; each team's games."""
    folder = tmp_path_factory.mktemp("tournament")
    game = get_game("tictactoe")
    rng = random.Random(1)
    played = []
    for number in range(20):
        state, moves = game.initial_state(), []
        while not state.is_terminal:
            moves.append(rng.choice(state.legal_moves()))
            state = state.play(moves[-1])
        played.append(PlayedGame(number, moves, ("a", "b")))
    network = train("nnvalue", dataset_from_games(game, played), Settings(hidden=(8,), epochs=1))[0]
    (folder / "learned").mkdir()
    (folder / "learned" / "__init__.py").write_text(PACKAGE)
    network.save(folder / "learned" / "tictactoe.npz")
    network.save(folder / "models" / "tictactoe.npz")
    text = (
        f"name: learned\ngame: tictactoe\nseed: 2\ntime: {{move: 1.0}}\nworkers: 1\nbots:\n"
        f"  packaged: {{module: learned}}\n"
        f"  outside: {{module: bots.nnvalue, params: {{model: {folder / 'models' / 'tictactoe.npz'}}}}}\n"
        f"  random: {{module: bots.randombot}}\nstages:\n  - {{games_per_pair: 2}}\n"
    )
    # played without the pre-flight check, which would refuse the unreadable model before any game
    run = TournamentRun(parse_config(text), text, open_store(f"sqlite:///{folder / 'arena.sqlite3'}"), folder, 1)
    run.prepare()
    run.run(LocalRunner(1))
    with sqlite3.connect(folder / "arena.sqlite3") as connection:
        connection.row_factory = sqlite3.Row
        rows = connection.execute(
            "SELECT g.*, a.team AS first, b.team AS second FROM games g "
            "JOIN game_seats s0 ON s0.game_id = g.id AND s0.seat = 0 JOIN entries a ON a.id = s0.entry_id "
            "JOIN game_seats s1 ON s1.game_id = g.id AND s1.seat = 1 JOIN entries b ON b.id = s1.entry_id"
        ).fetchall()
    return {
        team: [row for row in rows if team in (row["first"], row["second"])]
        for team in ("packaged", "outside", "random")
    }


def test_a_model_kept_in_the_bots_package_is_read_in_the_sandbox(games):
    against_random = [row for row in games["packaged"] if "random" in (row["first"], row["second"])]
    assert len(against_random) == 2
    assert all(row["status"] == "finished" and row["termination"] == "normal" for row in against_random)


@pytest.mark.skipif(not landlock.abi_version(), reason="this kernel has no Landlock: files are not confined")
def test_a_model_file_outside_the_bots_package_is_refused_by_the_sandbox_and_the_game_says_so(games):
    assert len(games["outside"]) == 4
    for row in games["outside"]:
        offender = row["first"] if row["offender"] == 0 else row["second"]
        assert (row["termination"], offender) == ("crash", "outside")
        assert row["detail"].startswith("BotParameterError: bot 'nnvalue': model file ")
        assert "cannot be read (permission denied)" in row["detail"]
