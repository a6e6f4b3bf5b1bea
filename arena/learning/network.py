"""The neural networks of the learning bots: small multilayer perceptrons in plain numpy, and
their model files.

A network maps a position's features (``arena.learning.features``) through hidden layers with ReLU to
its outputs: one logit for a value network (``nnvalue``: the win probability of the side to
move is its sigmoid), one logit per move int for a policy network (``nnpolicy``: the softmax
over the legal moves is the probability that a strong player plays each).

A model file is an ``.npz`` archive (``arena.learning.npz``): the arrays ``w0``, ``b0``, ``w1``, ``b1``,
... (layer ``i``'s weights, inputs by outputs, and biases, ``float32``) and a ``meta`` member
with the format, the kind, the game (name and parameters), the encoding's name and version,
the layer sizes and how it was trained. ``load_model`` refuses, with a message saying what to
do, a file that is missing, unreadable, damaged, of the other kind, or made for another game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.games import Game
from arena.learning.features import ENCODING_VERSION, Encoding, encoding_for
from arena.learning.npz import read_npz, write_npz
from arena.learning.numeric import np

#: what the ``format`` of a model file's meta says
MODEL_FORMAT = "arena-model"
#: the kinds of network, by the bot that plays with it
KINDS = ("nnvalue", "nnpolicy")


class ModelError(ArenaError, ValueError):
    """A model file that cannot be used: missing, unreadable, damaged, or made for something else."""


@dataclass
class Network:
    """A multilayer perceptron: ``weights[i]`` (inputs x outputs) and ``biases[i]`` per layer,
    ReLU between layers, raw logits out; ``meta`` says what it was made for (see the module)."""

    weights: list[np.ndarray]
    biases: list[np.ndarray]
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def sizes(self) -> list[int]:
        """The layer sizes, inputs first: e.g. ``[36, 64, 1]``."""
        return [self.weights[0].shape[0]] + [w.shape[1] for w in self.weights]

    def logits(self, features: np.ndarray) -> np.ndarray:
        """The output logits for a batch of feature rows (any numeric type)."""
        x = np.asarray(features, dtype=np.float32)
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            x = x @ w + b
            if i < last:
                np.maximum(x, 0.0, out=x)
        return x

    def values(self, features: np.ndarray) -> np.ndarray:
        """A value network's win probability for the side to move, one per feature row."""
        return sigmoid(self.logits(features)[:, 0])

    def policy(self, features: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """A policy network's move probabilities, one row per feature row, 0 where ``legal``
        (a boolean row per position) is false."""
        return masked_softmax(self.logits(features), legal)

    def save(self, path: Path) -> None:
        """Write the model file (byte for byte the same for the same network)."""
        arrays = {}
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            arrays[f"w{i}"] = w.astype(np.float32)
            arrays[f"b{i}"] = b.astype(np.float32)
        write_npz(path, arrays, {**self.meta, "format": MODEL_FORMAT, "layers": self.sizes})


def sigmoid(x: np.ndarray) -> np.ndarray:
    """The logistic function, without overflow warnings for large logits."""
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def masked_softmax(logits: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Softmax of each row of ``logits`` over the entries where ``legal`` is true (the others 0)."""
    masked = np.where(legal, logits, -np.inf)
    top = masked.max(axis=1, keepdims=True)
    top[~np.isfinite(top)] = 0.0  # a row without a legal entry: all zeros, not NaN
    exp = np.exp(masked - top)
    total = exp.sum(axis=1, keepdims=True)
    shares: np.ndarray = exp / np.where(total > 0, total, 1.0)
    return shares


def model_meta(kind: str, game: Game, encoding: Encoding, **training: Any) -> dict[str, Any]:
    """The meta data of a new model of ``kind`` for ``game``; ``training``: how it was made."""
    return {
        "kind": kind,
        "game": game.spec(),
        "encoding": encoding.name,
        "encoding_version": ENCODING_VERSION,
        "training": training,
    }


def train_hint(kind: str, game: Game) -> str:
    """The command that makes a model of ``kind`` for ``game``, for error messages."""
    return f"make one with 'arena train {kind} --game {game.name} --dataset FILE --out MODEL'"


def load_model(path: str | Path, kind: str, game: Game) -> Network:
    """The network in model file ``path``, checked to be a ``kind`` model for ``game``;
    ``ModelError`` saying what is wrong and what to do otherwise."""
    shown = str(path)
    try:
        arrays, meta = read_npz(Path(path))
    except FileNotFoundError:
        raise ModelError(f"model file {shown!r} does not exist; {train_hint(kind, game)}") from None
    except IsADirectoryError:
        raise ModelError(f"model file {shown!r} is a folder, not a file; give the file 'arena train' wrote") from None
    except PermissionError:
        raise ModelError(
            f"model file {shown!r} cannot be read (permission denied); make it readable (a bot in a "
            "tournament may read only the files the sandbox allows: see docs/learning.md)"
        ) from None
    except OSError as error:
        raise ModelError(f"model file {shown!r} cannot be read: {error.strerror or error}") from None
    except ValueError as error:
        raise ModelError(f"{shown!r} is not a model file made by 'arena train': {error}") from None
    if meta.get("format") != MODEL_FORMAT:
        raise ModelError(
            f"{shown!r} is not a model file made by 'arena train' (its format is "
            f"{meta.get('format')!r}); give the file 'arena train' wrote"
        )
    if meta.get("kind") != kind:
        raise ModelError(
            f"model file {shown!r} is a {meta.get('kind')!r} model, not {kind!r}; {train_hint(kind, game)}"
        )
    encoding = encoding_for(game)
    found = meta.get("game")
    made_for: dict[str, Any] = found if isinstance(found, dict) else {}
    if made_for.get("name") != game.name or meta.get("encoding") != encoding.name:
        trained = meta.get("encoding") if made_for.get("name") == game.name else made_for.get("name")
        raise ModelError(
            f"model file {shown!r} was trained for {trained}, not {encoding.name}; {train_hint(kind, game)}"
        )
    if meta.get("encoding_version") != ENCODING_VERSION:
        raise ModelError(
            f"model file {shown!r} uses version {meta.get('encoding_version')} of the {encoding.name} "
            f"encoding, and this arena version {ENCODING_VERSION}; train it again with this arena"
        )
    return _network(shown, arrays, meta, encoding, kind)


def _network(shown: str, arrays: dict[str, np.ndarray], meta: dict[str, Any], encoding: Encoding, kind: str) -> Network:
    """The network of a model file's arrays, checked to fit together and to ``encoding``."""
    weights: list[np.ndarray] = []
    biases: list[np.ndarray] = []
    count = len(arrays) // 2
    expected_out = 1 if kind == "nnvalue" else encoding.moves
    try:
        if not count or set(arrays) != {f"{part}{i}" for i in range(count) for part in "wb"}:
            raise ValueError(f"its arrays ({', '.join(sorted(arrays))}) are not the layers w0, b0, w1, b1, ...")
        for i in range(count):
            w, b = arrays[f"w{i}"], arrays[f"b{i}"]
            if w.ndim != 2 or b.shape != (w.shape[1],) or w.dtype.kind != "f" or b.dtype.kind != "f":
                raise ValueError(f"layer {i} has weights {w.shape} {w.dtype} and biases {b.shape} {b.dtype}")
            if weights and weights[-1].shape[1] != w.shape[0]:
                raise ValueError(f"layer {i} takes {w.shape[0]} inputs, the layer before gives {weights[-1].shape[1]}")
            weights.append(w.astype(np.float32))
            biases.append(b.astype(np.float32))
        if weights[0].shape[0] != encoding.size or weights[-1].shape[1] != expected_out:
            raise ValueError(
                f"it maps {weights[0].shape[0]} features to {weights[-1].shape[1]} outputs, where the "
                f"{encoding.name} encoding has {encoding.size} and a {kind} model {expected_out}"
            )
        if not all(np.isfinite(w).all() for w in weights + biases):
            raise ValueError("some of its weights are not finite numbers")
    except ValueError as error:
        raise ModelError(f"model file {shown!r} is damaged: {error}; train it again") from None
    return Network(weights, biases, meta)
