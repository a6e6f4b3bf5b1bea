"""``arena run``: run a tournament, or resume it."""

from __future__ import annotations

import logging
import shlex
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from arena.commands.common import DEFAULT_DB, Db, check_text, err, out, sessions, warn_if_root
from arena.core.text import printable

if TYPE_CHECKING:
    from rich.progress import Progress as Bar
    from rich.progress import TaskID

    from arena.contests.config import ClusterDef
    from arena.contests.tournament import Progress
    from arena.runners.dask_runner import DaskRunner

app = typer.Typer()


@app.command()
def run(
    file: Annotated[Path, typer.Argument(help="The tournament file.")] = Path("tournament.yaml"),
    db: Db = DEFAULT_DB,
    workers: Annotated[
        int | None, typer.Option(min=1, help="Worker processes (default: the file's, else the cores).")
    ] = None,
    name: Annotated[str | None, typer.Option(help="Run under this name instead of the file's.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress display.")] = False,
    pin: Annotated[
        bool | None,
        typer.Option(
            "--pin/--no-pin",
            help="Keep each worker and its bots to a CPU of their own (default: only to CPUs that are idle now).",
        ),
    ] = None,
    check: Annotated[
        bool, typer.Option("--check", help="Only check the file and its bots; store nothing, play nothing.")
    ] = False,
    restart: Annotated[
        bool,
        typer.Option("--restart", help="Delete the stored tournament of this name first, then run it from scratch."),
    ] = False,
    cluster: Annotated[
        str | None,
        typer.Option(
            envvar="ARENA_CLUSTER",
            help="Play the games on the Dask cluster whose scheduler is here (tcp://HOST:8786, tls://HOST:8786; "
            "default: the file's cluster:, else this machine). See docs/cluster.md.",
        ),
    ] = None,
    scale_time: Annotated[
        bool | None,
        typer.Option(
            "--scale-time/--no-scale-time",
            help="On a cluster, scale time limits by each node's measured speed (default: the file's).",
        ),
    ] = None,
    tls_ca_file: Annotated[
        str | None, typer.Option(help="TLS: the certificate authority's file (with --cluster).")
    ] = None,
    tls_cert: Annotated[str | None, typer.Option(help="TLS: this client's certificate (with --cluster).")] = None,
    tls_key: Annotated[str | None, typer.Option(help="TLS: this client's private key (with --cluster).")] = None,
) -> None:
    """Run the tournament in FILE, or resume it if it exists already. Every bot is checked
    first; every problem found is listed, and nothing is stored or played."""
    from pydantic import ValidationError

    from arena.contests.config import load_config
    from arena.contests.preflight import check_tournament
    from arena.contests.stages import expected_games
    from arena.contests.tournament import Progress, TournamentRun, run_lock
    from arena.core.live import live_folder
    from arena.errors import ConfigError
    from arena.runners.local import LocalRunner
    from arena.store.models import delete_tournament

    check_text("the tournament file's folder", str(file.resolve().parent))  # bot paths are stored relative to it
    config, text = load_config(file)
    if name is not None:
        try:
            config = type(config).model_validate({**config.model_dump(), "name": name})
        except ValidationError as error:
            raise ConfigError(f"--name {name!r}: {error.errors()[0]['msg'].removeprefix('Value error, ')}") from None
    base = file.resolve().parent
    where = cluster_def(config.cluster, cluster, scale_time, (tls_ca_file, tls_cert, tls_key))
    starting = Once(warn_if_root)
    if check:
        found = check_tournament(config, base, lambda: sessions(db, read_only=True), starting)
        _warn(found.warnings)
        if found.problems:
            raise found.error(str(file))
        out().print(f"ok: {found.bots} bots of {found.teams} teams checked", markup=False, highlight=False)
        return
    log = logging.getLogger("arena")
    with run_lock(db, config.name) as stale, ExitStack() as closing:
        # a database not made yet is not made for a tournament that cannot start
        existing = sessions(db, create=False)
        if not restart:  # refused at once if it cannot be resumed, before its bots are checked
            TournamentRun(config, text, existing, base, workers).check_resumable()
        found = check_tournament(config, base, lambda: existing, starting)
        _warn(found.warnings)
        if found.problems:
            raise found.error(str(file))
        # the cluster is reached before anything is stored: a run that cannot play stores nothing
        remote = None if where is None else closing.enter_context(cluster_runner(where))
        store, removed = sessions(db), None
        if restart:
            with store.begin() as session:
                removed = delete_tournament(session, config.name)
            if removed is not None and not quiet:
                out().print(
                    f"Deleted the stored tournament {printable(repr(config.name))}: {removed.describe()}",
                    markup=False,
                    highlight=False,
                )
        tournament_run = TournamentRun(config, text, store, base, workers)
        _tournament, resumed = tournament_run.prepare()
        starting()
        path = log_file(db, config.name)
        handler = setup_logging(path)
        # paces are measured on this machine: a cluster's nodes are others (docs/cluster.md)
        paced = tournament_run.pace(lambda count: _measuring(count, quiet, log)) if remote is None else None
        log.info("%s tournament %r", "resuming" if resumed else "starting", config.name)
        if removed is not None:
            log.info("the stored tournament of this name was deleted first: %s", removed.describe())
        if stale:
            note = f"the last run of this tournament ({stale}) stopped without finishing; taking over its lock"
            log.warning(note)
            if not quiet:
                err().print(f"note: {note}", markup=False, highlight=False)
        progress = Progress(expected_games(config))
        runner: LocalRunner | DaskRunner
        if remote is None:
            runner = LocalRunner(tournament_run.workers, pin=pin, live=live_folder(db))
            placing, playing = f"CPUs: {runner.pinning}", f"{tournament_run.workers} workers"
        else:
            runner = remote
            placing = playing = runner.describe()
        isolation, control = _isolation(), config.time.control().describe()
        if config.time.clock == "cpu" and config.time.pace:
            control += f"; {paced.describe() if paced else 'no paces on a cluster'}"
        log.info("time: %s; %s; bots: %s", control, placing, isolation)
        if not quiet:
            out().print(
                f"{'Resuming' if resumed else 'Running'} [bold]{escape(config.name)}[/]: {config.game.name}, "
                f"{len(config.team_bots())} teams, {progress.total} games, {escape(playing)} "
                f"(log: {escape(str(path))})",
                highlight=False,
            )
            out().print(f"  time: {control}; {placing}\n  bots: {isolation}", highlight=False, markup=False)
        start = time.monotonic()
        try:
            with ProgressDisplay(quiet) as update:
                final = tournament_run.run(runner, on_record=lambda record, p: update(p, start), progress=progress)
        except KeyboardInterrupt:
            again = shlex.join(
                [
                    "arena",
                    "run",
                    str(file),
                    *(["--name", name] if name else []),
                    *(["--db", db] if db != DEFAULT_DB else []),
                ]
            )
            err().print(f"stopped; run '{again}' again to resume where it stopped", markup=False)
            raise typer.Exit(130) from None
        finally:
            log.removeHandler(handler)
        if not quiet:
            elapsed = time.monotonic() - start
            replays = f", {final.replays} replayed for an overloaded machine" if final.replays else ""
            out().print(
                f"Finished: {final.done} games, {final.forfeits} forfeits{replays}, {elapsed:.1f} s in this "
                f"run. See 'arena leaderboard {config.name}'.",
                highlight=False,
                markup=False,
            )
            for reason in final.void_reasons[:5]:
                out().print(f"  replayed: {reason}", highlight=False, markup=False)


