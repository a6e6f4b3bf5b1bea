"""The learning bots (bots/nnvalue.py, bots/nnpolicy.py): the bot contract of tests/test_bots.py
with a model file (legal moves to the end, determinism with a seed, parameter errors), what
each plays, the errors of a missing or wrong model, and that a trained value network plays
better than chance."""

from __future__ import annotations

import importlib
import inspect
import itertools
import random
import time
from pathlib import Path

import pytest

from arena.clock import Clock
from arena.errors import BotParameterError
from arena.games import get_game
from arena.learning.dataset import PlayedGame, dataset_from_games
from arena.learning.features import encoding_for
from arena.learning.network import Network, model_meta
from arena.learning.numeric import np  # numpy with its BLAS in one thread, as in a bot process
from arena.learning.training import Settings, train
from bots import LEARNED
from bots.common import Param
from tests.fixtures.botkit import make, play_game

GAMES = ("tictactoe", "uttt", "xtreme", "othello")


def random_games(game, count: int, seed: int) -> list[PlayedGame]:
    rng = random.Random(seed)
    games = []
    for number in range(count):
        state, moves = game.initial_state(), []
        while not state.is_terminal:
            moves.append(rng.choice(state.legal_moves()))
            state = state.play(moves[-1])
        games.append(PlayedGame(number, moves, ("a", "b")))
    return games


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> dict[tuple[str, str], str]:
    """A small model of each kind for each game, trained on three random games."""
    folder = tmp_path_factory.mktemp("models")
    paths = {}
    for name in GAMES:
        data = dataset_from_games(get_game(name), random_games(get_game(name), 3, seed=1))
        for kind in LEARNED:
            path = folder / f"{name}-{kind}.npz"
            train(kind, data, Settings(hidden=(8,), epochs=1, seed=1))[0].save(path)
            paths[name, kind] = str(path)
    return paths


PAIRS = [(bot, game) for bot in LEARNED for game in GAMES]


# --- the module contract -------------------------------------------------------------------------------


@pytest.mark.parametrize("bot", LEARNED)
def test_module_has_a_one_line_description_games_and_documented_parameters(bot):
    module = importlib.import_module(f"bots.{bot}")
    assert len(module.__doc__.strip().splitlines()[0]) <= 120
    assert module.GAMES == GAMES
    assert all(isinstance(param, Param) for param in module.PARAMETERS.values())
    assert all(f"``{name}``" in module.__doc__ for name in module.PARAMETERS)
    assert list(inspect.signature(module.make_bot).parameters)[:3] == ["game", "seat", "rng"]


@pytest.mark.parametrize(("bot", "game_name"), PAIRS)
def test_plays_legal_moves_to_the_end_against_random_from_either_seat(models, bot, game_name):
    game = get_game(game_name)
    for seat in (0, 1):
        players = [make("randombot", game, 1 - seat, 100)] * 2
        players[seat] = make(bot, game, seat, 1, model=models[game_name, bot])
        assert game.replay(play_game(game, players)).is_terminal


@pytest.mark.parametrize(("bot", "game_name"), PAIRS)
def test_plays_legal_moves_to_the_end_against_itself(models, bot, game_name):
    game = get_game(game_name)
    players = [make(bot, game, seat, 7 + seat, model=models[game_name, bot]) for seat in (0, 1)]
    assert game.replay(play_game(game, players)).is_terminal


@pytest.mark.parametrize(("bot", "params"), [("nnvalue", {}), ("nnpolicy", {}), ("nnpolicy", {"temperature": 1.0})])
def test_same_seed_gives_the_same_moves(models, bot, params):
    game = get_game("uttt")

    def moves(seed):
        players = [make(bot, game, 0, seed, model=models["uttt", bot], **params), make("randombot", game, 1, 5)]
        return play_game(game, players)

    assert moves(3) == moves(3)


def test_a_policy_sampling_at_a_temperature_plays_different_games_with_different_seeds(models):
    game = get_game("uttt")

    def moves(seed):
        player = make("nnpolicy", game, 0, seed, model=models["uttt", "nnpolicy"], temperature=1.0)
        return play_game(game, [player, make("randombot", game, 1, 5)])

    assert moves(1) != moves(2)


