"""Registering a bot: describe it, smoke-test it against a random bot (all of a game, its first
moves, or none), store its version. An engine (UCI, UGI, GTP) is registered as a tournament
file declares it, its settings as its fields, and checked by its smoke game, played over its
protocol."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from arena.contests import roster
from arena.contests.config import BotDef, command_line_game
from arena.contests.preflight import engine_problem
from arena.contests.roster import bot_fields, latest_version, same_version
from arena.core import protocol
from arena.core.botspec import BotSpec
from arena.core.gameloop import Watcher, play_game
from arena.core.job import derive_seed
from arena.core.records import BotFault, MoveRecord, Overloaded, Termination
from arena.core.timing import Limit, TimeControl
from arena.entrants.kinds import ENGINES, BotKindError, kind_of
from arena.errors import ArenaError
from arena.games import Game, State, get_game, get_game_from_spec
from arena.host.loader import is_path
from arena.runners.worker import GameWorker
from arena.sandbox.interpreter import check_interpreter
from arena.store.models import Bot

RANDOM = BotSpec("random", "python", "bots.randombot")
#: the game of the smoke game of a bot that does not say what it plays
DEFAULT_GAME = "tictactoe"
#: seconds a bot has to be ready for its smoke game (and to say what it is)
STARTUP = 20.0


class RegistrationError(ArenaError):
    """A bot that failed its checks and was not registered."""


def describe(worker: GameWorker, spec: BotSpec, timeout: float = STARTUP) -> dict[str, Any]:
    """What the bot says of itself (description, games, parameters), asked in its own process."""
    process = worker.start_bot(spec, None)
    try:
        line, _ = process.exchange(protocol.DESCRIBE, Limit(timeout, grace=0.0))
        message = protocol.parse_reply(line, "description")
        if message["type"] == "error":
            raise RegistrationError(f"bot {spec.target!r} cannot be loaded: {message['message']}")
        return message
    except (BotFault, Overloaded) as fault:
        tail = _own_lines(process.stderr.take())[-5:]
        raise RegistrationError(
            f"bot {spec.target!r} did not start: {fault}" + ("\n  " + "\n  ".join(tail) if tail else "")
        ) from None
    except protocol.ProtocolError as error:
        raise RegistrationError(f"bot {spec.target!r} does not speak the protocol: {error}") from None
    finally:
        process.close()


@dataclass(frozen=True)
class Smoke:
    """How registration tries a bot out: a game of each of its games against the random bot,
    the bot as ``seat`` (a seat's name or mark, ``first`` or ``second``: ``Game.seat_of``),
    ``move_time`` seconds a move, stopped after ``moves`` moves of the bot (``None``: played to
    its end); ``play`` False: no game at all, the bot only loaded and asked what it is."""

    move_time: float = 2.0
    moves: int | None = None
    seat: str = "first"
    play: bool = True


@dataclass(frozen=True)
class SmokeResult:
    """A smoke game the bot passed: the game, the bot's seat (its name), the moves it played,
    and whether the game was played to its end (else it was stopped after those moves)."""

    game: str
    seat: str
    moves: int
    finished: bool


class SmokeProgress:
    """What registration tells of its smoke games as they go (``arena register`` shows it);
    this one tells nobody."""

    def started(self, game: str, seat: str, control: TimeControl) -> None:
        """A smoke game of ``game`` starts, the bot playing ``seat`` (its name) under ``control``."""

    def thinking(self, number: int) -> None:
        """The bot is asked for its move ``number`` (1: its first of the game)."""

    def moved(self, number: int, move: str, wall: float, cpu: float | None) -> None:
        """The bot played its move ``number``, ``move``, in ``wall`` seconds (``cpu`` of CPU
        time, where it was measured)."""

    def ended(self) -> None:
        """The smoke game is over, however it ended."""


class _Watch(Watcher):
    """Counts and reports the moves of the bot in seat ``seat``; stops the game after its
    ``limit``-th (``None``: never)."""

    def __init__(self, seat: int, limit: int | None, progress: SmokeProgress) -> None:
        self.seat = seat
        self.limit = limit
        self.progress = progress
        self.moves = 0

    def to_move(self, state: State, seat: int) -> None:
        if seat == self.seat:
            self.progress.thinking(self.moves + 1)

    def moved(self, state: State, move: MoveRecord) -> bool:
        if move.seat != self.seat:
            return True
        self.moves += 1
        cpu = None if move.cpu_ms is None else move.cpu_ms / 1000
        self.progress.moved(self.moves, move.move, move.wall_ms / 1000, cpu)
        return state.is_terminal or self.limit is None or self.moves < self.limit


def smoke_game_of(text: str) -> Game:
    """The game ``--game`` names for a smoke game, as every command names one
    (``command_line_game``: a name, ``openspiel:NAME`` for an engine of Connect Four or Go,
    ``command:REFEREE``, a ``.py`` file); ``RegistrationError`` if there is none."""
    from pydantic import ValidationError

    try:
        definition = command_line_game(text)
    except ValidationError as error:
        raise RegistrationError(f"--game {text!r}: {error.errors()[0]['msg'].removeprefix('Value error, ')}") from None
    if definition.players != 2:
        raise RegistrationError(
            f"--game {text!r}: a smoke game seats the bot and a random bot, and {definition.name} has "
            f"{definition.players} seats; register it on a game of two seats, or with --no-smoke"
        )
    return get_game_from_spec(definition.spec())


def smoke_seat(game: Game, seat: str) -> int:
    """The seat (0 or 1) ``seat`` names in ``game``; ``RegistrationError`` if none."""
    try:
        return game.seat_of(seat)
    except ValueError as error:
        raise RegistrationError(f"--as: {error}") from None


def smoke_game(
    worker: GameWorker, spec: BotSpec, game: Game, smoke: Smoke, progress: SmokeProgress | None = None
) -> SmokeResult:
    """One game of ``game`` against the random bot as ``smoke`` says; ``RegistrationError`` if
    the bot faults in it, saying which option to change when it ran out of time."""
    progress = progress or SmokeProgress()
    game_name = game.name
    seat = smoke_seat(game, smoke.seat)
    bot, random = worker.player(spec), worker.player(RANDOM)
    players = (bot, random) if seat == 0 else (random, bot)
    watch = _Watch(seat, smoke.moves, progress)
    control = TimeControl(move=smoke.move_time, grace=0.1, startup=STARTUP)
    progress.started(game_name, game.seat_names(game.players)[seat], control)
    try:
        record = play_game(game, players, (derive_seed("smoke", 0), derive_seed("smoke", 1)), control, watch=watch)
    finally:
        for player in players:
            player.close()
        progress.ended()
    where = f"smoke game of {game_name} against random"
    if record.voided is not None:
        raise RegistrationError(f"{where}: {record.voided}; try again when the machine is less busy")
    if record.offender is not None:
        who = "the bot" if record.offender == seat else "the random opponent"
        tail = _own_lines(record.stderr[record.offender])[-8:]
        timed_out = record.offender == seat and record.termination is Termination.TIMEOUT
        hint = _timeout_hint(smoke, watch.moves, record.detail or "", spec.kind) if timed_out else ""
        raise RegistrationError(
            f"{where}: {who} forfeited ({record.termination.value}) after {len(record.moves)} moves: "
            f"{record.detail}{hint}" + ("\n  stderr:\n    " + "\n    ".join(tail) if tail else "")
        )
    seat_name = game.seat_names(game.players)[seat]
    return SmokeResult(game_name, seat_name, watch.moves, record.termination is not Termination.ABORTED)


def _timeout_hint(smoke: Smoke, played: int, detail: str, kind: str) -> str:
    """For a bot of ``kind`` that ran out of time in its smoke game: the options that let it
    register (``--no-smoke`` only for a bot that describes itself)."""
    describes = kind_of(kind).answers_describe
    if "during startup" in detail:
        if kind in ENGINES:
            return f"; it did not finish the {kind.upper()} handshake: does it speak {kind.upper()}?"
        return f"; it was not ready within {STARTUP:g} s" + (
            ": register it without a game with --no-smoke" if describes else ""
        )
    hint = f"; give it more time a move with --move-time (now {smoke.move_time:g} s)"
    if played:
        moves = "move" if played == 1 else "moves"
        hint += f", stop the smoke game after the {played} {moves} it made in time with --smoke-moves {played}"
    return hint + (", or register it without a game with --no-smoke" if describes else "")


@dataclass(frozen=True)
class Registration:
    """What registering a bot did: the version stored (as data: name, version, kind, target,
    games), ``status`` (``registered``, ``new version`` or ``unchanged``) and the smoke games it
    passed (none with ``Smoke(play=False)``)."""

    bot: dict[str, Any]
    status: str
    smoke: list[SmokeResult]


def register_bot(
    sessions: sessionmaker[Session],
    *,
    name: str | None,
    kind: str,
    target: str,
    params: dict[str, Any],
    games: list[str],
    python: str | None,
    base: Path,
    smoke: Smoke | None = None,
    progress: SmokeProgress | None = None,
    starting: Callable[[], None] = lambda: None,
    settings: Mapping[str, Any] | None = None,
) -> Registration:
    """Check and store a bot: it is loaded and asked what it is (an engine or a command bot is
    not: it speaks another protocol), then plays a smoke game of each game (``smoke_game_of``)
    as ``smoke`` says (``progress`` is told how they go). ``settings`` are an engine's (its
    variant, options, ...: docs/engines.md), checked as a tournament file's fields. ``starting``
    is called once the checks that start nothing have passed, just before the bot is first
    started."""
    from arena.core.text import name_problem
    from arena.entrants.kinds import check_command

    smoke = smoke or Smoke()
    describes = kind_of(kind).answers_describe
    if kind_of(kind).program:
        try:
            check_command(target)
        except ValueError as error:
            raise RegistrationError(f"--{kind}: {error}") from None
    if not describes and not smoke.play:
        who = "an engine" if kind in ENGINES else "a command bot"
        raise RegistrationError(
            f"--no-smoke: {who} is checked by its smoke game alone (it need not answer "
            "describe); register it with a short one instead, e.g. --smoke-moves 1"
        )
    if not games and not describes:  # (a bot that describes itself says what it plays)
        games = [DEFAULT_GAME]
    chosen = [smoke_game_of(text) for text in games]
    for game in chosen:
        smoke_seat(game, smoke.seat)
    fields = _fields(kind, target, params, settings or {}, python, base)
    if fields["python"] is not None:
        check_interpreter(fields["python"])
    name = name or _default_name(kind, fields["target"])
    problem = name_problem(name)
    if problem:
        raise RegistrationError(f"the bot name {name!r} will not do: {problem}; choose another with --name")
    spec = roster.spec(Bot(name=name, version=0, **fields), name)
    if kind in ENGINES:  # its program, and a notation for each game (it is not asked what it plays)
        for game in chosen:
            problem = engine_problem(spec, game, base)
            if problem:
                raise RegistrationError(f"--{kind}: {problem}")
    description, claimed, every_game = "", None, False
    results: list[SmokeResult] = []
    starting()
    with GameWorker() as worker:
        if describes:
            info = describe(worker, spec)
            description, claimed = info.get("description", ""), info.get("games") or None
            every_game = info.get("every_game") is True
        if not chosen:
            chosen = [get_game(claimed[0] if claimed else DEFAULT_GAME)]
        for game in chosen:
            if claimed and not every_game and game.name not in claimed:
                raise RegistrationError(f"bot {name!r} does not play {game.name!r}; it plays {', '.join(claimed)}")
            smoke_seat(game, smoke.seat)
        if smoke.play:
            results = [smoke_game(worker, spec, game, smoke, progress) for game in chosen]
    smoked = [game.name for game in chosen]
    games = (claimed + [g for g in smoked if g not in claimed]) if claimed else smoked  # (an every_game bot's too)
    with sessions.begin() as session:
        latest = latest_version(session, name)
        if latest is not None and same_version(latest, fields):
            latest.registered = True
            latest.games = sorted(set(latest.games or []) | set(games))
            latest.description = latest.description or description
            row, status = latest, "unchanged"
        else:
            row = Bot(
                name=name,
                version=latest.version + 1 if latest else 1,
                description=description,
                games=games,
                registered=True,
                **fields,
            )
            session.add(row)
            status = "new version" if latest else "registered"
        session.flush()
        stored = {
            "name": row.name,
            "version": row.version,
            "kind": row.kind,
            "target": row.target,
            "games": row.games or [],
        }
    return Registration(stored, status, results)


def _fields(
    kind: str, target: str, params: dict[str, Any], settings: Mapping[str, Any], python: str | None, base: Path
) -> dict[str, Any]:
    """The stored fields of the bot (``roster.bot_fields``) declared as a tournament file would
    declare it, an engine's ``settings`` as its fields; ``RegistrationError`` saying what is wrong."""
    from pydantic import ValidationError

    try:
        definition = BotDef.of(kind, target, params, python)
        if settings:
            definition = BotDef.model_validate({**definition.model_dump(), **settings})
        return bot_fields(definition, base)
    except ValidationError as error:
        raise RegistrationError(error.errors()[0]["msg"].removeprefix("Value error, ")) from None
    except BotKindError as error:
        raise RegistrationError(str(error)) from None


def _own_lines(stderr: str) -> list[str]:
    """A bot's stderr lines without the sandbox's report of what it enforced."""
    return [line for line in stderr.strip().splitlines() if not line.startswith("arena sandbox:")]


def _default_name(kind: str, target: str) -> str:
    if kind_of(kind).program:
        return os.path.basename(target.split()[0]) if target.split() else "bot"
    if is_path(target):
        return Path(target).stem
    return target.rsplit(".", 1)[-1]
