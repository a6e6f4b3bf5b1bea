"""Training the learning bots' networks (arena/learning/training.py) and their model files
(arena/learning/network.py, arena/learning/npz.py): determinism, what is learned from, and the checks a model
file passes before a bot plays with it."""

from __future__ import annotations

import json
import random
import zipfile

import pytest

from arena.games import get_game
from arena.learning.dataset import PlayedGame, dataset_from_games
from arena.learning.network import ModelError, Network, load_model, masked_softmax
from arena.learning.npz import read_npz, write_npz
from arena.learning.numeric import np
from arena.learning.training import Settings, TrainingError, chosen_positions, train

TICTACTOE = get_game("tictactoe")
TINY = Settings(hidden=(8,), epochs=2, seed=1)


def random_games(game, count: int, seed: int = 0) -> list[PlayedGame]:
    """``count`` games of uniformly random moves, seat 0 played by ``first``, seat 1 by ``second``."""
    rng = random.Random(seed)
    games = []
    for number in range(count):
        state = game.initial_state()
        moves = []
        while not state.is_terminal:
            moves.append(rng.choice(state.legal_moves()))
            state = state.play(moves[-1])
        games.append(PlayedGame(number, moves, ("first", "second")))
    return games


@pytest.fixture(scope="module")
def data():
    return dataset_from_games(TICTACTOE, random_games(TICTACTOE, 40))


@pytest.mark.parametrize("kind", ["nnvalue", "nnpolicy"])
def test_the_same_seed_and_data_give_the_same_model_file_byte_for_byte(data, tmp_path, kind):
    train(kind, data, TINY)[0].save(tmp_path / "a.npz")
    train(kind, data, TINY)[0].save(tmp_path / "b.npz")
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()


def test_another_seed_gives_another_network(data):
    first = train("nnvalue", data, TINY)[0]
    other = train("nnvalue", data, Settings(hidden=(8,), epochs=2, seed=2))[0]
    assert not np.array_equal(first.weights[0], other.weights[0])


def test_the_model_file_says_what_the_network_is_for(data, tmp_path):
    network, report = train("nnpolicy", data, Settings(hidden=(8, 4), epochs=1, seed=3, holdout=0.25))
    network.save(tmp_path / "model.npz")
    arrays, meta = read_npz(tmp_path / "model.npz")
    assert sorted(arrays) == ["b0", "b1", "b2", "w0", "w1", "w2"]
    assert (meta["format"], meta["kind"], meta["game"], meta["encoding"], meta["encoding_version"]) == (
        "arena-model",
        "nnpolicy",
        {"name": "tictactoe", "params": {}},
        "tictactoe",
        1,
    )
    assert meta["layers"] == [54, 8, 4, 9]
    assert (meta["training"]["seed"], meta["training"]["epochs"], meta["training"]["hidden"]) == (3, 1, [8, 4])
    assert report.held_out > 0 and report.positions + report.held_out == len(chosen_positions("nnpolicy", data))


def test_a_value_network_learns_from_every_position(data):
    assert chosen_positions("nnvalue", data).tolist() == list(range(len(data)))


def test_a_policy_learns_from_the_moves_of_players_who_did_not_lose(data):
    chosen = chosen_positions("nnpolicy", data)
    assert len(chosen) and (data.columns["outcome"][chosen] >= 0.5).all()
    assert (data.columns["outcome"][np.setdiff1d(np.arange(len(data)), chosen)] == 0).all()


def test_players_picks_whose_moves_are_learned_from(data):
    chosen = chosen_positions("nnpolicy", data, ["second"])
    assert (data.columns["to_move"][chosen] == 1).all() and len(chosen) == (data.columns["to_move"] == 1).sum()


def test_players_picks_a_value_networks_positions_too(data):
    chosen = chosen_positions("nnvalue", data, ["first"])
    assert chosen.tolist() == np.flatnonzero(data.columns["to_move"] == 0).tolist()


def test_an_unknown_player_is_named_with_the_players_there_are(data):
    with pytest.raises(TrainingError, match=r"no player 'third' in the dataset; its players: first, second"):
        chosen_positions("nnpolicy", data, ["third"])


def test_training_lowers_the_loss(data):
    _, report = train("nnvalue", data, Settings(hidden=(16,), epochs=6, seed=1))
    assert report.losses[-1] < report.losses[0]


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (Settings(hidden=()), "hidden layer sizes must be 1 or more"),
        (Settings(epochs=0), "epochs and batch size must be 1 or more"),
        (Settings(learning_rate=2.0), "the learning rate must be between 0 and 1, not 2.0"),
        (Settings(holdout=1.0), "the share held out must be at least 0 and below 1, not 1.0"),
    ],
)
def test_settings_out_of_range_are_refused(data, settings, message):
    with pytest.raises(TrainingError, match=message):
        train("nnvalue", data, settings)


