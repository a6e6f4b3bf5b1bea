"""``arena leaderboard``: the ratings of a tournament's teams (TrueSkill or OpenSkill, with each
team's Elo), the Elo fit alone (``--rating elo``), or a stage's pools by its format (round robin,
Swiss, knockout with its bracket, gauntlet, adaptive)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from arena.commands.common import DEFAULT_DB, Db, Json, out, print_json, sessions
from arena.commands.results import (
    TournamentName,
    number_text,
    print_title,
    seats_note,
    standings_command,
    tournament_header,
)
from arena.core.text import printable
from arena.errors import ArenaError

if TYPE_CHECKING:
    from arena.formats.rounds import Match
    from arena.formats.standings import Standing
    from arena.results.tables import EloTable, StageTable
    from arena.results.tournament_results import Results

app = typer.Typer()


def _ms(value: float | None) -> str:
    return "" if value is None else f"{value:.1f}"


def pick_stage(found: Results, stage: str) -> int:
    """The stage called ``stage`` (its name, or its number from 0)."""
    names = [s.name for s in found.stages]
    if stage in names:
        return names.index(stage)
    if stage.isascii() and stage.isdigit() and int(stage) < len(names):
        return int(stage)
    raise ArenaError(
        f"tournament {found.tournament.name!r} has no stage {stage!r}; its stages: "
        + ", ".join(f"{i} {n}" for i, n in enumerate(names))
    )


def pick_pool(stage: StageTable, pool: str) -> int:
    """The pool called ``pool`` in ``stage``: its letter (A, B, ...) or its number from 0."""
    names = [p.name for p in stage.pools]
    if not names:
        raise ArenaError(f"stage {stage.name!r} has not started: its pools are not drawn yet")
    if pool.upper() in names:
        return names.index(pool.upper())
    if pool.isascii() and pool.isdigit() and int(pool) < len(names):
        return int(pool)
    raise ArenaError(
        f"stage {stage.name!r} has no pool {pool!r}; its pools: {', '.join(names)} (or 0-{len(names) - 1})"
    )


@app.command()
def leaderboard(
    tournament: TournamentName = None,
    stage: Annotated[
        str | None, typer.Option("--stage", "-s", help="A stage's pool standings (name or number from 0).")
    ] = None,
    pool: Annotated[
        str | None, typer.Option("--pool", "-p", help="Only this pool of the stage (A, B, ... or number from 0).")
    ] = None,
    rating: Annotated[
        str | None,
        typer.Option(
            "--rating",
            "-r",
            help="elo: rank by an Elo fit with 95 % intervals (of the --stage's games, or all); "
            "default: the tournament's rating system (trueskill or openskill).",
        ),
    ] = None,
    db: Db = DEFAULT_DB,
    as_json: Json = False,
) -> None:
    """The leaderboard by the tournament's rating (TrueSkill or OpenSkill μ − 3σ) with each
    team's Elo, by Elo (--rating elo), or a stage's pool standings with the course tie-breaks."""
    from arena.results.final_standings import forfeit_text
    from arena.results.lookup import find_tournament
    from arena.results.tournament_results import describe_status, load_results

    if pool is not None and stage is None:
        raise ArenaError("--pool needs --stage: give the stage too, e.g. --stage group --pool A")
    with sessions(db, read_only=True).begin() as session:
        found = load_results(session, find_tournament(session, tournament), games=False)
    system = found.rating_system.name
    if rating is not None and rating not in ("elo", system):
        raise ArenaError(
            f"--rating {rating!r}: tournament {found.tournament.name!r} is rated by {system} (its file's "
            f"rating.system); choose {system} or elo"
        )
    if rating == "elo" and pool is not None:
        raise ArenaError("--rating elo rates a whole stage, not a pool: leave --pool out")
    note = describe_status(found)
    header = tournament_header(found)
    if rating == "elo":
        _print_elo(found, header, note, None if stage is None else found.stages[pick_stage(found, stage)], as_json)
        return
    if stage is None:
        _print_leaderboard(found, header, note, as_json)
        return
    number = pick_stage(found, stage)
    chosen = found.stages[number]
    pools = chosen.pools if pool is None else [chosen.pools[pick_pool(chosen, pool)]]
    if as_json:
        print_json(
            {
                **header,
                "stage": chosen.name,
                "stage_status": chosen.status,
                "format": chosen.format,
                "ranked_by": chosen.ranked_by,
                **({"rounds_played": chosen.rounds} if chosen.format in ROUND_BY_ROUND else {}),
                "pools": [
                    {
                        "pool": p.name,
                        "standings": [{**_standing(s), "advanced": s.team in p.advanced} for s in p.lines],
                    }
                    for p in pools
                ],
                **({"bracket": _bracket_json(chosen)} if chosen.format == "knockout" else {}),
            }
        )
        return
    print_title(found, note, f"stage {chosen.name} ({chosen.summary}; {chosen.status})")
    if not pools:
        out().print(
            f"Stage {printable(chosen.name)!r} has not started: its pools are drawn when the stage before it ends.",
            markup=False,
        )
    lead, after = FORMAT_COLUMNS.get(chosen.format, ((), ()))
    for p in pools:
        table = Table(
            "#",
            "team",
            *(header for header, _ in lead),
            "points",
            *(header for header, _ in after),
            "games",
            "W",
            "D",
            "L",
            "forfeits",
            "μ−3σ",
            "",
            title=f"pool {p.name}: {p.finished}/{p.planned} games",
            title_justify="left",
        )
        for s in p.lines:
            table.add_row(
                str(s.rank),
                escape(printable(s.team)),
                *(escape(cell(s)) for _, cell in lead),
                number_text(s.points),
                *(escape(cell(s)) for _, cell in after),
                str(s.games),
                str(s.wins),
                str(s.draws),
                str(s.losses),
                forfeit_text(s.forfeits),
                f"{s.rating:.2f}",
                "[green]advanced[/]" if s.team in p.advanced else "",
            )
        out().print(table)
    if pools:
        out().print(f"[dim]Ranked by {escape(chosen.ranked_by)}.[/]", highlight=False)
    if chosen.bracket:
        from arena.formats.rounds import MAX_EXTRA

        _print_bracket(chosen, MAX_EXTRA)


#: the formats planned round by round
ROUND_BY_ROUND = ("swiss", "knockout", "adaptive")


def _figure(value: float | None, form: str = "{:g}") -> str:
    return "" if value is None else form.format(value)


Column = tuple[str, Callable[[Any], str]]
#: each format's columns beyond the course table's, (header, the cell of a line): those before
#: the points, and those after them
FORMAT_COLUMNS: dict[str, tuple[tuple[Column, ...], tuple[Column, ...]]] = {
    "swiss": ((), (("Buchholz", lambda s: _figure(s.buchholz)), ("byes", lambda s: str(s.byes)))),
    "knockout": ((("reached", lambda s: s.reached or ""),), ()),
    "gauntlet": ((("score", lambda s: _figure(None if s.share is None else 100 * s.share, "{:.1f} %")),), ()),
    "adaptive": ((("Elo", lambda s: _figure(s.elo, "{:.0f}")), ("±", lambda s: _figure(s.elo_error, "{:.0f}"))), ()),
}


def _standing(line: Standing) -> dict[str, Any]:
    """A line of a stage's standings as JSON-ready data (with its format's figures)."""
    data: dict[str, Any] = {
        "rank": line.rank,
        "team": line.team,
        "points": line.points,
        "games": line.games,
        "wins": line.wins,
        "draws": line.draws,
        "losses": line.losses,
        "forfeits": dict(line.forfeits),
        "rating": round(line.rating, 4),
    }
    from arena.formats.format_standings import FormatStanding

    if isinstance(line, FormatStanding):
        data.update(
            byes=line.byes,
            buchholz=line.buchholz,
            share=None if line.share is None else round(line.share, 4),
            elo=None if line.elo is None else round(line.elo, 1),
            elo_error=None if line.elo_error is None else round(line.elo_error, 1),
            reached=line.reached,
        )
    return data


def _bracket_json(stage: StageTable) -> list[dict[str, Any]]:
    return [
        {
            "round": number + 1,
            "name": stage.round_name(number),
            "matches": [
                {
                    "high": m.high,
                    "low": m.low,
                    "points": list(m.points),
                    "games": len(m.scores),
                    "winner": m.winner,
                    "by_seed": m.by_seed,
                }
                for m in matches
            ],
        }
        for number, matches in enumerate(stage.bracket)
    ]


def match_text(match: Match) -> str:
    """A knockout match in one line: ``A 1½–½ B`` (the winner marked ``*``), ``A (bye)``, or
    ``A – B`` before its games; ``, by seed`` when the final tie-break decided it."""
    if match.low is None:
        return f"{match.high} (bye)"
    high, low = (f"{name}*" if match.winner == name else name for name in (match.high, match.low))
    if not match.scores:
        return f"{high} – {low}"
    ours, theirs = match.points
    return f"{high} {number_text(ours)}–{number_text(theirs)} {low}" + (", by seed" if match.by_seed else "")


def _print_bracket(stage: StageTable, max_extra: int) -> None:
    names = [stage.round_name(number) for number in range(len(stage.bracket))]
    table = Table(*names, title="bracket", title_justify="left")
    for row in range(len(stage.bracket[0])):
        cells = [match_text(matches[row]) if row < len(matches) else "" for matches in stage.bracket]
        table.add_row(*(escape(printable(cell)) for cell in cells))
    out().print(table)
    out().print(
        "[dim]* went through; a drawn match plays colour-swapped pairs of extra games, at most "
        f"{max_extra}, then the higher seed goes through.[/]",
        highlight=False,
    )


def _elo_interval(elo: float | None, upper: float | None) -> str:
    from arena.results.figures import signed_elo

    return "" if elo is None or upper is None else f"{signed_elo(elo)} ± {upper - elo:.0f}"


def _percent(value: float | None) -> str:
    return "" if value is None else f"{100 * value:.1f} %"


def _print_leaderboard(found: Results, header: dict[str, Any], note: str | None, as_json: bool) -> None:
    from arena.results.final_standings import forfeit_text

    system = found.rating_system
    if as_json:
        print_json(
            {
                **header,
                "note": note,
                "rating_system": system.name,
                "ranked_by": system.label,
                "rating": {s.name: s.value for s in found.rating_settings},
                "elo": found.elo.settings(),
                "leaderboard": [line.to_dict() for line in found.leaderboard],
            }
        )
        return
    print_title(found, note, f"leaderboard by {system.label}")
    course = found.shows_game_points  # the points the game itself reports: xtreme's course points, or its returns
    game_points = course and found.points_kind == "game"
    bots = _bot_column(found.leaderboard)
    columns = ["#", "team", *(["bot"] if bots else []), "μ−3σ", "μ", "σ", "Elo ± 95 %", "games", "W-D-L", "points"]
    columns += [f"{found.points_kind} pts"] if course else []
    table = Table(*columns, "forfeits", "mean ms", "max ms")
    for column in table.columns:
        if column.header not in ("team", "bot", "forfeits"):
            column.justify = "right"
    for line in found.leaderboard:
        row = [
            str(line.rank),
            escape(printable(line.team)),
            *([escape(printable(line.bot))] if bots else []),
            f"{line.conservative:.2f}",
            f"{line.mu:.2f}",
            f"{line.sigma:.2f}",
            _elo_interval(line.elo, line.elo_upper),
            str(line.games),
            f"{line.wins}-{line.draws}-{line.losses}",
            number_text(line.points),
        ]
        row += [number_text(line.course_points or 0)] if course else []
        table.add_row(*row, forfeit_text(line.forfeits), _ms(line.mean_ms), _ms(line.max_ms))
    out().print(table)
    settings = ", ".join(
        f"{s.symbol} {s.value:g}" + ("" if s.source == "default" else " (set)") for s in found.rating_settings
    )
    out().print(
        f"[dim]{system.title}: {settings}; Elo: fitted to the {found.elo.games} finished games (see --rating elo); "
        f"points: {escape(printable(found.config.scoring))} scoring{escape(seats_note(found))}"
        + ("; game pts: the points the game itself gave the team (its returns), summed" if game_points else "")
        + "[/]",
        highlight=False,
    )
    out().print(
        f"[dim]ranked by {system.title} μ−3σ over every game, not by points; the final standings: "
        f"{escape(printable(standings_command(found.tournament.name)))}[/]",
        highlight=False,
    )


def _bot_column(lines: Sequence[Any]) -> bool:
    """Whether a table of ``lines`` shows each team's bot: not when every team is named as its
    bot (a course's teams), where the column would only repeat the team's name."""
    return any(line.bot != line.team for line in lines)


def _print_elo(
    found: Results, header: dict[str, Any], note: str | None, stage: StageTable | None, as_json: bool
) -> None:
    from arena.results.figures import signed_elo

    if stage is not None and not stage.pools:
        table: EloTable | None = None
    else:
        table = found.elo if stage is None else found.stage_elo(stage)
    if as_json:
        print_json(
            {
                **header,
                "note": note,
                "rating_system": "elo",
                "ranked_by": "Elo",
                "stage": None if stage is None else stage.name,
                "elo": None if table is None else table.settings(),
                "leaderboard": [] if table is None else [line.to_dict() for line in table.lines],
            }
        )
        return
    where = "all stages" if stage is None else f"stage {stage.name} ({stage.status})"
    print_title(found, note, f"leaderboard by Elo, {where}")
    if table is None:
        assert stage is not None
        out().print(
            f"Stage {printable(stage.name)!r} has not started: its pools are drawn when the stage before it ends.",
            markup=False,
        )
        return
    bots = _bot_column(table.lines)
    grid = Table("#", "team", *(["bot"] if bots else []), "Elo", "± 95 %", "games", "W-D-L", "score", "LOS next")
    for column in grid.columns:
        if column.header not in ("team", "bot"):
            column.justify = "right"
    for line in table.lines:
        grid.add_row(
            str(line.rank),
            escape(printable(line.team)),
            *([escape(printable(line.bot))] if bots else []),
            signed_elo(line.elo),
            f"{line.error:.0f}",
            str(line.games),
            f"{line.wins}-{line.draws}-{line.losses}",
            _percent(line.score),
            _percent(line.los_next),
        )
    out().print(grid)
    seats = found.seat_count
    tables = (
        f", each game of {seats} seats as games of two between every two of its seats (games and W-D-L count "
        "those: ahead, level or behind)"
        if seats > 2
        else ""
    )
    out().print(
        f"[dim]Elo: Bradley-Terry maximum-likelihood fit to {table.games} finished games (a draw is half a win "
        f"and half a loss, a forfeit a loss){tables}, 0 the field's mean, each team credited one virtual draw "
        "against it; LOS next: the likelihood that a team is stronger than the one ranked below it.[/]",
        highlight=False,
    )
