"""Elo ratings with error bars: a Bradley-Terry fit by maximum likelihood over a list of games
(two bots' trinomial and pentanomial statistics are in ``arena.stats.matchstats``).

The model. Player ``i`` has a strength ``theta_i``; in a game between ``i`` and ``j``, ``i``
scores ``p_ij = 1 / (1 + exp(theta_j - theta_i))`` on average, and Elo is
``theta * 400 / ln 10`` (so 400 Elo more means ten times the odds: ``elo_difference``).

Draws. A game's score ``s`` of the first player (1 a win, 0.5 a draw, 0 a loss; any fraction in
[0, 1] is taken as it is) enters the likelihood as ``s`` wins and ``1 - s`` losses:
``log L = sum over games of s log p_ab + (1 - s) log(1 - p_ab)``. A draw is half a win and half
a loss, as in Ordo and in the logistic Elo of fastchess and fishtest; at the maximum each
player's expected score equals the score they made. (Draw models with a draw parameter, Davidson
or Rao-Kupper, are not used: they change the likelihood but hardly the ranking.)

Perfect scores. A player who won (or lost) every game has no finite maximum: its rating would
run off to infinity. The fit therefore has a prior, ``prior_draws`` (default 1): every player is
credited with that many drawn games against a virtual opponent of strength 0 (the level the
field is centred on), i.e. the log-likelihood gains ``prior_draws * (log p_i0 + log(1 - p_i0)) / 2``
for each player. One virtual draw is worth one game: it moves a perfect 10/10 to a finite
rating and changes a normal record very little. ``prior_draws=0`` is the plain maximum
likelihood; then a field that has no finite maximum (someone scored every point, or none,
against the rest of the field, or the field falls into groups that never met) is an error.

Anchoring. Only differences are measured. By default the field's mean is set to ``anchor_elo``
(0); ``anchor=NAME`` puts that player at ``anchor_elo`` instead (its interval is then zero and
every other interval is of the difference to the anchor).

Intervals. The fit's curvature is the observed Fisher information ``H = -d2 log L / d theta2``
at the maximum (with the prior's term when there is one; without it the information is singular
along the common shift, and ``1 1^T`` is added to it, which leaves every difference's variance as
it is). Its inverse alone (``spread="model"``) would be the covariance if every game's score
varied as a win-or-loss does, ``p (1 - p)`` (about 0.25); but a game that may be drawn varies
less: with win, draw and loss probabilities ``w``, ``d``, ``l`` and ``p = w + d / 2``, the variance
of its score is ``w + d / 4 - p^2 = p (1 - p) - d / 4``. On draw-heavy games the plain inverse is
2-4 times too wide (it pulled LOS towards 50 % and misled the adaptive format). So by default
(``spread="draws"``) the covariance is the quasi-likelihood sandwich ``H^-1 M H^-1``, where ``M``
sums each game's information at its true variance, ``p (1 - p) - d / 4``, with ``d`` the share of
drawn games between its two players, drawn towards the field's share (by Laplace's rule) by two
games' worth (one game, or a few, say little of a pair's draw rate), a variance never less than
a ninth of ``p (1 - p)`` (a field of few games, all drawn, is no certainty), and the virtual
draws of the prior at ``p (1 - p)``. Games with no draws keep ``H^-1`` exactly. The interval of a player is
``elo +- z * sd`` with ``z`` the normal quantile of the confidence (1.96 at 95 %) and ``sd`` the
standard deviation of its difference to the anchor (the field's mean or the named player).
The likelihood of superiority of ``a`` over ``b`` is ``Phi((elo_a - elo_b) / sd(elo_a - elo_b))``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

from arena.errors import ArenaError

if TYPE_CHECKING:
    from numpy.typing import NDArray

    #: a vector (or matrix) of floats
    Vector = NDArray[Any]

#: Elo points per unit of the natural-log strength scale
ELO_PER_NAT = 400 / math.log(10)
_NORMAL = NormalDist()
#: games' worth of the field's share of draws that a pair's own share is drawn towards
DRAW_SHRINK = 2.0
#: the most the draws may shrink a game's variance: to a ninth of a win-or-loss game's (an interval
#: three times narrower), so that a few games all drawn are never taken for certainty
DRAW_FLOOR = 1.0 / 9.0

#: (player, opponent, score of player): a game
Game = tuple[str, str, float]
#: a game and how many games alike (the same players, the same score) it stands for
Alike = tuple[str, str, float, int]


class EloError(ArenaError, ValueError):
    """Games or settings that no Elo fit can be made from (the message says which and why)."""


def expected_score(elo_difference: float) -> float:
    """The mean score of a player ``elo_difference`` Elo stronger than its opponent."""
    return 1.0 / (1.0 + math.pow(10.0, -elo_difference / 400.0))


def elo_difference(score: float) -> float:
    """The Elo difference whose expected score is ``score`` (``-400 log10(1/score - 1)``);
    ``inf`` at 1 and ``-inf`` at 0."""
    if score >= 1.0:
        return math.inf
    if score <= 0.0:
        return -math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def z_value(confidence: float) -> float:
    """The two-sided normal quantile of ``confidence`` (1.959964 at 0.95)."""
    if not 0.0 < confidence < 1.0:
        raise EloError(f"confidence must be between 0 and 1 (exclusive), got {confidence!r}")
    return _NORMAL.inv_cdf((1.0 + confidence) / 2.0)


@dataclass(frozen=True, slots=True)
class PlayerElo:
    """One player's fitted Elo and its interval, with the games and points it is fitted from."""

    name: str
    elo: float
    lower: float
    upper: float
    games: int
    points: float

    @property
    def error(self) -> float:
        """The half width of the interval (the ``+-`` figure)."""
        return (self.upper - self.lower) / 2.0