def test_masked_softmax_gives_illegal_moves_nothing():
    probabilities = masked_softmax(np.array([[0.0, np.log(3.0), 5.0]]), np.array([[True, True, False]]))
    assert probabilities[0].tolist() == pytest.approx([0.25, 0.75, 0.0])


# --- model files ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def model(data, tmp_path_factory):
    path = tmp_path_factory.mktemp("models") / "value.npz"
    train("nnvalue", data, TINY)[0].save(path)
    return path


def test_a_model_file_loads_as_the_network_that_was_saved(data, model):
    network = load_model(model, "nnvalue", TICTACTOE)
    features = data.columns["features"][:5]
    assert network.values(features).tolist() == train("nnvalue", data, TINY)[0].values(features).tolist()


def test_a_missing_model_file_says_how_to_train_one(tmp_path):
    with pytest.raises(
        ModelError,
        match=r"^model file '.*none.npz' does not exist; make one with 'arena train nnvalue "
        r"--game tictactoe --dataset FILE --out MODEL'$",
    ):
        load_model(tmp_path / "none.npz", "nnvalue", TICTACTOE)


def test_a_model_of_the_other_kind_is_refused(model):
    with pytest.raises(ModelError, match="is a 'nnvalue' model, not 'nnpolicy'"):
        load_model(model, "nnpolicy", TICTACTOE)


def test_a_model_for_another_game_is_refused(model):
    with pytest.raises(
        ModelError, match="was trained for tictactoe, not uttt; make one with 'arena train nnvalue --game uttt"
    ):
        load_model(model, "nnvalue", get_game("uttt"))


def test_a_model_for_another_othello_board_is_refused(tmp_path):
    game = get_game("othello", size=6)
    path = tmp_path / "othello6.npz"
    train("nnpolicy", dataset_from_games(game, random_games(game, 2)), TINY)[0].save(path)
    with pytest.raises(ModelError, match="was trained for othello6, not othello8"):
        load_model(path, "nnpolicy", get_game("othello"))


def test_a_file_that_is_not_a_model_is_refused(tmp_path):
    (tmp_path / "notes.npz").write_text("not a model")
    with pytest.raises(ModelError, match=r"is not a model file made by 'arena train': it is not a \.npz archive"):
        load_model(tmp_path / "notes.npz", "nnvalue", TICTACTOE)


def test_a_cut_model_file_is_refused(model, tmp_path):
    (tmp_path / "cut.npz").write_bytes(model.read_bytes()[:300])
    with pytest.raises(ModelError, match="is not a model file made by 'arena train'"):
        load_model(tmp_path / "cut.npz", "nnvalue", TICTACTOE)


def test_a_model_file_of_another_encoding_version_is_refused(model, tmp_path):
    arrays, meta = read_npz(model)
    write_npz(tmp_path / "old.npz", arrays, {**meta, "encoding_version": 0})
    with pytest.raises(
        ModelError, match="uses version 0 of the tictactoe encoding, and this arena version 1; train it again"
    ):
        load_model(tmp_path / "old.npz", "nnvalue", TICTACTOE)


def test_a_model_file_whose_layers_do_not_fit_is_refused(model, tmp_path):
    arrays, meta = read_npz(model)
    write_npz(tmp_path / "bad.npz", {**arrays, "w1": np.zeros((3, 1), dtype=np.float32)}, meta)
    with pytest.raises(ModelError, match="is damaged: layer 1 takes 3 inputs, the layer before gives 8; train it"):
        load_model(tmp_path / "bad.npz", "nnvalue", TICTACTOE)


def test_a_model_file_holding_pickled_objects_is_refused_unread(tmp_path):
    with zipfile.ZipFile(tmp_path / "pickled.npz", "w") as archive:
        with archive.open("meta.npy", "w") as member:
            np.save(member, np.array(json.dumps({"format": "arena-model"})))
        with archive.open("w0.npy", "w") as member:
            np.save(member, np.array([object()], dtype=object), allow_pickle=True)
    with pytest.raises(ModelError, match="it is damaged, or holds something else than plain arrays"):
        load_model(tmp_path / "pickled.npz", "nnvalue", TICTACTOE)


def test_a_network_computes_relu_layers_then_logits():
    network = Network(
        [np.array([[1.0, -1.0]], dtype=np.float32), np.array([[2.0], [3.0]], dtype=np.float32)],
        [np.zeros(2, dtype=np.float32), np.array([0.5], dtype=np.float32)],
    )
    assert network.logits(np.array([[2.0], [-1.0]])).tolist() == [[4.5], [3.5]]
    assert network.sizes == [1, 2, 1]


def test_a_dataset_given_as_a_model_is_refused_naming_its_format(data, tmp_path):
    data.save(tmp_path / "data.npz")
    with pytest.raises(
        ModelError, match="is not a model file made by 'arena train' \\(its format is 'arena-dataset'\\)"
    ):
        load_model(tmp_path / "data.npz", "nnvalue", TICTACTOE)
