"""The ``arena`` command: run tournaments, register bots, list what is stored."""

from __future__ import annotations

import json
import logging
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from arena import __version__
from arena.errors import ArenaError

app = typer.Typer(
    name="arena",
    help="Run bot tournaments: round robins in pools and stages, every game stored, "
    "TrueSkill leaderboards and HTML reports.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console()
errors = Console(stderr=True)

Db = Annotated[str, typer.Option("--db", envvar="ARENA_DB", help="Database URL (SQLAlchemy).")]
Json = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]
DEFAULT_DB = "sqlite:///db/arena.sqlite3"


def cells(*values: object) -> list[Text]:
    """Table cells shown as they are: names and messages from bots are never markup."""
    return [Text(str(value)) for value in values]


def main() -> None:
    """Entry point: user errors print their message and exit 2, never a traceback."""
    logging.raiseExceptions = False  # a log file that cannot be written (a full disk) is no reason to print tracebacks
    try:
        app()
    except ArenaError as error:
        errors.print(f"[bold red]error:[/] {escape(str(error))}", highlight=False)
        sys.exit(2)
    except KeyboardInterrupt:
        errors.print("interrupted")
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


def sessions(db: str):
    from arena.store import open_store

    return open_store(db)


def print_json(data: Any) -> None:
    typer.echo(json.dumps(data, indent=2, default=str))


def log_file(db: str, name: str) -> Path:
    """Where a tournament's log goes: beside the database file (or in ./db)."""
    from sqlalchemy.engine import make_url

    url = make_url(db)
    folder = Path(url.database).parent if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:") else Path("db")
    folder.mkdir(parents=True, exist_ok=True)
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
    return folder / f"{safe}.log"


def setup_logging(path: Path) -> logging.Handler:
    """Log the harness (workers included, through multiprocessing-logging) to ``path``."""
    import multiprocessing_logging

    handler = logging.FileHandler(path)
    handler.setFormatter(logging.Formatter("%(asctime)s %(processName)s %(name)s %(levelname)s %(message)s"))
    logger = logging.getLogger("arena")
    logger.setLevel(logging.INFO)
    logger.addHandler(handler)
    multiprocessing_logging.install_mp_handler(logger)
    return handler


@app.command()
def run(
    file: Annotated[Path, typer.Argument(help="The tournament file.")] = Path("tournament.yaml"),
    db: Db = DEFAULT_DB,
    workers: Annotated[int | None, typer.Option(min=1, help="Worker processes (default: the file's, else the cores).")] = None,
    name: Annotated[str | None, typer.Option(help="Run under this name instead of the file's.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress display.")] = False,
    pin: Annotated[bool | None, typer.Option("--pin/--no-pin", help="Keep each worker and its bots to a CPU of their own "
                                                                  "(default: only to CPUs that are idle now).")] = None,
) -> None:
    """Run the tournament in FILE, or resume it if it exists already."""
    from arena.config import load_config
    from arena.runner import LocalRunner
    from arena.tournament import Progress, TournamentRun, expected_games

    config, text = load_config(file)
    if name is not None:
        config = config.model_copy(update={"name": name})
        config = type(config).model_validate(config.model_dump())
    from arena.tournament import run_lock

    with run_lock(db, config.name) as stale:
        tournament_run = TournamentRun(config, text, sessions(db), file.resolve().parent, workers)
        tournament, resumed = tournament_run.prepare()
        path = log_file(db, config.name)
        handler = setup_logging(path)
        logging.getLogger("arena").info("%s tournament %r", "resuming" if resumed else "starting", config.name)
        if stale:
            note = f"the last run of this tournament ({stale}) stopped without finishing; taking over its lock"
            logging.getLogger("arena").warning(note)
            if not quiet:
                errors.print(f"note: {note}", markup=False, highlight=False)
        progress = Progress(expected_games(config))
        runner = LocalRunner(tournament_run.workers, pin=pin)
        isolation = _isolation()
        log = logging.getLogger("arena")
        log.info("time: %s; CPUs: %s; bots: %s", config.time.control().describe(), runner.pinning, isolation)
        if not quiet:
            console.print(f"{'Resuming' if resumed else 'Running'} [bold]{escape(config.name)}[/]: {config.game.name}, "
                          f"{len(config.team_bots())} teams, {progress.total} games, "
                          f"{tournament_run.workers} workers (log: {path})", highlight=False)  # fmt: skip
            console.print(f"  time: {config.time.control().describe()}; CPUs: {runner.pinning}\n  bots: {isolation}",
                          highlight=False, markup=False)  # fmt: skip
        start = time.monotonic()
        try:
            with _progress_display(quiet) as update:
                final = tournament_run.run(runner, on_record=lambda record, p: update(p, start), progress=progress)
        except KeyboardInterrupt:
            again = _command_line("arena", "run", str(file), *(["--name", name] if name else []),
                                  *(["--db", db] if db != DEFAULT_DB else []))  # fmt: skip
            errors.print(f"stopped; run '{again}' again to resume where it stopped", markup=False)
            raise typer.Exit(130) from None
        finally:
            logging.getLogger("arena").removeHandler(handler)
        if not quiet:
            elapsed = time.monotonic() - start
            replays = f", {final.replays} replayed for an overloaded machine" if final.replays else ""
            console.print(f"Finished: {final.done} games, {final.forfeits} forfeits{replays}, {elapsed:.1f} s in this "
                          f"run. See 'arena leaderboard {config.name}'.", highlight=False, markup=False)  # fmt: skip
            for reason in final.void_reasons[:5]:
                console.print(f"  replayed: {reason}", highlight=False, markup=False)


