"""What a season does (arena/store/seasons.py holds its tables and says what it is): create it, take a
submission and validate it, play the ladder, rank it, freeze it into a tournament file."""

from __future__ import annotations

import json
import logging
import math
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from sqlalchemy import func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from arena.contests.config import GameDef, TimeDef
from arena.core.job import GameJob, GameRunner, derive_seed
from arena.core.records import GameRecord
from arena.entrants.uploads import MAX_UNPACKED, UploadError, unpack
from arena.errors import ArenaError
from arena.formats.ladder import InformationPairing, Ladder
from arena.games import GAMES, get_game_from_spec
from arena.store.models import Bot, Entry, GameRow, KeptRatings, Tournament, count
from arena.store.seasons import (
    Frozen,
    RateLimited,
    Season,
    SeasonError,
    SeasonStanding,
    SeasonTeam,
    Submission,
    active,
    bot_name,
    check_space,
    folder_for,
    get_season,
    ladder_name,
    log_tail,
    rate_limited,
    team_of_token,
)
from arena.store.writes import PlannedGame, add_entry, add_game, add_tournament

#: times a submission is stored again after another one of its team took its version number
TAKE_ATTEMPTS = 5
#: the ``config_hash`` of a season's ladder tournament (never a command's default tournament)
SEASON_HASH = "season"
#: the ``settings`` of a season's kept ladder (``KeptRatings``: the ladder's own TrueSkill and counts)
LADDER = "season ladder"
#: days a retired version's files are kept (its rows, log and games are kept for ever)
PRUNE_AFTER_DAYS = 7.0

log = logging.getLogger(__name__)


def create_season(
    sessions: sessionmaker[Session], name: str, game: GameDef, time_def: TimeDef, folder: Path, keep: int = 1
) -> None:
    """Store a new season and its ladder tournament; ``SeasonError`` if the name is taken."""
    from arena.core.text import TOURNAMENT_NAME, name_problem

    problem = name_problem(name)
    if not problem and not TOURNAMENT_NAME.match(f"{ladder_name(name)} final"):  # its ladder's and its final's names
        problem = "use letters, digits, spaces and . _ + - (at most 88 characters), a letter or digit first"
    if problem:
        raise SeasonError(f"season {name!r}: {problem}")
    with sessions.begin() as session:
        if session.scalars(select(Season.id).where(Season.name == name)).first() is not None:
            raise SeasonError(f"season {name!r} exists already")
        title = ladder_name(name)
        if session.scalars(select(Tournament.id).where(Tournament.name == title)).first() is not None:
            raise SeasonError(f"a tournament named {title!r} exists already: the season's ladder needs that name")
        spec = game.spec()
        tournament = add_tournament(
            session,
            title,
            spec,
            {"name": title, "game": spec, "scoring": "standard", "stages": [{"name": "ladder"}]},
            f"# the ladder of season {name!r}\n",
            SEASON_HASH,
            status="running",
        )
        session.add(
            Season(
                name=name,
                game=spec,
                time_control=time_def.model_dump(),
                folder=str(folder.resolve()),
                keep=keep,
                tournament_id=tournament.id,
            )
        )


@dataclass(frozen=True)
class Outcome:
    """What became of a submission: its team, version, status and (for its team only) log."""

    team: str
    version: int
    status: str
    log: str


