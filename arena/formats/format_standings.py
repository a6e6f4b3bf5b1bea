"""The standings of a stage's pool by the stage's format: a round robin's course table
(arena/formats/standings.py), a Swiss's points with Buchholz, a knockout's bracket places, a gauntlet's
score shares and an adaptive stage's Elo. What each ranks by is ``RANKED_BY``; docs/formats.md
has the rules."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arena.formats import knockout
from arena.formats.rounds import Played, knockout_places, knockout_rounds, round_name, swiss_state
from arena.formats.stagedef import StageDef
from arena.formats.standings import GameResult, Standing, TieBreak, table, tie_break
from arena.stats.elo import fit_elo

#: what each format's standings rank by, in words
RANKED_BY = {
    "round_robin": "points, then wins, then the points between tied teams, then μ − 3σ",
    "swiss": "points (a bye scores as a win of each of its games), then Buchholz (the points of the "
    "opponents met), then wins, then μ − 3σ",
    "knockout": "how far they went in the bracket (the champion, the finalist, the semi-final losers, ...), then seed",
    "gauntlet": "their share of the points of their games, then points, then wins, then μ − 3σ",
    "adaptive": "Elo fitted to the stage's games (with its 95 % interval), then name",
}


@dataclass(slots=True)
class FormatStanding(Standing):
    """A team's line in a pool of a Swiss, knockout, gauntlet or adaptive stage: the course
    table's line and what the format ranks by besides."""

    #: Swiss: rounds the team sat out, each scored as a win of its games
    byes: int = 0
    #: Swiss: the points of the opponents the team met
    buchholz: float | None = None
    #: gauntlet: the team's share of the points of its games
    share: float | None = None
    #: adaptive: the fitted Elo and the half width of its 95 % interval
    elo: float | None = None
    elo_error: float | None = None
    #: knockout: ``champion``, the round the team went out in, or ``in`` the round it is in;
    #: the matches it won (a bye counts) and its seed (1 the top)
    reached: str | None = None
    matches_won: int | None = None
    seed: int | None = None
    #: the stage's format
    format: str = "round_robin"


def _extended(line: Standing) -> FormatStanding:
    """``line`` as a ``FormatStanding`` with no format figures yet."""
    values = {f.name: getattr(line, f.name) for f in dataclasses.fields(line)}
    return FormatStanding(**values)


def _ranked(lines: list[FormatStanding]) -> list[Standing]:
    for rank, line in enumerate(lines, 1):
        line.rank = rank
    return list(lines)


