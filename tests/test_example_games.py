"""The example games a user copies (examples/games/), loaded from their paths as a user's game is:
their rules with exact values, random games that end within ``max_length`` and replay from
their records, boards of the declared format, liar's dice's hidden dice, and the random bot
playing each of them."""

from __future__ import annotations

import json
import pickle
import random
from pathlib import Path
from typing import Any

import pytest

from arena.games import CHANCE, SIMULTANEOUS, Game, GameParameterError, IllegalMoveError, MoveSyntaxError, State
from arena.games.loading import load_game

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "games"


def example(name: str, **params: Any) -> Game:
    """The example game ``name`` (its file's stem), loaded from its path with ``params``."""
    return load_game({"module": str(EXAMPLES / f"{name}.py")}, params)


#: every example, with the settings worth covering
SPECS = [
    ("connect4", {}),
    ("connect4", {"rows": 4, "cols": 5}),
    ("goofspiel", {}),
    ("goofspiel", {"players": 2, "cards": 5}),
    ("goofspiel", {"players": 6, "cards": 3}),
    ("liars_dice", {}),
    ("liars_dice", {"players": 2, "dice": 1}),
    ("liars_dice", {"players": 6, "dice": 5}),
]
IDS = [name + "".join(f"-{key}{value}" for key, value in params.items()) for name, params in SPECS]


@pytest.fixture(params=SPECS, ids=IDS)
def game(request: pytest.FixtureRequest) -> Game:
    """Each example game in turn (this module's own: not the registered games of conftest)."""
    name, params = request.param
    return example(name, **params)


def random_step(state: State, rng: random.Random) -> list[int]:
    """A random step of ``state``: a chance outcome by its probability, every actor's move at a
    simultaneous step, or the mover's move."""
    if state.to_move == CHANCE:
        outcomes = state.chance_outcomes()
        return rng.choices([move for move, _ in outcomes], [p for _, p in outcomes])
    if state.to_move == SIMULTANEOUS:
        return [rng.choice(state.moves_of(seat)) for seat in state.actors()]
    return [rng.choice(state.legal_moves())]


def apply(state: State, step: list[int]) -> State:
    """The state after ``step`` (a simultaneous step through ``play_joint``)."""
    return state.play_joint(step) if state.to_move == SIMULTANEOUS else state.play(step[0])


def random_game(game: Game, seed: int) -> tuple[list[str], list[State]]:
    """A random game's record (move texts) and every state of it, the first to the last."""
    rng = random.Random(seed)
    states = [game.initial_state()]
    record: list[str] = []
    while not states[-1].is_terminal:
        step = random_step(states[-1], rng)
        record += [game.format_move(move) for move in step]
        states.append(apply(states[-1], step))
        assert states[-1].ply == len(record) <= game.max_length()
    return record, states


# ---------------------------------------------------------------- every example


def test_random_games_end_within_max_length_with_a_return_for_each_seat(game):
    for seed in range(10):
        record, states = random_game(game, seed)
        final = states[-1]
        assert len(record) <= game.max_length() <= type(game).MAX_LENGTH
        assert final.legal_moves() == [] and final.actors() == ()
        assert len(final.returns()) == game.players
        assert final.outcome is not None and list(final.outcome.returns or ()) == list(final.returns())


def test_replay_of_a_random_record_reproduces_it(game):
    for seed in range(5):
        record, states = random_game(game, seed)
        assert game.replay(record).to_dict() == states[-1].to_dict()
        assert game.replay([game.parse_move(text) for text in record]).to_dict() == states[-1].to_dict()
        walked = [state.to_dict() for state, _ in game.steps(game.initial_state(), record)]
        assert walked[-1] == states[-1].to_dict()


def test_every_move_of_a_random_game_reads_back_from_its_text(game):
    _, states = random_game(game, 1)
    for state in states:
        moves = [move for seat in state.actors() for move in state.moves_of(seat)] + state.legal_moves()
        for move in moves:
            assert game.parse_move(f" {game.format_move(move)} ") == move


def test_chance_outcomes_are_the_legal_moves_of_a_chance_node_and_sum_to_one(game):
    _, states = random_game(game, 2)
    for state in states[:-1]:
        outcomes = state.chance_outcomes()
        if state.to_move == CHANCE:
            assert [move for move, _ in outcomes] == state.legal_moves()
            assert sum(p for _, p in outcomes) == pytest.approx(1.0) and all(p > 0 for _, p in outcomes)
        else:
            assert outcomes == []


