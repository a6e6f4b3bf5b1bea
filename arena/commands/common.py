"""What the command groups share: the output consoles, the options every command takes, checks
of command-line text, bot parameters from ``key=value`` words, and the root warning."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from arena.core.text import clean_data, printable
from arena.errors import ArenaError

if TYPE_CHECKING:
    from sqlalchemy.orm import Session, sessionmaker

    from arena.contests.config import GameDef

Db = Annotated[str, typer.Option("--db", envvar="ARENA_DB", help="Database URL (SQLAlchemy).")]
#: a team's token: from ARENA_TOKEN, a file or a prompt (``secret``); ``--token`` still works
Token = Annotated[
    str | None,
    typer.Option(envvar="ARENA_TOKEN", help="The team's token (better: ARENA_TOKEN, --token-file, or be asked)."),
]
TokenFile = Annotated[
    Path | None,
    typer.Option(help="A file whose first line is the team's token: it stays off the command line."),
]
Json = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]
#: a game: arena's or an installed one by name, OpenSpiel's by its game string, a referee's by its
#: command, or a user's by its ``.py`` file (``chosen_game``)
GameName = Annotated[
    str,
    typer.Option(
        "--game",
        "-g",
        help="The game: tictactoe, uttt, xtreme, othello, an installed one, openspiel:NAME, command:REFEREE, "
        "or a .py file.",
    ),
]
GameParams = Annotated[
    list[str] | None,
    typer.Option("--param", "-p", help="A parameter of the game, NAME=VALUE (e.g. size=6); repeat for more."),
]
DEFAULT_DB = "sqlite:///db/arena.sqlite3"
#: the longest move time the commands that play accept (as a tournament file's ``time.move``)
MAX_MOVE_TIME = 86_400.0
#: the width of output that is not a terminal: no line is wrapped (a table keeps its own width)
PIPED_WIDTH = 10_000
#: what the commands that run bots say first when they run as root
ROOT_WARNING = (
    "warning: arena runs as root, and so do its bots: they can read every file, root's included, in "
    "the folders they may read (docs/security.md); run arena as an ordinary user"
)


def secret(ctx: typer.Context, option: str, given: str | None, file: Path | None, env: str) -> str:
    """A secret (a token) from ``--OPTION``, ``env``, the file ``file`` or, on a terminal, a
    prompt that does not echo it; ``ArenaError`` if there is none. A secret typed on the command
    line is taken with a warning: every process of the machine, a bot included, can read a
    command line (``ps``, ``/proc/PID/cmdline``), but not another process's environment."""
    if file is not None:
        try:
            text = file.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as error:
            raise ArenaError(f"--{option}-file {file}: {getattr(error, 'strerror', None) or error}") from None
        if not text or not text[0].strip():
            raise ArenaError(f"--{option}-file {file}: the first line holds no {option}")
        return text[0].strip()
    if given is not None:
        source = ctx.get_parameter_source(option.replace("-", "_"))
        if source is not None and source.name == "COMMANDLINE":
            err().print(
                f"warning: a {option} on the command line can be read by every process of this machine; "
                f"set {env}, use --{option}-file FILE, or leave it out to be asked",
                markup=False,
                highlight=False,
            )
        return given
    if sys.stdin.isatty():
        return str(typer.prompt(option.replace("-", " ").capitalize(), hide_input=True)).strip()
    raise ArenaError(f"no {option}: set {env}, or give --{option}-file FILE (or run on a terminal to be asked)")


def out() -> Console:
    """The console for standard output: the terminal's, or one that never wraps when the output
    goes to a file or another program."""
    console = Console()
    return console if console.is_terminal else Console(width=PIPED_WIDTH)


def err() -> Console:
    """The console for standard error (messages and warnings), never wrapped when piped."""
    console = Console(stderr=True)
    return console if console.is_terminal else Console(stderr=True, width=PIPED_WIDTH)


def cells(*values: object) -> list[Text]:
    """Table cells shown as they are: names and messages from bots are never markup, and their
    control characters are shown escaped (``printable``), never sent to the terminal."""
    return [Text(printable(value)) for value in values]


def json_text(data: Any) -> str:
    """``data`` as indented JSON, its text cleaned, ending in a newline."""
    return json.dumps(clean_data(data), indent=2, default=str) + "\n"


def print_json(data: Any) -> None:
    """``data`` as indented JSON on standard output, its text cleaned."""
    typer.echo(json_text(data), nl=False)


def write_file(path: Path, text: str, option: str) -> None:
    """Write ``text`` to ``path`` (given by the command's ``option``), or say why it cannot be."""
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise ArenaError(
            f"cannot write {printable(str(path))!r}: {error.strerror or error}; "
            f"give {option} a file that can be written"
        ) from None


