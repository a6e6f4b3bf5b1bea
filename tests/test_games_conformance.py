"""The Game/State protocol, checked the same way on every registered game."""

from __future__ import annotations

import json
import random

import pytest

from arena.games import (
    GAMES,
    Game,
    GameParameterError,
    IllegalMoveError,
    MoveSyntaxError,
    Outcome,
    UnknownGameError,
    get_game,
)

MAX_PLIES = 400  # longer than any game: othello <= 60 moves + passes, xtreme <= 162 + bonuses


def random_game(game: Game, seed: int) -> list:
    """The moves of one uniformly random game from the start."""
    rng = random.Random(seed)
    state = game.initial_state()
    moves = []
    while not state.is_terminal:
        assert len(moves) < MAX_PLIES
        move = rng.choice(state.legal_moves())
        moves.append(move)
        state = state.play(move)
    return moves


def test_random_games_end_with_an_outcome(game):
    for seed in range(20):
        state = game.replay(random_game(game, seed))
        assert state.is_terminal
        assert isinstance(state.outcome, Outcome)
        assert state.outcome.winner in (0, 1, None)
        assert state.legal_moves() == []


def test_legal_moves_are_legal_and_others_are_not(game):
    rng = random.Random(7)
    state = game.initial_state()
    every_move = range(200)
    while not state.is_terminal:
        legal = state.legal_moves()
        assert legal == sorted(set(legal)) and legal
        for move in legal:
            assert state.is_legal(move)
            assert state.play(move).ply == state.ply + 1
        for move in rng.sample(every_move, 10):
            if move not in legal:
                assert not state.is_legal(move)
                with pytest.raises(IllegalMoveError) as error:
                    state.play(move)
                if _formattable(game, move):
                    assert game.format_move(move) in str(error.value) or str(move) in str(error.value)
        state = state.play(rng.choice(legal))


def _formattable(game: Game, move: int) -> bool:
    try:
        game.parse_move(game.format_move(move))
    except (MoveSyntaxError, ValueError, IndexError, KeyError):
        return False
    return True


def test_playing_after_the_end_is_illegal_and_says_so(game):
    state = game.replay(random_game(game, 3))
    with pytest.raises(IllegalMoveError, match="over"):
        state.play(game.parse_move(game.format_move(0)))


def test_replay_is_deterministic(game):
    for seed in range(5):
        moves = random_game(game, seed)
        texts = [game.format_move(m) for m in moves]
        a, b = game.replay(texts), game.replay(moves)
        assert a.to_dict() == b.to_dict()
        assert a.outcome == b.outcome


def test_notation_round_trips_for_every_legal_move(game):
    for seed in range(5):
        rng = random.Random(seed)
        state = game.initial_state()
        while not state.is_terminal:
            for move in state.legal_moves():
                text = game.format_move(move)
                assert isinstance(text, str)
                assert game.parse_move(text) == move
                assert game.parse_move(f"  {text} ") == move
            state = state.play(rng.choice(state.legal_moves()))


@pytest.mark.parametrize("text", ["", "   ", "banana", "9 9 9 9", "-1", "1.5", "x", "99999"])
def test_malformed_move_text_names_the_notation(game, text):
    with pytest.raises(MoveSyntaxError) as error:
        game.parse_move(text)
    assert game.NOTATION in str(error.value)
    assert "e.g." in str(error.value)


def test_random_playout_leaves_the_state_alone(game):
    rng = random.Random(11)
    state = game.initial_state()
    for _ in range(6):
        state = state.play(rng.choice(state.legal_moves()))
    before = state.to_dict()
    outcomes = {state.random_playout(rng).winner for _ in range(200)}
    assert state.to_dict() == before
    assert outcomes <= {0, 1, None} and len(outcomes) >= 2


def test_random_playout_of_a_finished_game_is_its_outcome(game):
    state = game.replay(random_game(game, 5))
    assert state.random_playout(random.Random(0)) == state.outcome


def test_render_and_to_dict(game):
    state = game.initial_state()
    assert isinstance(state.render(), str) and state.render()
    data = json.loads(json.dumps(state.to_dict()))
    assert data["game"] == game.name and data["to_move"] == 0 and data["ply"] == 0
    assert data["legal"] == [game.format_move(m) for m in state.legal_moves()]
    final = game.replay(random_game(game, 2))
    data = json.loads(json.dumps(final.to_dict()))
    assert data["terminal"] is True and data["winner"] == final.outcome.winner


def test_forfeit_gives_the_opponent_the_win(game):
    state = game.initial_state()
    for seat in (0, 1):
        assert state.forfeit_outcome(seat).winner == 1 - seat


def test_games_pickle_as_their_spec(game):
    import pickle

    assert pickle.loads(pickle.dumps(game)) == game
    assert get_game(game.spec()["name"], **game.spec()["params"]) == game


def test_unknown_game_lists_the_games():
    with pytest.raises(UnknownGameError) as error:
        get_game("chess")
    for name in GAMES:
        assert name in str(error.value)


def test_unknown_parameter_lists_the_parameters():
    with pytest.raises(GameParameterError, match="tiebreak"):
        get_game("uttt", tie_break="boards")
    with pytest.raises(GameParameterError, match="'none'"):
        get_game("uttt", tiebreak="coin")
    with pytest.raises(GameParameterError, match="no parameter 'size'"):
        get_game("tictactoe", size=4)


def test_a_game_names_its_seats_and_reads_each_name_back(game):
    assert len(game.SEATS) == 2 and len(game.MARKS) == 2
    for seat in (0, 1):
        assert game.seat_of(game.SEATS[seat]) == seat
        assert game.seat_of(game.MARKS[seat].upper()) == seat
        assert game.seat_of(("first", "second")[seat]) == seat
    with pytest.raises(ValueError, match="'third' is no seat of"):
        game.seat_of("third")


def test_othello_seats_are_black_and_white():
    assert (get_game("othello").SEATS, get_game("othello").MARKS) == (("black", "white"), "bw")


def test_an_outcome_is_written_as_a_result():
    assert [Outcome(0).result(), Outcome(1).result(), Outcome(None).result()] == ["1-0", "0-1", "½-½"]
