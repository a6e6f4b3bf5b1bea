"""The bot contract, for every built-in strategy on every game it plays.

Legal moves to the end of the game, determinism under a fixed budget, time discipline under a
20 ms clock, parameter checking. Behaviour of single strategies: tests/test_bots_play.py.
"""

from __future__ import annotations

import copy
import importlib
import inspect
import random
import time
from pathlib import Path

import pytest

import bots
from arena.clock import Clock
from arena.errors import BotParameterError
from arena.games import get_game
from bots import BOTS, LEARNED, OUTSIDE, STRATEGIES
from bots.common import Param
from tests.fixtures.botkit import make, module, play_game

#: small fixed budgets that make each bot deterministic and quick
BUDGETS = {
    "randombot": {},
    "rules": {},
    "onestep": {},
    "flatmc": {"playouts": 12},
    "uct": {"iterations": 12},
    "hmcts": {"iterations": 12},
    "minimax": {"depth": 1},
    "qlearning": {"episodes": 6},
    "sarsa": {"episodes": 6},
}
#: every (bot, game) pair the bots say they play
PAIRS = [(bot, game) for bot in STRATEGIES for game in importlib.import_module(f"bots.{bot}").GAMES]


# --- the module contract -------------------------------------------------------------------------


def test_bots_lists_every_bot_module_and_no_shared_part():
    modules = {path.stem for path in Path(bots.__file__).parent.glob("*.py")}
    shared = {"__init__", "common", "heuristics", "othello_heuristics", "playouts"}
    assert set(BOTS) | set(LEARNED) | set(OUTSIDE) == modules - shared
    assert not set(BOTS) & set(LEARNED)
    assert set(STRATEGIES) == set(BOTS) - {"unreliable"}


@pytest.mark.parametrize("bot", BOTS)
def test_module_has_a_one_line_description_games_and_parameters(bot):
    mod = module(bot)
    first_line = mod.__doc__.strip().splitlines()[0]
    assert first_line and len(first_line) <= 120
    assert set(mod.GAMES) <= {"tictactoe", "uttt", "xtreme", "othello"} and mod.GAMES
    assert all(isinstance(param, Param) for param in mod.PARAMETERS.values())
    assert list(inspect.signature(mod.make_bot).parameters)[:3] == ["game", "seat", "rng"]


@pytest.mark.parametrize("bot", BOTS)
def test_every_parameter_is_documented_in_the_module_docstring(bot):
    mod = module(bot)
    for name in mod.PARAMETERS:
        assert f"``{name}``" in mod.__doc__


@pytest.mark.parametrize("bot", BOTS)
def test_defaults_are_accepted_values(bot):
    for name, param in module(bot).PARAMETERS.items():
        assert param.check(param.default) == param.default, name


@pytest.mark.parametrize("bot", BOTS)
def test_every_parameter_can_be_given_its_default_explicitly(bot):
    defaults = {name: param.default for name, param in module(bot).PARAMETERS.items()}
    make(bot, get_game("tictactoe"), 0, 1, **defaults)


def test_a_bot_can_be_made_from_a_game_name():
    bot = make("uct", "tictactoe", 0, 1, iterations=5)
    assert bot.move(get_game("tictactoe").initial_state(), Clock()) in range(9)


# --- legal moves to the end ---------------------------------------------------------------------------


@pytest.mark.parametrize(("bot", "game_name"), PAIRS)
def test_plays_legal_moves_to_the_end_against_random_from_either_seat(bot, game_name):
    game = get_game(game_name)
    seeds = 10 if game_name == "tictactoe" else 3
    for seed in range(seeds):
        for seat in (0, 1):
            players = [make("randombot", game, 1 - seat, 100 + seed)] * 2
            players[seat] = make(bot, game, seat, seed, **BUDGETS[bot])
            state = game.replay(play_game(game, players))
            assert state.is_terminal


@pytest.mark.parametrize(("bot", "game_name"), PAIRS)
def test_plays_legal_moves_to_the_end_against_itself(bot, game_name):
    game = get_game(game_name)
    for seed in range(2):
        players = [make(bot, game, seat, 7 + 2 * seed + seat, **BUDGETS[bot]) for seat in (0, 1)]
        assert game.replay(play_game(game, players)).is_terminal