def submit(
    sessions: sessionmaker[Session],
    season_name: str,
    token: str,
    filename: str,
    data: bytes,
    interface: str = "python",
    now: Callable[[], float] = time.time,
) -> Outcome:
    """Take a team's upload: check the token and the rate, unpack it, register and validate it
    in the sandbox (a whole game against itself); store it as ``active`` or ``error``."""
    if interface not in ("python", "course2019"):
        raise SeasonError(f"interface must be python or course2019, not {interface!r}")
    for attempt in range(TAKE_ATTEMPTS):
        try:
            taken = _take(sessions, season_name, token, filename, data, interface, now)
            break
        except IntegrityError:  # another submission of the team took the version number first
            if attempt == TAKE_ATTEMPTS - 1:
                raise SeasonError("other submissions of this team are being taken; try again in a moment") from None
    submission_id, name, folder, game, time_def, package = taken
    try:
        if interface == "course2019" and not filename.endswith(".py"):
            raise UploadError("a course2019 bot is one .py file")
        target, base = unpack(filename, data, folder, package, as_package=interface == "python")
    except UploadError as error:
        shutil.rmtree(folder, ignore_errors=True)
        return _finish(sessions, submission_id, "error", f"refused: {error}")
    try:
        status, text, bot_id = _validate(sessions, name, interface, target, base, game, time_def)
    except Exception as error:  # the harness failed, not the bot: the submission must not stay "validating"
        log.exception("validating submission %d failed", submission_id)
        status, text, bot_id = "error", f"it could not be validated: {type(error).__name__}: {error}", None
    if status == "error":  # it never plays: its files would only fill the team's quota
        shutil.rmtree(folder, ignore_errors=True)
        return _finish(sessions, submission_id, status, text)
    return _finish(sessions, submission_id, status, text, str(base / target), bot_id, now)


def _take(
    sessions: sessionmaker[Session],
    season_name: str,
    token: str,
    filename: str,
    data: bytes,
    interface: str,
    now: Callable[[], float],
) -> tuple[int, str, Path, dict[str, Any], dict[str, Any], str]:
    """Store a new submission as ``validating``: (its id, its bot's name, its folder, the
    season's game and time control, the package name of a zipped bot of it)."""
    with sessions.begin() as session:
        season = get_season(session, season_name, list_others=False)
        if season.status != "open":
            raise Frozen(f"season {season_name!r} is frozen: it takes no more submissions")
        team = team_of_token(session, season, token)
        if rate_limited(session, team, now()):
            raise RateLimited(f"team {team.name!r} has made its submissions for this hour; try again later")
        check_space(season, team, len(data) if filename.endswith(".py") else MAX_UNPACKED)
        version = 1 + max(session.scalars(select(Submission.version).where(Submission.team_id == team.id)), default=0)
        folder = folder_for(season, team, version)
        submission = Submission(
            team_id=team.id, version=version, filename=filename[:200], interface=interface, size=len(data)
        )
        submission.status, submission.created_at = "validating", now()
        session.add(submission)
        session.flush()
        package = f"season{season.id}_team{team.id}_v{version}"
        return submission.id, bot_name(season, team), folder, season.game, season.time_control, package


def _validate(
    sessions: sessionmaker[Session],
    name: str,
    interface: str,
    target: str,
    base: Path,
    game: dict[str, Any],
    time_def: Any,
) -> tuple[str, str, int | None]:
    """Register the bot (loaded in the sandbox, asked what it is), then play it against itself
    (in every seat) under the season's time control: (status, log, bot id)."""
    from arena.contests import roster
    from arena.contests.registration import RegistrationError, Smoke, register_bot
    from arena.core.gameloop import play_game
    from arena.runners.worker import GameWorker

    try:
        registration = register_bot(
            sessions,
            name=name,
            kind=interface,
            target=target,
            params={},
            games=[game["name"]] if game["name"] in GAMES else [],  # a game of the organiser's: checked by playing it
            python=None,
            base=base,
            smoke=Smoke(play=False),
        )
    except (RegistrationError, ArenaError) as error:
        return "error", f"the bot cannot be loaded: {error}", None
    with sessions.begin() as session:
        bot = session.scalars(select(Bot).where(Bot.name == name, Bot.version == registration.bot["version"])).one()
        spec, bot_id = roster.spec(bot, name), bot.id
    control = TimeDef.model_validate(time_def).control()
    engine = get_game_from_spec(game)
    with GameWorker() as worker:
        players = tuple(worker.player(spec) for _ in range(engine.players))
        try:
            record = play_game(engine, players, tuple(derive_seed(name, seat) for seat in range(len(players))), control)
        finally:
            for player in players:
                player.close()
    status, text = _judge(record)
    return status, text, bot_id


