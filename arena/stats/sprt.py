"""The sequential probability ratio test between two bots, as fishtest and fastchess run it.

Hypotheses. H0: the bot is ``elo0`` stronger than its opponent; H1: it is ``elo1`` stronger
(``elo0 < elo1``). Both are logistic Elo: an Elo difference ``e`` means an expected score of
``s = 1 / (1 + 10^(-e/400))`` a game. Normalised Elo (fishtest's hypotheses on
``(score - 1/2) / sd``) is not supported: give logistic Elo.

Bounds. With false positive rate ``alpha`` and false negative rate ``beta`` the test goes on
while ``lower < LLR < upper``, ``lower = log(beta / (1 - alpha))``,
``upper = log((1 - beta) / alpha)`` (Wald's bounds, -2.94 and 2.94 at 0.05/0.05); at or below
``lower`` H0 is accepted, at or above ``upper`` H1 is accepted.

The log-likelihood ratio is the generalised SPRT (GSPRT) of fishtest. Results are counted by
outcome: trinomial, each game one observation scoring ``a`` = 0, 1/2 or 1 (losses, draws,
wins); pentanomial, each pair of games with colours swapped one observation scoring its mean,
``a`` = 0, 1/4, 1/2, 3/4 or 1 (pairs worth 0, 0.5, 1, 1.5, 2 points). With ``N`` observations
and ``q_i`` the observed frequency of outcome ``i``, the distribution of the outcomes is left
free but for its mean: under a hypothesis of mean ``s`` it is the maximum-likelihood
distribution of mean ``s``, ``p_i(s) = q_i / (1 + x (a_i - s))`` with ``x`` the root of
``sum_i q_i (a_i - s) / (1 + x (a_i - s)) = 0`` in ``(-1 / (1 - s), 1 / s)`` (found by bisection;
the root makes the ``p_i`` sum to 1). Then

    LLR = N * sum_i q_i * log(p_i(s1) / p_i(s0)),   s0, s1 the scores of elo0 and elo1.

For small Elo differences this is close to the normal approximation
``N (s1 - s0) (2 m - s0 - s1) / (2 v)`` (``m``, ``v`` the observed mean and variance of an
observation). A count of zero is taken as 0.001 (and ``N`` is the sum of the counts so
regularised), so the constrained maximum exists from the first result; this is fishtest's
regularisation too.

Settings as people write them (``elo0=0,elo1=5,alpha=0.05,beta=0.05``, as ``arena match
--sprt`` takes them) are read strictly by ``parse_settings``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from arena.errors import ArenaError
from arena.stats.elo import expected_score
from arena.stats.matchstats import pentanomial

CONTINUE = "continue"
H0 = "H0 accepted"
H1 = "H1 accepted"
TRINOMIAL = "trinomial"
PENTANOMIAL = "pentanomial"
#: what a count of zero is taken as, so that the maximum-likelihood distributions exist
ZERO_COUNT = 1e-3
_OUTCOMES = {TRINOMIAL: (0.0, 0.5, 1.0), PENTANOMIAL: (0.0, 0.25, 0.5, 0.75, 1.0)}


class SprtError(ArenaError, ValueError):
    """SPRT settings or results that make no test (the message says which)."""


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's bounds ``(log(beta / (1 - alpha)), log((1 - beta) / alpha))`` of the LLR."""
    if not (0.0 < alpha < 1.0 and 0.0 < beta < 1.0 and alpha + beta < 1.0):
        raise SprtError(f"alpha and beta must be between 0 and 1 with alpha + beta < 1, got {alpha!r} and {beta!r}")
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def constrained_mle(frequencies: Sequence[float], outcomes: Sequence[float], mean: float) -> list[float]:
    """The distribution over ``outcomes`` of mean ``mean`` that is most likely to have produced
    the observed ``frequencies`` (positive, summing to 1): ``q_i / (1 + x (a_i - mean))``."""
    low_a, high_a = min(outcomes), max(outcomes)
    if not low_a < mean < high_a:
        raise SprtError(f"a mean score of {mean!r} is not strictly between {low_a} and {high_a}")
    deltas = [a - mean for a in outcomes]

    def slope(x: float) -> float:  # decreasing in x, +inf at the low end, -inf at the high end
        return sum(q * d / (1.0 + x * d) for q, d in zip(frequencies, deltas))

    low, high = -1.0 / (high_a - mean), 1.0 / (mean - low_a)
    for _ in range(200):
        middle = (low + high) / 2.0
        if middle in (low, high):
            break
        if slope(middle) > 0.0:
            low = middle
        else:
            high = middle
    x = (low + high) / 2.0
    return [q / (1.0 + x * d) for q, d in zip(frequencies, deltas)]