@dataclass(frozen=True, slots=True)
class EloDifference:
    """The Elo difference ``a - b`` with its interval and standard deviation."""

    a: str
    b: str
    elo: float
    lower: float
    upper: float
    sd: float


@dataclass(frozen=True, slots=True)
class EloFit:
    """A fitted field: ``players`` best first, with the covariance behind every interval.

    ``covariance[i][j]`` (Elo squared) is between ``names[i]`` and ``names[j]`` in the order the
    players were first met; only contrasts of it (differences) mean anything.
    """

    players: tuple[PlayerElo, ...]
    names: tuple[str, ...]
    covariance: tuple[tuple[float, ...], ...]
    confidence: float
    anchor: str | None
    anchor_elo: float
    prior_draws: float

    def __getitem__(self, name: str) -> PlayerElo:
        """The line of player ``name``."""
        for line in self.players:
            if line.name == name:
                return line
        raise EloError(f"no player {name!r} in this fit")

    def ranking(self) -> list[str]:
        """The players' names, best first."""
        return [line.name for line in self.players]

    def difference(self, a: str, b: str) -> EloDifference:
        """The Elo of ``a`` less the Elo of ``b``, with its interval at the fit's confidence."""
        i, j = self._index(a), self._index(b)
        cov = self.covariance
        sd = math.sqrt(max(0.0, cov[i][i] + cov[j][j] - 2.0 * cov[i][j]))
        elo = self[a].elo - self[b].elo
        half = z_value(self.confidence) * sd
        return EloDifference(a, b, elo, elo - half, elo + half, sd)

    def los(self, a: str, b: str) -> float:
        """The likelihood of superiority: the probability that ``a`` is stronger than ``b``."""
        diff = self.difference(a, b)
        if diff.sd == 0.0:
            return 0.5 if diff.elo == 0 else float(diff.elo > 0)
        return _NORMAL.cdf(diff.elo / diff.sd)

    def neighbour_los(self) -> list[tuple[str, str, float]]:
        """For each player and the one ranked just below it: (player, next, LOS of player over next)."""
        return [(up.name, down.name, self.los(up.name, down.name)) for up, down in zip(self.players, self.players[1:])]

    def _index(self, name: str) -> int:
        try:
            return self.names.index(name)
        except ValueError:
            raise EloError(f"no player {name!r} in this fit") from None


