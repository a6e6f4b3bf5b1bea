"""Datasets of stored games (arena/learning/dataset.py): which games are exported, each position's row,
the file, and the errors a user can meet."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.core.records import Termination
from arena.games import get_game
from arena.learning.dataset import DatasetError, PlayedGame, dataset_from_games, export_dataset, load_dataset
from arena.learning.features import encoding_for
from arena.learning.numeric import np
from arena.store.database import open_store
from tests.fixtures.learningkit import CUT, DRAW, X_WINS, record, store_tournament

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def league(tmp_path):
    """Sessions of a database holding tournament ``league``: a won game, a drawn game, a game
    lost by a timeout, and a game not played yet; and each game's teams."""
    sessions = open_store(f"sqlite:///{tmp_path / 'arena.sqlite3'}")
    teams = store_tournament(
        sessions,
        "league",
        "tictactoe",
        lambda ids: [record(ids[0], X_WINS), record(ids[1], DRAW), record(ids[2], CUT, Termination.TIMEOUT)],
    )
    return sessions, teams


def export(sessions, names, game=None):
    with sessions.begin() as session:
        return export_dataset(session, names, game)


def test_every_position_of_each_normally_ended_game_is_a_row_with_the_move_played_there(league):
    sessions, teams = league
    data, left_out = export(sessions, ["league"])
    first, second = sorted(teams)[:2]
    assert (len(data), data.games, left_out) == (5 + 9, 2, 1)  # the timeout is left out, the pending game unseen
    assert data.columns["game"].tolist() == [first] * 5 + [second] * 9
    assert data.columns["ply"].tolist() == list(range(5)) + list(range(9))
    assert data.columns["move"].tolist() == [int(m) for m in X_WINS + DRAW]
    assert data.columns["to_move"].tolist() == [0, 1, 0, 1, 0] + [0, 1, 0, 1, 0, 1, 0, 1, 0]


def test_the_outcome_is_the_result_for_the_side_to_move(league):
    data, _ = export(league[0], ["league"])
    assert data.columns["outcome"].tolist() == [1.0, 0.0, 1.0, 0.0, 1.0] + [0.5] * 9


def test_each_row_holds_the_encoded_position_and_its_legal_moves(league):
    data, _ = export(league[0], ["league"])
    game = get_game("tictactoe")
    encoding = encoding_for(game)
    fourth = game.replay(X_WINS[:3])  # the row of ply 3
    assert data.columns["features"][3].tolist() == encoding.encode(fourth).tolist()
    assert np.flatnonzero(data.columns["legal"][3]).tolist() == fourth.legal_moves()
    assert data.columns["features"].dtype == np.uint8 and data.columns["features"].shape == (14, encoding.size)


def test_the_player_of_each_row_is_the_team_that_moved(league):
    sessions, teams = league
    data, _ = export(sessions, ["league"])
    first = teams[sorted(teams)[0]]
    movers = [data.players[i] for i in data.columns["player"][:5]]
    assert movers == [first[0], first[1], first[0], first[1], first[0]]
    assert sorted(data.players) == ["alpha", "beta"]


def test_a_saved_dataset_loads_the_same(league, tmp_path):
    data, _ = export(league[0], ["league"])
    data.save(tmp_path / "data.npz")
    loaded = load_dataset(tmp_path / "data.npz")
    assert loaded.game == get_game("tictactoe") and (loaded.players, loaded.sources, loaded.games) == (
        data.players,
        ["league"],
        2,
    )
    for name, column in data.columns.items():
        assert loaded.columns[name].dtype == column.dtype and loaded.columns[name].tolist() == column.tolist()


def test_two_tournaments_of_one_game_export_together(league):
    sessions, _ = league
    store_tournament(sessions, "cup", "tictactoe", lambda ids: [record(ids[0], DRAW)])
    data, left_out = export(sessions, ["league", "cup"], "tictactoe")
    assert (len(data), data.games, left_out, data.sources) == (5 + 9 + 9, 3, 1, ["league", "cup"])


def test_an_unknown_tournament_is_named_with_those_that_exist(league):
    with pytest.raises(DatasetError, match=r"^no tournament 'leag' in the database; its tournaments: league$"):
        export(league[0], ["leag"])


def test_tournaments_of_another_game_than_asked_are_refused(league):
    with pytest.raises(DatasetError, match="tournament 'league' plays tictactoe, not uttt"):
        export(league[0], ["league"], "uttt")


def test_tournaments_of_different_games_are_refused_together(league):
    sessions, _ = league
    store_tournament(sessions, "ultimate", "uttt", lambda ids: [])
    with pytest.raises(
        DatasetError,
        match=r"tournaments 'league' \(tictactoe\) and 'ultimate' \(uttt\) play "
        "different games; export them separately",
    ):
        export(sessions, ["league", "ultimate"])


def test_a_tournament_without_a_normally_ended_game_says_to_run_it(tmp_path):
    sessions = open_store(f"sqlite:///{tmp_path / 'arena.sqlite3'}")
    store_tournament(sessions, "fresh", "tictactoe", lambda ids: [record(ids[0], CUT, Termination.CRASH)])
    with pytest.raises(DatasetError, match="have no finished game that ended normally yet; run them first"):
        export(sessions, ["fresh"])


def test_a_game_whose_moves_do_not_replay_is_named():
    games = [PlayedGame(7, ["4", "4"], ("a", "b"))]
    with pytest.raises(DatasetError, match=r"^game 7 does not replay: its move 2: .*cell 4 is occupied .*replay 7"):
        dataset_from_games(get_game("tictactoe"), games)


def test_a_game_that_is_not_over_is_named():
    with pytest.raises(DatasetError, match=r"^game 3 is not over after its 2 moves"):
        dataset_from_games(get_game("tictactoe"), [PlayedGame(3, [4, 0], ("a", "b"))])


def test_a_missing_dataset_file_says_how_to_make_one(tmp_path):
    with pytest.raises(DatasetError, match="does not exist; make one with 'arena dataset TOURNAMENT --out FILE'"):
        load_dataset(tmp_path / "none.npz")


def test_a_file_that_is_not_a_dataset_is_refused(tmp_path):
    (tmp_path / "text.npz").write_text("hello")
    with pytest.raises(DatasetError, match=r"is not a dataset made by 'arena dataset': it is not a \.npz archive"):
        load_dataset(tmp_path / "text.npz")
