"""Commands that look at a tournament's results: the tournaments, the final standings and the
report (the leaderboard is in ``leaderboard.py``), and what they share with the leaderboard."""

from __future__ import annotations

import shlex
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer
from rich.markup import escape
from rich.table import Table

from arena.commands.common import (
    DEFAULT_DB,
    Db,
    Json,
    cells,
    err,
    json_text,
    out,
    print_listing,
    sessions,
    write_file,
)
from arena.errors import ArenaError

if TYPE_CHECKING:
    from arena.results.tournament_results import Results
from arena.core.text import printable

app = typer.Typer()
#: the tournament a command looks at
TournamentName = Annotated[
    str | None,
    typer.Argument(
        help="The tournament (default: the latest one run; the games of 'arena play' only by name).",
        show_default=False,
    ),
]


@app.command()
def tournaments(db: Db = DEFAULT_DB, as_json: Json = False) -> None:
    """List the stored tournaments."""
    from arena.results.listings import tournament_rows

    with sessions(db, read_only=True).begin() as session:
        rows = tournament_rows(session)
    print_listing(
        rows,
        as_json,
        ("name", "game", "status", "teams", "games", "created"),
        lambda r: (
            r["name"],
            r["game"],
            r["status"],
            r["teams"],
            f"{r['games_finished']}/{r['games_planned']}",
            time.strftime("%Y-%m-%d %H:%M", time.localtime(r["created_at"])),
        ),
        empty="No tournaments yet: run one with 'arena run [FILE]'.",
    )


def number_text(value: float) -> str:
    """Points as a table shows them: whole numbers without a decimal point, others to two
    decimals at most (``2.5``; a game of many seats gives quarters and thirds: ``5.25``, ``0.33``)."""
    return f"{value:g}" if value == int(value) else f"{value:.2f}".rstrip("0")


def print_title(found: Results, note: str | None, what: str) -> None:
    """The line above a results table: the tournament, its game, ``what`` is shown, its progress."""
    t = found.tournament
    out().print(
        f"[bold]{escape(printable(t.name))}[/]: {escape(printable(t.game['name']))}, "
        f"{escape(printable(what))}; {found.totals.describe()}, status "
        f"{escape(printable(t.status))}",
        highlight=False,
    )
    if note:
        out().print(f"[yellow]{escape(printable(note))}[/]", highlight=False)


def seats_note(found: Results) -> str:
    """What the points and W-D-L of a tournament of a game of more than two seats mean, to follow
    the name of its scoring (empty for a game of two seats)."""
    seats = found.seat_count
    if seats <= 2:
        return ""
    return (
        f" (a game of {seats} seats: the share of the other seats a team finished ahead of, a tie counting half; "
        "W: first alone, D: first with others, L: behind)"
    )


def tournament_header(found: Results) -> dict[str, Any]:
    """What every results command's JSON starts with: the tournament and its progress."""
    t = found.tournament
    return {
        "tournament": t.name,
        "game": t.game["name"],
        "status": t.status,
        "complete": found.complete,
        "games_finished": found.totals.finished,
        "games_expected": found.totals.expected,
        "games_unfinished": found.totals.unfinished,
    }


def standings_command(name: str) -> str:
    """The command that shows tournament ``name``'s final standings, quoted for a shell."""
    return f"arena standings {shlex.quote(name)}"