@dataclass
class _Field:
    """Games reduced to what the likelihood needs: per pair (i < j), games and i's points (as
    arrays too: ``first``, ``second``, ``played``, ``scores``, ``draws``)."""

    names: list[str]
    pairs: list[tuple[int, int, float, float]]
    games: list[int]
    points: list[float]
    #: per pair, as ``pairs``: its drawn games (a score of exactly 0.5; another fraction counts as a
    #: game that could only be won or lost, the larger variance)
    drawn: list[float]

    def __post_init__(self) -> None:
        import numpy as np  # (imported when a fit first needs it: commands that fit nothing start sooner)

        columns = np.array(self.pairs, dtype=float).reshape(-1, 4)
        self.first, self.second = columns[:, 0].astype(int), columns[:, 1].astype(int)
        self.played, self.scores = columns[:, 2], columns[:, 3]
        self.draws = np.array(self.drawn, dtype=float)


def _collect(games: Iterable[Game | Alike], players: Iterable[str] | None) -> _Field:
    index: dict[str, int] = {}
    names: list[str] = []

    def add(name: str) -> int:
        if name not in index:
            index[name] = len(names)
            names.append(name)
        return index[name]

    for name in players or ():
        add(name)
    totals: dict[tuple[int, int], list[float]] = {}
    for number, game in enumerate(games):
        try:
            a, b, score, *alike = game
            score, count = float(score), float(alike[0] if alike else 1)
            if len(alike) > 1 or count < 1 or count != int(count):
                raise ValueError
        except (TypeError, ValueError):
            raise EloError(
                f"game {number} is {game!r}: a game is (player, opponent, score of player), with a count "
                "of games alike after it if several"
            ) from None
        if a == b:
            raise EloError(f"game {number}: {a!r} cannot play itself")
        if not 0.0 <= score <= 1.0:
            raise EloError(f"game {number}: the score of {a!r} is {score!r}, not between 0 and 1")
        i, j = add(a), add(b)
        if i > j:
            i, j, score = j, i, 1.0 - score
        entry = totals.setdefault((i, j), [0.0, 0.0, 0.0])
        entry[0] += count
        entry[1] += score * count
        entry[2] += count if score == 0.5 else 0.0
    games_of = [0] * len(names)
    points_of = [0.0] * len(names)
    pairs, drawn = [], []
    for (i, j), (n, s, d) in totals.items():
        pairs.append((i, j, n, s))
        drawn.append(d)
        games_of[i] += int(n)
        games_of[j] += int(n)
        points_of[i] += s
        points_of[j] += n - s
    return _Field(names, pairs, games_of, points_of, drawn)


def _sigmoid_of(x: Vector) -> Vector:
    import numpy as np

    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _log_sigmoid_of(x: Vector) -> Vector:
    import numpy as np

    return np.minimum(x, 0.0) - np.log1p(np.exp(-np.abs(x)))


