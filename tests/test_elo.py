"""The Elo fit: maximum likelihood with draws as half a win and half a loss, its intervals from the
Fisher information, LOS, perfect scores under the prior, and the trinomial and pentanomial
statistics of two bots, each checked against values worked out by hand."""

from __future__ import annotations

import math
from statistics import NormalDist

import pytest

from arena.errors import ArenaError
from arena.stats.elo import ELO_PER_NAT, EloError, elo_difference, expected_score, fit_elo
from arena.stats.matchstats import game_stats, pair_stats, pentanomial, trinomial

PHI = NormalDist().cdf
Z95 = NormalDist().inv_cdf(0.975)  # 1.959964
#: A beats B 7 times and loses 3 times
SEVEN_THREE = [("A", "B", 1.0)] * 7 + [("A", "B", 0.0)] * 3
#: the binomial's information about the strength difference (natural-log units) at the maximum,
#: n p (1 - p) = 10 * 0.7 * 0.3 = 2.1, so its variance is 1/2.1 = 1/7 + 1/3
SD_SEVEN_THREE = ELO_PER_NAT * math.sqrt(1 / 7 + 1 / 3)  # 119.8767 Elo


def test_expected_score_and_elo_difference_are_the_logistic_curve_and_its_inverse():
    assert expected_score(0) == 0.5
    assert expected_score(400) == pytest.approx(10 / 11)
    assert elo_difference(10 / 11) == pytest.approx(400)
    assert elo_difference(0.75) == pytest.approx(-400 * math.log10(1 / 3))  # 190.85
    assert (elo_difference(1.0), elo_difference(0.0)) == (math.inf, -math.inf)


def test_seven_wins_three_losses_is_147_elo_apart():
    fit = fit_elo(SEVEN_THREE, prior_draws=0)
    assert fit.difference("A", "B").elo == pytest.approx(-400 * math.log10(3 / 7))  # 147.19
    assert fit.difference("A", "B").elo == pytest.approx(147.1907, abs=1e-4)


def test_seven_three_interval_of_the_difference_is_from_the_binomial_information():
    diff = fit_elo(SEVEN_THREE, prior_draws=0).difference("A", "B")
    assert diff.sd == pytest.approx(SD_SEVEN_THREE, rel=1e-6)
    assert diff.sd == pytest.approx(119.8767, abs=1e-3)
    assert (diff.lower, diff.upper) == pytest.approx((147.1907 - Z95 * SD_SEVEN_THREE, 147.1907 + Z95 * SD_SEVEN_THREE))
    assert diff.upper - diff.elo == pytest.approx(234.954, abs=1e-3)


def test_mean_anchor_splits_the_difference_and_halves_each_interval():
    fit = fit_elo(SEVEN_THREE, prior_draws=0)
    a, b = fit["A"], fit["B"]
    assert (a.elo, b.elo) == pytest.approx((147.1907 / 2, -147.1907 / 2), abs=1e-4)
    assert a.error == pytest.approx(Z95 * SD_SEVEN_THREE / 2, rel=1e-6)  # A - mean = (A - B) / 2
    assert (a.games, a.points, b.games, b.points) == (10, 7.0, 10, 3.0)
    assert fit.ranking() == ["A", "B"]


def test_named_anchor_sits_at_its_elo_with_no_interval_and_the_other_carries_the_whole_difference():
    fit = fit_elo(SEVEN_THREE, prior_draws=0, anchor="B", anchor_elo=1500)
    assert (fit["B"].elo, fit["B"].lower, fit["B"].upper) == (1500, 1500, 1500)
    assert fit["A"].elo == pytest.approx(1647.1907, abs=1e-4)
    assert fit["A"].error == pytest.approx(Z95 * SD_SEVEN_THREE, rel=1e-6)


def test_confidence_sets_the_width_of_the_intervals():
    fit = fit_elo(SEVEN_THREE, prior_draws=0, confidence=0.5)
    assert fit.difference("A", "B").upper - 147.1907 == pytest.approx(0.6744898 * SD_SEVEN_THREE, rel=1e-6)


def test_los_of_seven_three_is_phi_of_log_odds_over_its_sd():
    fit = fit_elo(SEVEN_THREE, prior_draws=0)
    assert fit.los("A", "B") == pytest.approx(PHI(math.log(7 / 3) / math.sqrt(1 / 7 + 1 / 3)), rel=1e-6)
    assert fit.los("A", "B") == pytest.approx(0.89025, abs=1e-5)
    assert fit.los("B", "A") == pytest.approx(1 - 0.89025, abs=1e-5)


def test_neighbour_los_pairs_each_player_with_the_next_in_rank_order():
    games = SEVEN_THREE + [("B", "C", 1.0)] * 7 + [("B", "C", 0.0)] * 3
    fit = fit_elo(games, prior_draws=0)
    assert [(up, down) for up, down, _ in fit.neighbour_los()] == [("A", "B"), ("B", "C")]
    assert [los for _, _, los in fit.neighbour_los()] == pytest.approx([fit.los("A", "B"), fit.los("B", "C")])