def _judge(record: GameRecord) -> tuple[str, str]:
    """(status, log) of a validation game."""
    moves = len(record.moves)
    if record.voided is not None:
        return "error", f"the validation game could not be timed (the machine was too busy): {record.voided}"
    if record.offender is not None:
        stderr = record.stderr[record.offender].strip()
        text = f"the bot forfeited its validation game against itself after {moves} moves ({record.termination.value})"
        text += f": {record.detail}" + (f"\n\nits stderr:\n{stderr}" if stderr else "")
        return "error", text
    if record.winner is not None:
        ended = f"won by seat {record.winner}"
    else:
        ended = "a draw" if len(record.stderr) == 2 else "no seat alone on top"
    return "active", f"validated: a whole game against itself, {moves} moves, {ended}"


def _finish(
    sessions: sessionmaker[Session],
    submission_id: int,
    status: str,
    text: str,
    path: str | None = None,
    bot_id: int | None = None,
    now: Callable[[], float] = time.time,
) -> Outcome:
    """Store what became of a submission; put an active one on the ladder and retire its team's
    versions beyond the season's ``keep``."""
    with sessions.begin() as session:
        submission = session.get_one(Submission, submission_id)
        team = session.get_one(SeasonTeam, submission.team_id)
        season = session.get_one(Season, team.season_id)
        submission.status, submission.log, submission.path = status, log_tail(text), path
        if status == "active" and bot_id is not None:
            submission.bot_id = bot_id
            entry = add_entry(session, season.tournament_id, f"{team.name} v{submission.version}", bot_id)
            submission.entry_id = entry.id
            on = session.scalars(
                select(Submission)
                .where(Submission.team_id == team.id, Submission.status == "active")
                .order_by(Submission.version.desc())
            ).all()
            for old in on[season.keep :]:
                old.status, old.retired_at = "retired", now()
        return Outcome(team.name, submission.version, submission.status, submission.log)


def prune(
    sessions: sessionmaker[Session], season_name: str, days: float = PRUNE_AFTER_DAYS, now: float | None = None
) -> list[str]:
    """Remove the files of ``season_name``'s versions retired at least ``days`` days ago (their
    rows, logs and games stay; ``path`` becomes ``None``): the versions pruned, as ``TEAM vN``."""
    cutoff = (time.time() if now is None else now) - days * 86400
    pruned = []
    with sessions.begin() as session:
        season = get_season(session, season_name)
        rows = session.execute(
            select(Submission, SeasonTeam)
            .join(SeasonTeam, SeasonTeam.id == Submission.team_id)
            .where(SeasonTeam.season_id == season.id, Submission.status == "retired", Submission.path.is_not(None))
        ).all()
        for submission, team in rows:
            if submission.retired_at is None or submission.retired_at > cutoff:
                continue
            folder = _version_folder(Path(submission.path or ""), folder_for(season, team, 0).parent)
            if folder is not None:  # its own folder only: others' (another database's) share the team's
                shutil.rmtree(folder, ignore_errors=True)
            submission.path = None
            pruned.append(f"{team.name} v{submission.version}")
    return pruned


def _version_folder(path: Path, team_folder: Path) -> Path | None:
    """The folder a version was unpacked into (``vN-RANDOM``, the first part of ``path`` under
    ``team_folder``), or ``None`` if ``path`` is not under it."""
    try:
        return team_folder / path.relative_to(team_folder).parts[0]
    except (ValueError, IndexError):
        return None


def load_ladder(session: Session, season: Season) -> tuple[Ladder, dict[str, tuple[SeasonTeam, Submission]]]:
    """The ladder's ratings now: every finished game of the season rated in the order played
    (retired versions' games count for their opponents), then only the active versions kept;
    and the active versions by their entry's name (``TEAM vN``)."""
    ladder = _whole_ladder(session, season)[0]
    on = {f"{team.name} v{submission.version}": (team, submission) for team, submission in active(session, season)}
    for name in set(ladder.rungs) - set(on):
        ladder.leave(name)
    return ladder, on