def print_listing(
    rows: list[dict[str, Any]],
    as_json: bool,
    columns: Sequence[str],
    row_cells: Callable[[dict[str, Any]], Sequence[object]],
    empty: str | None = None,
) -> None:
    """A listing command's ``rows``: as JSON, ``empty`` when there are none (if given), else a
    table of ``columns``, each row's cells given by ``row_cells``."""
    if as_json:
        print_json(rows)
        return
    if not rows and empty is not None:
        out().print(empty)
        return
    table = Table(*columns)
    for row in rows:
        table.add_row(*cells(*row_cells(row)))
    out().print(table)


def chosen_game(game: str, params: Sequence[str] | None = None, given_as: str = "--game") -> GameDef:
    """The game of ``--game`` (a name; OpenSpiel's game string after ``openspiel:``, as a
    tournament file's ``game: {openspiel: ...}``; a referee program's command after ``command:``,
    as ``game: {command: ...}``; or a user's game by its file; files resolved from the current
    folder) with its ``--param NAME=VALUE`` parameters (each value read as YAML: ``6``, ``true``,
    ``text``); ``ArenaError`` saying what is wrong (of the option or argument ``given_as``)."""
    import yaml
    from pydantic import ValidationError

    from arena.contests.config import command_line_game

    values: dict[str, Any] = {}
    for param in params or ():
        key, equals, value = param.partition("=")
        if not equals or not key.strip():
            raise ArenaError(f"--param {param!r}: write it NAME=VALUE (e.g. size=6)")
        try:
            values[key.strip()] = yaml.safe_load(value)
        except yaml.YAMLError:
            values[key.strip()] = value
    try:
        return command_line_game(game, values)
    except ValidationError as error:
        raise ArenaError(f"{given_as} {game!r}: {error.errors()[0]['msg'].removeprefix('Value error, ')}") from None


def sessions(db: str, read_only: bool = False, create: bool = True) -> sessionmaker[Session]:
    """The database at ``db``; ``read_only`` for commands that only look (they never create it);
    ``create`` False: one that does not exist yet is not created, and reads as empty."""
    from arena.store.database import open_store

    return open_store(db, read_only=read_only, create=create)


def check_arguments(arguments: list[str]) -> None:
    """``ArenaError`` for a command-line word (or ``ARENA_DB``) that is not valid UTF-8, such as
    a file name in another encoding (arena keeps names and paths as UTF-8 text), or that holds a
    control character other than tab and newline (the command-line parser would print it raw in
    its own messages: a file name can hold an escape sequence)."""
    for number, word in enumerate(arguments, 1):
        check_text(f"argument {number}", word)
    check_text("ARENA_DB", os.environ.get("ARENA_DB", ""))


def check_text(where: str, word: str) -> None:
    """``ArenaError`` naming ``where`` if ``word`` is not valid UTF-8 or holds control characters."""
    try:
        word.encode("utf-8")
    except UnicodeEncodeError:
        shown = str(os.fsencode(word))[2:-1]
        raise ArenaError(
            f"{where} ({shown}) is not valid UTF-8: arena keeps names and paths as UTF-8 text; "
            "rename the file (or folder) or give the word in UTF-8"
        ) from None
    if printable(word, lines=True) != word:
        raise ArenaError(
            f"{where} ({printable(word, 200)}) holds control characters; rename the file (or folder) or leave them out"
        )


def warn_if_root() -> None:
    """One line on stderr when arena, and so every bot it starts, runs as root."""
    if os.geteuid() == 0:
        err().print(ROOT_WARNING, markup=False, highlight=False, soft_wrap=True)


def parse_params(items: list[str], option: str = "--param", example: str = "c=1.4") -> dict[str, Any]:
    """``key=value`` options (``option``, its use shown by ``example`` in a message) as a dict;
    values are read as YAML (1, 0.5, true, text, [1, 2]), within the tournament file's bounds
    (``yamlfile.load_yaml``); text that is not YAML stays text."""
    from arena.contests.config import not_plain
    from arena.contests.yamlfile import load_yaml
    from arena.errors import ConfigError

    params: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ArenaError(f"{option} {item!r}: write key=value, e.g. {option} {example}")
        try:
            read = clean_data(load_yaml(value, f"{option} {key.strip()!r}")) if value.strip() else ""
        except ConfigError as error:
            if "not valid YAML" not in str(error):
                raise
            read = clean_data(value)
        found = not_plain(read)
        if found:
            raise ArenaError(
                f"{option} {item!r}: a value is text, a number, true/false, null, a list or a mapping; not {found}"
            )
        params[clean_data(key.strip())] = read
    return params
