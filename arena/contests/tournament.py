"""Running a tournament: create it from its config (or check that it may be resumed), play
what is pending stage after stage (``arena.contests.stages`` plans each from the last one's standings,
and a Swiss, knockout or adaptive stage round after round from its results so far), store
every record as it comes, and resume all of it after any interruption.
"""

from __future__ import annotations

import errno
import fcntl
import logging
import os
import stat
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from arena.contests import roster
from arena.contests.config import TournamentDef
from arena.contests.game_sums import keep_for_reads
from arena.contests.roster import code_changed, resolve_team_bot
from arena.contests.stages import advancing, expected_games, extra_games, plan_next, plan_stage
from arena.core.botspec import BotSpec
from arena.core.job import GameJob, GameRunner, derive_seed
from arena.core.records import GameRecord
from arena.errors import ArenaError
from arena.formats.openings import assign_openings
from arena.runners.pace import Paced, with_paces
from arena.store.database import make_folder
from arena.store.models import Bot, Entry, GameRow, StoreError, Tournament, count, game_seats, get_row
from arena.store.writes import add_entry, add_tournament, forget_unfinished_moves, save_record, save_void

log = logging.getLogger(__name__)


class TournamentError(ArenaError):
    """A tournament that cannot be started or resumed as asked."""


# ---------------------------------------------------------------- planning


@dataclass
class Progress:
    """What a run reports as it goes."""

    total: int
    done: int = 0
    forfeits: int = 0
    stage: str = ""
    #: games voided for an overloaded machine and played again, and their reasons
    replays: int = 0
    void_reasons: list[str] = field(default_factory=list)
    #: games left unplayed after ``max_replays`` voids
    unplayable: list[int] = field(default_factory=list)