@pytest.mark.parametrize("bot", LEARNED)
def test_warm_up_plays_a_few_moves_with_the_model(models, bot):
    importlib.import_module(f"bots.{bot}").warm_up(get_game("uttt"), model=models["uttt", bot])


# --- what they play -------------------------------------------------------------------------------------


def positions(game, seed: int, count: int = 6):
    """``count`` unfinished positions spread over a random game."""
    rng = random.Random(seed)
    states = [game.initial_state()]
    while not states[-1].is_terminal:
        states.append(states[-1].play(rng.choice(states[-1].legal_moves())))
    states.pop()
    return states[:: max(1, len(states) // count)][:count]


@pytest.mark.parametrize("game_name", GAMES)
def test_nnvalue_rates_each_move_by_the_network_from_its_own_side_and_plays_the_best(models, game_name):
    game = get_game(game_name)
    encoding = encoding_for(game)
    for state in positions(game, 4):
        bot = make("nnvalue", game, state.to_move, 1, model=models[game_name, "nnvalue"])
        ratings = bot.ratings(state)
        assert sorted(ratings) == state.legal_moves()
        for move, rating in ratings.items():
            child = state.play(move)
            if child.is_terminal:
                assert rating == child.outcome.score(state.to_move)
                continue
            value = float(bot.network.values(encoding.encode(child)[None, :])[0])
            # after an xtreme bonus move the side to move is still the bot's
            assert rating == pytest.approx(value if child.to_move == state.to_move else 1 - value, abs=1e-6)
        assert ratings[bot.move(state, Clock(None))] == max(ratings.values())


def test_nnvalue_takes_a_win_whatever_the_network_says(models):
    game = get_game("tictactoe")
    state = game.replay(["0", "3", "1", "4"])  # x wins at 2
    for seed in range(5):
        assert make("nnvalue", game, 0, seed, model=models["tictactoe", "nnvalue"]).move(state, Clock(None)) == 2


@pytest.mark.parametrize("game_name", GAMES)
def test_nnpolicy_plays_the_most_probable_legal_move(models, game_name):
    game = get_game(game_name)
    for state in positions(game, 5):
        bot = make("nnpolicy", game, state.to_move, 1, model=models[game_name, "nnpolicy"])
        chances = bot.probabilities(state)
        assert sorted(chances) == state.legal_moves() and sum(chances.values()) == pytest.approx(1.0)
        assert chances[bot.move(state, Clock(None))] == max(chances.values())


def test_nnpolicy_at_a_temperature_samples_the_moves_by_their_probability(models):
    game = get_game("tictactoe")
    state = game.initial_state()
    bot = make("nnpolicy", game, 0, 1, model=models["tictactoe", "nnpolicy"], temperature=1.0)
    chances = bot.probabilities(state)
    counts = np.bincount([bot.move(state, Clock(None)) for _ in range(3000)], minlength=9) / 3000
    assert counts.tolist() == pytest.approx([chances[move] for move in range(9)], abs=0.03)


# --- parameters and model files -----------------------------------------------------------------------------


@pytest.mark.parametrize("bot", LEARNED)
def test_without_a_model_the_bot_says_how_to_make_one(bot):
    with pytest.raises(BotParameterError) as error:
        make(bot, get_game("uttt"), 0, 1)
    assert str(error.value) == (
        f"bot {bot!r} needs a model: give the parameter model=PATH, a file 'arena train {bot}' wrote (make one "
        f"with 'arena train {bot} --game uttt --dataset FILE --out MODEL')"
    )


@pytest.mark.parametrize("bot", LEARNED)
def test_a_missing_model_file_is_refused_naming_it(bot, tmp_path):
    with pytest.raises(BotParameterError, match=rf"^bot '{bot}': model file '.*gone.npz' does not exist; make one"):
        make(bot, get_game("uttt"), 0, 1, model=str(tmp_path / "gone.npz"))


@pytest.mark.parametrize("bot", LEARNED)
def test_a_corrupt_model_file_is_refused(bot, models, tmp_path):
    path = tmp_path / "cut.npz"
    path.write_bytes(Path(models["uttt", bot]).read_bytes()[:200])
    with pytest.raises(BotParameterError, match=rf"^bot '{bot}': '.*cut.npz' is not a model file made by 'arena"):
        make(bot, get_game("uttt"), 0, 1, model=str(path))


@pytest.mark.parametrize("bot", LEARNED)
def test_a_model_for_another_game_is_refused(bot, models):
    with pytest.raises(BotParameterError, match=rf"^bot '{bot}': model file '.*' was trained for tictactoe, not uttt"):
        make(bot, get_game("uttt"), 0, 1, model=models["tictactoe", bot])


def test_a_model_of_the_other_bot_is_refused(models):
    with pytest.raises(BotParameterError, match="is a 'nnpolicy' model, not 'nnvalue'"):
        make("nnvalue", get_game("uttt"), 0, 1, model=models["uttt", "nnpolicy"])


@pytest.mark.parametrize("value", [5, "", None])
def test_a_model_parameter_that_is_not_a_path_is_refused(value):
    expected = "needs a model" if value is None else "parameter 'model' cannot be"
    with pytest.raises(BotParameterError, match=expected):
        make("nnvalue", get_game("tictactoe"), 0, 1, model=value)


@pytest.mark.parametrize("temperature", [-0.5, "hot", 101.0])
def test_a_temperature_out_of_range_is_refused(models, temperature):
    with pytest.raises(BotParameterError, match="parameter 'temperature' cannot be"):
        make("nnpolicy", get_game("tictactoe"), 0, 1, model=models["tictactoe", "nnpolicy"], temperature=temperature)


def test_a_game_the_bots_do_not_know_is_refused_before_the_model_is_read():
    with pytest.raises(BotParameterError, match="does not play 'chess'"):
        make("nnvalue", "chess", 0, 1, model="whatever.npz")


# --- speed and strength -------------------------------------------------------------------------------------


@pytest.mark.serial  # timed on the CPU clock: run alone, so that other tests' load cannot push it over
def test_a_move_with_a_network_of_256_hidden_units_fits_a_20_ms_cpu_clock(tmp_path):
    game = get_game("xtreme")  # the largest encoding and the most moves
    encoding = encoding_for(game)
    rng = np.random.default_rng(0)
    sizes = [encoding.size, 256, 1]
    network = Network(
        [rng.standard_normal((a, b)).astype(np.float32) * 0.05 for a, b in itertools.pairwise(sizes)],
        [np.zeros(b, dtype=np.float32) for b in sizes[1:]],
        model_meta("nnvalue", game, encoding),
    )
    network.save(tmp_path / "big.npz")
    bot = make("nnvalue", game, 0, 1, model=str(tmp_path / "big.npz"))
    state = game.initial_state()  # a free move: every cell of every board
    for _ in range(3):  # a move descheduled on a busy machine is timed again (see tests/test_bots.py)
        start = time.process_time()
        bot.move(state, Clock(0.02, start=start, kind="cpu"))
        used = time.process_time() - start
        if used <= 0.02:
            break
    assert used <= 0.02, f"{used * 1000:.1f} ms"


def test_nnvalue_trained_on_300_tictactoe_games_of_onestep_and_random_wins_most_games_against_random(tmp_path):
    game = get_game("tictactoe")
    games = []
    for number in range(300):
        seats = ("onestep", "randombot") if number % 2 == 0 else ("randombot", "onestep")
        players = [make(seats[seat], game, seat, 2 * number + seat) for seat in (0, 1)]
        games.append(PlayedGame(number, play_game(game, players), seats))
    train("nnvalue", dataset_from_games(game, games), Settings(hidden=(32,), epochs=10, seed=1))[0].save(
        tmp_path / "value.npz"
    )
    wins = 0
    for number in range(50):
        seat = number % 2
        players = [make("randombot", game, 1 - seat, 1000 + number)] * 2
        players[seat] = make("nnvalue", game, seat, number, model=str(tmp_path / "value.npz"))
        wins += game.replay(play_game(game, players)).outcome.winner == seat
    assert wins >= 40  # random against random wins about 24 of 50 (x 58%, o 29%)