def _check_finite(field: _Field) -> None:
    """Raise unless the plain maximum likelihood is finite: every player must be reachable from
    every other along 'scored at least something against' links (Zermelo's condition)."""
    n = len(field.names)
    scored: list[set[int]] = [set() for _ in range(n)]  # scored[i]: players i took points from
    met: list[set[int]] = [set() for _ in range(n)]
    for i, j, games, points in field.pairs:
        met[i].add(j)
        met[j].add(i)
        if points > 0:
            scored[i].add(j)
        if points < games:
            scored[j].add(i)

    def reach(start: int, links: list[set[int]]) -> set[int]:
        seen, todo = {start}, [start]
        while todo:
            for other in links[todo.pop()] - seen:
                seen.add(other)
                todo.append(other)
        return seen

    group = reach(0, met)
    if len(group) < n:
        inside = sorted(field.names[i] for i in group)
        raise EloError(
            f"players {_names(inside)} never met the others: their ratings cannot be compared "
            "(connect the field, or fit with prior_draws > 0)"
        )
    conceded: list[set[int]] = [set() for _ in range(n)]  # conceded[j]: players who took points from j
    for i in range(n):
        for j in scored[i]:
            conceded[j].add(i)
    # a group closed under "took points from" took none from outside it: it lost every game against
    # the rest; a group closed under "gave points to" won every game against the rest
    for links, closed_lost in ((scored, True), (conceded, False)):
        group = reach(0, links)
        if len(group) < n:
            inside = sorted(field.names[i] for i in group)
            outside = sorted(field.names[i] for i in range(n) if i not in group)
            winners, losers = (outside, inside) if closed_lost else (inside, outside)
            raise EloError(
                f"players {_names(winners)} won every game against {_names(losers)}: their Elo difference "
                "has no finite maximum-likelihood value (fit with prior_draws > 0)"
            )