def cluster_def(
    configured: ClusterDef | None, address: str | None, scale_time: bool | None, tls: tuple[str | None, ...]
) -> ClusterDef | None:
    """Where the games are played: the file's ``cluster:`` with what the command line says
    instead (``None``: on this machine); ``ConfigError`` if it does not make sense."""
    from pydantic import ValidationError

    from arena.contests.config import ClusterDef
    from arena.errors import ConfigError

    given = {key: value for key, value in zip(("tls_ca_file", "tls_cert", "tls_key"), tls) if value is not None}
    if address is None and configured is None:
        if given or scale_time:
            raise ConfigError("--scale-time and the --tls options are for a cluster: give --cluster ADDRESS too")
        return None
    settings = configured.model_dump() if configured is not None else {}
    if address:
        settings["address"] = address
    if scale_time is not None:
        settings["scale_time"] = scale_time
    settings.update(given)
    try:
        return ClusterDef.model_validate(settings)
    except ValidationError as error:
        problem = error.errors()[0]
        where = ".".join(map(str, problem["loc"])) or "cluster"
        raise ConfigError(
            f"cluster {where}: {problem['msg'].removeprefix('Value error, ')} (e.g. --cluster tcp://HOST:8786)"
        ) from None


def cluster_runner(where: ClusterDef) -> DaskRunner:
    """The runner of the cluster ``where`` (it connects when entered); ``ConfigError`` if Dask
    is not installed."""
    from arena.errors import ConfigError

    try:
        from arena.runners.dask_node import TlsFiles
        from arena.runners.dask_runner import DaskRunner
    except ImportError as error:
        raise ConfigError(
            f"a cluster needs Dask's distributed package ({error}): pip install 'arena[cluster]'"
        ) from None
    tls = None
    if where.tls_ca_file and where.tls_cert and where.tls_key:
        tls = TlsFiles(where.tls_ca_file, where.tls_cert, where.tls_key)
    return DaskRunner(where.address, tls, where.scale_time)