def test_a_draw_counts_as_half_a_win_and_half_a_loss():
    with_draws = fit_elo([("A", "B", 1.0), ("A", "B", 0.5), ("A", "B", 0.5), ("A", "B", 0.0)], prior_draws=0)
    assert with_draws.difference("A", "B").elo == pytest.approx(0.0, abs=1e-9)
    three_quarters = fit_elo([("A", "B", 1.0), ("A", "B", 0.5)], prior_draws=0)
    assert three_quarters.difference("A", "B").elo == pytest.approx(400 * math.log10(3), abs=1e-6)  # 190.85


def test_at_the_maximum_each_players_expected_score_is_its_score():
    games = [
        ("A", "B", 1.0),
        ("A", "B", 0.0),
        ("B", "C", 1.0),
        ("B", "C", 0.5),
        ("C", "A", 1.0),
        ("A", "C", 1.0),
        ("A", "C", 0.5),
    ]
    fit = fit_elo(games, prior_draws=0)
    for player in "ABC":
        expected = sum(
            expected_score(fit[a].elo - fit[b].elo) if a == player else expected_score(fit[b].elo - fit[a].elo)
            for a, b, _ in games
            if player in (a, b)
        )
        assert expected == pytest.approx(fit[player].points, abs=1e-9)


def test_a_perfect_score_is_finite_under_one_virtual_draw():
    # A = t, B = -t by symmetry; A's likelihood equation: 10 (1 - p(2t)) + (1/2 - p(t)) = 0
    t_low, t_high = 0.0, 20.0
    for _ in range(200):
        t = (t_low + t_high) / 2
        slope = 10 * (1 - 1 / (1 + math.exp(-2 * t))) + 0.5 - 1 / (1 + math.exp(-t))
        t_low, t_high = (t, t_high) if slope > 0 else (t_low, t)
    fit = fit_elo([("A", "B", 1.0)] * 10)
    assert fit["A"].elo == pytest.approx(t * ELO_PER_NAT, abs=1e-6)
    assert fit["A"].elo == pytest.approx(290.2544, abs=1e-4)


def test_a_perfect_score_without_a_prior_is_an_error_naming_the_player():
    with pytest.raises(EloError, match=r"players A won every game against B, C: .*prior_draws > 0"):
        fit_elo([("A", "B", 1.0), ("A", "C", 1.0), ("B", "C", 0.5)], prior_draws=0)
    with pytest.raises(EloError, match=r"players A, B won every game against C: "):
        fit_elo([("A", "C", 1.0), ("B", "C", 1.0), ("A", "B", 0.5)], prior_draws=0)


def test_a_field_in_two_groups_that_never_met_is_an_error_without_a_prior():
    with pytest.raises(EloError, match=r"players A, B never met the others"):
        fit_elo([("A", "B", 0.5), ("C", "D", 0.5)], prior_draws=0)


def test_a_player_without_games_is_rated_by_the_prior_alone():
    fit = fit_elo(SEVEN_THREE, ["A", "B", "C"])
    assert fit["C"].games == 0
    assert fit.names == ("A", "B", "C")
    assert fit["C"].elo == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize(
    ("games", "message"),
    [
        ([("A", "A", 1.0)], "cannot play itself"),
        ([("A", "B", 2.0)], "not between 0 and 1"),
        ([("A", "B")], "a game is"),
        ([], "no players"),
    ],
)
def test_bad_games_are_errors_a_user_can_read(games, message):
    with pytest.raises(EloError, match=message):
        fit_elo(games)


def test_bad_settings_are_errors_a_user_can_read():
    with pytest.raises(EloError, match="the anchor 'Z' is not a player"):
        fit_elo(SEVEN_THREE, anchor="Z")
    with pytest.raises(EloError, match="confidence must be between 0 and 1"):
        fit_elo(SEVEN_THREE, confidence=1.0)
    with pytest.raises(EloError, match="prior_draws must be a number >= 0"):
        fit_elo(SEVEN_THREE, prior_draws=-1)
    assert issubclass(EloError, ArenaError)


def test_pentanomial_counts_each_pair_by_its_points():
    pairs = [(1, 1), (1, 0.5), (0.5, 0.5), (1, 0), (0, 0.5), (0.5, 1)]
    assert pentanomial(pairs) == (0, 1, 2, 2, 1)
    assert trinomial([1, 0.5, 0, 1]) == (1, 1, 2)


