"""The SPRT of two bots: Wald's bounds, the GSPRT log-likelihood ratio checked against the
constrained maximum likelihood solved by hand (a quadratic for three outcomes), and the
decisions on known sequences of results."""

from __future__ import annotations

import math

import pytest

from arena.errors import ArenaError
from arena.stats.elo import expected_score
from arena.stats.sprt import CONTINUE, H0, H1, SprtError, bounds, constrained_mle, llr, sprt


def hand_llr(counts: tuple[int, int, int], elo0: float, elo1: float) -> float:
    """The trinomial GSPRT worked out in closed form: for the mean s, with d_i = a_i - s and
    observed frequencies q_i, clearing the denominators of sum q_i d_i / (1 + x d_i) = 0 gives
    A x^2 + B x + C = 0, A = d_0 d_1 d_2, B = sum_i q_i d_i (sum_{j != i} d_j), C = sum q_i d_i;
    its root in (-1/(1 - s), 1/s) gives p_i = q_i / (1 + x d_i)."""
    n = sum(counts)
    q = [c / n for c in counts]
    fitted = []
    for elo in (elo0, elo1):
        s = expected_score(elo)
        d = [a - s for a in (0.0, 0.5, 1.0)]
        a_ = d[0] * d[1] * d[2]
        b_ = sum(q[i] * d[i] * sum(d[j] for j in range(3) if j != i) for i in range(3))
        c_ = sum(qi * di for qi, di in zip(q, d))
        if a_ == 0:
            roots = [-c_ / b_]
        else:
            root = math.sqrt(b_ * b_ - 4 * a_ * c_)
            roots = [r for r in ((-b_ + root) / (2 * a_), (-b_ - root) / (2 * a_)) if -1 / (1 - s) < r < 1 / s]
        assert len(roots) == 1
        fitted.append([qi / (1 + roots[0] * di) for qi, di in zip(q, d)])
    return n * sum(qi * math.log(p1 / p0) for qi, p0, p1 in zip(q, *fitted))


def test_bounds_are_walds():
    assert bounds(0.05, 0.05) == pytest.approx((math.log(0.05 / 0.95), math.log(0.95 / 0.05)))
    assert bounds(0.05, 0.05) == pytest.approx((-2.944439, 2.944439))
    assert bounds(0.05, 0.1) == pytest.approx((-2.251292, 2.890372))


def test_llr_of_a_small_sequence_is_the_hand_solved_one():
    # W D L W W D: 1 loss, 2 draws, 3 wins
    state = sprt(0, 5).add_games([1, 0.5, 0, 1, 1, 0.5])
    assert state.counts == (1, 2, 3)
    assert state.llr == pytest.approx(hand_llr((1, 2, 3), 0, 5), rel=1e-9)
    assert state.llr == pytest.approx(0.0423169, abs=1e-7)
    assert state.decision == CONTINUE


def test_llr_with_hypotheses_on_both_sides_of_zero_is_the_hand_solved_one():
    assert llr((1, 2, 3), -5, 10) == pytest.approx(hand_llr((1, 2, 3), -5, 10), rel=1e-9)
    assert llr((1, 2, 3), -5, 10) == pytest.approx(0.1269377, abs=1e-7)


def test_constrained_mle_has_the_asked_mean_and_sums_to_one():
    p = constrained_mle([0.2, 0.3, 0.1, 0.25, 0.15], [0, 0.25, 0.5, 0.75, 1], 0.55)
    assert sum(p) == pytest.approx(1.0)
    assert sum(pi * a for pi, a in zip(p, [0, 0.25, 0.5, 0.75, 1])) == pytest.approx(0.55)


def test_llr_is_close_to_the_normal_approximation_for_many_games():
    losses, draws, wins = 3000, 5000, 3300
    n = losses + draws + wins
    mean = (draws / 2 + wins) / n
    variance = (draws / 4 + wins) / n - mean**2
    s0, s1 = expected_score(0), expected_score(5)
    assert llr((losses, draws, wins), 0, 5) == pytest.approx(
        n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance), rel=2e-3
    )


def test_no_results_give_an_llr_of_zero():
    assert llr((0, 0, 0), 0, 5) == 0.0
    assert sprt(0, 5).llr == 0.0


def test_a_long_run_of_wins_accepts_h1():
    state = sprt(0, 5)
    while not state.finished and state.games < 1000:
        state = state.add_game(1)
    assert state.decision == H1
    assert state.llr >= state.upper
    assert state.games == 207  # with zero draws and losses taken as 0.001 each


def test_a_long_run_of_losses_accepts_h0():
    state = sprt(0, 5)
    for _ in range(1000):
        state = state.add_game(0)
        if state.finished:
            break
    assert state.decision == H0
    assert state.llr <= state.lower


def test_the_decision_stays_once_taken_while_late_results_move_the_llr():
    state = sprt(0, 5)
    while not state.finished:
        state = state.add_game(0)
    later = state.add_games([1] * 300)
    assert later.decision == H0
    assert later.llr > state.llr


def test_pentanomial_state_counts_pairs_and_matches_its_llr():
    state = sprt(0, 5, model="pentanomial").add_pairs([(1, 0.5), (0.5, 0.5), (1, 1), (0, 1)])
    assert state.counts == (0, 0, 2, 1, 1)
    assert state.games == 8
    assert state.llr == pytest.approx(llr((0, 0, 2, 1, 1), 0, 5))


def test_a_trinomial_state_takes_a_pair_as_its_two_games():
    assert sprt(0, 5).add_pair(1, 0.5).counts == (0, 1, 1)


def test_a_pentanomial_state_refuses_single_games():
    with pytest.raises(SprtError, match="counts pairs of games"):
        sprt(0, 5, model="pentanomial").add_game(1)


def test_a_state_started_from_counts_reads_its_decision_from_them():
    state = sprt(0, 5, counts=(100, 0, 400))
    assert state.decision == H1
    assert state.llr == pytest.approx(llr((100, 0, 400), 0, 5))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: sprt(5, 0), "elo0 must be below elo1"),
        (lambda: sprt(0, 5, alpha=0.6, beta=0.5), "alpha and beta"),
        (lambda: sprt(0, 5, model="normalized"), "model must be"),
        (lambda: sprt(0, 5, counts=(1, 2)), "has 3 counts"),
        (lambda: sprt(0, 5).add_game(0.25), "0, 0.5 or 1"),
        (lambda: llr((1, 2, 3, 4), 0, 5), "counts are 3"),
    ],
)
def test_bad_settings_are_errors_a_user_can_read(call, message):
    with pytest.raises(SprtError, match=message):
        call()
    assert issubclass(SprtError, ArenaError)
