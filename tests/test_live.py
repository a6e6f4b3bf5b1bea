"""The live files of games in progress (``arena.core.live``): where they go, what a worker writes
as a game goes, what a reader takes from a file being written, and their removal."""

from __future__ import annotations

import time
from pathlib import Path

from arena.core.live import LiveMoves, live_file, live_folder, read_live, remove_live, write_live
from arena.core.records import MoveRecord
from arena.games import get_game


def test_the_live_folder_is_beside_an_sqlite_file_only(tmp_path):
    assert live_folder(f"sqlite:///{tmp_path / 'a.db'}") == tmp_path / "a.db.live"
    assert live_folder("sqlite://") is None
    assert live_folder("postgresql://host/arena") is None
    assert live_folder("not a url") is None


def test_each_move_is_in_the_file_as_soon_as_it_is_played(tmp_path):
    game = get_game("tictactoe")
    watch = LiveMoves(tmp_path / "live", 7, after=0.0)
    state = game.initial_state()
    watch.to_move(state, state.to_move)
    assert read_live(tmp_path / "live", 7) is None  # nothing played yet
    for seat, move in ((0, "4"), (1, "0")):
        state = state.play(game.parse_move(move))
        watch.moved(state, MoveRecord(seat, move, 1.5, None))
        watch.to_move(state, state.to_move)
    assert read_live(tmp_path / "live", 7) == [(0, "4", 1.5), (1, "0", 1.5)]
    watch.close()


def test_a_game_over_before_it_could_be_watched_writes_no_file(tmp_path):
    game = get_game("tictactoe")
    watch = LiveMoves(tmp_path, 1, after=60.0)
    state = game.initial_state()
    watch.to_move(state, state.to_move)
    watch.moved(state.play(4), MoveRecord(0, "4", 0.01, None))
    watch.close()
    assert list(tmp_path.iterdir()) == []


def test_a_game_that_lasts_writes_the_moves_held_back_at_its_next_move(tmp_path):
    game = get_game("tictactoe")
    watch = LiveMoves(tmp_path, 1, after=0.05)
    state = game.initial_state()
    watch.to_move(state, state.to_move)
    state = state.play(4)
    watch.moved(state, MoveRecord(0, "4", 0.01, None))
    assert read_live(tmp_path, 1) is None
    time.sleep(0.06)
    watch.moved(state.play(0), MoveRecord(1, "0", 0.01, None))
    assert read_live(tmp_path, 1) == [(0, "4", 0.01), (1, "0", 0.01)]
    watch.close()


def test_a_line_being_written_waits_for_the_next_look(tmp_path):
    live_file(tmp_path, 3).write_text('[0, "4", 2.0]\n[1, "0", 3')
    assert read_live(tmp_path, 3) == [(0, "4", 2.0)]


def test_a_game_without_a_file_has_no_live_moves(tmp_path):
    assert read_live(tmp_path, 1) is None


def test_a_folder_that_cannot_be_made_never_stops_the_game(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    watch = LiveMoves(blocker / "live", 1, after=0.0)  # a folder inside a file
    game = get_game("tictactoe")
    watch.to_move(game.initial_state(), 0)
    assert watch.moved(game.initial_state().play(4), MoveRecord(0, "4", 1.0, None)) is True
    assert watch.broken


def test_the_runner_removes_its_games_files_and_the_empty_folder(tmp_path):
    folder = tmp_path / "a.db.live"
    folder.mkdir()
    for game_id in (1, 2):
        live_file(folder, game_id).write_text("")
    remove_live(folder, [1])
    assert sorted(p.name for p in folder.iterdir()) == ["2.jsonl"]
    remove_live(folder, [2, 3])
    assert not Path(folder).exists()


def test_a_game_with_take_backs_replaces_its_file_whole(tmp_path):
    write_live(tmp_path, 5, [(0, "4", 1.0), (1, "0", 2.0)])
    write_live(tmp_path, 5, [])  # both moves taken back
    assert read_live(tmp_path, 5) == []
    write_live(tmp_path, 5, [(0, "2", 3.0)])
    assert read_live(tmp_path, 5) == [(0, "2", 3.0)]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["5.jsonl"]