def test_pentanomial_statistics_of_a_small_hand_case():
    # pair means 1, 0.75, 0.5, 0.5, 0.25: mean 0.6, deviations 0.4 0.15 -0.1 -0.1 -0.35
    stats = pair_stats(pentanomial([(1, 1), (1, 0.5), (0.5, 0.5), (1, 0), (0, 0.5)]))
    assert stats.counts == (0, 1, 2, 1, 1)
    assert (stats.n, stats.score) == (5, pytest.approx(0.6))
    assert stats.variance == pytest.approx((0.16 + 0.0225 + 0.01 + 0.01 + 0.1225) / 5)  # 0.065
    assert stats.stderr == pytest.approx(math.sqrt(0.065 / 5))  # 0.11402
    assert stats.elo == pytest.approx(400 * math.log10(1.5))  # 70.44
    assert (stats.lower, stats.upper) == pytest.approx(
        (elo_difference(0.6 - Z95 * math.sqrt(0.013)), elo_difference(0.6 + Z95 * math.sqrt(0.013)))
    )
    assert stats.los == pytest.approx(PHI(0.1 / math.sqrt(0.013)))  # 0.8098


def test_trinomial_statistics_of_seven_wins_three_losses():
    stats = game_stats((3, 0, 7))
    assert (stats.score, stats.variance) == (pytest.approx(0.7), pytest.approx(0.21))
    assert stats.elo == pytest.approx(147.1907, abs=1e-4)
    assert stats.los == pytest.approx(PHI(0.2 / math.sqrt(0.021)))


def test_an_all_win_match_has_an_infinite_elo_and_certain_superiority():
    stats = pair_stats((0, 0, 0, 0, 4))
    assert (stats.score, stats.stderr, stats.elo, stats.los) == (1.0, 0.0, math.inf, 1.0)


def test_bad_counts_and_pairs_are_errors():
    with pytest.raises(EloError, match="five"):
        pair_stats((1, 2, 3))
    with pytest.raises(EloError, match="no games"):
        game_stats((0, 0, 0))
    with pytest.raises(EloError, match=r"each score is 0, 0\.5 or 1"):
        pentanomial([(0.25, 1)])


# ---------------------------------------------------------------- intervals that fit drawn games

#: a draw-heavy match (uct against flatmc): 4 wins, 35 draws, 1 loss
DRAWISH = [("A", "B", 1.0)] * 4 + [("A", "B", 0.5)] * 35 + [("A", "B", 0.0)]


def bootstrap_half_width(games: list, resamples: int = 2000) -> float:
    """The 95 % half width of the Elo difference A - B over ``resamples`` of ``games`` drawn with
    replacement, each refitted as the leaderboard fits (one virtual draw each)."""
    import random
    import statistics

    rng = random.Random(34)
    fits = [fit_elo([rng.choice(games) for _ in games]).difference("A", "B").elo for _ in range(resamples)]
    return Z95 * statistics.stdev(fits)


def test_a_draw_heavy_matchs_interval_is_the_bootstrap_s_not_three_times_it():
    # the binomial information took each game to vary as a win or a loss does: +26 +- 107, LOS 68 %
    # where a bootstrap gives +- 37 and `arena match` (pentanomial, as fishtest) +- 37, LOS 92 %
    fit = fit_elo(DRAWISH)
    diff = fit.difference("A", "B")
    half = (diff.upper - diff.lower) / 2
    assert half == pytest.approx(bootstrap_half_width(DRAWISH), rel=0.20)
    pairs = pentanomial([(1.0, 0.5)] * 4 + [(0.5, 0.5)] * 15 + [(0.5, 0.0)])
    assert half == pytest.approx(pair_stats(pairs).error, rel=0.10)
    assert half == pytest.approx(game_stats(trinomial([s for _, _, s in DRAWISH])).error, rel=0.10)
    assert fit.los("A", "B") == pytest.approx(0.90, abs=0.03)
    model = fit_elo(DRAWISH, spread="model").difference("A", "B")
    assert (model.upper - model.lower) / 2 > 2.5 * half  # what it was


def test_games_without_draws_keep_the_binomial_intervals():
    games = SEVEN_THREE + [("B", "C", 1.0)] * 4 + [("C", "B", 1.0)] * 2 + [("A", "C", 0.0)]
    drawn, model = fit_elo(games), fit_elo(games, spread="model")
    assert drawn.covariance == model.covariance


def test_draws_narrow_an_interval_three_times_at_most_and_other_fractions_not_at_all():
    # a field of draws only once gave intervals 30 times narrower than the binomial's
    round_robin = [(a, b, 0.5) for a, b in [("A", "B"), ("A", "C"), ("A", "D"), ("B", "C"), ("B", "D"), ("C", "D")]]
    cases = [([("A", "B", 0.5)], 0.0), ([("A", "B", 0.5)] * 40, 1.0), (round_robin, 1.0), (DRAWISH, 1.0)]
    for games, prior in cases:
        drawn = fit_elo(games, prior_draws=prior).difference("A", "B").sd
        model = fit_elo(games, prior_draws=prior, spread="model").difference("A", "B").sd
        assert model / 3 - 1e-9 <= drawn < model, games
    alternating = [("A", "B", 0.9), ("A", "B", 0.1)] * 10  # not draws: a game that is won or lost in part
    assert fit_elo(alternating).covariance == fit_elo(alternating, spread="model").covariance


def test_an_unknown_spread_is_an_error():
    with pytest.raises(EloError, match="spread must be 'draws' or 'model'"):
        fit_elo(SEVEN_THREE, spread="wide")
