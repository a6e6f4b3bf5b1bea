"""Finding what a command asks for in the database: a tournament (by name, or the latest one
that was run), a game (by id), and reading back a tournament's stored configuration and the
names of its stages and pools."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.contests.config import GameDef, RatingDef, TimeDef, TournamentDef
from arena.errors import ArenaError
from arena.formats.stagedef import StageDef
from arena.games import OUTSIDE, from_outside
from arena.store.models import PLAY_HASH, GameRow, Tournament


class UnknownTournamentError(ArenaError, LookupError):
    """No tournament of that name in the database."""


class UnknownGameIdError(ArenaError, LookupError):
    """No game with that id in the database."""


#: what a command that looks at stored games says when the database holds no tournament at all
NO_TOURNAMENTS = "there are no tournaments in this database yet: run one with 'arena run FILE' (or pass the right --db)"


def check_any_tournament(session: Session) -> None:
    """``UnknownTournamentError`` saying how to run one (``NO_TOURNAMENTS``) if the database
    holds no tournament at all, not even the games of ``arena play``: an empty database, or the
    wrong ``--db``."""
    if session.scalar(select(Tournament.id).limit(1)) is None:
        raise UnknownTournamentError(NO_TOURNAMENTS)


def find_tournament(session: Session, name: str | None = None) -> Tournament:
    """The tournament called ``name``, or the latest one run (the games of ``arena play`` are
    only found by name); a message naming the others if none."""
    if name is None:
        latest = select(Tournament).order_by(Tournament.id.desc())
        found = session.scalars(latest.where(Tournament.config_hash != PLAY_HASH)).first()
        if found is None:
            played = session.scalars(latest.where(Tournament.config_hash == PLAY_HASH)).first()
            if played is not None:
                raise UnknownTournamentError(
                    "there are no tournaments in this database yet, only the games of 'arena play': name "
                    f"one to see it, e.g. arena leaderboard \"{played.name}\" (list them with 'arena tournaments')"
                )
            raise UnknownTournamentError(NO_TOURNAMENTS)
        return found
    found = session.scalars(select(Tournament).where(Tournament.name == name)).first()
    if found is None:
        known = list(session.scalars(select(Tournament.name).order_by(Tournament.id)))
        listing = ", ".join(known[-10:]) if known else "none yet"
        raise UnknownTournamentError(
            f"no tournament {name!r} in this database; the tournaments: {listing} (list them with 'arena tournaments')"
        )
    return found


def find_game(session: Session, game_id: int) -> GameRow:
    """The stored game ``game_id``; a message saying how to list games if there is none."""
    found = session.get(GameRow, game_id)
    if found is None:
        last = session.scalar(select(func.max(GameRow.id)))
        where = f"game ids run from 1 to {last}" if last else "this database has no games yet"
        raise UnknownGameIdError(
            f"no game {game_id} in this database ({where}); list games with "
            "'arena games' or 'arena games --tournament NAME'"
        )
    return found


def tournament_config(tournament: Tournament) -> TournamentDef:
    """The tournament's stored configuration; where it does not validate in full (the games of
    ``arena play`` have no teams list), the parts results need (game, scoring, time, rating,
    stages, teams) are validated alone."""
    data = tournament.config
    try:
        return TournamentDef.model_validate(data)
    except (ValidationError, ArenaError):
        pass
    try:
        return TournamentDef.model_construct(
            name=data["name"],
            game=_stored_game_def(data["game"]),
            seed=data.get("seed", 0),
            scoring=data.get("scoring", "standard"),
            time=TimeDef.model_validate(data.get("time") or {}),
            workers=data.get("workers"),
            rating=RatingDef.model_validate(data.get("rating") or {}),
            bots=dict(data.get("bots") or {}),
            teams=data.get("teams"),
            stages=[StageDef.model_validate(stage) for stage in data.get("stages") or [{}]],
        )
    except (ValidationError, KeyError, TypeError, ArenaError) as error:
        raise ArenaError(
            f"the stored configuration of tournament {tournament.name!r} cannot be read by this "
            f"version of arena: {error}"
        ) from None


def _stored_game_def(data: dict[str, Any]) -> GameDef:
    """The stored tournament file's game; where it no longer loads (a user's game whose module
    is gone, a referee program gone, OpenSpiel no longer installed), taken as written: its name
    and parameters are all the results need of it (what needs the game itself, a replay, says
    why it cannot be loaded), and its seats are those of its ``players`` parameter where it
    has one (the games a stage plans follow from them)."""
    try:
        return GameDef.model_validate(data)
    except ValidationError:
        if not (isinstance(data, dict) and from_outside(data) and isinstance(data.get("name"), str)):
            raise
        params = dict(data.get("params") or {})
        source = {key: str(data[key]) if data.get(key) else None for key in OUTSIDE}
        written = GameDef.model_construct(
            name=data["name"],
            module=source["module"],
            openspiel=source["openspiel"],
            command=source["command"],
            class_=data.get("class") or data.get("class_"),
            params=params,
        )
        players = params.get("players")
        if type(players) is int and players >= 2:
            written._players = players
        return written


def stage_names(tournament: Tournament) -> list[str]:
    """The names of the tournament's stages, in order, as its stored configuration gives them."""
    return [stage.name for stage in tournament_config(tournament).stages]


def stage_name(names: list[str], stage: int) -> str:
    """What stage number ``stage`` is called, given the tournament's ``stage_names`` (its
    number, when the configuration has no such stage)."""
    return names[stage] if 0 <= stage < len(names) else str(stage)


def pool_name(pool: int) -> str:
    """How pools are called: A, B, C, ... (numbers after Z)."""
    return chr(ord("A") + pool) if pool < 26 else str(pool + 1)