def llr(counts: Sequence[float], elo0: float, elo1: float) -> float:
    """The GSPRT log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``) for ``counts``:
    3 counts (losses, draws, wins) or 5 pair counts (0, 0.5, 1, 1.5, 2 points); see the module
    docstring. 0 when there are no results."""
    model = {3: TRINOMIAL, 5: PENTANOMIAL}.get(len(counts))
    if model is None:
        raise SprtError(f"counts are 3 (losses, draws, wins) or 5 (pairs of 0 to 2 points), got {tuple(counts)}")
    if any(c < 0 for c in counts):
        raise SprtError(f"counts cannot be negative: {tuple(counts)}")
    if sum(counts) == 0:
        return 0.0
    outcomes = _OUTCOMES[model]
    regular = [max(float(c), ZERO_COUNT) for c in counts]
    total = sum(regular)
    frequencies = [c / total for c in regular]
    p0 = constrained_mle(frequencies, outcomes, expected_score(elo0))
    p1 = constrained_mle(frequencies, outcomes, expected_score(elo1))
    return total * sum(q * math.log(b / a) for q, a, b in zip(frequencies, p0, p1))


@dataclass(frozen=True, slots=True)
class SprtState:
    """A running SPRT: its settings, the results so far, the LLR, the bounds and the decision.

    ``counts`` are ascending by score: (losses, draws, wins) for the trinomial model, the pairs
    worth 0, 0.5, 1, 1.5 and 2 points for the pentanomial one. Feeding results returns a new
    state. The decision is the first bound the LLR reached: once H0 or H1 is accepted it stays,
    while results that still come in (games under way when the test stopped) are counted and
    move the LLR.
    """

    elo0: float
    elo1: float
    alpha: float
    beta: float
    model: str
    counts: tuple[int, ...]
    llr: float
    lower: float
    upper: float
    decision: str

    @property
    def finished(self) -> bool:
        """Whether a hypothesis has been accepted."""
        return self.decision != CONTINUE

    @property
    def games(self) -> int:
        """The games counted (two a pair for the pentanomial model)."""
        return sum(self.counts) * (2 if self.model == PENTANOMIAL else 1)

    def add_game(self, score: float) -> SprtState:
        """The state after one more game the bot scored ``score`` (0, 0.5 or 1) in (trinomial)."""
        return self.add_games([score])

    def add_games(self, scores: Iterable[float]) -> SprtState:
        """The state after games the bot scored ``scores`` in, taken one by one (trinomial)."""
        if self.model != TRINOMIAL:
            raise SprtError("a pentanomial SPRT counts pairs of games: feed it with add_pair")
        state = self
        for score in scores:
            if score not in (0, 0.5, 1):
                raise SprtError(f"a game's score is 0, 0.5 or 1, got {score!r}")
            state = state._counted(int(2 * score))
        return state

    def add_pair(self, first: float, second: float) -> SprtState:
        """The state after a pair of games (colours swapped) the bot scored ``first`` and ``second`` in."""
        return self.add_pairs([(first, second)])

    def add_pairs(self, pairs: Iterable[tuple[float, float]]) -> SprtState:
        """The state after ``pairs`` of games taken one by one (trinomial: two games each)."""
        state = self
        for pair in pairs:
            if state.model == TRINOMIAL:
                state = state.add_games(pair)
                continue
            try:
                counts = pentanomial([pair])
            except ArenaError as error:
                raise SprtError(str(error)) from None
            state = state._counted(counts.index(1))
        return state

    def _counted(self, outcome: int) -> SprtState:
        counts = list(self.counts)
        counts[outcome] += 1
        value = llr(counts, self.elo0, self.elo1)
        decision = self.decision
        if decision == CONTINUE:
            decision = _decide(value, self.lower, self.upper)
        return replace(self, counts=tuple(counts), llr=value, decision=decision)


def _decide(value: float, lower: float, upper: float) -> str:
    if value >= upper:
        return H1
    if value <= lower:
        return H0
    return CONTINUE


