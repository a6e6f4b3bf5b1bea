"""The roster: the bot versions a tournament's teams play with, the hashes of their code, and
how the workers start them (``BotSpec``).

A bot version is stored once per name, kind, target, parameters (one canonical JSON text,
``stored_params``), interpreter, folder and code hash: declaring or registering the same bot
again finds the same version. Nothing here runs bot code: kinds find and hash it as files (``arena.entrants.kinds``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.contests.config import BotDef, LimitsDef, TournamentDef
from arena.core.botspec import BotSpec, canonical_params
from arena.entrants.kinds import BotKindError, kind_of, resolve_interpreter
from arena.errors import ArenaError
from arena.host.loader import is_path
from arena.store.models import Bot


class RosterError(ArenaError):
    """A team whose bot cannot be found, or whose code changed under a running tournament."""


def bot_fields(definition: BotDef, base: Path) -> dict[str, Any]:
    """The stored fields of the bot ``definition`` declares from folder ``base``: its target
    resolved (a file made absolute), its folder (where its modules and relative paths are),
    its parameters in their canonical form (``stored_params``) and the hash of its code."""
    kind = kind_of(definition.kind)
    kind.check_params(definition.params)
    target = kind.resolve(definition.target, base)
    path = None if is_path(target) and not kind.program else str(base)
    return {
        "kind": definition.kind,
        "target": target,
        "params": stored_params(definition.kind, target, base, definition.params),
        "python": resolve_interpreter(definition.python, base),
        "path": path,
        "code_hash": kind.digest(target, base),
    }


def stored_params(kind: str, target: str, base: Path, params: Mapping[str, Any]) -> str:
    """The parameters of bot ``target`` (of ``kind``, declared from ``base``) as every version
    stores and compares them: one canonical JSON text (keys sorted), and for a built-in bot
    its values as it takes them with those equal to their default left out (a parameter not
    given is its default). ``--param depth=3``, ``params: {depth: 3}`` and, if 3 is the
    default, no parameter at all are the same text."""
    return canonical_params(kind_of(kind).normalize_params(target, base, params))


def latest_version(session: Session, name: str) -> Bot | None:
    """The newest stored version of bot ``name``, registered or declared."""
    return session.scalars(select(Bot).where(Bot.name == name).order_by(Bot.version.desc())).first()


def same_version(bot: Bot, fields: dict[str, Any]) -> bool:
    """Whether stored version ``bot`` is the bot of ``fields`` (``bot_fields``). The folder it
    was declared from counts only where the bot depends on it (``BotKind.uses_folder``: not an
    installed module such as ``bots.uct``); its parameters are compared in today's canonical
    form, so a version stored before that form left defaults out is still found."""
    kind = kind_of(fields["kind"])
    try:
        folder = kind.uses_folder(fields["target"], Path(fields["path"] or "."))
    except BotKindError:
        folder = True
    ignored = {"params"} if folder else {"params", "path"}
    if any(getattr(bot, key) != value for key, value in fields.items() if key not in ignored):
        return False
    if bot.params == fields["params"]:
        return True
    try:
        stored = json.loads(bot.params)
        return isinstance(stored, dict) and (
            stored_params(bot.kind, bot.target, Path(bot.path or "."), stored) == fields["params"]
        )
    except (ValueError, BotKindError):
        return False


def bot_row(session: Session, name: str, definition: BotDef, base: Path, **extra: Any) -> Bot:
    """The stored version of bot ``name`` as ``definition`` says, adding a new version if the
    definition or its code changed; ``extra``: other fields of a new version."""
    try:
        fields = bot_fields(definition, base)
    except BotKindError as error:
        raise RosterError(f"bot {name!r}: {error}") from None
    latest = latest_version(session, name)
    if latest is not None and same_version(latest, fields):
        return latest
    row = Bot(name=name, version=(latest.version + 1) if latest else 1, **fields, **extra)
    session.add(row)
    session.flush()
    return row


def code_changed(bot: Bot, base: Path) -> bool:
    """Whether the code of stored version ``bot`` is not what its files hold now."""
    if bot.code_hash is None:
        return False
    try:
        return kind_of(bot.kind).digest(bot.target, Path(bot.path or base)) != bot.code_hash
    except (BotKindError, OSError):
        return True


def resolve_team_bot(session: Session, config: TournamentDef, team: str, ref: str | BotDef, base: Path) -> Bot:
    """The bot version a team plays with: one declared under ``bots:``, inline, or registered."""
    if isinstance(ref, BotDef):
        return bot_row(session, team, ref, base)
    if ref in config.bots:
        return bot_row(session, ref, config.bots[ref], base)
    return registered_bot(session, config, team, ref)


def registered_bot(session: Session, config: TournamentDef, team: str, ref: str) -> Bot:
    """The latest registered version of bot ``ref``, which team ``team`` plays; ``RosterError``
    naming the known bots if there is none. Only reads."""
    registered = session.scalars(
        select(Bot).where(Bot.name == ref, Bot.registered.is_(True)).order_by(Bot.version.desc())
    ).first()
    if registered is None:
        known = sorted(config.bots) + sorted(set(session.scalars(select(Bot.name).where(Bot.registered.is_(True)))))
        raise RosterError(
            f"team {team!r} plays bot {ref!r}, which is neither under bots: "
            f"nor registered; known bots: {', '.join(known) or 'none'} "
            "(see 'arena bots', 'arena register')"
        )
    return registered


def spec(bot: Bot, name: str, limits: LimitsDef | None = None) -> BotSpec:
    """How the workers start ``bot`` as ``name`` (a team), under ``limits``: a module in the
    folder it was declared in goes with its code (``BotSpec.code``), which the worker copies into
    a bundle of its own to run it from."""
    limits = limits or LimitsDef()
    path, code = None, None
    if kind_of(bot.kind).program:
        path = bot.path
    elif bot.kind == "python" and not is_path(bot.target):
        try:
            found = kind_of(bot.kind).code(bot.target, Path(bot.path or "."))
        except BotKindError as error:
            raise RosterError(f"bot {bot.name!r}: {error}") from None
        code = str(found.root) if found is not None and found.bundle else None
    return BotSpec(
        name=name,
        kind=bot.kind,
        target=bot.target,
        params=bot.params,
        python=bot.python,
        path=path,
        memory_mb=limits.memory_mb,
        file_size_mb=limits.file_size_mb,
        processes=limits.processes,
        code=code,
        code_hash=bot.code_hash if code else None,
    )