@contextmanager
def run_lock(url: str, name: str) -> Iterator[str]:
    """Hold the lock that keeps two runs of one tournament apart (SQLite files only); gives who
    held it last if that run ended without letting it go (``pid 4242``; ``""``: nobody).

    A POSIX record lock (``lockf``): it belongs to this process alone, so neither the worker
    processes nor anything else that inherits its descriptor holds it, and it is gone the moment
    this process is (killed included). The file says who holds it, for the message; it is
    removed at the end of the run, however it ends, so only a killed run leaves it behind."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if parsed.get_backend_name() == "postgresql":
        with _server_lock(url, name):
            yield ""
        return
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        yield ""
        return
    lock_path = Path(f"{parsed.database}.{derive_seed(name):x}.lock")
    made = [folder for folder in (lock_path.parent, *lock_path.parent.parents) if not folder.exists()]
    make_folder(lock_path.parent)
    fd, holder = _take_lock(lock_path, name)
    try:
        try:  # who holds the lock, for the message above; the lock is the lock, not this text
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"pid {os.getpid()}".encode(), 0)
        except OSError:
            pass
        yield holder  # the last run ended without removing the file: it was killed, or its machine stopped
    finally:
        try:  # removed while it is still held, however the run ends (Ctrl-C, an error): no run can take it meanwhile
            lock_path.unlink()
        except OSError:
            pass
        os.close(fd)
        for folder in made:  # a run refused before it stored anything leaves no empty folder behind
            try:
                folder.rmdir()
            except OSError:
                break  # not empty: the run stored its database there


@contextmanager
def _server_lock(url: str, name: str) -> Iterator[None]:
    """PostgreSQL's advisory lock of the tournament ``name``, held by a connection of its own
    for as long as the run: the server lets it go when that connection ends, killed included."""
    from sqlalchemy import create_engine, func
    from sqlalchemy.exc import SQLAlchemyError
    from sqlalchemy.pool import NullPool

    key = derive_seed("run", name)
    engine = create_engine(url, poolclass=NullPool)
    try:
        connection = engine.connect()
    except SQLAlchemyError:  # the store says why when it opens the database
        engine.dispose()
        yield
        return
    try:
        if not connection.execute(select(func.pg_try_advisory_lock(key))).scalar_one():
            raise TournamentError(
                f"tournament {name!r} is already running (another process holds its lock on the database "
                "server); wait for it to finish or stop it first"
            )
        connection.commit()
        yield
    finally:
        connection.close()
        engine.dispose()


def _take_lock(path: Path, name: str) -> tuple[int, str]:
    """The locked descriptor of the lock file ``path`` and who held it last (``""``: nobody);
    ``TournamentError`` if a running process holds it."""
    for _ in range(100):
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOFOLLOW, 0o644)
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                os.close(fd)
                raise OSError(errno.EINVAL, "it is not a regular file")
        except OSError as error:
            raise TournamentError(
                f"cannot write in the database's folder {str(path.parent)!r} (to create "
                f"the lock file {path.name!r}): {error.strerror}; make it writable, "
                "or choose another path with --db"
            ) from None
        holder = os.pread(fd, 100, 0).decode("utf-8", "replace").strip()
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise TournamentError(
                f"tournament {name!r} is already running ({holder or 'another process'}); "
                "wait for it to finish or stop it first"
            ) from None
        try:  # the run before us may have removed the file between our open and our lock
            if os.fstat(fd).st_ino == os.stat(path).st_ino:
                return fd, holder
        except FileNotFoundError:
            pass
        os.close(fd)
    raise TournamentError(f"cannot take the lock file {str(path)!r}: it keeps changing")


class TournamentRun:
    """One ``arena run`` of a tournament: creates it or resumes it, then plays it out."""

    def __init__(
        self, config: TournamentDef, text: str, sessions: sessionmaker[Session], base: Path, workers: int | None = None
    ) -> None:
        self.config = config
        self.text = text
        self.sessions = sessions
        self.base = base
        self.workers = workers or config.workers or os.cpu_count() or 1
        self.tournament_id: int | None = None
        self.specs: dict[int, BotSpec] = {}
        self.code_hashes: dict[int, str | None] = {}

    def check_interpreters(self) -> None:
        """``ConfigError`` naming each bot whose interpreter (``python:``) cannot run: each is
        asked its version inside the sandbox, once."""
        from arena.entrants.kinds import resolve_interpreter
        from arena.errors import ConfigError
        from arena.sandbox.interpreter import InterpreterError, check_interpreter

        problems = []
        for where, definition in self.config.definitions():
            if definition.python:
                try:
                    check_interpreter(resolve_interpreter(definition.python, self.base))
                except InterpreterError as error:
                    problems.append(f"  {where}.python: {error}")
        if problems:
            raise ConfigError("the tournament's bots cannot all run:\n" + "\n".join(problems))

    def prepare(self) -> tuple[Tournament, bool]:
        """Create the tournament and its first stage, or check that it may be resumed;
        (the tournament, whether it already existed)."""
        config = self.config
        self.check_interpreters()
        with self.sessions.begin() as session:
            existing = self._resumable(session)
            if existing is not None:
                forget_unfinished_moves(session, existing.id)
                tournament, resumed = existing, True
            else:
                tournament = add_tournament(
                    session,
                    config.name,
                    config.game.spec(),
                    config.model_dump(mode="json"),
                    self.text,
                    config.digest(),
                    seed=config.seed,
                    stages=len(config.stages),
                )
                entries = [
                    add_entry(session, tournament.id, team, resolve_team_bot(session, config, team, ref, self.base).id)
                    for team, ref in config.team_bots().items()
                ]
                plan_stage(session, tournament, config, 0, entries)
                resumed = False
            self.tournament_id = tournament.id
            for entry, bot in session.execute(
                select(Entry, Bot).join(Bot, Entry.bot_id == Bot.id).where(Entry.tournament_id == tournament.id)
            ):
                self.specs[entry.id] = roster.spec(bot, entry.team, config.limits)
                self.code_hashes[entry.id] = bot.code_hash
            return tournament, resumed

    def pace(self, announce: Callable[[int], None] = lambda count: None) -> Paced:
        """Give the bots that budget by the clock their pace (arena/runners/pace.py): stored, or
        measured now, one bot at a time (``announce(count)`` first)."""
        config = self.config
        self.specs, paced = with_paces(
            self.specs, self.code_hashes, config.game.spec(), config.time.control(), self.sessions, None, announce
        )
        return paced

    def _play(
        self,
        runner: GameRunner,
        jobs: list[GameJob],
        progress: Progress,
        on_record: Callable[[GameRecord, Progress], None] | None,
    ) -> None:
        """Play ``jobs`` and store each record as it comes (``play_and_store``)."""

        def voided(record: GameRecord, attempts: int) -> None:
            progress.replays += 1
            progress.void_reasons.append(record.voided or "")

        for record in play_and_store(
            self.sessions, runner, jobs, self.config.time.max_replays, voided, progress.unplayable
        ):
            progress.done += 1
            if record.offender is not None and record.termination.is_forfeit:
                progress.forfeits += 1
                log.info(
                    "game %d: seat %d forfeits (%s): %s",
                    record.game_id,
                    record.offender,
                    record.termination.value,
                    record.detail,
                )
            if on_record is not None:
                on_record(record, progress)

    def check_resumable(self) -> bool:
        """Whether the tournament is stored already (a run resumes it); ``TournamentError`` if
        it is stored with another configuration, or a bot's code changed since it started.
        Only reads: a run says so before it checks its bots, and ``prepare`` says it again."""
        with self.sessions.begin() as session:
            return self._resumable(session) is not None

    def _resumable(self, session: Session) -> Tournament | None:
        """The stored tournament of this name, if it may be resumed (``None``: there is none)."""
        config = self.config
        existing = session.scalars(select(Tournament).where(Tournament.name == config.name)).first()
        if existing is None:
            return None
        if existing.config_hash != config.digest() and not _same_config(existing.config, config):
            raise TournamentError(
                f"tournament {config.name!r} already exists with a different configuration; "
                "to start a new one, change its name: in the file, or with "
                "'arena run FILE --name NEW-NAME'; or play it again from scratch in its "
                "place with 'arena run FILE --restart'"
            )
        self._check_game_unchanged(existing)
        self._check_bots_unchanged(session, existing)
        return existing

    def _check_game_unchanged(self, tournament: Tournament) -> None:
        stored, now = tournament.game.get("code_hash"), self.config.game.spec().get("code_hash")
        if stored != now:
            raise TournamentError(
                f"the code of game {self.config.game.name!r} ({self.config.game.module or self.config.game.command}) "
                "changed since tournament "
                f"{tournament.name!r} started, so resuming would mix two games; restore it, or start a new "
                "tournament under another name"
            )

    def _check_bots_unchanged(self, session: Session, tournament: Tournament) -> None:
        for entry, bot in session.execute(
            select(Entry, Bot).join(Bot, Entry.bot_id == Bot.id).where(Entry.tournament_id == tournament.id)
        ):
            if code_changed(bot, self.base):
                raise TournamentError(
                    f"the code of bot {bot.name!r} (team {entry.team!r}) changed since tournament "
                    f"{tournament.name!r} started, so resuming would mix two versions; restore it, "
                    "or start a new tournament under another name"
                )

    def jobs(self, session: Session, stage: int) -> list[GameJob]:
        """The games of ``stage`` still to play, in schedule order."""
        return pending_jobs(session, self.tournament_id, self.config, self.specs, stage)

    def run(
        self,
        runner: GameRunner,
        on_record: Callable[[GameRecord, Progress], None] | None = None,
        progress: Progress | None = None,
    ) -> Progress:
        """Play every pending game, stage after stage; returns the final progress."""
        if self.tournament_id is None:
            raise TournamentError("the tournament is not prepared: call prepare() before run()")
        tournament_id, config = self.tournament_id, self.config
        progress = progress or Progress(expected_games(config))
        started = time.monotonic()
        with self.sessions.begin() as session:
            tournament = get_row(session, Tournament, tournament_id)
            tournament.status = "running"
            tournament.started_at = tournament.started_at or time.time()
            finished = (GameRow.tournament_id == tournament_id, GameRow.status == "finished")
            progress.done = count(session, GameRow, *finished)
            progress.forfeits = count(session, GameRow, *finished, GameRow.offender.is_not(None))
        try:
            for stage in range(len(config.stages)):
                while True:  # a round robin in one go; a Swiss, a knockout or an adaptive stage round by round
                    with self.sessions.begin() as session:
                        tournament = get_row(session, Tournament, tournament_id)
                        if not count(session, GameRow, GameRow.tournament_id == tournament_id, GameRow.stage == stage):
                            plan_stage(
                                session, tournament, config, stage, advancing(session, tournament, config, stage - 1)
                            )
                        elif plan_next(session, tournament, config, stage) or stage + 1 < len(config.stages):
                            # the ratings of the rounds played, for reads while the next is played (or
                            # for the next stage's draw); the last stage's are kept at the end
                            _keep_for_reads(session, tournament_id, config)
                        progress.total = expected_games(config) + extra_games(session, tournament, config)
                        jobs = self.jobs(session, stage)
                    if not jobs:
                        break
                    progress.stage = config.stages[stage].name
                    done = progress.done
                    self._play(runner, jobs, progress, on_record)
                    if progress.done == done and not progress.unplayable:
                        raise TournamentError(
                            f"none of the {len(jobs)} games given to the runner came back with a result "
                            f"(games {', '.join(str(job.game_id) for job in jobs[:10])}); run again to play them"
                        )
                    if progress.unplayable:
                        raise TournamentError(
                            f"{len(progress.unplayable)} game(s) could not be timed fairly: the machine was so busy "
                            f"that their bots waited for a CPU most of the time, {config.time.max_replays + 1} times "
                            f"each (games {', '.join(map(str, progress.unplayable[:10]))}). They stay unplayed: run "
                            "again when the machine is quieter to play them and go on, or set time.on_overload: "
                            "forfeit"
                        )
            status = "finished"
        except BaseException:
            status = "interrupted"
            raise
        finally:
            wind_down = getattr(runner, "wind_down", None)  # (a local runner's workers end meanwhile)
            if wind_down is not None:
                wind_down()
            try:
                with self.sessions.begin() as session:
                    _keep_for_reads(session, tournament_id, config)
                    session.execute(
                        update(Tournament)
                        .where(Tournament.id == tournament_id)
                        .values(
                            status=status,
                            run_seconds=Tournament.run_seconds + (time.monotonic() - started),
                            finished_at=time.time() if status == "finished" else None,
                        )
                    )
            except StoreError as error:
                # the database failed (full, locked): say why the run stopped, not this
                log.error("could not record the tournament as %s: %s", status, error)
                if status == "finished":
                    raise
        return progress


def _keep_for_reads(session: Session, tournament_id: int, config: TournamentDef) -> None:
    """Keep the ratings and sums of the games played (``keep_for_reads``); a failure to is logged, never in
    the way of the run or of recording how it ended (reads rate every game then, and say why)."""
    try:  # (no savepoint: on SQLite it would hold a read lock through the keep, and two runs deadlock;
        # what fails, the rating arithmetic, fails before anything is written)
        keep_for_reads(session, get_row(session, Tournament, tournament_id), config)
    except ArenaError as error:
        log.warning("could not keep the ratings of tournament %d: %s", tournament_id, error)


def _same_config(stored: dict[str, Any], config: TournamentDef) -> bool:
    """Whether the config stored with a tournament means ``config``: read again by this arena
    (settings added since it was stored take their defaults), it has the same digest."""
    try:
        return TournamentDef.model_validate(stored).digest() == config.digest()
    except ValueError:
        return False


def pending_jobs(
    session: Session, tournament_id: int | None, config: TournamentDef, specs: Mapping[int, BotSpec], stage: int
) -> list[GameJob]:
    """The games of ``stage`` of tournament ``tournament_id`` still to play, in schedule order,
    as jobs: ``specs`` are its entries' bots, each game started from its opening, if any."""
    control, game = config.time.control(), config.game.spec()
    pending = (GameRow.tournament_id == tournament_id, GameRow.stage == stage, GameRow.status != "finished")
    seats = game_seats(session, *pending)
    rows = session.scalars(select(GameRow).where(*pending).order_by(GameRow.id))
    openings = stage_openings(session, tournament_id, stage, config.openings)
    return [
        GameJob(
            g.id, game, tuple(specs[seat.entry_id] for seat in seats[g.id]), g.seed, control, openings.get(g.id, ())
        )
        for g in rows
    ]