def _isolation() -> str:
    """How bots are kept apart and measured on this system, in one line."""
    from arena.cgroups import support

    found = support()
    if found is None:
        return "no control groups here: process groups, /proc scans and a child subreaper"
    return found.describe()


def _command_line(*words: str) -> str:
    """``words`` as a shell would need them typed."""
    import shlex

    return " ".join(shlex.quote(word) for word in words)


class _progress_display:
    """A live progress bar on a terminal, a line every few seconds otherwise."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.live = None
        self.last = 0.0
        self.done_at_start: int | None = None

    def __enter__(self):
        if not self.quiet and console.is_terminal:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self.live = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn("{task.fields[rate]} games/s"), TimeRemainingColumn(),
                                 TextColumn("forfeits {task.fields[forfeits]}"), console=console)  # fmt: skip
            self.live.__enter__()
            self.task = self.live.add_task("games", total=None, rate="-", forfeits=0)
        return self.update

    def update(self, progress, start: float) -> None:
        if self.quiet:
            return
        if self.done_at_start is None:
            self.done_at_start = progress.done - 1
        elapsed = max(time.monotonic() - start, 1e-9)
        rate = (progress.done - self.done_at_start) / elapsed
        if self.live is not None:
            self.live.update(self.task, completed=progress.done, total=progress.total,
                             description=progress.stage, rate=f"{rate:.1f}", forfeits=progress.forfeits)  # fmt: skip
        elif time.monotonic() - self.last >= 5 or progress.done == progress.total:
            self.last = time.monotonic()
            left = (progress.total - progress.done) / rate if rate > 0 else 0
            console.print(f"[{progress.stage}] {progress.done}/{progress.total} games, {rate:.1f} games/s, "
                          f"ETA {left:.0f} s, {progress.forfeits} forfeits", highlight=False, markup=False)  # fmt: skip

    def __exit__(self, *exc: object) -> None:
        if self.live is not None:
            self.live.__exit__(*exc)


@app.command()
def tournaments(db: Db = DEFAULT_DB, as_json: Json = False) -> None:
    """List the stored tournaments."""
    from sqlalchemy import func, select

    from arena.store import Entry, Game, Tournament

    with sessions(db).begin() as session:
        rows = []
        for t in session.scalars(select(Tournament).order_by(Tournament.id)):
            counts = dict(session.execute(select(Game.status, func.count()).where(Game.tournament_id == t.id).group_by(Game.status)).all())
            teams = session.scalar(select(func.count()).select_from(Entry).where(Entry.tournament_id == t.id))
            rows.append({"name": t.name, "game": t.game["name"], "status": t.status, "teams": teams,
                         "games_finished": counts.get("finished", 0), "games_planned": sum(counts.values()),
                         "seed": t.seed, "created_at": t.created_at})  # fmt: skip
    if as_json:
        print_json(rows)
        return
    if not rows:
        console.print("No tournaments yet: run one with 'arena run [FILE]'.")
        return
    out = Table("name", "game", "status", "teams", "games", "created")
    for r in rows:
        out.add_row(*cells(r["name"], r["game"], r["status"], r["teams"], f"{r['games_finished']}/{r['games_planned']}",
                           time.strftime("%Y-%m-%d %H:%M", time.localtime(r["created_at"]))))  # fmt: skip
    console.print(out)


@app.command(name="games")
def list_games(
    tournament: Annotated[str | None, typer.Option("--tournament", "-t", help="Only this tournament.")] = None,
    bot: Annotated[str | None, typer.Option("--bot", "-b", help="Only games of this team or bot.")] = None,
    limit: Annotated[int, typer.Option(min=1, help="At most this many (newest first).")] = 50,
    db: Db = DEFAULT_DB,
    as_json: Json = False,
) -> None:
    """List stored games."""
    from sqlalchemy import or_, select
    from sqlalchemy.orm import aliased

    from arena.store import Bot, Entry, Game, Tournament

    first, second = aliased(Entry), aliased(Entry)
    bot1, bot2 = aliased(Bot), aliased(Bot)
    with sessions(db).begin() as session:
        query = (select(Game, Tournament.name, first.team, second.team)
                 .join(Tournament, Game.tournament_id == Tournament.id)
                 .join(first, Game.seat0 == first.id).join(second, Game.seat1 == second.id)
                 .join(bot1, first.bot_id == bot1.id).join(bot2, second.bot_id == bot2.id))  # fmt: skip
        if tournament is not None:
            if session.scalar(select(Tournament.id).where(Tournament.name == tournament)) is None:
                known = ", ".join(session.scalars(select(Tournament.name))) or "none"
                raise ArenaError(f"no tournament {tournament!r}; the tournaments: {known}")
            query = query.where(Tournament.name == tournament)
        if bot is not None:
            query = query.where(or_(first.team == bot, second.team == bot, bot1.name == bot, bot2.name == bot))
        rows = [{"id": g.id, "tournament": tname, "stage": g.stage, "pool": g.pool, "round": g.round,
                 "first": a, "second": b, "status": g.status, "winner": g.winner,
                 "points": None if g.points0 is None else [g.points0, g.points1],
                 "termination": g.termination, "offender": g.offender, "plies": g.plies}
                for g, tname, a, b in session.execute(query.order_by(Game.id.desc()).limit(limit))]  # fmt: skip
    if as_json:
        print_json(rows)
        return
    out = Table("id", "tournament", "stage/pool", "first", "second", "result", "ending", "plies")
    for r in rows:
        result = {None: "½-½", 0: "1-0", 1: "0-1"}[r["winner"]] if r["status"] == "finished" else r["status"]
        ending = r["termination"] or ""
        if r["offender"] is not None:
            ending += f" ({[r['first'], r['second']][r['offender']]})"
        out.add_row(*cells(r["id"], r["tournament"], f"{r['stage']}/{r['pool']}", r["first"], r["second"], result,
                           ending, r["plies"] or ""))  # fmt: skip
    console.print(out)


@app.command()
def bots(db: Db = DEFAULT_DB, as_json: Json = False) -> None:
    """List the bots: registered ones and those declared in tournaments."""
    from sqlalchemy import select

    from arena.store import Bot

    with sessions(db).begin() as session:
        rows = [{"name": b.name, "version": b.version, "kind": b.kind, "target": b.target,
                 "params": json.loads(b.params), "games": b.games, "registered": b.registered,
                 "code_hash": b.code_hash, "description": b.description}
                for b in session.scalars(select(Bot).order_by(Bot.name, Bot.version))]  # fmt: skip
    if as_json:
        print_json(rows)
        return
    if not rows:
        console.print("No bots yet: add one with 'arena register PATH_OR_MODULE --name NAME'.")
        return
    out = Table("name", "version", "kind", "target", "params", "games", "description")
    for r in rows:
        out.add_row(*cells(r["name"], f"v{r['version']}" + ("" if r["registered"] else " (declared)"), r["kind"],
                           r["target"], json.dumps(r["params"]) if r["params"] else "", ", ".join(r["games"] or []),
                           r["description"] or ""))  # fmt: skip
    console.print(out)


def parse_params(items: list[str]) -> dict[str, Any]:
    """``key=value`` options as a dict; values are read as YAML scalars (1, 0.5, true, text)."""
    import yaml

    params: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ArenaError(f"--param {item!r}: write key=value, e.g. --param c=1.4")
        try:
            params[key.strip()] = yaml.safe_load(value) if value.strip() else ""
        except yaml.YAMLError:
            params[key.strip()] = value
    return params


@app.command()
def register(
    target: Annotated[str | None, typer.Argument(help="A bot file (.py) or module (e.g. bots.uct).")] = None,
    name: Annotated[str | None, typer.Option(help="The bot's name (default: from the file or module).")] = None,
    command: Annotated[str | None, typer.Option(help="A bot program in any language speaking the protocol.")] = None,
    param: Annotated[list[str], typer.Option("--param", "-p", help="A parameter, key=value (repeatable).")] = [],  # noqa: B006
    game: Annotated[list[str], typer.Option("--game", "-g", help="A game to smoke-test it on (repeatable).")] = [],  # noqa: B006
    interface: Annotated[str, typer.Option(help="python (a bot module) or course2019 (a 2019 course file).")] = "python",
    python: Annotated[str | None, typer.Option(help="The interpreter to run it with (e.g. python2.7).")] = None,
    move_time: Annotated[float, typer.Option(min=0.01, help="Seconds a move in the smoke game.")] = 2.0,
    db: Db = DEFAULT_DB,
) -> None:
    """Register a bot after a smoke game against a random bot."""
    from arena.registry import register_bot

    if (target is None) == (command is None):
        raise ArenaError("give either a bot file or module, or --command \"PROGRAM ARGS\"")
    if interface not in ("python", "course2019"):
        raise ArenaError(f"--interface must be python or course2019, not {interface!r}")
    kind = "command" if command else ("course2019" if interface == "course2019" else "python")
    row, status = register_bot(sessions(db), name=name, kind=kind, target=command or target or "",
                               params=parse_params(param), games=game, python=python,
                               move_time=move_time, base=Path.cwd())  # fmt: skip
    console.print(f"{status}: [bold]{escape(row['name'])}[/] v{row['version']} ({escape(row['kind'])} {escape(row['target'])}), "
                  f"games: {', '.join(row['games'])}", highlight=False)  # fmt: skip


# Command groups kept in their own modules register themselves on ``app`` when imported.
from arena import cli_reports  # noqa: E402,F401
from arena import cli_play  # noqa: E402,F401
from arena import cli_learning  # noqa: E402,F401