OTHELLO_BOTS = [bot for bot in STRATEGIES if "othello" in importlib.import_module(f"bots.{bot}").GAMES]


@pytest.mark.parametrize(
    "params", [{"size": 6}, {"size": 10}, {"opening": "free", "scoring": "wof"}], ids=["6x6", "10x10", "free-wof"]
)
@pytest.mark.parametrize("bot", OTHELLO_BOTS)
def test_othello_on_every_board_and_opening_is_played_to_the_end_against_random(bot, params):
    game = get_game("othello", **params)
    for seat in (0, 1):
        players = [make("randombot", game, 1 - seat, 100)] * 2
        players[seat] = make(bot, game, seat, 1, **BUDGETS[bot])
        assert game.replay(play_game(game, players)).is_terminal


def test_uttt_with_the_boards_tiebreak_is_played_to_the_end():
    game = get_game("uttt", tiebreak="boards")
    for bot in STRATEGIES:
        players = [make(bot, game, seat, seat, **BUDGETS[bot]) for seat in (0, 1)]
        assert game.replay(play_game(game, players)).is_terminal


# --- determinism --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("bot", "game_name"), PAIRS)
def test_same_seed_and_budget_give_the_same_moves(bot, game_name):
    game = get_game(game_name)

    def moves(seed):
        players = [make(bot, game, 0, seed, **BUDGETS[bot]), make("randombot", game, 1, 5)]
        return play_game(game, players)

    assert moves(3) == moves(3)


@pytest.mark.parametrize("bot", ["flatmc", "uct", "hmcts", "qlearning", "sarsa"])
def test_different_seeds_give_different_games(bot):
    game = get_game("uttt")

    def moves(seed):
        players = [make(bot, game, 0, seed, **BUDGETS[bot]), make("randombot", game, 1, 5)]
        return play_game(game, players)

    assert moves(1) != moves(2)


# --- time discipline ---------------------------------------------------------------------------------

LIMIT = 0.02
#: how many times a move descheduled by the machine (see ``assert_inside_the_clock``) is re-timed
RETRIES = 2