def sprt(
    elo0: float,
    elo1: float,
    alpha: float = 0.05,
    beta: float = 0.05,
    *,
    model: str = TRINOMIAL,
    counts: Sequence[int] | None = None,
) -> SprtState:
    """A new SPRT of H0 ``elo0`` against H1 ``elo1`` (logistic Elo, ``elo0 < elo1``) at error
    rates ``alpha``/``beta``; ``model`` is ``"trinomial"`` (games) or ``"pentanomial"`` (pairs).

    ``counts`` starts it from results already counted (in the order of ``SprtState.counts``);
    its decision is then read from the LLR of those counts alone.
    """
    if model not in _OUTCOMES:
        raise SprtError(f"model must be {TRINOMIAL!r} or {PENTANOMIAL!r}, got {model!r}")
    if not (math.isfinite(elo0) and math.isfinite(elo1) and elo0 < elo1):
        raise SprtError(f"elo0 must be below elo1 (both finite), got elo0={elo0!r} and elo1={elo1!r}")
    lower, upper = bounds(alpha, beta)
    size = len(_OUTCOMES[model])
    start = tuple(int(c) for c in counts) if counts is not None else (0,) * size
    if len(start) != size or any(c < 0 for c in start):
        raise SprtError(f"a {model} SPRT has {size} counts, each >= 0, got {tuple(counts or ())}")
    value = llr(start, elo0, elo1)
    return SprtState(elo0, elo1, alpha, beta, model, start, value, lower, upper, _decide(value, lower, upper))


# -- settings as people write them -----------------------------------------------------------

#: the settings of an SPRT in the order they are written, and the defaults of those that have one
SETTINGS = ("elo0", "elo1", "alpha", "beta")
_DEFAULTS = {"alpha": 0.05, "beta": 0.05}
_EXAMPLE = "elo0=0,elo1=5,alpha=0.05,beta=0.05"


@dataclass(frozen=True, slots=True)
class SprtSettings:
    """What an SPRT tests: H0 ``elo0`` against H1 ``elo1`` (logistic Elo) at error rates
    ``alpha`` and ``beta``."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def start(self, model: str = PENTANOMIAL) -> SprtState:
        """A new test with these settings, counting games (trinomial) or pairs (pentanomial)."""
        return sprt(self.elo0, self.elo1, self.alpha, self.beta, model=model)

    def text(self) -> str:
        """The settings as ``parse_settings`` reads them: ``elo0=0,elo1=5,alpha=0.05,beta=0.05``."""
        return ",".join(f"{name}={getattr(self, name):g}" for name in SETTINGS)


def parse_settings(text: str, source: str = "SPRT") -> SprtSettings:
    """The settings written as ``elo0=0,elo1=5,alpha=0.05,beta=0.05`` (alpha and beta may be left
    out: 0.05 each); ``SprtError`` naming ``source`` and what is wrong with anything else."""
    given: dict[str, float] = {}
    if not text.strip():
        raise SprtError(f"{source}: nothing given; write e.g. {_EXAMPLE} (alpha and beta default to 0.05)")
    for item in text.split(","):
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not item.strip():
            raise SprtError(f"{source} {text!r}: an empty setting (a comma too many); write e.g. {_EXAMPLE}")
        if not sep:
            raise SprtError(f"{source}: {item.strip()!r} is not name=value; write e.g. {_EXAMPLE}")
        if key not in SETTINGS:
            raise SprtError(f"{source}: unknown setting {key!r}; the settings are elo0, elo1, alpha and beta")
        if key in given:
            raise SprtError(f"{source}: {key} is given twice")
        try:
            number = float(value)
        except ValueError:
            raise SprtError(f"{source}: {key}={value!r} is not a number") from None
        if not math.isfinite(number):
            raise SprtError(f"{source}: {key}={value!r} is not a finite number")
        given[key] = number
    missing = [name for name in ("elo0", "elo1") if name not in given]
    if missing:
        verb = "is" if len(missing) == 1 else "are"
        raise SprtError(f"{source}: {' and '.join(missing)} {verb} missing; write e.g. {_EXAMPLE}")
    settings = SprtSettings(**{**_DEFAULTS, **given})
    try:
        settings.start()
    except SprtError as error:
        raise SprtError(f"{source}: {error}") from None
    return settings
