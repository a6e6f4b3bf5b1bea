"""``arena season``: a season of submitted bots on a ladder (docs/season.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.commands.common import (
    DEFAULT_DB,
    Db,
    GameName,
    GameParams,
    Token,
    TokenFile,
    chosen_game,
    out,
    print_json,
    secret,
    sessions,
)
from arena.core.text import printable
from arena.errors import ArenaError

app = typer.Typer()
season_app = typer.Typer(help="A season: teams submit bots, a ladder plays them, staff freeze it into a final.")
teams_app = typer.Typer(help="The teams of a season.")
app.add_typer(season_app, name="season")
season_app.add_typer(teams_app, name="teams")

Name = Annotated[str, typer.Argument(help="The season.")]


def _say(text: str) -> None:
    out().print(printable(text, lines=True), markup=False, highlight=False)


@season_app.command("create")
def create(
    name: Name,
    game: GameName,
    move_time: Annotated[float, typer.Option("--time", "-t", min=0.001, help="Seconds a move.")] = 1.0,
    clock: Annotated[str, typer.Option(help="wall or cpu: how the bots' time is counted.")] = "wall",
    keep: Annotated[int, typer.Option(min=1, max=100, help="Versions of a team that stay on the ladder.")] = 1,
    folder: Annotated[
        Path | None, typer.Option(help="Where submitted files are kept (default: beside the database).")
    ] = None,
    params: GameParams = None,
    db: Db = DEFAULT_DB,
) -> None:
    """Create season NAME: its game (of any number of seats: the ladder seats as many versions a
    game), time control, and its ladder."""
    from pydantic import ValidationError

    from arena.contests.config import TimeDef
    from arena.contests.season import create_season

    game_def = chosen_game(game, params)
    try:
        time_def = TimeDef(move=move_time, clock=clock)
    except ValidationError as error:
        raise ArenaError(error.errors()[0]["msg"].removeprefix("Value error, ")) from None
    create_season(sessions(db), name, game_def, time_def, folder or _beside(db) / "seasons" / _safe(name), keep)
    _say(
        f"Created season {name!r}: {game_def.name}, {time_def.control().describe()}; "
        "add teams with 'arena season teams add'."
    )


@teams_app.command("add")
def add(
    name: Name,
    teams: Annotated[list[str], typer.Argument(help="The teams to add.")],
    db: Db = DEFAULT_DB,
) -> None:
    """Add teams to season NAME; print each one's token (shown once: only its hash is kept)."""
    from arena.store.seasons import add_teams

    for team, token in add_teams(sessions(db), name, teams).items():
        typer.echo(f"{team}\t{token}")  # a tab, not the spaces a console would make of it: for scripts


@season_app.command("submit")
def submit(
    ctx: typer.Context,
    name: Name,
    file: Annotated[Path, typer.Argument(help="The bot: a .py file or a .zip with bot.py at its top.")],
    token: Token = None,
    token_file: TokenFile = None,
    interface: Annotated[str, typer.Option(help="python (arena's bot interface) or course2019.")] = "python",
    db: Db = DEFAULT_DB,
) -> None:
    """Submit FILE to season NAME as the team of the token: it is validated in the sandbox (a
    whole game against itself) and, if it passes, joins the ladder."""
    from arena.contests.season import submit as take

    try:
        data = file.read_bytes()
    except OSError as error:
        raise ArenaError(f"{file}: {error.strerror}") from None
    key = secret(ctx, "token", token, token_file, "ARENA_TOKEN")
    outcome = take(sessions(db), name, key, file.name, data, interface)
    _say(f"{outcome.team} v{outcome.version}: {outcome.status}\n{outcome.log}")
    if outcome.status != "active":
        raise typer.Exit(1)


@season_app.command("submissions")
def submissions(
    ctx: typer.Context,
    name: Name,
    token: Token = None,
    token_file: TokenFile = None,
    db: Db = DEFAULT_DB,
) -> None:
    """The submissions of the team of the token, with their logs (its own only)."""
    from sqlalchemy import select

    from arena.store.seasons import Submission, get_season, team_of_token

    key = secret(ctx, "token", token, token_file, "ARENA_TOKEN")
    with sessions(db, read_only=True).begin() as session:
        team = team_of_token(session, get_season(session, name), key)
        rows = session.scalars(select(Submission).where(Submission.team_id == team.id).order_by(Submission.version))
        for row in rows:
            _say(f"v{row.version} {row.filename}: {row.status}\n  " + row.log.replace("\n", "\n  "))