def _names(names: Sequence[str], most: int = 6) -> str:
    shown = ", ".join(names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def _objective(field: _Field, theta: Vector, prior: float) -> float:
    import numpy as np

    d = theta[field.first] - theta[field.second]
    total = float(np.dot(field.scores, _log_sigmoid_of(d)) + np.dot(field.played - field.scores, _log_sigmoid_of(-d)))
    if prior:
        total += prior * 0.5 * float(np.sum(_log_sigmoid_of(theta) + _log_sigmoid_of(-theta)))
    return total


def _gradient_information(field: _Field, theta: Vector, prior: float, draws: bool = False) -> tuple[Vector, Vector]:
    """The gradient of the log-likelihood and the observed information (minus its Hessian);
    with ``draws``, the information of each game at its score's own variance, ``p (1 - p) - d / 4``
    (``d`` its pair's share of draws, drawn ``DRAW_SHRINK`` games' worth towards the field's,
    and never below ``DRAW_FLOOR`` of ``p (1 - p)``): the ``M`` of the sandwich (module docstring)."""
    import numpy as np

    n = len(theta)
    i, j, games = field.first, field.second, field.played
    p = _sigmoid_of(theta[i] - theta[j])
    g = field.scores - games * p
    grad: Vector = np.bincount(i, g, n) - np.bincount(j, g, n)
    w = games * p * (1.0 - p)
    if draws:
        everywhere = (float(field.draws.sum()) + 1.0) / (float(games.sum()) + 2.0)  # Laplace's rule
        rate = (field.draws + DRAW_SHRINK * everywhere) / (games + DRAW_SHRINK)
        w = np.maximum(w - games * rate / 4.0, DRAW_FLOOR * w)
    info = np.zeros((n, n))
    info[i, j] = -w  # (each pair once: i < j)
    info[j, i] = -w
    diagonal: Vector = np.bincount(i, w, n) + np.bincount(j, w, n)
    if prior:
        q = _sigmoid_of(theta)
        grad = grad + prior * (0.5 - q)
        diagonal = diagonal + prior * q * (1.0 - q)
    else:
        info += 1.0  # the common shift is not identified: pin it (see the module docstring)
    info[np.diag_indices(n)] += diagonal
    return grad, info


def _maximise(field: _Field, prior: float, start: Sequence[float] | None = None) -> Vector:
    """Newton's method with step halving: the strengths. Newton converges quadratically: once a
    step is below 1e-5 (0.002 Elo) the error left after it is of the order of its square."""
    import numpy as np

    n = len(field.names)
    theta = np.array(start, dtype=float) if start is not None else np.zeros(n)
    value: float | None = None  # the objective at theta, when it has been worked out
    for _ in range(200):
        grad, info = _gradient_information(field, theta, prior)
        step = np.linalg.solve(info, grad)
        size = float(np.max(np.abs(step))) if n else 0.0
        if size < 1e-12:
            break
        scale = 1.0
        if size > 0.5:  # far from the maximum: halve the step until it climbs
            if value is None:
                value = _objective(field, theta, prior)
            while True:
                trial = theta + scale * step
                trial_value = _objective(field, trial, prior)
                if trial_value >= value - 1e-12 * (1.0 + abs(value)) or scale < 1e-6:
                    break
                scale /= 2.0
            theta, value = trial, trial_value
        else:  # near it, Newton's full step
            theta, value = theta + step, None
        if size * scale < 1e-5:
            break
    return theta


def fit_elo(
    games: Iterable[Game | Alike],
    players: Iterable[str] | None = None,
    *,
    anchor: str | None = None,
    anchor_elo: float = 0.0,
    confidence: float = 0.95,
    prior_draws: float = 1.0,
    start: Sequence[float] | None = None,
    spread: str = "draws",
) -> EloFit:
    """Fit every player's Elo to ``games`` = (player, opponent, score of player in [0, 1]).

    ``players`` adds players with no games yet (rated by the prior alone) and fixes the order of
    ``EloFit.names`` (players first met in ``games`` follow). ``anchor``/``anchor_elo`` place the
    scale (the field's mean by default), ``confidence`` sets the intervals, ``prior_draws`` the
    virtual draws each player is credited with (0: plain maximum likelihood), ``start``
    optional starting strengths (natural-log units, in ``names`` order) to speed up a refit, and
    ``spread`` how the games vary: ``draws`` (a drawn game varies less than a won or lost one)
    or ``model`` (every game as a win or a loss). The model and the intervals are described in
    the module docstring.
    """
    z = z_value(confidence)
    if spread not in ("draws", "model"):
        raise EloError(f"spread must be 'draws' or 'model', got {spread!r}")
    if prior_draws < 0 or not math.isfinite(prior_draws):
        raise EloError(f"prior_draws must be a number >= 0, got {prior_draws!r}")
    field = _collect(games, players)
    if not field.names:
        raise EloError("no players to rate: give some games or players")
    if anchor is not None and anchor not in field.names:
        raise EloError(f"the anchor {anchor!r} is not a player of these games")
    if prior_draws == 0:
        _check_finite(field)
    if start is not None and len(start) != len(field.names):
        start = None
    import numpy as np

    theta = _maximise(field, prior_draws, start)
    cov = np.linalg.inv(_gradient_information(field, theta, prior_draws)[1])
    if spread == "draws" and field.draws.any():
        cov = cov @ _gradient_information(field, theta, prior_draws, draws=True)[1] @ cov
    cov *= ELO_PER_NAT**2
    if anchor is None:
        shift = float(theta.mean())
        row_means = cov.mean(axis=1)
        variances = np.diag(cov) - 2.0 * row_means + row_means.mean()
    else:
        k = field.names.index(anchor)
        shift = float(theta[k])
        variances = np.diag(cov) + cov[k, k] - 2.0 * cov[:, k]
    lines = []
    for i, name in enumerate(field.names):
        elo = (float(theta[i]) - shift) * ELO_PER_NAT + anchor_elo
        half = 0.0 if anchor == name else z * math.sqrt(max(0.0, float(variances[i])))
        lines.append(PlayerElo(name, elo, elo - half, elo + half, field.games[i], field.points[i]))
    lines.sort(key=lambda line: (-round(line.elo, 6), line.name))  # (equal Elo by name: not by float noise)
    covariance = tuple(tuple(row) for row in cov.tolist())
    return EloFit(tuple(lines), tuple(field.names), covariance, confidence, anchor, anchor_elo, prior_draws)


def strengths(fit: EloFit) -> list[float]:
    """The fit's strengths in natural-log units in ``fit.names`` order: a ``start`` for a refit."""
    by_name = {line.name: line.elo for line in fit.players}
    return [(by_name[name] - fit.anchor_elo) / ELO_PER_NAT for name in fit.names]
