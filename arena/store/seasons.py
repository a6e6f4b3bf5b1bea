"""A season: teams submit bot versions, each validated in the sandbox and put on a ladder that
plays continuously (arena/formats/ladder.py), until staff freeze the standings into a final tournament.

The staff create a season (its game, time control, how many versions of a team stay on the
ladder) and add teams; each team gets a token, shown once and stored only as its SHA-256. A
submission (``submit``) names its team by token; it is unpacked (arena/entrants/uploads.py), registered as
a bot version of its own (``TEAM@SEASON``), loaded in the sandbox and made to play a whole game
against itself under the season's time control, as Kaggle validates. A submission that fails is
stored with status ``error`` and its log (the failure, the bot's stderr), which only its team may
read; one that passes is ``active``, gets an entry in the season's ladder tournament (a
tournament named ``season NAME``), and retires its team's versions beyond the newest ``keep``.

The ladder (``play_ladder``) rates every finished game of that tournament with TrueSkill, then
plays games chosen by ``InformationPairing``, ``workers`` at a time, storing each as it ends.
``freeze`` writes the tournament file of the final: the best ``top`` active versions, each
pinned to its stored file.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Float, ForeignKey, Integer, Select, String, UniqueConstraint, func, select
from sqlalchemy.orm import Mapped, Session, mapped_column, sessionmaker

from arena.core.text import MAX_NAME, name_problem
from arena.errors import ArenaError
from arena.store.models import Base, Bot, CleanJSON, CleanString, CleanText

#: submissions a team may make in an hour
MAX_PER_HOUR = 10
#: the most characters of a validation log kept
MAX_LOG = 20000
#: the bytes of files a team's versions may keep in the season's folder (a failed version's
#: files are removed once it has failed)
TEAM_QUOTA = 256 << 20
#: the bytes the season's file system must have free beyond an upload for it to be taken
DISK_RESERVE = 256 << 20
_SAFE = re.compile(r"[^A-Za-z0-9_-]+")


class SeasonError(ArenaError):
    """A season command that cannot be done; the message says why."""


class NoSeason(SeasonError):
    """The season named is not in the database."""


class BadToken(SeasonError):
    """The token is not a team's token of the season."""


class Frozen(SeasonError):
    """The season is frozen: it takes no more submissions."""


class RateLimited(SeasonError):
    """The team has made its submissions for this hour."""


class OutOfSpace(SeasonError):
    """The team's versions fill its quota, or the season's file system is nearly full."""


class Season(Base):
    """A season: its game and time control (as a tournament file writes them), where submitted
    files are kept, how many versions of a team stay on the ladder, and its ladder tournament."""

    __tablename__ = "seasons"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(CleanString(200), unique=True)
    game: Mapped[dict[str, Any]] = mapped_column(CleanJSON)
    time_control: Mapped[dict[str, Any]] = mapped_column(CleanJSON)
    folder: Mapped[str] = mapped_column(CleanText)
    keep: Mapped[int] = mapped_column(Integer, default=1)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"))
    status: Mapped[str] = mapped_column(CleanString(20), default="open")
    created_at: Mapped[float] = mapped_column(Float, default=time.time)