@season_app.command("ladder")
def ladder(
    name: Name,
    games: Annotated[int | None, typer.Option(min=1, help="Stop after this many games (default: never).")] = None,
    workers: Annotated[
        int | None, typer.Option(min=1, help="Games at a time (default: the cores, or the cluster's workers).")
    ] = None,
    cluster: Annotated[
        str | None,
        typer.Option(
            envvar="ARENA_CLUSTER", help="Play on the Dask cluster whose scheduler is here (docs/cluster.md)."
        ),
    ] = None,
    prune_after: Annotated[
        float | None, typer.Option(min=0, help="Days a retired version's files are kept (default 7; games, log stay).")
    ] = None,
    db: Db = DEFAULT_DB,
) -> None:
    """Play season NAME's ladder: pairs chosen by information, ratings updated as games end; a
    version submitted meanwhile joins at once; retired versions' files go after --prune-after
    days. Stop with Ctrl-C (the games played are kept)."""
    import os
    from contextlib import ExitStack

    from arena.commands.running import cluster_def
    from arena.contests.run import cluster_runner
    from arena.contests.season import PRUNE_AFTER_DAYS, play_ladder
    from arena.core.job import GameRunner
    from arena.runners.local import LocalRunner

    with ExitStack() as stack:
        where = cluster_def(None, cluster, None, ())
        if where is None:
            count = workers or os.cpu_count() or 1
            runner: GameRunner = LocalRunner(count)
        else:
            remote = stack.enter_context(cluster_runner(where))
            count, runner = workers or len(remote.workers()), remote
        days = PRUNE_AFTER_DAYS if prune_after is None else prune_after
        played = play_ladder(sessions(db), name, runner, games, count, _told, days)
    _say(f"Played {played} ladder games; see 'arena season standings {name}'.")


def _told(record: object, names: tuple[str, ...]) -> None:
    """A line for a ladder game that ended: ``game 12: red v2 beat blue v1 (normal, 9 moves)``;
    of more seats, ``game 12: green v1 first, red v2 second, blue v1 second (...)``."""
    from arena.core.records import GameRecord
    from arena.games.base import places
    from arena.results.replay import ordinal

    assert isinstance(record, GameRecord)
    if len(names) > 2 and record.points is not None:
        outcome = ", ".join(
            f"{names[seat]} {ordinal(place)}"
            for place, seat in sorted((place, seat) for seat, place in enumerate(places(record.points)))
        )
    elif len(names) > 2:
        outcome = f"{', '.join(names)} ended with no result"
    elif record.winner is None:
        outcome = f"{names[0]} and {names[1]} drew"
    else:
        outcome = f"{names[record.winner]} beat {names[1 - record.winner]}"
    how = (
        record.termination.value
        if record.offender is None
        else f"{record.termination.value} by {names[record.offender]}"
    )
    _say(f"game {record.game_id}: {outcome} ({how}, {len(record.moves)} moves)")


@season_app.command("prune")
def prune(
    name: Name,
    after: Annotated[
        float | None, typer.Option(min=0, help="Remove the files of versions retired this many days ago (default 7).")
    ] = None,
    db: Db = DEFAULT_DB,
) -> None:
    """Remove the files of season NAME's versions retired at least --after days ago (0: every
    retired version's); their rows, logs and games stay. The ladder does it before each batch."""
    from arena.contests.season import PRUNE_AFTER_DAYS
    from arena.contests.season import prune as pruned

    removed = pruned(sessions(db), name, PRUNE_AFTER_DAYS if after is None else after)
    _say(f"Removed the files of {len(removed)} retired version(s)" + (": " + ", ".join(removed) if removed else "."))


@season_app.command("standings")
def standings(name: Name, as_json: Annotated[bool, typer.Option("--json")] = False, db: Db = DEFAULT_DB) -> None:
    """The ladder: each active version, best first (TrueSkill mu - 3 sigma)."""
    from arena.contests.season import standings as ranked

    rows = ranked(sessions(db, read_only=True), name)
    if not rows and not as_json:
        _say(f"season {name!r} has no bot on its ladder yet: teams submit with 'arena season submit'")
        return
    if as_json:
        fields = ("team", "version", "mu", "sigma", "games", "wins", "draws")
        print_json([{field: getattr(s, field) for field in fields} for s in rows])
        return
    for place, s in enumerate(rows, 1):
        _say(
            f"{place:3}. {s.label:30} {s.rating:7.2f}  {s.record:>9} W-D-L  (mu {s.mu:.2f}, sigma {s.sigma:.2f}, "
            f"{s.games} games)"
        )


@season_app.command("freeze")
def freeze(
    name: Name,
    top: Annotated[int, typer.Option(min=2, help="How many of the ladder's best play the final.")],
    out_file: Annotated[Path | None, typer.Option("--out", help="The final's tournament file.")] = None,
    games_per_pair: Annotated[int, typer.Option(min=1, help="Games of each pair in the final.")] = 2,
    db: Db = DEFAULT_DB,
) -> None:
    """Freeze season NAME (no more submissions) and write the tournament file of its final: the
    ladder's best TOP versions, pinned to their submitted files. Run it with 'arena run FILE'."""
    from arena.contests.season import freeze as frozen

    target = out_file or Path(f"{_safe(name)}-final.yaml")
    if not target.parent.is_dir():
        raise ArenaError(f"--out {target}: there is no folder {str(target.parent)!r}")
    text = frozen(sessions(db), name, top, target.parent, games_per_pair)
    try:
        target.write_text(text, encoding="utf-8")
    except OSError as error:
        raise ArenaError(f"{target}: {error.strerror}; the season is frozen, run freeze again to write it") from None
    _say(f"Season {name!r} is frozen; its final is {target}: run it with 'arena run {target} --db {db}'.")


def _safe(name: str) -> str:
    """``name`` as a file name's start: letters, digits, '_' and '-', a letter or digit first."""
    return "".join(c if c.isalnum() or c in "_-" else "-" for c in name)[:60].lstrip("-_") or "season"


def _beside(db: str) -> Path:
    """The folder of an SQLite database file (else the current folder)."""
    from sqlalchemy.engine import make_url

    url = make_url(db)
    if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
        return Path(url.database).resolve().parent
    return Path.cwd()