@app.command()
def standings(
    tournament: TournamentName = None,
    as_csv: Annotated[
        bool, typer.Option("--csv", help="CSV for a spreadsheet: a header row, then one row a team.")
    ] = False,
    into: Annotated[
        Path | None, typer.Option("--out", "-o", help="Write the --csv or --json output to this file.")
    ] = None,
    db: Db = DEFAULT_DB,
    as_json: Json = False,
) -> None:
    """The final standings: each team's place, the stage it reached, its points, W-D-L and forfeits
    there, and the tie-break that decided its place where points were level."""
    from arena.results.final_standings import forfeit_text, standings_csv
    from arena.results.lookup import find_tournament
    from arena.results.tournament_results import describe_status, load_results

    if as_csv and as_json:
        raise ArenaError("--csv and --json are two formats: give one of them")
    if into is not None and not (as_csv or as_json):
        raise ArenaError("--out writes the --csv or --json output: add --csv or --json")
    with sessions(db, read_only=True).begin() as session:
        found = load_results(session, find_tournament(session, tournament), games=False)
    note = describe_status(found)
    if as_csv or as_json:
        data = {**tournament_header(found), "note": note, "scoring": found.config.scoring, "cut_moves": found.cut}
        text = (
            standings_csv(found.standings)
            if as_csv
            else json_text({**data, "standings": [p.to_dict() for p in found.standings]})
        )
        if into is None:
            typer.echo(text, nl=False)
            if as_csv and note:
                err().print(f"[yellow]{escape(printable(note))}[/]", highlight=False)
            return
        write_file(into, text, "--out")
        wrote = f"Wrote the final standings of {found.tournament.name} ({len(found.standings)} teams) to {into}"
        out().print(escape(printable(wrote)), highlight=False)
        if note:
            out().print(f"[yellow]{escape(printable(note))}[/]", highlight=False)
        return
    print_title(found, note, "final standings")
    if not found.standings:
        out().print("No standings: no stage of this tournament has drawn its pools yet.", markup=False)
        return
    table = Table("place", "team", "stage", "pool", "points", "games", "W-D-L", "forfeits", "μ−3σ")
    for column in table.columns:
        if column.header in ("place", "points", "games", "W-D-L", "μ−3σ"):
            column.justify = "right"
    table.columns[-2].max_width = 18  # several kinds of forfeit wrap: the table fits 100 columns
    for p in found.standings:
        line = p.line
        table.add_row(
            *cells(
                f"{p.place}*" if p.tie_breaks else p.place,
                p.team,
                p.stage_name,
                f"{p.pool_name} {line.rank}",
                number_text(line.points),
                line.games,
                f"{line.wins}-{line.draws}-{line.losses}",
                forfeit_text(line.forfeits),
                f"{line.rating:.2f}",
            )
        )
    out().print(table)
    decided = [(p.place, p.team, t) for p in found.standings for t in p.tie_breaks if t.winner == p.team]
    if decided:  # each once, beneath the table: a column of them would make it some 230 columns wide
        out().print("* placed by a tie-break, points being level:", highlight=False)
        for place, team, t in decided:
            out().print(*cells(f"  {place}. {team} {t.describe(team)}"), highlight=False)
    out().print(
        "[dim]placed by the furthest stage reached, then the rank in its pool there, then (across pools) points, "
        f"wins, μ−3σ, name; points ({escape(printable(found.config.scoring))} scoring), W-D-L and forfeits are "
        f"those of that stage{escape(seats_note(found))}[/]",
        highlight=False,
    )
    for note in found.cut_notes():
        out().print(f"[yellow]{escape(printable(note))}[/]", highlight=False)


@app.command()
def report(
    tournament: TournamentName = None,
    into: Annotated[
        Path | None, typer.Option("--out", "-o", help="Folder to write to (default: reports/<tournament>/).")
    ] = None,
    games: Annotated[
        Literal["auto", "all", "final", "none"],  # (report.GamePages)
        typer.Option(
            help="The games that get a replay page: all, the last stage's (final), none, or auto: all of up to "
            "5,000 games, else the last stage's if they are at most 5,000, else the latest 5,000 finished games.",
        ),
    ] = "auto",
    db: Db = DEFAULT_DB,
) -> None:
    """Write the tournament's HTML report: a static site that works offline (open index.html)."""
    from arena.results.lookup import find_tournament
    from arena.results.report import write_report

    start = time.monotonic()
    store = sessions(db, read_only=True)
    with store.begin() as session:
        name = find_tournament(session, tournament).name
    folder = into or Path("reports") / name
    if folder.exists() and not folder.is_dir():
        raise ArenaError(
            f"cannot write the report to {str(folder)!r}: it is a file, not a folder; give --out a "
            "folder (it is created if need be)"
        )
    try:
        written = write_report(store, name, folder, games)
    except OSError as error:
        where = error.filename or folder
        raise ArenaError(
            f"cannot write the report to {str(folder)!r}: {error.strerror or error} ({where}); give "
            "--out a folder that can be written"
        ) from None
    elapsed = time.monotonic() - start
    out().print(
        escape(printable(f"Wrote {written.pages} pages to {folder}/ in {elapsed:.1f} s: open {folder / 'index.html'}")),
        highlight=False,
    )
    if written.replays:
        out().print(escape(printable(written.replays)), highlight=False)
    if written.note:
        out().print(f"[yellow]{escape(printable(written.note))}[/]", highlight=False)
    for problem in written.problems[:10]:
        err().print(f"[red]{escape(printable(problem))}[/]", highlight=False)
    if written.unavailable:  # the pages were written, the replays could not be
        raise ArenaError(f"{written.unavailable}; its {written.games} game pages show the moves without a replay")