def _whole_ladder(session: Session, season: Season, upto: int | None = None) -> tuple[Ladder, int, int]:
    """Every version's rung after every finished game of the season (of ids up to ``upto``
    only, if given), gone on from the ladder kept with it (``keep_ladder``) while the games it
    rated are still those stored; and how many games that rated, and the sum of their ids."""
    from arena.contests.stages import results, stored_games

    ladder, through, rated, check = Ladder(), 0, 0, 0
    for name in session.scalars(select(Entry.team).where(Entry.tournament_id == season.tournament_id)):
        ladder.join(name)
    kept = _kept_ladder(session, season)
    if (
        kept is not None
        and (upto is None or kept.through <= upto)
        and _rated(session, season.tournament_id, kept.through) == (kept.rated, kept.check)
    ):
        ladder.restore(kept.teams)
        through, rated, check = kept.through, kept.rated, kept.check
    tournament = session.get_one(Tournament, season.tournament_id)
    for game in results(session, tournament, "standard", stored=stored_games(session, tournament, after=through)):
        if upto is not None and game.id > upto:
            break
        ladder.record(game.teams, game.ranks())  # a forfeit: the offender's loss (last of more)
        rated, check = rated + 1, check + game.id
    return ladder, rated, check


def keep_ladder(session: Session, season: Season) -> None:
    """Keep the whole ladder after the season's finished games (in the caller's transaction),
    for reads to go on from, with the count and the sum of the ids of the games it rated, worked
    out from those games themselves: a game left unfinished then (a batch stopped) that finishes
    later changes them, and the next read rates every game again (and the next batch keeps it)."""
    upto = session.scalar(select(func.max(GameRow.id)).where(GameRow.tournament_id == season.tournament_id)) or 0
    ladder, rated, check = _whole_ladder(session, season, upto)
    kept = _kept_ladder(session, season)
    if kept is None:
        kept = KeptRatings(tournament_id=season.tournament_id, settings=LADDER)
        session.add(kept)
    kept.through, kept.rated, kept.check, kept.teams = upto, rated, check, ladder.state()


def _kept_ladder(session: Session, season: Season) -> KeptRatings | None:
    """The ladder kept with ``season`` (``keep_ladder``), if any."""
    where = (KeptRatings.tournament_id == season.tournament_id, KeptRatings.settings == LADDER)
    return session.scalars(select(KeptRatings).where(*where)).one_or_none()


def _rated(session: Session, tournament_id: int, through: int) -> tuple[int, int]:
    """How many games of ids up to ``through`` the ladder rates, and the sum of their ids."""
    rated = (
        GameRow.tournament_id == tournament_id,
        GameRow.id <= through,
        GameRow.status == "finished",
        or_(GameRow.termination.is_(None), GameRow.termination != "aborted"),
    )
    found, total = session.execute(select(func.count(), func.sum(GameRow.id)).where(*rated)).one()
    return int(found or 0), int(total or 0)


def standings(sessions: sessionmaker[Session], season_name: str) -> list[SeasonStanding]:
    """The active versions, best first (mu - 3 sigma)."""
    with sessions.begin() as session:
        return ranked(session, get_season(session, season_name))


def ranked(session: Session, season: Season) -> list[SeasonStanding]:
    """The active versions of ``season``, best first (mu - 3 sigma)."""
    ladder, on = load_ladder(session, season)
    return [
        SeasonStanding(on[name][0].name, on[name][1].version, s.rating.mu, s.rating.sigma, s.games, s.wins, s.draws)
        for name in ladder.order()
        for s in (ladder.rungs[name],)
    ]


