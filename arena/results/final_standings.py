"""A tournament's final standings: every team's place, and for each place that points left open,
the tie-break that decided it.

How places are decided (README, "How places are decided"): a team that reached a later stage (was
drawn into it) is placed above every team eliminated before it. Among the teams whose furthest
stage is the same, a better rank in its pool of that stage comes first; teams of equal pool rank
in different pools go by points, then wins, then TrueSkill μ−3σ, then name. Inside a pool the
pool's own order holds (``arena.formats.standings.table``: points, wins, the points of the games between
the tied teams, μ−3σ, name; a Swiss's, knockout's, gauntlet's or adaptive stage's by its format,
``arena.formats.format_standings``, whose tie-breaks it names), so the standings never contradict a
pool's table. Until the
tournament is complete they are provisional: a team's stage is the furthest it has reached so far.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from typing import Any

from arena.core.text import printable, spreadsheet_text
from arena.formats.format_standings import format_tie_break as tie_break
from arena.formats.standings import Standing, TieBreak
from arena.results.lookup import pool_name
from arena.results.tables import PoolTable, StageTable

#: the columns of ``standings_csv``, in order
CSV_COLUMNS = (
    "place",
    "team",
    "stage",
    "pool",
    "pool_rank",
    "points",
    "games",
    "wins",
    "draws",
    "losses",
    "forfeits",
    "forfeit_kinds",
    "rating",
    "tie_break",
)


@dataclass(slots=True)
class Place:
    """One team's place: the furthest stage it reached, its line in its pool of that stage (points,
    W/D/L and forfeits in that stage; its μ−3σ over every game) and the tie-breaks that decided its
    place (``final_standings`` says which), those it lost first."""

    place: int
    stage: int
    stage_name: str
    pool: int
    line: Standing
    tie_breaks: list[TieBreak] = field(default_factory=list)

    @property
    def team(self) -> str:
        """The team's name."""
        return self.line.team

    @property
    def pool_name(self) -> str:
        """The letter of the team's pool in the stage it reached."""
        return pool_name(self.pool)

    @property
    def tie_break_text(self) -> str:
        """The tie-breaks that decided the place, from the team's side (empty when none did), e.g.
        ``over Beta: TrueSkill μ−3σ 34.22 vs 34.06``."""
        return "; ".join(t.describe(self.team) for t in self.tie_breaks)

    def to_dict(self) -> dict[str, Any]:
        """The place as JSON-ready data."""
        line = self.line
        return {
            "place": self.place,
            "team": self.team,
            "stage": self.stage_name,
            "pool": self.pool_name,
            "pool_rank": line.rank,
            "points": line.points,
            "games": line.games,
            "wins": line.wins,
            "draws": line.draws,
            "losses": line.losses,
            "forfeits": dict(sorted(line.forfeits.items())),
            "rating": round(line.rating, 4),
            "tie_breaks": [
                {
                    "rule": t.rule,
                    "won": t.winner == self.team,
                    "against": t.loser if t.winner == self.team else t.winner,
                    "values": None if t.values is None else list(t.values if t.winner == self.team else t.values[::-1]),
                    "text": t.describe(self.team),
                }
                for t in self.tie_breaks
            ],
        }


def final_standings(stages: list[StageTable]) -> list[Place]:
    """Every team drawn into a pool, placed by the rule of the module docstring, each with the
    tie-breaks that decided its place: against the teams ranked just above and just below it in
    its pool, and against the teams of the same pool rank placed just above and just below it
    from other pools, wherever their points are level."""
    reached: dict[str, tuple[StageTable, PoolTable, Standing]] = {}
    for stage in stages:  # in stage order: a later stage overrides an earlier one
        for pool in stage.pools:
            for line in pool.lines:
                reached[line.team] = (stage, pool, line)
    places: list[Place] = []
    for stage in reversed(stages):
        group = [(pool, line) for s, pool, line in reached.values() if s is stage]
        group.sort(key=lambda entry: (entry[1].rank, -entry[1].points, -entry[1].wins, -entry[1].rating, entry[1].team))
        placed = [
            Place(len(places) + i, stage.number, stage.name, pool.pool, line) for i, (pool, line) in enumerate(group, 1)
        ]
        across: dict[str, tuple[TieBreak | None, TieBreak | None]] = {}
        for rank in sorted({p.line.rank for p in placed}):
            level = [p.line for p in placed if p.line.rank == rank]  # one a pool, in place order
            for i, line in enumerate(level):
                above = tie_break(level[i - 1], line, same_pool=False) if i else None
                below = tie_break(line, level[i + 1], same_pool=False) if i + 1 < len(level) else None
                across[line.team] = (above, below)
        for place, (pool, line) in zip(placed, group, strict=True):
            index = line.rank - 1  # the pool's lines are in rank order
            above = tie_break(pool.lines[index - 1], line, same_pool=True) if index else None
            below = tie_break(line, pool.lines[index + 1], same_pool=True) if index + 1 < len(pool.lines) else None
            ordered = (above, across[line.team][0], across[line.team][1], below)
            place.tie_breaks = [decided for decided in ordered if decided is not None]
        places += placed
    return places


def standings_csv(places: list[Place]) -> str:
    """The standings as CSV for a spreadsheet: a header row (``CSV_COLUMNS``), then one row a
    team. Text is shown as ``printable`` shows it and cannot start a formula
    (``spreadsheet_text``); numbers are plain numbers."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for p in places:
        line = p.line
        writer.writerow(
            [
                p.place,
                spreadsheet_text(printable(p.team)),
                spreadsheet_text(printable(p.stage_name)),
                p.pool_name,
                line.rank,
                _number(line.points),
                line.games,
                line.wins,
                line.draws,
                line.losses,
                sum(line.forfeits.values()),
                spreadsheet_text(printable(forfeit_text(line.forfeits))),
                f"{line.rating:.4f}",
                spreadsheet_text(printable(p.tie_break_text)),
            ]
        )
    return buffer.getvalue()


def forfeit_text(forfeits: dict[str, int]) -> str:
    """Forfeits by kind as words, e.g. ``crash 1, timeout 2`` (empty when none)."""
    return ", ".join(f"{kind.replace('_', ' ')} {count}" for kind, count in sorted(forfeits.items()))


def _number(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"
