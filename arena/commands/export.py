"""``arena export``: a tournament's games in the standard file of their game, PGN for chess and
SGF for Go and othello, for other programs to read (``arena.results.export`` writes them)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from arena.commands.common import DEFAULT_DB, Db, err, out, sessions, write_file
from arena.commands.results import TournamentName
from arena.core.text import printable
from arena.errors import ArenaError

app = typer.Typer()


@app.command()
def export(
    tournament: TournamentName = None,
    pgn: Annotated[bool, typer.Option("--pgn", help="PGN, for chess (OpenSpiel's chess).")] = False,
    sgf: Annotated[
        bool, typer.Option("--sgf", help="SGF, for Go (OpenSpiel's go) and othello (arena's or OpenSpiel's).")
    ] = False,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write to this file (default: standard output).", show_default=False),
    ] = None,
    stage: Annotated[str | None, typer.Option("--stage", help="Only this stage's games (its name or number).")] = None,
    db: Db = DEFAULT_DB,
) -> None:
    """Write a tournament's games as PGN (chess) or SGF (Go, othello), as cutechess, fastchess and
    gogui-twogtp write them: every game that ended, a forfeit with its result and how it ended,
    each move with its time and an engine's score and depth. Games not played yet are left out."""
    from arena.results.export import WRITERS, load_export

    if pgn == sgf:
        raise ArenaError("give one format: --pgn (chess) or --sgf (Go, othello)")
    kind = "pgn" if pgn else "sgf"
    with sessions(db, read_only=True).begin() as session:
        found = load_export(session, tournament, kind, stage)
    text = WRITERS[kind](found)
    if output is None:
        typer.echo(text, nl=False)
    else:
        write_file(output, text, "-o")
        games = f"{len(found.games)} game{'s' if len(found.games) != 1 else ''}"
        where = f" (stage {stage})" if stage is not None else ""
        wrote = f"Wrote {games} of {found.tournament}{where} as {kind.upper()} to {output}"
        out().print(escape(printable(wrote)), highlight=False)
    if found.skipped:
        games = f"{found.skipped} game{'s' if found.skipped != 1 else ''}"
        err().print(f"left out {games} not played yet", highlight=False)
