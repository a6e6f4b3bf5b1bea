"""The tie-breaks of a table, named: for two teams level on points, which rule put one above the
other, and each team's value under it, as the standings show them."""

from __future__ import annotations

from arena.formats.standings import GameResult, Standing, TieBreak, table, tie_break


def line(team: str, points: float, wins: int, rating: float, head_to_head: float | None = None) -> Standing:
    return Standing(team, points=points, wins=wins, rating=rating, head_to_head=head_to_head)


def test_teams_apart_on_points_need_no_tie_break():
    assert tie_break(line("A", 3.0, 3, 20.0), line("B", 2.5, 2, 30.0), same_pool=True) is None


def test_a_tie_broken_by_wins_gives_each_teams_wins():
    decided = tie_break(line("A", 2.0, 2, 20.0), line("B", 2.0, 1, 30.0), same_pool=True)
    assert decided == TieBreak("wins", "A", "B", (2, 1))
    assert (decided.describe("A"), decided.describe("B")) == ("over B: wins 2 vs 1", "behind A: wins 1 vs 2")


def test_a_tie_broken_by_the_games_between_the_tied_teams_gives_their_points():
    decided = tie_break(line("A", 2.0, 2, 20.0, 1.5), line("B", 2.0, 2, 30.0, 0.5), same_pool=True)
    assert decided == TieBreak("head_to_head", "A", "B", (1.5, 0.5))
    assert decided.describe("A") == "over B: head-to-head points 1.5 vs 0.5"


def test_a_tie_broken_by_the_rating_gives_both_ratings():
    decided = tie_break(line("Team3", 86.0, 1, 34.2213, 43.0), line("Team4", 86.0, 1, 34.0612, 43.0), same_pool=True)
    assert decided == TieBreak("rating", "Team3", "Team4", (34.2213, 34.0612))
    assert decided.describe("Team3") == "over Team4: TrueSkill μ−3σ 34.22 vs 34.06"
    assert decided.describe("Team4") == "behind Team3: TrueSkill μ−3σ 34.06 vs 34.22"


def test_ratings_equal_to_two_decimals_are_shown_to_the_decimal_that_tells_them_apart():
    decided = tie_break(line("A", 1.0, 1, 34.22118, 0.0), line("B", 1.0, 1, 34.22094, 0.0), same_pool=True)
    assert decided is not None and decided.describe("A") == "over B: TrueSkill μ−3σ 34.2212 vs 34.2209"


def test_a_tie_nothing_else_breaks_goes_by_name():
    decided = tie_break(line("A", 1.0, 1, 25.0, 0.5), line("B", 1.0, 1, 25.0, 0.5), same_pool=True)
    assert decided == TieBreak("name", "A", "B", None)
    assert (decided.describe("A"), decided.describe("B")) == (
        "over B: name, all else equal",
        "behind A: name, all else equal",
    )


def test_teams_of_different_pools_are_not_compared_on_the_games_between_tied_teams():
    decided = tie_break(line("A", 2.0, 2, 30.0, 0.0), line("B", 2.0, 2, 20.0, 2.0), same_pool=False)
    assert decided == TieBreak("rating", "A", "B", (30.0, 20.0))


def test_a_table_keeps_on_each_tied_line_its_points_against_the_teams_level_with_it():
    # E beats everyone; A and B win 2 each, A beating B; C and D win 1 each, D beating C
    winners = {("A", "B"): "A", ("A", "D"): "A", ("C", "A"): "C", ("B", "C"): "B", ("B", "D"): "B", ("D", "C"): "D"}
    winners |= {("E", team): "E" for team in "ABCD"}
    games = [
        GameResult(i, (a, b), 0 if w == a else 1, (1.0, 0.0) if w == a else (0.0, 1.0), "normal", None)
        for i, ((a, b), w) in enumerate(winners.items(), 1)
    ]
    lines = table("ABCDE", games, dict.fromkeys("ABCDE", 25.0))
    assert [(s.team, s.wins, s.head_to_head) for s in lines] == [
        ("E", 4, None),
        ("A", 2, 1.0),
        ("B", 2, 0.0),
        ("D", 1, 1.0),
        ("C", 1, 0.0),
    ]
