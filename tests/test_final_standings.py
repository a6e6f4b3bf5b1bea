"""Final standings: every team placed (the furthest stage it reached first, then its standing in
that stage), and each place that points left open says which tie-break decided it. The pools are
built here by hand from games and ratings chosen for each case."""

from __future__ import annotations

from arena.formats.stagedef import StageDef
from arena.formats.standings import GameResult, table
from arena.results.final_standings import final_standings, standings_csv
from arena.results.tables import PoolTable, StageTable


def won(first: str, second: str) -> tuple[str, str, int | None]:
    return (first, second, 0)


def drew(first: str, second: str) -> tuple[str, str, int | None]:
    return (first, second, None)


def pool(games: list[tuple[str, str, int | None]], ratings: dict[str, float], number: int = 0) -> PoolTable:
    """The table of a pool whose teams are the keys of ``ratings`` and whose games are ``games``
    (1 a win, ½ each for a draw), as the pool ``number`` of a stage."""
    results = [
        GameResult(i, (a, b), w, (0.5, 0.5) if w is None else (1.0, 0.0), "normal", None)
        for i, (a, b, w) in enumerate(games, 1)
    ]
    lines = table(list(ratings), results, ratings)
    return PoolTable(0, number, lines, frozenset(), len(games), len(games))


def stage(number: int, name: str, *pools: PoolTable) -> StageTable:
    for p in pools:
        p.stage = number
    games = sum(p.planned for p in pools)
    return StageTable(number, StageDef(name=name, pools=len(pools)), list(pools), games, games)


def placed(stages: list[StageTable]) -> list[tuple[int, str, str, str]]:
    """(place, team, stage, tie-break text) of each place."""
    return [(p.place, p.team, p.stage_name, p.tie_break_text) for p in final_standings(stages)]


# ---------------------------------------------------------------- one pool


def test_a_bronze_decided_on_the_rating_says_so_on_both_places():
    # A beats everyone, B beats C and D; C and D draw: level on points, wins and head-to-head
    final = pool(
        [won("A", "B"), won("A", "C"), won("A", "D"), won("B", "C"), won("B", "D"), drew("C", "D")],
        {"A": 40.0, "B": 36.0, "C": 34.2213, "D": 34.0612},
    )
    assert placed([stage(0, "final", final)]) == [
        (1, "A", "final", ""),
        (2, "B", "final", ""),
        (3, "C", "final", "over D: TrueSkill μ−3σ 34.22 vs 34.06"),
        (4, "D", "final", "behind C: TrueSkill μ−3σ 34.06 vs 34.22"),
    ]


def test_places_decided_by_the_games_between_tied_teams_say_so_though_the_ratings_say_otherwise():
    # A and D win 2 each, A beating D; B and C win 1 each, B beating C
    games = [won("A", "B"), won("C", "A"), won("A", "D"), won("B", "C"), won("D", "B"), won("D", "C")]
    final = pool(games, {"A": 20.0, "B": 20.0, "C": 30.0, "D": 30.0})
    assert placed([stage(0, "league", final)]) == [
        (1, "A", "league", "over D: head-to-head points 1 vs 0"),
        (2, "D", "league", "behind A: head-to-head points 0 vs 1"),
        (3, "B", "league", "over C: head-to-head points 1 vs 0"),
        (4, "C", "league", "behind B: head-to-head points 0 vs 1"),
    ]


def test_a_place_between_two_ties_names_both():
    # X, Y and Z score 2 each: X with two wins over S, Y and Z with a win over X and two draws
    # between them, so X is ahead on wins and Y over Z on the rating alone
    games = [won("X", "S"), won("X", "S"), won("Y", "X"), won("Z", "X"), drew("Y", "Z"), drew("Z", "Y")]
    league = pool(games, {"S": 30.0, "X": 20.0, "Y": 26.0, "Z": 24.0})
    assert placed([stage(0, "league", league)]) == [
        (1, "X", "league", "over Y: wins 2 vs 1"),
        (2, "Y", "league", "behind X: wins 1 vs 2; over Z: TrueSkill μ−3σ 26.00 vs 24.00"),
        (3, "Z", "league", "behind Y: TrueSkill μ−3σ 24.00 vs 26.00"),
        (4, "S", "league", ""),
    ]


# ---------------------------------------------------------------- several stages


def two_stages() -> list[StageTable]:
    """Group: pool A (W beats X beats Y; W beats Y) and pool B (P beats Q, Q beats R, P and R
    draw); W and P go on to a final that P wins."""
    group_a = pool([won("W", "X"), won("X", "Y"), won("W", "Y")], {"W": 30.0, "X": 25.0, "Y": 20.0}, 0)
    group_b = pool([won("P", "Q"), won("Q", "R"), drew("P", "R")], {"P": 28.0, "Q": 26.0, "R": 21.0}, 1)
    final = pool([won("P", "W")], {"W": 30.0, "P": 28.0})
    return [stage(0, "group", group_a, group_b), stage(1, "final", final)]


