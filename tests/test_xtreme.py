"""Xtreme tic-tac-toe: the course simulator's games replayed, and the rules of docs/games.md one by one."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from arena.games import IllegalMoveError, MoveSyntaxError, Outcome, get_game
from arena.games.xtreme import course_points
from arena.games.xtreme_board import board_of, cell_of, draw_points, move_at
from tests.reference import xtreme as reference

#: the 20 games of the original course simulator (docs/games.md), kept in the repository
VECTORS = Path(__file__).parent / "vectors" / "xtreme_random_games.jsonl"
GAMES = [json.loads(line) for line in VECTORS.read_text().splitlines() if line.strip()]

game = get_game("xtreme")

#: x wins small board (0, 0) of big board 0 with "0 2 2" (bonus move "0 6 6" follows), then o
#: wins small board (0, 0) of big board 1 with "1 0 2" (bonus move "1 0 6" follows)
BOTH_CORNERS = ["0 0 0", "1 0 0", "0 1 1", "1 3 3", "0 2 2", "0 6 6", "1 0 1", "0 0 3", "1 0 2", "1 0 6"]
#: x wins small board (0, 0) of big board 0 with "0 2 2", and its bonus move "0 8 8" wins
#: small board (2, 2) of big board 0 too
TWO_WINS_IN_A_ROW = ["0 0 0", "1 0 0", "0 1 1", "1 5 5", "0 6 6", "1 2 2", "0 7 7", "1 3 3", "0 2 2", "0 8 8"]
#: x wins the middle row of small boards of big board 1
X_WINS_ON_BIG_BOARD_1 = (
    "1 5 4, 1 7 5, 1 4 8, 0 4 7, 1 5 3, 0 7 0, 1 3 2, 0 1 6, 1 5 0, 0 7 2, 1 4 6, 0 3 0, 1 2 2, 0 7 6, "
    "1 4 1, 1 5 5, 1 8 6, 0 8 2, 0 7 8, 1 4 7"
).split(", ")
#: o wins the top row of small boards of big board 0
O_WINS_ON_BIG_BOARD_0 = (
    "0 6 7, 0 1 3, 1 4 2, 1 4 8, 0 3 6, 0 0 2, 1 1 6, 0 4 2, 1 3 6, 0 0 0, 1 0 1, 0 2 3, 1 6 0, 0 0 1, "
    "0 0 3, 1 0 2, 0 1 7, 0 3 5, 0 1 8, 0 3 8, 0 1 6"
).split(", ")


def moves_of(texts: list[str]) -> list[int]:
    return [game.parse_move(text) for text in texts]


def texts_of(moves: list[int]) -> list[str]:
    return [game.format_move(move) for move in moves]


def vector_moves(record: dict) -> list[int]:
    return [k * 81 + row * 9 + col for k, row, col in record["moves"]]


def expected_outcome(record: dict) -> Outcome:
    winner = {"x": 0, "o": 1, None: None}[record["winner"]]
    return Outcome(winner, tuple(record["points"]))


# -- the course simulator's games ----------------------------------------------------------------


@pytest.mark.parametrize("record", GAMES, ids=[f"game{i}" for i in range(len(GAMES))])
def test_engine_replays_the_course_simulator_games(record):
    state = game.initial_state()
    for ply, (move, mover, count) in enumerate(
        zip(vector_moves(record), record["movers"], record["legal_counts"], strict=True)
    ):
        assert not state.is_terminal, ply
        assert len(state.legal_moves()) == count, ply
        assert "xo"[state.to_move] == mover, ply
        state = state.play(move)
    assert state.is_terminal
    assert state.outcome == expected_outcome(record)
    status = state.small_status()
    assert [status[:9], status[9:]] == record["small_boards"]
    assert ("WON" if state.outcome.winner is not None else "DRAW") == record["result"]


@pytest.mark.parametrize("record", GAMES, ids=[f"game{i}" for i in range(len(GAMES))])
def test_reference_replays_the_course_simulator_games(record):
    state = reference.initial()
    for ply, (move, mover, count) in enumerate(
        zip(vector_moves(record), record["movers"], record["legal_counts"], strict=True)
    ):
        assert state.outcome() is None, ply
        assert len(state.legal_moves()) == count, ply
        assert "xo"[state.to_move] == mover, ply
        state = state.play(move)
    assert state.outcome() == expected_outcome(record)
    assert ["".join(state.big_statuses(k)) for k in (0, 1)] == record["small_boards"]


def test_the_vectors_hold_wins_on_both_big_boards_bonus_moves_and_a_draw():
    """The replays above cover every rule: a win on each big board, bonus moves, a draw."""
    results = [(g["result"], g["winner"]) for g in GAMES]
    assert results.count(("DRAW", None)) == 1
    assert any("xx" in g["movers"] or "oo" in g["movers"] for g in GAMES)
    assert any("d" in "".join(g["small_boards"]) for g in GAMES)


# -- moves: where the next one may go ------------------------------------------------------------


def test_first_move_is_free_on_either_big_board():
    state = game.initial_state()
    assert state.legal_moves() == list(range(162))
    assert state.allowed_boards() == list(range(18))


def test_correspondence_to_either_big_board():
    state = game.replay(["0 4 5"])  # cell (1, 2) of its small board: small board (1, 2) next
    assert state.allowed_boards() == [5, 14]
    assert texts_of(state.legal_moves()) == [
        "0 3 6",
        "0 3 7",
        "0 3 8",
        "0 4 6",
        "0 4 7",
        "0 4 8",
        "0 5 6",
        "0 5 7",
        "0 5 8",
        "1 3 6",
        "1 3 7",
        "1 3 8",
        "1 4 6",
        "1 4 7",
        "1 4 8",
        "1 5 6",
        "1 5 7",
        "1 5 8",
    ]


def test_correspondence_holds_from_big_board_1_to_big_board_0():
    state = game.replay(["1 4 4"])
    assert state.allowed_boards() == [4, 13]
    assert len(state.legal_moves()) == 17  # "1 4 4" itself is taken


def test_only_the_open_board_when_the_other_is_closed():
    state = game.replay(BOTH_CORNERS[:6])  # x's bonus move "0 6 6" names small board (0, 0)
    assert state.small_status()[0] == "x"
    assert state.allowed_boards() == [9]
    assert texts_of(state.legal_moves()) == [
        "1 0 1",
        "1 0 2",
        "1 1 0",
        "1 1 1",
        "1 1 2",
        "1 2 0",
        "1 2 1",
        "1 2 2",
    ]


def test_open_move_when_both_corresponding_boards_are_closed():
    state = game.replay(BOTH_CORNERS)  # "1 0 6" names small board (0, 0), closed on both
    assert state.small_status()[:10] == "x--------o"
    assert state.allowed_boards() == [b for b in range(18) if b not in (0, 9)]
    # every empty cell of the 16 open small boards: 144 cells, 4 of them taken
    assert len(state.legal_moves()) == 140


# -- bonus moves ---------------------------------------------------------------------------------


def test_bonus_move_gives_the_same_player_another_move():
    before = game.replay(BOTH_CORNERS[:4])
    state = before.play(game.parse_move("0 2 2"))  # x wins small board (0, 0) of big board 0
    assert (before.to_move, state.to_move, state.bonus, state.ply) == (0, 0, True, 5)


def test_bonus_move_for_o_too():
    state = game.replay(BOTH_CORNERS[:9])  # o wins small board (0, 0) of big board 1
    assert (state.to_move, state.bonus, state.small_status()[9]) == (1, True, "o")


def test_bonus_move_obeys_correspondence_to_the_winning_move():
    state = game.replay(BOTH_CORNERS[:5])  # the winning move "0 2 2" is cell (2, 2)
    assert state.allowed_boards() == [8, 17]
    with pytest.raises(IllegalMoveError, match="wrong small board"):
        state.play(game.parse_move("0 4 4"))


def test_after_the_bonus_move_the_opponent_moves():
    state = game.replay(BOTH_CORNERS[:6])
    assert (state.to_move, state.bonus) == (1, False)


def test_bonus_move_does_not_chain():
    state = game.replay(TWO_WINS_IN_A_ROW)  # the bonus move "0 8 8" wins a small board too
    assert state.small_status()[:9] == "x-------x"
    assert (state.to_move, state.bonus) == (1, False)
    assert state.allowed_boards() == [17]


# -- how the game ends ---------------------------------------------------------------------------


def test_win_on_big_board_1():
    state = game.replay(X_WINS_ON_BIG_BOARD_1)
    assert state.small_status()[12:15] == "xxx"
    assert state.outcome == Outcome(0, (86, 0))
    assert state.legal_moves() == [] and state.allowed_boards() == []


def test_win_on_big_board_0():
    state = game.replay(O_WINS_ON_BIG_BOARD_0)
    assert state.small_status()[:3] == "ooo"
    assert state.outcome == Outcome(1, (0, 86))


def test_game_winning_move_earns_no_bonus():
    state = game.replay(X_WINS_ON_BIG_BOARD_1)
    assert state.bonus is False and state.is_terminal


def test_draw_points_by_board_position():
    corner, edge, centre = 1 << 0, 1 << 1, 1 << 4
    assert draw_points(corner, 0) == (4, 0)
    assert draw_points(edge, centre) == (6, 3)
    assert draw_points(corner << 9, edge << 9 | centre) == (4, 9)  # big board 1 counts the same
    assert draw_points((1 << 18) - 1, 0) == (86, 0)


def test_a_drawn_game_scores_each_player_its_small_boards():
    record = next(g for g in GAMES if g["result"] == "DRAW")
    state = game.replay(vector_moves(record))
    assert state.small_status() == "ddooxxxxooxooxxxoo"
    assert state.outcome == Outcome(None, (38, 38))


def test_course_points_count_the_small_boards_won_so_far():
    assert course_points(game.replay(TWO_WINS_IN_A_ROW)) == (8, 0)
    assert course_points(game.replay(BOTH_CORNERS)) == (4, 4)


def test_forfeit_points():
    state = game.replay(BOTH_CORNERS)
    assert state.forfeit_outcome(0) == Outcome(1, (0, 86))
    assert state.forfeit_outcome(1) == Outcome(0, (86, 0))


# -- illegal moves say why -----------------------------------------------------------------------


def test_illegal_move_on_an_occupied_cell():
    state = game.replay(["0 4 4", "1 4 4"])
    with pytest.raises(IllegalMoveError, match=r"0 4 4 .*occupied \(by x\)"):
        state.play(game.parse_move("0 4 4"))


def test_illegal_move_in_the_wrong_small_board_names_the_allowed_ones():
    state = game.replay(["0 4 5"])
    with pytest.raises(IllegalMoveError) as error:
        state.play(game.parse_move("0 0 0"))
    assert str(error.value) == (
        "0 0 0 is illegal in xtreme: wrong small board, small board (0, 0) of big board 0; "
        "the move must be in small board (1, 2) of big board 0 or small board (1, 2) of big board 1"
    )


def test_illegal_move_in_a_closed_small_board():
    state = game.replay(BOTH_CORNERS)  # a free move, but small board (0, 0) of big board 0 is won
    with pytest.raises(
        IllegalMoveError,
        match=r"0 0 1 .*small board \(0, 0\) of big board 0 "
        r"is closed \(won by x\)",
    ):
        state.play(game.parse_move("0 0 1"))


def test_illegal_move_after_the_game_is_over():
    state = game.replay(X_WINS_ON_BIG_BOARD_1)
    with pytest.raises(IllegalMoveError, match="0 0 0 is illegal in xtreme: the game is over"):
        state.play(0)


@pytest.mark.parametrize("move", [-1, 162, 1000, "0 0 0", 4.0])
def test_illegal_move_that_is_no_cell(move):
    with pytest.raises(IllegalMoveError, match="no such cell"):
        game.initial_state().play(move)


# -- notation ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["1 4 4", " 1 4 4 ", "1  4   4", "1,4,4", "1, 4, 4", "(1, 4, 4)", "[1,4,4]", "( 1 4 4 )"]
)
def test_notation_is_parsed_leniently(text):
    assert game.parse_move(text) == 1 * 81 + 4 * 9 + 4


@pytest.mark.parametrize(
    "text",
    ["2 0 0", "0 9 0", "0 0 9", "0 0", "0 0 0 0", "a b c", "(1 4 4", "1;4;4", "-1 0 0", "1,,4,4", "１ ４ ４", ""],
)
def test_notation_rejects_everything_else(text):
    with pytest.raises(MoveSyntaxError, match=r"e\.g\. '1 4 4'"):
        game.parse_move(text)


def test_notation_is_formatted_as_k_row_col():
    assert [game.format_move(m) for m in (0, 40, 80, 81, 161)] == [
        "0 0 0",
        "0 4 4",
        "0 8 8",
        "1 0 0",
        "1 8 8",
    ]


# -- what bots read ------------------------------------------------------------------------------


def test_masks_and_small_status_layout():
    state = game.replay(["1 4 5", "0 3 8"])  # x: board 13, cell (1, 2); o: board 5, cell (0, 2)
    xs, os = state.masks
    assert xs == tuple(1 << 5 if b == 13 else 0 for b in range(18))
    assert os == tuple(1 << 2 if b == 5 else 0 for b in range(18))
    assert state.small_status() == "-" * 18
    assert state.allowed_boards() == [2, 11]


def test_board_cell_and_move_conversions():
    move = game.parse_move("1 4 5")
    assert (board_of(move), cell_of(move)) == (13, 5)
    assert move_at(13, 5) == move
    assert all(move_at(board_of(m), cell_of(m)) == m for m in range(162))


def test_board_data_layout():
    data = game.replay(BOTH_CORNERS[:5]).board_data()
    assert data["cells"][0][:27] == "x.........x.........x......"  # rows 0-2
    assert data["cells"][1][0] == "o" and data["cells"][1][3 * 9 + 3] == "o"
    assert data["cells"][0].count(".") == 78 and data["cells"][1].count(".") == 79
    assert data["small"] == "x" + "-" * 17
    assert data["allowed"] == [8, 17]
    assert data["bonus"] is True


def test_render_shows_both_big_boards_and_the_bonus_move():
    text = game.replay(BOTH_CORNERS[:5]).render()
    assert "big board 0" in text and "big board 1" in text
    assert " x . . | . . . | . . .      o . . | . . . | . . ." in text.splitlines()[1]
    assert text.splitlines()[-1] == (
        "x to move (bonus move), in small board (2, 2) of big board 0 or small board (2, 2) of big board 1"
    )


# -- random playouts -----------------------------------------------------------------------------


def test_random_playout_depends_only_on_the_given_rng():
    state = game.replay(BOTH_CORNERS)
    before = random.getstate()
    first = [state.random_playout(random.Random(seed)) for seed in range(30)]
    again = [state.random_playout(random.Random(seed)) for seed in range(30)]
    assert first == again
    assert random.getstate() == before


def test_random_playout_outcomes_carry_course_points_like_finished_games():
    rng = random.Random(4)
    outcomes = [game.initial_state().random_playout(rng) for _ in range(400)]
    assert {o for o in outcomes if o.winner is not None} == {Outcome(0, (86, 0)), Outcome(1, (0, 86))}
    draws = [o for o in outcomes if o.winner is None]
    assert draws and all(o.points is not None and 0 <= sum(o.points) <= 86 for o in draws)


def random_game_outcomes(state, rng: random.Random, n: int) -> list[Outcome]:
    """Outcomes of ``n`` uniformly random games from ``state`` through legal_moves and play."""
    outcomes = []
    for _ in range(n):
        current = state
        while not current.is_terminal:
            current = current.play(rng.choice(current.legal_moves()))
        outcomes.append(current.outcome)
    return outcomes


def shares(outcomes: list[Outcome]) -> list[float]:
    winners = [o.winner for o in outcomes]
    return [winners.count(result) / len(winners) for result in (0, 1, None)]


@pytest.mark.parametrize("moves", [X_WINS_ON_BIG_BOARD_1[:-1], O_WINS_ON_BIG_BOARD_0[:-1]], ids=["x-ahead", "o-ahead"])
def test_random_playouts_end_like_random_games_from_a_lopsided_position(moves):
    """Not symmetric (about 3 to 1 for the side ahead), so a playout that credits the wrong
    seat cannot pass."""
    state = game.replay(moves)
    rng = random.Random(8)
    fast = [state.random_playout(rng) for _ in range(2000)]
    plain = random_game_outcomes(state, rng, 1000)
    for a, b in zip(shares(fast), shares(plain), strict=True):
        assert abs(a - b) < 0.05
    leader = state.to_move
    assert shares(fast)[leader] > 0.65


def test_random_playouts_end_like_random_games_near_the_end_with_free_moves_and_draws():
    record = next(g for g in GAMES if g["result"] == "DRAW")
    state = game.replay(vector_moves(record)[:105])  # 11 small boards closed, one drawn
    rng = random.Random(9)
    fast = [state.random_playout(rng) for _ in range(2000)]
    plain = random_game_outcomes(state, rng, 1000)
    for a, b in zip(shares(fast), shares(plain), strict=True):
        assert abs(a - b) < 0.05
    for seat in (0, 1):
        fast_points = [o.points[seat] for o in fast if o.winner is None]
        plain_points = [o.points[seat] for o in plain if o.winner is None]
        assert abs(sum(fast_points) / len(fast_points) - sum(plain_points) / len(plain_points)) < 2


def test_cells_show_every_mark_where_the_reference_has_it():
    rng = random.Random(8)
    for _ in range(20):
        state, ref = game.initial_state(), reference.initial()
        while not state.is_terminal:
            for k in (0, 1):
                assert state.cells(k) == "".join(ref.cells[k * 81 : k * 81 + 81])
            move = rng.choice(state.legal_moves())
            state, ref = state.play(move), ref.play(move)