class SeasonTeam(Base):
    """A team of a season and the SHA-256 of its token."""

    __tablename__ = "season_teams"
    __table_args__ = (UniqueConstraint("season_id", "name"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    season_id: Mapped[int] = mapped_column(ForeignKey("seasons.id"))
    name: Mapped[str] = mapped_column(CleanString(200))
    token_hash: Mapped[str] = mapped_column(String(64), index=True)
    created_at: Mapped[float] = mapped_column(Float, default=time.time)


class Submission(Base):
    """A bot version a team submitted: ``status`` ``error`` (``log`` says why; its team's
    eyes only), ``active`` (on the ladder, as ``entry_id``) or ``retired``."""

    __tablename__ = "submissions"
    __table_args__ = (UniqueConstraint("team_id", "version"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    team_id: Mapped[int] = mapped_column(ForeignKey("season_teams.id"), index=True)
    version: Mapped[int] = mapped_column(Integer)
    filename: Mapped[str] = mapped_column(CleanString(200))
    interface: Mapped[str] = mapped_column(CleanString(20))
    size: Mapped[int] = mapped_column(Integer)
    path: Mapped[str | None] = mapped_column(CleanText)
    bot_id: Mapped[int | None] = mapped_column(ForeignKey("bots.id"))
    entry_id: Mapped[int | None] = mapped_column(ForeignKey("entries.id"))
    status: Mapped[str] = mapped_column(CleanString(20))
    log: Mapped[str] = mapped_column(CleanText, default="")
    created_at: Mapped[float] = mapped_column(Float, default=time.time)
    #: when it left the ladder (``None``: not retired, or retired before this was kept)
    retired_at: Mapped[float | None] = mapped_column(Float)


def hash_token(token: str) -> str:
    """What is stored of a token."""
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def ladder_name(season: str) -> str:
    """The name of a season's ladder tournament."""
    return f"season {season}"


def get_season(session: Session, name: str, list_others: bool = True) -> Season:
    """The season ``name``; ``SeasonError`` (naming the seasons there are if ``list_others``) if
    there is none."""
    season = session.scalars(select(Season).where(Season.name == name)).first()
    if season is None:
        if not list_others:
            raise NoSeason(f"no season {name!r}")
        names = session.scalars(select(Season.name).order_by(Season.name)).all()
        there = f"the seasons are: {', '.join(names)}" if names else "there is no season yet (arena season create)"
        raise NoSeason(f"no season {name!r}; {there}")
    return season


def team_of_token(session: Session, season: Season, token: str) -> SeasonTeam:
    """The team of ``season`` whose token is ``token`` (spaces around it ignored); ``SeasonError``
    if none (the same message whatever was wrong, so that it tells nothing of the tokens there are)."""
    digest = hash_token(token.strip())
    for team in session.scalars(select(SeasonTeam).where(SeasonTeam.season_id == season.id)):
        if hmac.compare_digest(team.token_hash, digest):
            return team
    raise BadToken("the token is not a team's token of this season")


def add_teams(sessions: sessionmaker[Session], season_name: str, names: list[str]) -> dict[str, str]:
    """Add teams to a season; each new team's token (shown once: only its hash is stored)."""
    tokens = {}
    with sessions.begin() as session:
        season = get_season(session, season_name)
        there = set(session.scalars(select(SeasonTeam.name).where(SeasonTeam.season_id == season.id)))
        for name in names:
            problem = name_problem(name) or ("it is a team of the season already" if name in there else None)
            if problem:
                raise SeasonError(f"team {name!r}: {problem}; no team was added")
            there.add(name)
            tokens[name] = secrets.token_urlsafe(24)
            session.add(SeasonTeam(season_id=season.id, name=name, token_hash=hash_token(tokens[name])))
    return tokens


@dataclass(frozen=True)
class SeasonStanding:
    """A version on the ladder: its team, version, rating, games, and wins and draws of them."""

    team: str
    version: int
    mu: float
    sigma: float
    games: int
    wins: int = 0
    draws: int = 0

    @property
    def record(self) -> str:
        """``W-D-L``: its wins, draws and losses."""
        return f"{self.wins}-{self.draws}-{self.games - self.wins - self.draws}"

    @property
    def rating(self) -> float:
        """mu - 3 sigma, what the ladder ranks by."""
        return self.mu - 3 * self.sigma

    @property
    def label(self) -> str:
        """``TEAM v3``: its entry in the ladder tournament."""
        return f"{self.team} v{self.version}"


def active(session: Session, season: Season) -> list[tuple[SeasonTeam, Submission]]:
    """The versions on the ladder."""
    rows = session.execute(
        select(SeasonTeam, Submission)
        .join(Submission, Submission.team_id == SeasonTeam.id)
        .where(SeasonTeam.season_id == season.id, Submission.status == "active")
        .order_by(SeasonTeam.name, Submission.version)
    )
    return [(team, submission) for team, submission in rows]


def rate_limited(session: Session, team: SeasonTeam, now: float) -> bool:
    """Whether ``team`` has made its ``MAX_PER_HOUR`` submissions in the last hour."""
    count = session.scalar(
        select(func.count(Submission.id)).where(Submission.team_id == team.id, Submission.created_at > now - 3600)
    )
    return (count or 0) >= MAX_PER_HOUR


def folder_for(season: Season, team: SeasonTeam, version: int) -> Path:
    """A new folder for a version's files: ``FOLDER/TEAM-ID/vN-RANDOM`` (the team's name made
    safe; the random part keeps it from files of another database in the same folder)."""
    team_folder = f"{_SAFE.sub('_', team.name)[:60]}-{team.id}"
    return Path(season.folder) / team_folder / f"v{version}-{secrets.token_hex(4)}"


def check_space(season: Season, team: SeasonTeam, incoming: int) -> None:
    """``OutOfSpace`` if the files of ``team``'s versions and ``incoming`` more bytes (an upload
    unpacked) would pass ``TEAM_QUOTA``, or the season's file system would keep less than
    ``DISK_RESERVE`` free."""
    folder = folder_for(season, team, 0).parent
    used = sum(os.path.getsize(os.path.join(path, name)) for path, _, names in os.walk(folder) for name in names)
    if used + incoming > TEAM_QUOTA:
        raise OutOfSpace(
            f"team {team.name!r} keeps {_size(used)} of files in this season, and may keep {_size(TEAM_QUOTA)} "
            "(a new version needs room for all it may unpack); the season's staff can remove retired versions' "
            "files ('arena season prune')"
        )
    root = Path(season.folder)
    while not root.exists() and root != root.parent:
        root = root.parent
    if shutil.disk_usage(root).free < DISK_RESERVE + incoming:
        raise OutOfSpace("the season's disk is nearly full: it takes no more submissions until its staff make room")


def _size(count: int) -> str:
    """A number of bytes in KB or MB."""
    return f"{count >> 20} MB" if count >= 1 << 20 else f"{count >> 10} KB"


def submitted_bots() -> Select[int]:
    """The ids of every bot row under the name of a season's submission (every version of it,
    the ladder's and a final's included): a season's bots, which are their teams' own."""
    names = select(Bot.name).join(Submission, Submission.bot_id == Bot.id)
    return select(Bot.id).where(Bot.name.in_(names))


def bot_name(season: Season, team: SeasonTeam) -> str:
    """The name a team's versions are registered under: ``TEAM@SEASON``, or ids when too long."""
    name = f"{team.name}@{season.name}"
    return name if len(name) <= MAX_NAME else f"team{team.id}@season{season.id}"


def log_tail(text: str) -> str:
    """The last ``MAX_LOG`` characters of a log."""
    return text if len(text) <= MAX_LOG else "...\n" + text[-MAX_LOG:]
