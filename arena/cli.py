"""The ``arena`` command."""

from __future__ import annotations

from typing import Annotated

import typer

from arena import __version__

app = typer.Typer(
    name="arena",
    help="Run bot tournaments: round robins in pools and stages, every game stored, "
    "TrueSkill leaderboards and HTML reports.",
    no_args_is_help=True,
    add_completion=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"arena {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version and exit.")
    ] = False,
) -> None:
    """Run bot tournaments and look at their results."""