def play_ladder(
    sessions: sessionmaker[Session],
    season_name: str,
    runner: GameRunner,
    games: int | None,
    workers: int,
    on_record: Callable[[GameRecord, tuple[str, ...]], None] = lambda record, names: None,
    prune_after: float = PRUNE_AFTER_DAYS,
) -> int:
    """Play the ladder: ``workers`` games at a time, each table (a pair, or as many versions
    as the game has seats) chosen by information on the ratings of all games stored so far (a
    version submitted meanwhile joins at the next batch), until ``games`` games (``None``: for
    ever); the games played, each given to ``on_record`` with the names of its versions
    (``TEAM vN``) in seat order. Before each batch, the files of versions retired
    ``prune_after`` days ago go (``prune``). ``SeasonError`` while fewer versions are active
    than the game has seats."""
    from arena.contests import roster
    from arena.contests.tournament import play_and_store

    played, pairing = 0, InformationPairing()
    rng = _rng(season_name)
    while games is None or played < games:
        for version in prune(sessions, season_name, prune_after):
            log.info("removed the files of %s, retired %g days ago or more", version, prune_after)
        with sessions.begin() as session:
            season = get_season(session, season_name)
            ladder, on = load_ladder(session, season)
            size = get_game_from_spec(season.game).players
            if len(on) < size:
                raise SeasonError(
                    f"season {season_name!r} has {len(on)} active versions; its ladder needs {size}, a game's seats"
                )
            control = TimeDef.model_validate(season.time_control).control()
            batch: list[tuple[str, ...]] = []
            taken: set[frozenset[str]] = set()
            wanted = workers if games is None else games - played
            for _ in range(min(workers, math.comb(len(on), size), wanted)):
                batch.append(pairing.next(ladder, rng, taken, size))
                taken.add(frozenset(batch[-1]))
            jobs, names = [], {}
            number = count(session, GameRow, GameRow.tournament_id == season.tournament_id)
            for table in batch:
                submissions = [on[name][1] for name in table]
                entries = tuple(submission.entry_id or 0 for submission in submissions)  # an active one has its entry
                seed = derive_seed(season_name, "ladder", number)
                game_id = add_game(session, season.tournament_id, PlannedGame(0, 0, number, number, entries, seed))
                number += 1
                specs = tuple(
                    roster.spec(session.get_one(Bot, s.bot_id), name)
                    for s, name in zip(submissions, table, strict=True)
                )
                jobs.append(GameJob(game_id, season.game, specs, seed, control))
                names[game_id] = table
        unplayable: list[int] = []
        for record in play_and_store(sessions, runner, jobs, control.max_replays, lambda *_: None, unplayable):
            played += 1
            on_record(record, names[record.game_id])
        try:
            with sessions.begin() as session:
                keep_ladder(session, get_season(session, season_name))
        except IntegrityError:  # another ladder process kept it first: the next batch keeps it again
            log.info("the ladder of season %r was kept by another process first", season_name)
    return played


def _rng(seed: str) -> Any:
    import random

    return random.Random(derive_seed("ladder", seed, time.time_ns()))


def freeze(sessions: sessionmaker[Session], season_name: str, top: int, folder: Path, games_per_pair: int = 2) -> str:
    """The tournament file of the season's final, to be written in ``folder``: its ``top`` best
    teams, each by its best active version pinned to its stored file (a zipped bot's package is
    copied into ``folder``, beside the file, where a tournament finds its modules), in one round
    robin; the season takes no more submissions."""
    if top < 2:
        raise SeasonError("--top: a final needs at least two teams")
    best: list[SeasonStanding] = []
    for standing in standings(sessions, season_name):
        if len(best) < top and standing.team not in {s.team for s in best}:
            best.append(standing)
    if len(best) < 2:
        raise SeasonError(f"season {season_name!r} has {len(best)} team(s) on the ladder; a final needs two")
    with sessions.begin() as session:
        season = get_season(session, season_name)
        season.status = "frozen"
        bots = {}
        for standing in best:
            submission = session.scalars(
                select(Submission)
                .join(SeasonTeam, SeasonTeam.id == Submission.team_id)
                .where(
                    SeasonTeam.season_id == season.id,
                    SeasonTeam.name == standing.team,
                    Submission.version == standing.version,
                )
            ).one()
            stored = Path(submission.path or "")
            if stored.is_dir():  # a zipped bot's package
                shutil.copytree(stored, folder / stored.name, dirs_exist_ok=True)
                bots[standing.team] = {"module": stored.name}
            else:
                bots[standing.team] = {"course" if submission.interface == "course2019" else "path": str(stored)}
        document = {
            "name": f"{season_name} final",
            "game": {key: value for key, value in season.game.items() if key != "code_hash"},  # hashed afresh
            "time": season.time_control,
            "bots": bots,
            "stages": [{"name": "final", "games_per_pair": games_per_pair}],
        }
    header = (
        f"# the final of season {season_name!r}: its best {len(best)} teams on the ladder when it was frozen\n"
        + "".join(f"#   {s.label}: mu {s.mu:.2f}, sigma {s.sigma:.2f}, {s.games} games\n" for s in best)
    )
    return header + yaml.safe_dump(json.loads(json.dumps(document)), sort_keys=False, allow_unicode=True)
