"""``arena bots`` and ``arena register``: the bots arena knows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from arena.commands.common import (
    DEFAULT_DB,
    MAX_MOVE_TIME,
    Db,
    Json,
    check_text,
    out,
    parse_params,
    print_listing,
    sessions,
    warn_if_root,
)
from arena.core.text import printable
from arena.errors import ArenaError

app = typer.Typer()


@app.command()
def bots(db: Db = DEFAULT_DB, as_json: Json = False) -> None:
    """List the bots: registered ones, those declared in tournaments, and the built-in ones
    with their parameters' defaults."""
    from arena.results.listings import bot_rows, builtin_rows

    with sessions(db, read_only=True).begin() as session:
        rows = bot_rows(session)
    print_listing(
        rows + builtin_rows(),
        as_json,
        ("name", "version", "kind", "target", "params", "games", "description"),
        lambda r: (
            r["name"],
            _version(r),
            r["kind"],
            r["target"],
            ", ".join(f"{key}={json.dumps(value)}" for key, value in r["params"].items()),
            ", ".join(r["games"] or []),
            r["description"] or "",
        ),
    )


def _version(row: dict[str, Any]) -> str:
    """A listed bot's version column: ``v2``, ``v1 (declared)`` or ``built-in``."""
    if row["built_in"]:
        return "built-in"
    return f"v{row['version']}" + ("" if row["registered"] else " (declared)")


@app.command()
def register(
    target: Annotated[str | None, typer.Argument(help="A bot file (.py) or module (e.g. bots.uct).")] = None,
    name: Annotated[str | None, typer.Option(help="The bot's name (default: from the file or module).")] = None,
    command: Annotated[str | None, typer.Option(help="A bot program in any language speaking the protocol.")] = None,
    uci: Annotated[str | None, typer.Option(help="An engine speaking UCI: its command (fairy-stockfish).")] = None,
    ugi: Annotated[str | None, typer.Option(help="An engine speaking UGI: its command.")] = None,
    gtp: Annotated[str | None, typer.Option(help='An engine speaking GTP: its command ("gnugo --mode gtp").')] = None,
    variant: Annotated[str | None, typer.Option(help="The variant the engine plays (UCI_Variant).")] = None,
    variants: Annotated[str | None, typer.Option(help="A variants file of your own (VariantPath).")] = None,
    option: Annotated[
        list[str], typer.Option("--option", help="An engine option, NAME=VALUE (setoption; repeatable).")
    ] = [],  # noqa: B006
    depth: Annotated[int | None, typer.Option(help="The engine's search depth, sent with every go.")] = None,
    nodes: Annotated[int | None, typer.Option(help="The engine's nodes a move, sent with every go.")] = None,
    param: Annotated[list[str], typer.Option("--param", "-p", help="A parameter, key=value (repeatable).")] = [],  # noqa: B006
    game: Annotated[
        list[str],
        typer.Option(
            "--game",
            "-g",
            help="A game to smoke-test it on: a name, openspiel:NAME, command:REFEREE or a .py file (repeatable).",
        ),
    ] = [],  # noqa: B006
    interface: Annotated[
        str, typer.Option(help="python (a bot module) or course2019 (a 2019 course file).")
    ] = "python",
    python: Annotated[str | None, typer.Option(help="The interpreter to run it with (e.g. python2.7).")] = None,
    move_time: Annotated[
        float, typer.Option(min=0.01, max=MAX_MOVE_TIME, help="Seconds a move in the smoke game.")
    ] = 2.0,
    seat: Annotated[
        str,
        typer.Option(
            "--as", help="The bot's seat in the smoke game: x or o (othello: black or white), first or second."
        ),
    ] = "first",
    smoke_moves: Annotated[
        int | None,
        typer.Option(min=1, help="Stop the smoke game after this many moves of the bot (a partial game)."),
    ] = None,
    no_smoke: Annotated[
        bool, typer.Option("--no-smoke", help="No smoke game: register once the bot loads and describes itself.")
    ] = False,
    db: Db = DEFAULT_DB,
) -> None:
    """Register a bot, or an engine (--uci, --ugi, --gtp and its settings, as a tournament file
    declares it), after a smoke game against a random bot."""
    from arena.commands.smoke import SmokeDisplay
    from arena.contests.registration import Smoke, register_bot

    lines = {"command": command, "uci": uci, "ugi": ugi, "gtp": gtp}
    programs = {kind: line for kind, line in lines.items() if line is not None}
    if len(programs) + (target is not None) != 1:
        raise ArenaError(
            'give either a bot file or module, or --command "PROGRAM ARGS", or an engine\'s --uci, --ugi or --gtp '
            '"PROGRAM ARGS"'
        )
    if interface not in ("python", "course2019"):
        raise ArenaError(f"--interface must be python or course2019, not {interface!r}")
    if no_smoke and smoke_moves is not None:
        raise ArenaError("--no-smoke plays no game, so --smoke-moves has none to stop; give one or the other")
    kind = next(iter(programs), "course2019" if interface == "course2019" else "python")
    options = parse_params(option, "--option", "Threads=1") or None
    settings = {"variant": variant, "variants": variants, "options": options, "depth": depth, "nodes": nodes}
    check_text("the current folder", str(Path.cwd()))  # the folder the bot is declared from, stored with it
    registration = register_bot(
        sessions(db),
        name=name,
        kind=kind,
        target=programs.get(kind, target) or "",
        params=parse_params(param),
        games=game,
        python=python,
        base=Path.cwd(),
        smoke=Smoke(move_time=move_time, moves=smoke_moves, seat=seat, play=not no_smoke),
        progress=SmokeDisplay(),
        starting=warn_if_root,
        settings={key: value for key, value in settings.items() if value is not None},
    )
    row = registration.bot
    console = out()
    console.print(
        f"{registration.status}: [bold]{escape(printable(row['name']))}[/] v{row['version']} ({escape(row['kind'])} "
        f"{escape(printable(row['target']))}), games: {escape(printable(', '.join(row['games'])))}",
        highlight=False,
    )
    if no_smoke:
        console.print(
            "no smoke game was played (--no-smoke): the bot loaded and described itself, but has not played a move",
            markup=False,
            highlight=False,
        )
    for result in registration.smoke:
        if not result.finished:
            console.print(
                f"smoke game of {result.game} stopped after the bot's {result.moves} "
                f"{'move' if result.moves == 1 else 'moves'} as {result.seat} (--smoke-moves): a partial "
                "game, which shows the bot loads and plays, not that it lasts a whole game",
                markup=False,
                highlight=False,
            )
