"""Registering a bot: describe it, smoke-test it against a random bot, store its version."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from arena import protocol, roster
from arena.botkinds import BotKindError
from arena.botspec import BotSpec
from arena.config import BotDef
from arena.course import check_interpreter
from arena.errors import ArenaError
from arena.games import GAMES, get_game
from arena.job import derive_seed
from arena.loader import is_path
from arena.match import play_game
from arena.records import BotFault, Overloaded
from arena.roster import bot_fields
from arena.store import Bot
from arena.timing import Limit, TimeControl
from arena.worker import GameWorker

RANDOM = BotSpec("random", "python", "bots.randombot")


class RegistrationError(ArenaError):
    """A bot that failed its checks and was not registered."""


def describe(worker: GameWorker, spec: BotSpec, timeout: float = 20.0) -> dict[str, Any]:
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


def smoke_game(worker: GameWorker, spec: BotSpec, game_name: str, move_time: float) -> None:
    """One game against the random bot, bot moving first; ``RegistrationError`` if it faults."""
    players = (worker.player(spec), worker.player(RANDOM))
    try:
        game = get_game(game_name)
        record = play_game(
            game,
            players,
            (derive_seed("smoke", 0), derive_seed("smoke", 1)),
            TimeControl(move=move_time, grace=0.1, startup=20.0),
        )
    finally:
        for player in players:
            player.close()
    if record.voided is not None:
        raise RegistrationError(
            f"smoke game of {game_name} against random: {record.voided}; try again when the machine is less busy"
        )
    if record.offender is not None:
        who = "the bot" if record.offender == 0 else "the random opponent"
        tail = _own_lines(record.stderr[record.offender])[-8:]
        raise RegistrationError(
            f"smoke game of {game_name} against random: {who} forfeited "
            f"({record.termination.value}) after {len(record.moves)} moves: {record.detail}"
            + ("\n  stderr:\n    " + "\n    ".join(tail) if tail else "")
        )


def register_bot(
    sessions: sessionmaker[Session],
    *,
    name: str | None,
    kind: str,
    target: str,
    params: dict[str, Any],
    games: list[str],
    python: str | None,
    move_time: float,
    base: Path,
    starting: Callable[[], None] = lambda: None,
) -> tuple[dict[str, Any], str]:
    """Check and store a bot; (its row as data, what happened: registered / new version / unchanged).
    ``starting`` is called once the checks have passed, just before the bot is first started."""
    from pydantic import ValidationError

    from arena.config import check_command, name_problem

    if kind == "command":
        try:
            check_command(target)
        except ValueError as error:
            raise RegistrationError(f"--command: {error}") from None
    for game in games:
        if game not in GAMES:
            raise RegistrationError(f"unknown game {game!r}; the games are: {', '.join(GAMES)}")
    try:
        fields = bot_fields(BotDef.of(kind, target, params, python), base)
    except ValidationError as error:
        raise RegistrationError(error.errors()[0]["msg"].removeprefix("Value error, ")) from None
    except BotKindError as error:
        raise RegistrationError(str(error)) from None
    if fields["python"] is not None:
        check_interpreter(fields["python"])
    name = name or _default_name(kind, fields["target"])
    problem = name_problem(name)
    if problem:
        raise RegistrationError(f"the bot name {name!r} will not do: {problem}; choose another with --name")
    description, claimed = "", None
    starting()
    with GameWorker() as worker:
        spec = roster.spec(Bot(name=name, version=0, **fields), name)
        if kind != "command":
            info = describe(worker, spec)
            description, claimed = info.get("description", ""), info.get("games") or None
        if not games:
            games = [claimed[0]] if claimed else ["tictactoe"]
        for game in games:
            if claimed and game not in claimed:
                raise RegistrationError(f"bot {name!r} does not play {game!r}; it plays {', '.join(claimed)}")
            smoke_game(worker, spec, game, move_time)
    with sessions.begin() as session:
        latest = session.scalars(select(Bot).where(Bot.name == name).order_by(Bot.version.desc())).first()
        if latest is not None and all(getattr(latest, k) == v for k, v in fields.items()):
            latest.registered = True
            latest.games = sorted(set(latest.games or []) | set(claimed or games))
            latest.description = latest.description or description
            row, status = latest, "unchanged"
        else:
            row = Bot(
                name=name,
                version=latest.version + 1 if latest else 1,
                description=description,
                games=claimed or games,
                registered=True,
                **fields,
            )
            session.add(row)
            status = "new version" if latest else "registered"
        session.flush()
        return {
            "name": row.name,
            "version": row.version,
            "kind": row.kind,
            "target": row.target,
            "games": row.games or [],
        }, status


def _own_lines(stderr: str) -> list[str]:
    """A bot's stderr lines without the sandbox's report of what it enforced."""
    return [line for line in stderr.strip().splitlines() if not line.startswith("arena sandbox:")]


def _default_name(kind: str, target: str) -> str:
    if kind == "command":
        return os.path.basename(target.split()[0]) if target.split() else "bot"
    if is_path(target):
        return Path(target).stem
    return target.rsplit(".", 1)[-1]