def test_teams_eliminated_earlier_come_after_the_finalists_by_their_rank_in_their_pool():
    places = final_standings(two_stages())
    assert [(p.place, p.team, p.stage_name, p.pool_name, p.line.rank, p.line.points) for p in places] == [
        (1, "P", "final", "A", 1, 1.0),
        (2, "W", "final", "A", 2, 0.0),
        (3, "Q", "group", "B", 2, 1.0),  # second in pool B, level with X, second in pool A
        (4, "X", "group", "A", 2, 1.0),
        (5, "R", "group", "B", 3, 0.5),  # third in pool B, ahead of Y, third in pool A, on points
        (6, "Y", "group", "A", 3, 0.0),
    ]
    assert [p.tie_break_text for p in places] == [
        "",
        "",
        "over X: TrueSkill μ−3σ 26.00 vs 25.00",
        "behind Q: TrueSkill μ−3σ 25.00 vs 26.00",
        "",
        "",
    ]


def test_a_better_pool_rank_comes_first_whatever_the_points():
    # pool A: M beats N; pool B, twice the size: K beats all, L beats J and I, J beats I
    group_a = pool([won("M", "N")], {"M": 20.0, "N": 20.0}, 0)
    games_b = [won("K", "L"), won("K", "J"), won("K", "I"), won("L", "J"), won("L", "I"), won("J", "I")]
    group_b = pool(games_b, {"K": 30.0, "L": 29.0, "J": 21.0, "I": 20.0}, 1)
    places = final_standings([stage(0, "group", group_a, group_b)])
    assert [(p.place, p.team, p.pool_name, p.line.rank, p.line.points, p.tie_break_text) for p in places] == [
        (1, "K", "B", 1, 3.0, ""),
        (2, "M", "A", 1, 1.0, ""),
        (3, "L", "B", 2, 2.0, ""),  # more points than M, but second in its pool
        (4, "N", "A", 2, 0.0, ""),
        (5, "J", "B", 3, 1.0, ""),
        (6, "I", "B", 4, 0.0, ""),
    ]


def test_a_tie_across_pools_goes_by_wins_then_the_rating_then_the_name():
    # the winners of pools A and B score 1 with a win each; E wins pool C with two draws, over F
    # on the rating; B and D lose their only game
    group_a = pool([won("A", "B")], {"A": 22.0, "B": 20.0}, 0)
    group_b = pool([won("C", "D")], {"C": 24.0, "D": 20.0}, 1)
    group_c = pool([drew("E", "F"), drew("F", "E")], {"E": 30.0, "F": 19.0}, 2)
    assert placed([stage(0, "group", group_a, group_b, group_c)]) == [
        (1, "C", "group", "over A: TrueSkill μ−3σ 24.00 vs 22.00"),
        (2, "A", "group", "behind C: TrueSkill μ−3σ 22.00 vs 24.00; over E: wins 1 vs 0"),
        (3, "E", "group", "behind A: wins 0 vs 1; over F: TrueSkill μ−3σ 30.00 vs 19.00"),
        (4, "F", "group", "behind E: TrueSkill μ−3σ 19.00 vs 30.00"),
        (5, "B", "group", "over D: name, all else equal"),
        (6, "D", "group", "behind B: name, all else equal"),
    ]


def test_a_pool_rank_a_tie_break_decided_is_named_though_other_teams_are_placed_between():
    # G and H draw and both beat Z: G first in pool A on the rating; K wins pool B on fewer points
    group_a = pool([drew("G", "H"), won("G", "Z"), won("H", "Z")], {"G": 30.0, "H": 20.0, "Z": 20.0}, 0)
    group_b = pool([won("K", "L")], {"K": 25.0, "L": 20.0}, 1)
    assert placed([stage(0, "group", group_a, group_b)]) == [
        (1, "G", "group", "over H: TrueSkill μ−3σ 30.00 vs 20.00"),
        (2, "K", "group", ""),
        (3, "H", "group", "behind G: TrueSkill μ−3σ 20.00 vs 30.00"),
        (4, "L", "group", ""),
        (5, "Z", "group", ""),
    ]


def test_a_team_out_on_a_tie_break_names_the_team_that_went_on():
    # W and X draw and both beat Y; W goes on from pool A on the rating, and loses the final to P
    group_a = pool([drew("W", "X"), won("W", "Y"), won("X", "Y")], {"W": 30.0, "X": 25.0, "Y": 20.0}, 0)
    group_b = pool([won("P", "Q")], {"P": 28.0, "Q": 20.0}, 1)
    final = pool([won("P", "W")], {"W": 30.0, "P": 28.0})
    assert placed([stage(0, "group", group_a, group_b), stage(1, "final", final)]) == [
        (1, "P", "final", ""),
        (2, "W", "final", ""),  # its place is the final's
        (3, "X", "group", "behind W: TrueSkill μ−3σ 25.00 vs 30.00"),
        (4, "Q", "group", ""),
        (5, "Y", "group", ""),
    ]


def test_the_csv_has_a_header_row_and_a_row_a_team():
    assert standings_csv(final_standings(two_stages())) == (
        "place,team,stage,pool,pool_rank,points,games,wins,draws,losses,forfeits,forfeit_kinds,rating,tie_break\n"
        "1,P,final,A,1,1,1,1,0,0,0,,28.0000,\n"
        "2,W,final,A,2,0,1,0,0,1,0,,30.0000,\n"
        "3,Q,group,B,2,1,2,1,0,1,0,,26.0000,over X: TrueSkill μ−3σ 26.00 vs 25.00\n"
        "4,X,group,A,2,1,2,1,0,1,0,,25.0000,behind Q: TrueSkill μ−3σ 25.00 vs 26.00\n"
        "5,R,group,B,3,0.5,2,0,1,1,0,,21.0000,\n"
        "6,Y,group,A,3,0,2,0,0,2,0,,20.0000,\n"
    )