def stage_openings(
    session: Session, tournament_id: int | None, stage: int, openings: list[list[str]] | None
) -> dict[int, tuple[str, ...]]:
    """The opening each game of ``stage`` starts from (none without ``openings``): a pair of
    teams' games two by two, each two from the next opening (arena/formats/openings.py)."""
    if not openings:
        return {}
    every = game_seats(session, GameRow.tournament_id == tournament_id, GameRow.stage == stage)
    chosen = assign_openings(openings, ((g, frozenset(s.entry_id for s in seats)) for g, seats in every.items()))
    return {game_id: tuple(openings[index]) for game_id, index in chosen.items()}


def play_and_store(
    sessions: sessionmaker[Session],
    runner: GameRunner,
    jobs: list[GameJob],
    max_replays: int,
    voided: Callable[[GameRecord, int], None],
    unplayable: list[int],
    more: Callable[[], bool] = lambda: True,
) -> Iterator[GameRecord]:
    """Play ``jobs`` on ``runner`` and store each record as it comes, yielding the stored ones.
    A game voided for an overloaded machine is stored as such (``voided`` is told, with how many
    times it was voided in this run) and played again, at most ``max_replays`` times, after
    which its id goes to ``unplayable``; replays are played only while ``more()``. A record that
    comes back a second time (a retried job) is stored once and not yielded again."""
    voids: dict[int, int] = {}  # game id -> times voided in this run
    while jobs:
        again = []
        by_id = {job.game_id: job for job in jobs}
        for record in runner.run(jobs):
            if record.voided is not None:
                with deferred_interrupt(), sessions.begin() as session:
                    save_void(session, record)
                voids[record.game_id] = attempts = voids.get(record.game_id, 0) + 1
                log.warning("game %d voided (%d of %d): %s", record.game_id, attempts, max_replays + 1, record.voided)
                voided(record, attempts)
                if attempts <= max_replays:
                    again.append(by_id[record.game_id])
                else:
                    unplayable.append(record.game_id)
                continue
            with deferred_interrupt(), sessions.begin() as session:
                saved = save_record(session, record)
            if not saved:
                log.info("game %d came back a second time: it is stored already, kept as it was", record.game_id)
                continue
            yield record
        jobs = again if more() else []


@contextmanager
def deferred_interrupt() -> Iterator[None]:
    """Hold back Ctrl-C while a game is being stored, then raise it: a game is all or nothing."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[object] = []
    previous = signal.signal(signal.SIGINT, lambda *args: caught.append(args))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught:
            raise KeyboardInterrupt
