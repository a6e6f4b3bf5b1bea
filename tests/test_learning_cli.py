"""``arena dataset`` and ``arena train``: files written from a stored tournament, what they say,
and the errors (a message and exit status 2, no traceback)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from arena.commands.cli import app
from arena.core.records import Termination
from arena.games import get_game
from arena.learning.dataset import load_dataset
from arena.learning.network import load_model
from arena.store.database import open_store
from tests.fixtures.learningkit import CUT, DRAW, X_WINS, record, store_tournament

runner = CliRunner()


@pytest.fixture
def db(tmp_path):
    """A database holding tournament ``league`` (two normally ended games and a forfeit)."""
    url = f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    store_tournament(
        open_store(url),
        "league",
        "tictactoe",
        lambda ids: [record(ids[0], X_WINS), record(ids[1], DRAW), record(ids[2], CUT, Termination.TIMEOUT)],
    )
    return url


def invoke(*args: str):
    return runner.invoke(app, list(args), env={"COLUMNS": "500"})


def test_dataset_writes_the_positions_and_says_what_it_left_out_on_one_line(db, tmp_path, monkeypatch):
    from rich.console import Console

    monkeypatch.setattr("arena.commands.learning.out", lambda: Console(width=80))  # a narrow terminal: nothing wraps
    out = tmp_path / ("positions-" * 12 + ".npz")
    result = invoke("dataset", "league", "--out", str(out), "--db", db)
    assert result.exit_code == 0, result.output
    assert result.output == (
        f"wrote 14 positions of 2 tictactoe games (league) to {out}; left out 1 finished game "
        "that did not end normally\n"
    )
    assert len(load_dataset(out)) == 14


def test_train_from_the_database_writes_a_model_the_bots_accept(db, tmp_path):
    result = invoke(
        "train",
        "nnvalue",
        "--game",
        "tictactoe",
        "--from-db",
        "league",
        "--out",
        str(tmp_path / "m.npz"),
        "--epochs",
        "2",
        "--hidden",
        "8,4",
        "--db",
        db,
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert [line.split(":")[0] for line in lines[:2]] == ["epoch 1/2", "epoch 2/2"]
    assert lines[2].startswith("trained nnvalue for tictactoe on 14 positions of 2 games in ")
    assert lines[2].endswith(f"; wrote {tmp_path / 'm.npz'} (layers 54-8-4-1)")
    assert load_model(tmp_path / "m.npz", "nnvalue", get_game("tictactoe")).sizes == [54, 8, 4, 1]


def test_train_from_a_dataset_file_is_the_same_model_as_from_the_database(db, tmp_path):
    invoke("dataset", "league", "--out", str(tmp_path / "d.npz"), "--db", db)
    sources = {"a.npz": ["--from-db", "league", "--db", db], "b.npz": ["--dataset", str(tmp_path / "d.npz")]}
    for name, source in sources.items():
        result = invoke(
            "train",
            "nnpolicy",
            "--game",
            "tictactoe",
            *source,
            "--out",
            str(tmp_path / name),
            "--epochs",
            "1",
            "--seed",
            "4",
        )
        assert result.exit_code == 0, result.output
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["train", "nnmagic", "--game", "tictactoe", "--dataset", "d.npz", "--out", "m.npz"],
            "there is no 'nnmagic' network to train; choose nnvalue or nnpolicy",
        ),
        (
            ["train", "nnvalue", "--game", "tictactoe", "--out", "m.npz"],
            "give the games to learn from: --from-db TOURNAMENT (repeatable) or --dataset FILE, not both",
        ),
        (
            ["train", "nnvalue", "--game", "tictactoe", "--out", "m.npz", "--hidden", "big", "--dataset", "d.npz"],
            "--hidden 'big': give the hidden layer sizes, e.g. --hidden 128 or --hidden 128,64",
        ),
        (
            ["train", "nnvalue", "--game", "uttt", "--from-db", "league", "--out", "m.npz"],
            "tournament 'league' plays tictactoe, not uttt; name only uttt tournaments, or drop --game",
        ),
        (
            ["train", "nnvalue", "--game", "tictactoe", "--dataset", "missing.npz", "--out", "m.npz"],
            "dataset file 'missing.npz' does not exist; make one with 'arena dataset TOURNAMENT --out FILE'",
        ),
        (
            ["train", "nnvalue", "--game", "chess", "--dataset", "d.npz", "--out", "m.npz"],
            "unknown game 'chess'; the games are: othello, tictactoe, uttt, xtreme; for a game of your own, give "
            "its file: game: {module: path/to/game.py}",
        ),
        (["dataset", "cup", "--out", "d.npz"], "no tournament 'cup' in the database; its tournaments: league"),
    ],
)
def test_a_mistake_is_refused_saying_what_to_do(db, tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    result = invoke(*args, "--db", db)
    assert str(result.exception) == message


def test_the_command_prints_the_message_and_exits_2_without_a_traceback(db, tmp_path, monkeypatch, capsys):
    from arena.commands.cli import main

    monkeypatch.setattr("sys.argv", ["arena", "dataset", "cup", "--out", str(tmp_path / "d.npz"), "--db", db])
    with pytest.raises(SystemExit) as exit_:
        main()
    assert exit_.value.code == 2
    assert capsys.readouterr().err == "error: no tournament 'cup' in the database; its tournaments: league\n"


def test_a_dataset_of_another_game_than_asked_is_refused(db, tmp_path):
    invoke("dataset", "league", "--out", str(tmp_path / "d.npz"), "--db", db)
    result = invoke("train", "nnvalue", "--game", "uttt", "--dataset", str(tmp_path / "d.npz"), "--out", "m.npz")
    assert str(result.exception) == (
        f"the dataset {str(tmp_path / 'd.npz')!r} holds tictactoe games, not uttt; give "
        "--game tictactoe, or a dataset of uttt games"
    )


def test_a_model_file_that_cannot_be_written_is_said_so(db, tmp_path):
    (tmp_path / "file").write_text("")
    result = invoke(
        "train",
        "nnvalue",
        "--game",
        "tictactoe",
        "--from-db",
        "league",
        "--out",
        str(tmp_path / "file" / "m.npz"),
        "--epochs",
        "1",
        "--db",
        db,
    )
    assert str(result.exception) == (
        f"cannot write the model file {str(tmp_path / 'file' / 'm.npz')!r}: Not a "
        "directory; choose another path with --out"
    )
