"""The ``arena`` command: its command groups (``arena.commands``) merged into one app, and the
entry point, which prints a user's mistake as one line (exit 2), never a traceback."""

from __future__ import annotations

import logging
import sys
from typing import Annotated

import typer
from rich.markup import escape

from arena import __version__
from arena.commands import (
    bots,
    deleting,
    games,
    leaderboard,
    learning,
    match,
    play,
    results,
    running,
    season,
    serve,
    submit,
)
from arena.commands.common import ROOT_WARNING, check_arguments, err, warn_if_root  # noqa: F401 (part of the API)
from arena.core.text import printable
from arena.errors import ArenaError

app = typer.Typer(
    name="arena",
    help="Run bot tournaments: round robins in pools and stages, every game stored, "
    "TrueSkill, OpenSkill and Elo leaderboards and HTML reports; match two bots under an SPRT.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
GROUPS = (running, deleting, match, bots, results, leaderboard, games, play, serve, learning, season, submit)
for group in GROUPS:
    app.add_typer(group.app)


def main() -> None:
    """Entry point: user errors print their message and exit 2, never a traceback."""
    logging.raiseExceptions = False  # a log file that cannot be written (a full disk) is no reason to print tracebacks
    try:
        check_arguments(sys.argv[1:])
        app()
    except ArenaError as error:
        err().print(f"[bold red]error:[/] {escape(printable(error, lines=True))}", highlight=False)
        sys.exit(2)
    except KeyboardInterrupt:
        err().print("interrupted")
        sys.exit(130)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"arena {__version__}")
        raise typer.Exit()


@app.callback()
def callback(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version and exit.")
    ] = False,
) -> None:
    """Run bot tournaments and look at their results."""