def positions_across_a_game(game, seed: int, count: int = 4):
    """``count`` positions spread over one random game: the start and later ones."""
    rng = random.Random(seed)
    states = [game.initial_state()]
    while not states[-1].is_terminal:
        state = states[-1]
        states.append(state.play(rng.choice(state.legal_moves())))
    states.pop()  # the finished position
    step = max(1, len(states) // count)
    return states[::step][:count]


def timed_move(player, state) -> tuple[int, float, float]:
    """(move, CPU seconds of this process, wall seconds) of one move under a 20 ms CPU clock."""
    start = time.monotonic()
    cpu = time.process_time()
    move = player.move(state, Clock(LIMIT, start=cpu, kind="cpu"))
    used = time.process_time() - cpu
    return move, used, time.monotonic() - start


def assert_inside_the_clock(player, state) -> int:
    """``player``'s move at ``state`` returns inside the 20 ms clock (CPU time, which other
    programs on the machine do not use up); the move.

    The same work can still take more CPU time on a busy machine (caches shared with other
    programs, a lower clock frequency with every core busy). So an overrunning move is timed
    again, up to ``RETRIES`` times, each from a copy of the player as it was before the move,
    and must then be inside the clock: a bot whose own work overruns does so every time.
    """
    before = copy.deepcopy(player)
    move, used, wall = timed_move(player, state)
    assert state.is_legal(move)
    retries = RETRIES
    while used > LIMIT and retries:
        _, used, wall = timed_move(copy.deepcopy(before), state)
        retries -= 1
    assert used <= LIMIT, f"{used * 1000:.1f} ms of CPU ({wall * 1000:.1f} ms elapsed) at ply {state.ply}"
    return move


@pytest.mark.parametrize(("bot", "game_name"), PAIRS)
def test_every_move_returns_inside_a_20_ms_clock(bot, game_name):
    game = get_game(game_name)
    for state in positions_across_a_game(game, 11):
        assert_inside_the_clock(make(bot, game, state.to_move, 1), state)


@pytest.mark.parametrize("bot", ["uct", "hmcts", "qlearning", "sarsa"])
def test_a_reused_tree_still_answers_inside_a_20_ms_clock(bot):
    game = get_game("xtreme")
    player, opponent = make(bot, game, 0, 1), make("randombot", game, 1, 2)
    state = game.initial_state()
    while not state.is_terminal and state.ply < 60:
        if state.to_move == 0:
            move = assert_inside_the_clock(player, state)
        else:
            move = opponent.move(state, Clock())
            player.observe(state, move)
        state = state.play(move)


# --- parameters -----------------------------------------------------------------------------------------


def test_an_unknown_parameter_is_named_with_the_parameters_that_exist():
    with pytest.raises(BotParameterError) as error:
        make("uct", get_game("uttt"), 0, 1, iteration=5)
    assert str(error.value) == (
        "bot 'uct' has no parameter 'iteration'; its parameters: c=1.4142135623730951, iterations=None, reuse=True"
    )


def test_a_value_out_of_range_names_the_parameter_and_what_it_accepts():
    with pytest.raises(BotParameterError) as error:
        make("uct", get_game("uttt"), 0, 1, iterations=0)
    assert str(error.value) == (
        "bot 'uct': parameter 'iterations' cannot be 0; it accepts an integer >= 1, or None "
        "(think until the clock's safety margin) (iterations per move (fewer if the clock would run out "
        "first)); its parameters: "
        "c=1.4142135623730951, iterations=None, reuse=True"
    )


@pytest.mark.parametrize(
    ("bot", "params", "name"),
    [
        ("uct", {"c": -0.1}, "c"),
        ("uct", {"c": "big"}, "c"),
        ("uct", {"iterations": 2.5}, "iterations"),
        ("uct", {"iterations": True}, "iterations"),
        ("uct", {"reuse": 1}, "reuse"),
        ("hmcts", {"heavy": 1.5}, "heavy"),
        ("flatmc", {"playouts": -3}, "playouts"),
        ("flatmc", {"loss": float("nan")}, "loss"),
        ("minimax", {"depth": 0}, "depth"),
        ("rules", {"variant": "diagonal"}, "variant"),
        ("qlearning", {"A": 0.0}, "A"),
        ("qlearning", {"epsilon": 1.5}, "epsilon"),
        ("qlearning", {"k": -1}, "k"),
        ("sarsa", {"gamma": 1.01}, "gamma"),
    ],
)
def test_a_bad_value_is_refused_naming_the_parameter(bot, params, name):
    with pytest.raises(BotParameterError, match=f"bot '{bot}': parameter '{name}' cannot be"):
        make(bot, get_game("tictactoe"), 0, 1, **params)


def test_an_integer_is_accepted_for_a_number_parameter():
    bot = make("uct", get_game("tictactoe"), 0, 1, c=1)
    assert bot.c == 1.0 and type(bot.c) is float


def test_randombot_takes_no_parameters():
    with pytest.raises(BotParameterError, match="its parameters: none"):
        make("randombot", get_game("tictactoe"), 0, 1, depth=2)


@pytest.mark.parametrize("bot", ["onestep", "rules"])
def test_a_game_the_bot_does_not_play_is_refused_naming_those_it_plays(bot):
    with pytest.raises(BotParameterError) as error:
        make(bot, get_game("othello"), 0, 1)
    assert str(error.value) == f"bot '{bot}' does not play 'othello'; it plays tictactoe, uttt, xtreme"


def test_a_seat_the_game_does_not_have_is_refused():
    with pytest.raises(BotParameterError, match=r"seat must be 0 to 1 \(the game has 2 seats\), not 2"):
        make("uct", get_game("tictactoe"), 2, 1)


def test_an_rng_that_is_not_a_random_random_is_refused():
    with pytest.raises(BotParameterError, match=r"rng must be a random\.Random"):
        module("uct").make_bot(get_game("tictactoe"), 0, 42)