def test_boards_keep_the_declared_format_and_to_dict_is_json(game):
    _, states = random_game(game, 3)
    for state in states:
        json.dumps(state.to_dict())
        for seat in [None, *range(game.players)]:
            json.dumps(state.view(seat))
        board = state.board()
        assert board is not None and set(board) <= {"boards", "notes"} and board["boards"]
        for drawn in board["boards"]:
            size = drawn["rows"] * drawn["cols"]
            assert len(drawn["cells"]) == size
            assert all(isinstance(cell, str) and len(cell) <= 3 for cell in drawn["cells"])
            assert all(0 <= cell < size for key in ("highlight", "last") for cell in drawn.get(key, ()))
            if "moves" in drawn:
                assert len(drawn["moves"]) == size
        assert all(isinstance(line, str) for line in board.get("notes", ()))
        assert isinstance(state.render(), str) and state.render()


def test_a_random_playout_leaves_the_state_alone_and_ends(game):
    _, states = random_game(game, 4)
    state = states[len(states) // 2]
    before = state.to_dict()
    outcome = state.random_playout(random.Random(0))
    assert state.to_dict() == before and outcome.returns is not None and len(outcome.returns) == game.players


def test_an_example_pickles_as_its_source(game):
    assert pickle.loads(pickle.dumps(game)) == game
    assert game.spec()["module"] == str(EXAMPLES / f"{game.name}.py")


def test_the_random_bot_plays_every_example(game):
    from bots import randombot

    # (bots.common.setup takes seats 0 and 1 only, until tables of more seats are played)
    bots = [randombot.make_bot(game, min(seat, 1), random.Random(seat)) for seat in range(game.players)]
    randombot.warm_up(game)
    rng = random.Random(5)
    state = game.initial_state()
    while not state.is_terminal:
        if state.to_move == CHANCE:
            step = random_step(state, rng)
        elif state.to_move == SIMULTANEOUS:
            # a bot is given a view of its seat there: its legal moves are its own
            step = [bots[seat].move(SeatView(state.moves_of(seat)), None) for seat in state.actors()]
        else:
            step = [bots[state.to_move].move(state, None)]
        state = apply(state, step)
    assert state.ply <= game.max_length()


class SeatView:
    """The part of a seat's view a random bot reads: its own legal moves."""

    def __init__(self, moves: list[int]) -> None:
        self.moves = moves

    def legal_moves(self) -> list[int]:
        return list(self.moves)


def test_the_random_bot_plays_any_game_by_name():
    from bots import randombot

    assert "connect4" in randombot.GAMES and "tictactoe" in randombot.GAMES
    assert tuple(randombot.GAMES) == ("tictactoe", "uttt", "xtreme", "othello")


# ---------------------------------------------------------------- connect4


def test_connect4_horizontal_win():
    game = example("connect4")
    state = game.replay(["3", "3", "4", "4", "5", "5", "6"])
    assert state.is_terminal and state.returns() == (1.0, 0.0) and state.outcome.winner == 0
    [board] = state.board()["boards"]
    assert board["highlight"] == [38, 39, 40, 41] and board["last"] == [41]
    assert board["cells"][31:35] == ["o", "o", "o", ""] and board["moves"] == [None] * 42
    assert state.render().splitlines()[-1] == ". . . X X X X"


def test_connect4_vertical_win_of_the_second_player():
    game = example("connect4")
    state = game.replay(["0", "1", "0", "1", "0", "1", "2", "1"])
    assert state.returns() == (0.0, 1.0) and state.outcome.result() == "0-1"
    [board] = state.board()["boards"]
    assert board["highlight"] == [15, 22, 29, 36] and board["last"] == [15]


def test_connect4_diagonal_win():
    game = example("connect4")
    # x climbs from the bottom-left corner: (5, 0), (4, 1), (3, 2), (2, 3)
    state = game.replay(["0", "1", "1", "2", "2", "3", "2", "3", "3", "6", "3"])
    assert state.returns() == (1.0, 0.0)
    assert state.board()["boards"][0]["highlight"] == [17, 23, 29, 35]


def test_connect4_a_full_board_without_a_line_is_a_draw():
    game = example("connect4", rows=4, cols=4)
    record = "0 0 0 2 1 2 2 1 0 3 3 1 2 3 3 1".split()
    state = game.replay(record)
    assert state.is_terminal and state.returns() == (0.5, 0.5) and state.outcome.result() == "½-½"
    assert state.board()["boards"][0]["highlight"] == [] and game.max_length() == len(record) == 16
    assert state.render() == "0 1 2 3\nx o x x\nx o x o\no o o x\nx x o o"


def test_connect4_moves_fill_columns_from_the_bottom_and_a_full_column_is_refused():
    game = example("connect4", rows=4, cols=4)
    state = game.replay(["1", "1", "1", "1"])
    assert state.legal_moves() == [0, 2, 3]
    assert state.board()["boards"][0]["moves"][:4] == ["0", None, "2", "3"]
    with pytest.raises(IllegalMoveError, match="column 1 is full"):
        state.play(1)
    with pytest.raises(IllegalMoveError, match="no such column"):
        state.play(4)
    with pytest.raises(IllegalMoveError, match="over"):
        game.replay(["0", "1", "0", "1", "0", "1", "0"]).play(2)


def test_connect4_parameters():
    assert example("connect4", rows=5, cols=9).max_length() == 45
    with pytest.raises(GameParameterError, match="'rows' cannot be 3"):
        example("connect4", rows=3)
    with pytest.raises(MoveSyntaxError, match="column 0-6"):
        example("connect4").parse_move("left")


# ---------------------------------------------------------------- goofspiel


def test_goofspiel_a_tie_wins_nobody_the_prize_and_returns_sum_to_the_prizes_won():
    game = example("goofspiel", players=2, cards=3)
    state = game.initial_state()
    assert state.to_move == CHANCE and state.chance_outcomes() == [(1, 1 / 3), (2, 1 / 3), (3, 1 / 3)]
    state = game.advance(state, ["2"])
    assert state.to_move == SIMULTANEOUS and state.actors() == (0, 1) and state.moves_of(1) == [1, 2, 3]
    assert state.legal_moves() == []
    state = game.advance(state, ["3", "3"])
    assert state.scores == (0, 0) and state.moves_of(0) == [] and state.legal_moves() == [1, 3]
    assert "nobody wins it" in state.render()
    state = game.advance(state, ["1", "1", "2", "3", "2", "1"])
    assert state.is_terminal and state.returns() == (3.0, 1.0) and state.outcome.winner == 0
    assert sum(state.returns()) == 1 + 3  # the 2 was discarded


def test_goofspiel_the_highest_unique_bid_wins():
    game = example("goofspiel", players=3, cards=5)
    state = game.replay(["5", "4", "4", "3"])
    assert state.scores == (0, 0, 5)
    state = game.advance(state, ["4", "5", "5", "2"])
    assert state.scores == (0, 0, 9)
    state = game.advance(state, ["3", "3", "3", "5"])
    assert state.scores == (0, 0, 12)
    assert state.board()["boards"][1]["last"] == [2, 7, 14]


def test_goofspiel_returns_are_the_prizes_awarded_in_random_games():
    game = example("goofspiel", players=4, cards=8)
    for seed in range(10):
        record, _ = random_game(game, seed)
        awarded = [0.0] * 4
        for state, step in game.steps(game.initial_state(), record):
            unique = [bid for bid in step if step.count(bid) == 1]
            if state.to_move == SIMULTANEOUS and unique:
                awarded[step.index(max(unique))] += state.prize
        assert game.replay(record).returns() == tuple(awarded)


def test_goofspiel_refuses_bids_outside_a_simultaneous_step_and_cards_not_held():
    game = example("goofspiel", players=2, cards=3)
    up = game.replay(["2"])
    with pytest.raises(IllegalMoveError, match="bids at once"):
        up.play(1)
    with pytest.raises(IllegalMoveError, match="holds no card"):
        game.advance(up, ["3", "3", "1", "3", "3"])
    with pytest.raises(IllegalMoveError, match="not a prize card left"):
        game.replay(["2", "1", "1", "2"])
    with pytest.raises(ValueError, match="inside the simultaneous step"):
        game.replay(["2", "1"])


def test_goofspiel_has_its_parameters():
    game = example("goofspiel")
    assert (game.players, game.cards, game.max_length()) == (3, 13, 52)
    assert game.seat_names(3) == ("p1", "p2", "p3")
    with pytest.raises(GameParameterError):
        example("goofspiel", players=7)


# ---------------------------------------------------------------- liar's dice


def test_liars_dice_a_call_of_a_bid_that_holds_loses_the_caller():
    game = example("liars_dice", players=2)
    state = game.replay(["roll 5", "roll 5", "roll 2", "roll 5", "1x5", "2x5", "3x5", "liar"])
    assert state.is_terminal and state.returns() == (1.0, 0.0) and state.loser() == 1


def test_liars_dice_a_call_of_a_bid_that_fails_loses_the_bidder():
    game = example("liars_dice", players=2)
    state = game.replay(["roll 5", "roll 5", "roll 2", "roll 5", "1x5", "2x5", "3x5", "4x5", "liar"])
    assert state.returns() == (1.0, 0.0) and state.loser() == 1
    state = game.replay(["roll 5", "roll 5", "roll 2", "roll 5", "4x5", "liar"])
    assert state.returns() == (0.0, 1.0) and state.board()["boards"][0]["highlight"] == [0, 1, 3]


def test_liars_dice_with_three_players_the_others_share_first_place():
    game = example("liars_dice", players=3, dice=1)
    state = game.replay(["roll 6", "roll 6", "roll 1", "3x6", "liar"])
    assert state.returns() == (0.0, 1.0, 1.0) and state.outcome.winner is None
    assert state.outcome.result() == "3-1-1"
    state = game.replay(["roll 6", "roll 6", "roll 1", "1x6", "2x6", "liar"])
    assert state.returns() == (1.0, 1.0, 0.0)


def test_liars_dice_bids_must_rise_and_the_highest_can_only_be_called():
    game = example("liars_dice", players=2, dice=1)
    start = game.replay(["roll 1", "roll 2"])
    assert start.to_move == 0 and game.format_move(start.legal_moves()[0]) == "1x1" and 0 not in start.legal_moves()
    with pytest.raises(IllegalMoveError, match="no bid to call"):
        start.play(0)
    state = game.advance(start, ["1x4"])
    assert state.to_move == 1 and state.legal_moves() == [0, *range(5, 13)]
    with pytest.raises(IllegalMoveError, match="higher than 1x4"):
        state.play(game.parse_move("1x3"))
    with pytest.raises(IllegalMoveError, match="higher than 1x4"):
        state.play(game.parse_move("3x1"))
    assert game.advance(state, ["2x6"]).legal_moves() == [0]


def test_liars_dice_notation():
    game = example("liars_dice")
    assert [game.parse_move(text) for text in ("liar", "1x1", "2x5", " 2 X 5 ", "roll 3")] == [0, 1, 11, 11, 1003]
    assert [game.format_move(move) for move in (0, 1, 11, 1006)] == ["liar", "1x1", "2x5", "roll 6"]
    for text in ("", "2x7", "0x3", "roll 7", "roll", "banana", "11"):
        with pytest.raises(MoveSyntaxError, match=r"e\.g\."):
            game.parse_move(text)
    assert game.initial_state().chance_outcomes() == [(1000 + face, 1 / 6) for face in range(1, 7)]
    assert game.max_length() == 6 + 36 + 1


def hidden_rerolled(game: Game, record: list[str], seat: int) -> list[str]:
    """``record`` with every die but ``seat``'s showing another face."""
    dice = game.players * game.dice
    return [
        f"roll {int(text.split()[1]) % 6 + 1}" if index < dice and index // game.dice != seat else text
        for index, text in enumerate(record)
    ]


@pytest.mark.parametrize(("players", "dice"), [(2, 2), (3, 2), (4, 1)])
def test_liars_dice_a_seat_never_sees_another_seats_dice_while_the_game_goes_on(players, dice):
    game = example("liars_dice", players=players, dice=dice)
    for seed in range(8):
        record, states = random_game(game, seed)
        for seat in range(players):
            # the same game with every other seat's dice rolled otherwise: the seat's view is the same
            changed = hidden_rerolled(game, record, seat)
            for ply, state in enumerate(states[:-1]):
                others = game.replay(changed[:ply])
                view = state.view(seat)
                assert view["dice"] == [list(d) if s == seat else None for s, d in enumerate(state.dice)]
                assert view == others.view(seat)
                assert view["seat"] == seat and view["counts"] == [dice] * players
            assert states[-1].view(seat)["dice"] == [list(d) for d in states[-1].dice]
        for state in states:
            assert state.view(None)["dice"] == [list(d) for d in state.dice] == state.to_dict()["dice"]