def format_table(
    stage: StageDef,
    teams: Sequence[str],
    results: Sequence[GameResult],
    played: Sequence[Played],
    ratings: Mapping[str, float],
    bye_points: float,
) -> list[Standing]:
    """The ranked standings of a pool of ``stage``: ``teams`` in seeding order, its finished
    games as ``results`` (for the course table) and as ``played`` (with their rounds), the
    tie-breaking ``ratings``, and what a Swiss bye scores. A round robin and a gauntlet rank by
    ``results`` alone (whose ``count`` says how many games alike each is)."""
    lines = table(teams, results, ratings)
    if stage.format == "round_robin":
        return lines
    extended = {line.team: _extended(line) for line in lines}
    for line in extended.values():
        line.format = stage.format
    if stage.format == "swiss":
        state = swiss_state(teams, played, bye_points)
        for team, line in extended.items():
            line.points = state.points[team]
            line.byes = state.byes[team]
        for team, line in extended.items():
            line.buchholz = sum(extended[opponent].points for opponent in state.opponents[team])
        order = sorted(extended.values(), key=lambda s: (-s.points, -(s.buchholz or 0.0), -s.wins, -s.rating, s.team))
        return _ranked(order)
    if stage.format == "knockout":
        rounds = knockout_rounds(teams, played, stage.games_per_pair)
        size = knockout(teams).size
        over = bool(rounds) and len(rounds[-1]) == 1 and rounds[-1][0].winner is not None  # the final is decided
        places = knockout_places(teams, rounds)
        out_in = {
            (m.low if m.winner == m.high else m.high): m.round
            for matches in rounds
            for m in matches
            if m.winner is not None and m.low is not None
        }
        current = round_name(len(rounds) - 1, size) if rounds else round_name(0, size)
        for team, line in extended.items():
            line.seed = teams.index(team) + 1
            if team in out_in:
                line.reached, line.matches_won = round_name(out_in[team], size), out_in[team]
            else:
                line.reached = "champion" if over else f"in {current}"
                line.matches_won = len(rounds) if over else max(len(rounds) - 1, 0)
        return _ranked([extended[team] for group in places for team in group])
    if stage.format == "gauntlet":
        against = dict.fromkeys(teams, 0.0)
        for game in results:
            if game.first in against and game.second in against:
                against[game.first] += game.points[1] * game.count
                against[game.second] += game.points[0] * game.count
        for team, line in extended.items():
            total = line.points + against[team]
            line.share = line.points / total if total > 0 else (0.5 if line.games else None)
        order = sorted(
            extended.values(),
            key=lambda s: (-(s.share if s.share is not None else -1.0), -s.points, -s.wins, -s.rating, s.team),
        )
        return _ranked(order)
    if not played:  # adaptive, before its first game
        return _ranked(list(extended.values()))
    fit = fit_elo([(game.first, game.second, game.score) for game in played], teams)
    for player in fit.players:
        extended[player.name].elo = player.elo
        extended[player.name].elo_error = player.error
    return _ranked([extended[name] for name in fit.ranking()])


def merge_key(stage: StageDef, line: Standing) -> tuple[float | str, ...]:
    """How teams from different pools of ``stage`` are ranked together (pools of a round robin or
    a Swiss; the other formats play in one pool)."""
    buchholz = line.buchholz if isinstance(line, FormatStanding) and line.buchholz is not None else 0.0
    if stage.format == "swiss":
        return (-line.points, -buchholz, -line.wins, -line.rating, line.team)
    return (-line.points, -line.wins, -line.rating, line.team)


def format_tie_break(upper: Standing, lower: Standing, *, same_pool: bool) -> TieBreak | None:
    """The tie-break that put ``upper`` above ``lower`` when both have as many points
    (``arena.formats.standings.tie_break``), told by the rule of their stage's format when they are lines
    of one pool of a Swiss (Buchholz), a knockout (matches won, then seed), a gauntlet (score
    share) or an adaptive stage (Elo); then wins, μ−3σ and name."""
    if not (same_pool and isinstance(upper, FormatStanding) and isinstance(lower, FormatStanding)):
        return tie_break(upper, lower, same_pool=same_pool)
    if upper.points != lower.points:
        return None
    if upper.format == "adaptive":  # ranked by the Elo fit alone, then name
        if upper.elo is not None and lower.elo is not None and upper.elo != lower.elo:
            return TieBreak("elo", upper.team, lower.team, (round(upper.elo, 1), round(lower.elo, 1)))
        return TieBreak("name", upper.team, lower.team, None)
    by_format: dict[str, list[tuple[str, float | None, float | None]]] = {
        "swiss": [("buchholz", upper.buchholz, lower.buchholz)],
        "knockout": [("matches_won", upper.matches_won, lower.matches_won), ("seed", upper.seed, lower.seed)],
    }
    shares = (upper.share, lower.share)
    if upper.format == "gauntlet" and shares[0] is not None and shares[1] is not None and shares[0] != shares[1]:
        return TieBreak("share", upper.team, lower.team, (_percent(shares[0]), _percent(shares[1])))
    for rule, high, low in by_format.get(upper.format, []):
        if high is not None and low is not None and high != low:
            return TieBreak(rule, upper.team, lower.team, (high, low))
    return tie_break(upper, lower, same_pool=False)


def _percent(share: float) -> float:
    return round(100 * share, 1)