class Once:
    """A function called at most once, however often this is called (the root warning: said
    once, before the first bot starts)."""

    def __init__(self, function: Callable[[], None]) -> None:
        self.function: Callable[[], None] | None = function

    def __call__(self) -> None:
        function, self.function = self.function, None
        if function is not None:
            function()


def _measuring(count: int, quiet: bool, log: logging.Logger) -> None:
    """Say that the paces of ``count`` bots are being measured (arena/runners/pace.py)."""
    what = f"measuring the pace of {count} bot{'s' if count != 1 else ''} on this machine (once; stored)"
    log.info(what)
    if not quiet:
        err().print(f"note: {what}", markup=False, highlight=False)


def _warn(warnings: list[str]) -> None:
    """Print the pre-flight check's warnings, one a line, on stderr."""
    for line in warnings:
        err().print(f"warning: {line}", markup=False, highlight=False, soft_wrap=True)


def log_file(db: str, name: str) -> Path:
    """Where a tournament's log goes: beside the database file (or in ./db)."""
    from sqlalchemy.engine import make_url

    url = make_url(db)
    beside = url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:")
    folder = Path(url.database).parent if beside and url.database else Path("db")
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


def _isolation() -> str:
    """How bots are kept apart and measured on this system, in one line."""
    from arena.sandbox.cgroups import support

    found = support()
    if found is None:
        return "no control groups here: process groups, /proc scans and a child subreaper"
    return found.describe()


class ProgressDisplay:
    """A live progress bar on a terminal, a line every few seconds otherwise."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.console = out()
        self.live: Bar | None = None
        self.task: TaskID | None = None
        self.last = 0.0
        self.done_at_start: int | None = None

    def __enter__(self) -> Callable[[Progress, float], None]:
        if not self.quiet and self.console.is_terminal:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            live = self.live = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[rate]} games/s"),
                TimeRemainingColumn(),
                TextColumn("forfeits {task.fields[forfeits]}"),
                console=self.console,
            )
            live.__enter__()
            self.task = live.add_task("games", total=None, rate="-", forfeits=0)
        return self.update

    def update(self, progress: Progress, start: float) -> None:
        """Show ``progress`` (a ``tournament.Progress``) of a run started at ``start``."""
        if self.quiet:
            return
        if self.done_at_start is None:
            self.done_at_start = progress.done - 1
        elapsed = max(time.monotonic() - start, 1e-9)
        rate = (progress.done - self.done_at_start) / elapsed
        if self.live is not None and self.task is not None:
            self.live.update(
                self.task,
                completed=progress.done,
                total=progress.total,
                description=progress.stage,
                rate=f"{rate:.1f}",
                forfeits=progress.forfeits,
            )
        elif time.monotonic() - self.last >= 5 or progress.done == progress.total:
            self.last = time.monotonic()
            left = (progress.total - progress.done) / rate if rate > 0 else 0
            self.console.print(
                f"[{progress.stage}] {progress.done}/{progress.total} games, {rate:.1f} games/s, "
                f"ETA {left:.0f} s, {progress.forfeits} forfeits",
                highlight=False,
                markup=False,
            )

    def __exit__(self, *exc: Any) -> None:
        if self.live is not None:
            self.live.__exit__(*exc)
