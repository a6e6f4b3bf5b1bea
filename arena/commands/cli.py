"""The ``arena`` command: its command groups (``arena.commands``) merged into one app, and the
entry point, which prints a user's mistake as one ``error: ...`` line (exit 2), never a
traceback: arena's own errors and the command line's (a missing argument, a bad option value)
alike."""

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
    export,
    gamecheck,
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
GROUPS = (
    running,
    deleting,
    match,
    bots,
    results,
    leaderboard,
    games,
    export,
    gamecheck,
    play,
    serve,
    learning,
    season,
    submit,
)
for group in GROUPS:
    app.add_typer(group.app)


#: what the command-line parser raises for a mistake in the command line (Click's
#: ``ClickException``, or the copy of it in the Click that Typer carries: a base of ``typer.BadParameter``)
CommandLineError: type[Exception] = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")


def main() -> None:
    """Entry point: user errors print their message and exit 2, never a traceback."""
    logging.raiseExceptions = False  # a log file that cannot be written (a full disk) is no reason to print tracebacks
    try:
        check_arguments(sys.argv[1:])
        status = app(standalone_mode=False)  # the command line's mistakes are raised, to be printed below
    except ArenaError as error:
        print_error(printable(error, lines=True))
        sys.exit(2)
    except CommandLineError as error:
        sys.exit(show_command_line_error(error))
    except typer.Abort:  # a prompt's input ended, or was interrupted
        err().print("aborted", highlight=False)
        sys.exit(1)
    except KeyboardInterrupt:
        err().print("interrupted")
        sys.exit(130)
    sys.exit(status if isinstance(status, int) else 0)  # (a command's typer.Exit(N) is returned as N)


def print_error(message: str) -> None:
    """``error: MESSAGE`` on stderr, as arena says every mistake (``message`` is never markup)."""
    err().print(f"[bold red]error:[/] {escape(message)}", highlight=False)


def show_command_line_error(error: Exception) -> int:
    """Print a mistake the command-line parser found as arena prints its own: the command's
    usage line and how to get its help, as the parser gives them, then ``error: ...`` (the
    parser's message, its first word in lower case); the exit status it calls for (2)."""
    message = printable(error.format_message() if hasattr(error, "format_message") else error, lines=True)
    context = getattr(error, "ctx", None)
    if type(error).__name__ == "NoArgsIsHelpError":  # a group given nothing: its help is the answer
        if message.strip():
            err().print(message, markup=False, highlight=False)
        return int(getattr(error, "exit_code", 2))
    if context is not None:
        err().print(printable(context.get_usage()), markup=False, highlight=False)
        if context.command.get_help_option(context) is not None:
            help_option = max(context.help_option_names, key=len)
            err().print(
                f"Try '{printable(context.command_path)} {help_option}' for help.", markup=False, highlight=False
            )
    if message[1:2].islower():  # "Missing argument 'x'." -> "missing argument 'x'."; "JSON ..." stays
        message = message[0].lower() + message[1:]
    print_error(message)
    return int(getattr(error, "exit_code", 2))


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
