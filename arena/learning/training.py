"""Training the learning bots' networks on a dataset, in plain numpy.

Mini-batch gradient descent with Adam (written out below), ReLU hidden layers, He-initialised
weights. A value network (``nnvalue``) learns the game's outcome for the side to move with the
log-loss of its sigmoid output (a draw is the target 0.5); a policy network (``nnpolicy``)
learns the move played with the cross-entropy of its softmax over the legal moves. By default
a policy learns only from the moves of players who did not lose the game (a strong player's
moves are what it is meant to predict) and a value network from every position; ``players``
keeps, for either, only the positions where one of those players was to move. Unless told not
to, each position is shown turned or mirrored by a symmetry of the game drawn at random.

Everything random (the initial weights, the order of the positions in each epoch, the
symmetries drawn, the games held out) comes from one generator seeded with ``seed``, and
nothing else varies, so the same seed and the same dataset give the same network, and the
same model file byte for byte.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from arena.errors import ArenaError
from arena.learning.dataset import Dataset
from arena.learning.features import encoding_for
from arena.learning.network import KINDS, Network, masked_softmax, model_meta, sigmoid
from arena.learning.numeric import np


class TrainingError(ArenaError):
    """Settings or data that a network cannot be trained with."""


@dataclass(frozen=True)
class Settings:
    """How to train: hidden layer sizes, passes over the data, the seed, the batch size, Adam's
    step size, the share of games held out to measure the network on games it never saw, and
    whether each position is shown turned or mirrored by a symmetry of the game drawn at random
    each time (``augment``: as many positions again as the game has symmetries, for free)."""

    hidden: tuple[int, ...] = (64,)
    epochs: int = 10
    seed: int = 0
    batch: int = 64
    learning_rate: float = 0.001
    holdout: float = 0.0
    augment: bool = True

    def check(self) -> None:
        """``TrainingError`` naming the first setting out of range."""
        if not self.hidden or any(size < 1 for size in self.hidden):
            raise TrainingError(f"hidden layer sizes must be 1 or more, not {list(self.hidden)}")
        if self.epochs < 1 or self.batch < 1:
            raise TrainingError("epochs and batch size must be 1 or more")
        if not 0 < self.learning_rate < 1:
            raise TrainingError(f"the learning rate must be between 0 and 1, not {self.learning_rate}")
        if not 0 <= self.holdout < 1:
            raise TrainingError(f"the share held out must be at least 0 and below 1, not {self.holdout}")


@dataclass
class Report:
    """What training did: positions trained on (and held out), the mean loss of each epoch,
    the held-out loss and accuracy (``None`` without a holdout), and the seconds it took.
    Accuracy: for a policy, how often its most probable move is the move played; for a value
    network, how often it is on the right side of 0.5 in games that were not drawn."""

    positions: int = 0
    held_out: int = 0
    losses: list[float] = field(default_factory=list)
    holdout_loss: float | None = None
    holdout_accuracy: float | None = None
    seconds: float = 0.0


def chosen_positions(kind: str, data: Dataset, players: Sequence[str] = ()) -> np.ndarray:
    """The indexes of the positions a ``kind`` network learns from: those whose mover is one of
    ``players``; without ``players``, every position for a value network, and for a policy
    those whose mover did not lose the game."""
    if players:
        unknown = [name for name in players if name not in data.players]
        if unknown:
            raise TrainingError(
                f"no player {', '.join(map(repr, unknown))} in the dataset; its players: "
                f"{', '.join(data.players) or 'none'}"
            )
        numbers = [data.players.index(name) for name in players]
        return np.flatnonzero(np.isin(data.columns["player"], numbers))
    if kind == "nnvalue":
        return np.arange(len(data))
    return np.flatnonzero(data.columns["outcome"] >= 0.5)


def train(
    kind: str,
    data: Dataset,
    settings: Settings,
    players: Sequence[str] = (),
    progress: Callable[[int, float], None] | None = None,
) -> tuple[Network, Report]:
    """A ``kind`` network (``nnvalue`` or ``nnpolicy``) trained on ``data``, and the report;
    ``progress(epoch, mean loss)`` is told of each epoch as it ends."""
    if kind not in KINDS:
        raise TrainingError(f"there is no {kind!r} network; the kinds are {', '.join(KINDS)}")
    settings.check()
    started = time.perf_counter()
    encoding = encoding_for(data.game)
    rng = np.random.default_rng(settings.seed)
    chosen = chosen_positions(kind, data, players)
    train_rows, test_rows = _split(data.columns["game"], chosen, settings.holdout, rng)
    if not len(train_rows):
        raise TrainingError(f"the dataset has no position to train a {kind} network on; give one with more games")
    outputs = 1 if kind == "nnvalue" else encoding.moves
    sizes = [encoding.size, *settings.hidden, outputs]
    network = Network(*_initial_layers(sizes, rng))
    targets = data.columns["outcome"] if kind == "nnvalue" else data.columns["move"].astype(np.intp)
    features, legal = data.columns["features"], data.columns["legal"]
    report = Report(positions=len(train_rows), held_out=len(test_rows))
    adam = _Adam(network, settings.learning_rate)
    symmetries = encoding.symmetries if settings.augment else None
    for epoch in range(settings.epochs):
        order = train_rows[rng.permutation(len(train_rows))]
        total = 0.0
        for start in range(0, len(order), settings.batch):
            rows = order[start : start + settings.batch]
            x, target, mask = features[rows], targets[rows], legal[rows]
            if symmetries is not None:
                chosen = rng.integers(len(symmetries), size=len(rows))
                x = np.take_along_axis(x, symmetries.features[chosen], axis=1)
                mask = np.take_along_axis(mask, symmetries.legal[chosen], axis=1)
                if kind == "nnpolicy":
                    target = symmetries.moves[chosen, target]
            loss, gradients = _gradients(kind, network, x, target, mask)
            adam.step(gradients)
            total += loss * len(rows)
        report.losses.append(total / len(order))
        if progress is not None:
            progress(epoch + 1, report.losses[-1])
    if len(test_rows):
        report.holdout_loss, report.holdout_accuracy = evaluate(kind, network, data, test_rows)
    network.meta = model_meta(
        kind,
        data.game,
        encoding,
        seed=settings.seed,
        epochs=settings.epochs,
        hidden=list(settings.hidden),
        batch=settings.batch,
        learning_rate=settings.learning_rate,
        holdout=settings.holdout,
        augment=settings.augment,
        positions=report.positions,
        games=data.games,
        sources=data.sources,
        players=list(players),
        loss=report.losses[-1],
    )
    report.seconds = time.perf_counter() - started
    return network, report


def evaluate(kind: str, network: Network, data: Dataset, rows: np.ndarray) -> tuple[float, float | None]:
    """The mean loss of ``network`` on the positions ``rows`` of ``data``, and its accuracy
    there (see ``Report``; ``None`` for a value network on drawn games only)."""
    features, legal = data.columns["features"][rows], data.columns["legal"][rows]
    logits = network.logits(features)
    if kind == "nnvalue":
        outcome = data.columns["outcome"][rows]
        decided = outcome != 0.5
        right = (sigmoid(logits[:, 0]) > 0.5) == (outcome > 0.5)
        accuracy = float(right[decided].mean()) if decided.any() else None
        return float(_value_loss(logits[:, 0], outcome).mean()), accuracy
    move = data.columns["move"][rows].astype(np.intp)
    probabilities = masked_softmax(logits, legal)
    picked = probabilities[np.arange(len(rows)), move]
    accuracy = float((probabilities.argmax(axis=1) == move).mean())
    return float(-np.log(np.maximum(picked, 1e-12)).mean()), accuracy


# --- the arithmetic -----------------------------------------------------------------------------------


def _split(
    games: np.ndarray, chosen: np.ndarray, share: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """``chosen`` split into positions to train on and positions held out, by whole games (the
    positions of one game look alike, so holding out some of them would measure little)."""
    if share == 0:
        return chosen, chosen[:0]
    ids = np.unique(games[chosen])
    held = rng.permutation(ids)[: round(share * len(ids))]
    out = np.isin(games[chosen], held)
    return chosen[~out], chosen[out]


def _initial_layers(sizes: list[int], rng: np.random.Generator) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """He-initialised weights (ReLU layers) and zero biases; the output layer starts small,
    so the first predictions are near uniform (a value of 0.5, equal move probabilities)."""
    weights, biases = [], []
    for i, (inputs, outputs) in enumerate(itertools.pairwise(sizes)):
        scale = math.sqrt(2.0 / inputs) if i < len(sizes) - 2 else 0.1 * math.sqrt(1.0 / inputs)
        weights.append((rng.standard_normal((inputs, outputs)) * scale).astype(np.float32))
        biases.append(np.zeros(outputs, dtype=np.float32))
    return weights, biases


def _value_loss(logit: np.ndarray, target: np.ndarray) -> np.ndarray:
    """The log-loss of ``sigmoid(logit)`` against ``target``, computed without overflow:
    ``softplus(logit) - target * logit``."""
    loss: np.ndarray = np.logaddexp(0.0, logit) - target * logit
    return loss


def _gradients(
    kind: str, network: Network, features: np.ndarray, targets: np.ndarray, legal: np.ndarray
) -> tuple[float, list[np.ndarray]]:
    """The mean loss of a batch and its gradient for each weight and bias (in the order
    ``w0, b0, w1, b1, ...``): a forward pass keeping each layer's input, then back-propagation."""
    x = features.astype(np.float32)
    inputs = []
    last = len(network.weights) - 1
    for i, (w, b) in enumerate(zip(network.weights, network.biases)):
        inputs.append(x)
        x = x @ w + b
        if i < last:
            np.maximum(x, 0.0, out=x)
    count = len(features)
    if kind == "nnvalue":
        logit = x[:, 0]
        loss = float(_value_loss(logit, targets).mean())
        grad = ((sigmoid(logit) - targets) / count).astype(np.float32)[:, None]
    else:
        probabilities = masked_softmax(x, legal)
        picked = probabilities[np.arange(count), targets]
        loss = float(-np.log(np.maximum(picked, 1e-12)).mean())
        probabilities[np.arange(count), targets] -= 1.0
        grad = (probabilities / count).astype(np.float32)
    gradients: list[np.ndarray] = []
    for i in range(last, -1, -1):
        gradients += [grad.sum(axis=0), inputs[i].T @ grad]
        if i:
            grad = (grad @ network.weights[i].T) * (inputs[i] > 0)
    gradients.reverse()
    return loss, gradients


class _Adam:
    """Adam (Kingma and Ba, 2015) over a network's weights and biases, updated in place:
    running means of the gradients and of their squares, corrected for starting at zero."""

    def __init__(
        self, network: Network, learning_rate: float, beta1: float = 0.9, beta2: float = 0.999, epsilon: float = 1e-8
    ) -> None:
        self.parameters = [p for pair in zip(network.weights, network.biases) for p in pair]
        self.first = [np.zeros_like(p) for p in self.parameters]
        self.second = [np.zeros_like(p) for p in self.parameters]
        self.rate, self.beta1, self.beta2, self.epsilon = learning_rate, beta1, beta2, epsilon
        self.steps = 0

    def step(self, gradients: list[np.ndarray]) -> None:
        """Move every parameter one step against its gradient."""
        self.steps += 1
        rate = self.rate * math.sqrt(1 - self.beta2**self.steps) / (1 - self.beta1**self.steps)
        for parameter, gradient, first, second in zip(self.parameters, gradients, self.first, self.second):
            first *= self.beta1
            first += (1 - self.beta1) * gradient
            second *= self.beta2
            second += (1 - self.beta2) * gradient * gradient
            parameter -= (rate * first / (np.sqrt(second) + self.epsilon)).astype(np.float32)
