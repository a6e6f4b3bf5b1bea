"""``arena serve``'s seasons (docs/season.md): each season's ladder, live while ``arena season
ladder`` plays in another process; a team's own page (its submissions, their logs, an upload
form), reached with its token; and the API scripts and ``arena submit`` use.

A team's token never goes in an address: the page's form posts it, and the server keeps it in a
cookie (``HttpOnly``, ``SameSite=Strict``, for the season's pages only); the API takes it as
``Authorization: Bearer``. A team sees its own submissions and logs, never another's. An upload's
body is read up to its limit and no further, and validated (seconds in the sandbox) in a thread,
so the server keeps serving meanwhile.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from arena.contests.season import Outcome, ranked, submit
from arena.entrants.uploads import MAX_UPLOAD
from arena.games.base import places
from arena.results.replay import joined, ordinal
from arena.store.models import Entry, GameRow, GameSeat, SeatRow, game_seats, reported_points
from arena.store.seasons import (
    BadToken,
    Frozen,
    NoSeason,
    OutOfSpace,
    RateLimited,
    Season,
    SeasonError,
    SeasonTeam,
    Submission,
    get_season,
    rate_limited,
    team_of_token,
)
from arena.web.app import POLL, BadBody, Polled, Settings, TooLarge, _stream, json_error, read_body
from arena.web.site import NotFound, Site, stamp_token

#: the cookie that keeps a team's token on its season's pages
TEAM_COOKIE = "arena_team"
#: room for a form's boundaries and small fields around a file of ``MAX_UPLOAD`` bytes
FORM_SLACK = 16 * 1024
#: the ladder's games listed on its page (and a team's games lost by its fault, on its own)
RECENT = 20
#: the characters of a bot's stderr shown to its team for a game it lost by its fault
STDERR_SHOWN = 4000
INTERFACES = ("python", "course2019")
#: validations at once: one (each plays a game in a sandbox worker, whose control group, named
#: for the process, and subreaper state are the process's own)
VALIDATIONS = 1
#: HTTP status of each refusal of a submission
STATUS = {NoSeason: 404, BadToken: 401, Frozen: 409, RateLimited: 429, OutOfSpace: 507}


class BadUpload(BadBody):
    """A request that does not hold an upload the way the API takes it."""


@dataclass(frozen=True)
class Upload:
    """A file sent to be submitted."""

    filename: str
    data: bytes
    interface: str


def season_root(name: str) -> str:
    """The address of a season's ladder page (its name quoted)."""
    return f"/s/{quote(name, safe='')}/"


# ---------------------------------------------------------------- reading


def season_stamp(sessions: sessionmaker[Session], name: str) -> tuple[Any, ...]:
    """What changes whenever the ladder page does (one query): the season's status, its ladder's
    games scheduled and finished, the last finish, its active versions; ``NotFound`` if none."""
    games = select(Season.tournament_id).where(Season.name == name).scalar_subquery()
    of_ladder = GameRow.tournament_id == games
    teams = select(SeasonTeam.id).join(Season, Season.id == SeasonTeam.season_id).where(Season.name == name)
    with sessions() as session:
        row = session.execute(
            select(
                Season.status,
                select(func.count()).where(of_ladder).scalar_subquery(),
                select(func.count()).where(of_ladder, GameRow.status == "finished").scalar_subquery(),
                select(func.max(GameRow.finished_at)).where(of_ladder).scalar_subquery(),
                select(func.count())
                .where(Submission.team_id.in_(teams), Submission.status == "active")
                .scalar_subquery(),
            ).where(Season.name == name)
        ).first()
    if row is None:
        raise NotFound("there is no such season in this database")
    return tuple(row)


def _season(session: Session, name: str) -> Season:
    try:
        return get_season(session, name, list_others=False)
    except NoSeason:
        raise NotFound("there is no such season in this database") from None


def seasons(sessions: sessionmaker[Session]) -> list[dict[str, Any]]:
    """Every season, newest first: name, game, status, teams, versions on the ladder."""
    with sessions() as session:
        by_season = select(SeasonTeam.season_id, func.count()).group_by(SeasonTeam.season_id)
        teams: dict[int, int] = {row[0]: row[1] for row in session.execute(by_season)}
        on = by_season.join(Submission, Submission.team_id == SeasonTeam.id).where(Submission.status == "active")
        active: dict[int, int] = {row[0]: row[1] for row in session.execute(on)}
        return [
            {
                "name": s.name,
                "root": season_root(s.name),
                "game": s.game.get("name", "?"),
                "status": s.status,
                "teams": teams.get(s.id, 0),
                "active": active.get(s.id, 0),
            }
            for s in session.scalars(select(Season).order_by(Season.id.desc()))
        ]


def ladder_values(sessions: sessionmaker[Session], name: str) -> dict[str, Any]:
    """A ladder page's values: the season, its standings and its latest games."""
    with sessions() as session:
        season = _season(session, name)
        rows = ranked(session, season)
        where = GameRow.tournament_id == season.tournament_id
        games = session.execute(
            select(GameRow.id, GameRow.status, GameRow.winner, GameRow.termination)
            .where(where)
            .order_by(GameRow.id.desc())
            .limit(RECENT)
        ).all()
        seats = game_seats(session, where, GameRow.id.in_([g.id for g in games]))
        names = dict(
            session.execute(select(Entry.id, Entry.team).where(Entry.tournament_id == season.tournament_id)).all()
        )
        played = session.scalar(
            select(func.count()).where(GameRow.tournament_id == season.tournament_id, GameRow.status == "finished")
        )
        return {
            "season": {"name": season.name, "game": season.game.get("name", "?"), "status": season.status},
            "tournament_id": season.tournament_id,
            "standings": rows,
            "games": [
                {
                    "id": g.id,
                    "status": g.status,
                    "termination": g.termination,
                    "seats": [names[seat.entry_id] for seat in seats[g.id]],
                    "result": _result(g.status, g.winner, [names[seat.entry_id] for seat in seats[g.id]], seats[g.id]),
                }
                for g in games
            ],
            "played": played or 0,
        }


def _result(status: str, winner: int | None, teams: list[str], seats: list[SeatRow]) -> str:
    """A ladder game's result as the ladder page writes it: ``red v2 wins``, ``draw``; of more
    seats its finishing order, ``green v1 first, red v2 and blue v1 second``."""
    if status != "finished":
        return status
    points = reported_points(seats)
    if len(teams) == 2 or points is None:
        return "draw" if winner is None else f"{teams[winner]} wins"
    by_place: dict[int, list[str]] = {}
    for team, place in zip(teams, places(points), strict=True):
        by_place.setdefault(place, []).append(team)
    return ", ".join(f"{joined(names)} {ordinal(place)}" for place, names in sorted(by_place.items()))


@dataclass(frozen=True)
class Fault:
    """A ladder game a team's bot lost by its own fault, with what it wrote: its team's only."""

    game_id: int
    version: int
    termination: str
    detail: str
    stderr: str


def own_submissions(sessions: sessionmaker[Session], name: str, token: str) -> dict[str, Any]:
    """The team of ``token`` (``team``), its submissions, newest first (``rows``), and the
    latest ladder games its versions lost by their own fault, with their stderr (``faults``):
    its own only."""
    with sessions() as session:
        season = _season(session, name)
        team = team_of_token(session, season, token)
        rows = session.scalars(
            select(Submission).where(Submission.team_id == team.id).order_by(Submission.version.desc())
        ).all()
        versions = {row.bot_id: row.version for row in rows if row.bot_id is not None}
        entries: dict[int, int] = dict(
            session.execute(
                select(Entry.id, Entry.bot_id).where(
                    Entry.tournament_id == season.tournament_id, Entry.bot_id.in_(list(versions))
                )
            ).all()
        )
        games = session.execute(
            select(GameRow, GameSeat)
            .join(GameSeat, (GameSeat.game_id == GameRow.id) & (GameSeat.seat == GameRow.offender))
            .where(GameRow.tournament_id == season.tournament_id, GameSeat.entry_id.in_(list(entries)))
            .order_by(GameRow.id.desc())
            .limit(RECENT)
        ).all()
        faults = [
            Fault(
                game.id,
                versions[entries[seat.entry_id]],
                game.termination or "",
                game.detail or "",
                (seat.stderr or "")[-STDERR_SHOWN:],
            )
            for game, seat in games
        ]
        session.expunge_all()
        return {"team": team.name, "rows": list(rows), "faults": faults, "ladder": season.tournament_id}


def check_team(sessions: sessionmaker[Session], name: str, token: str) -> None:
    """``NoSeason``, ``Frozen``, ``BadToken`` or ``RateLimited`` if ``token`` may not submit to
    season ``name`` now."""
    with sessions() as session:
        season = get_season(session, name, list_others=False)
        if season.status != "open":
            raise Frozen(f"season {name!r} is frozen: it takes no more submissions")
        team = team_of_token(session, season, token)
        if rate_limited(session, team, time.time()):
            raise RateLimited(f"team {team.name!r} has made its submissions for this hour; try again later")


# ---------------------------------------------------------------- uploads


async def read_upload(request: Request) -> Upload:
    """The file of a submission: a form's ``file`` (with ``filename`` and ``interface`` fields,
    optional) or the raw body (``?filename=…&interface=…``); ``TooLarge`` past ``MAX_UPLOAD``."""
    query = request.query_params
    if request.headers.get("content-type", "").startswith("multipart/form-data"):
        body = await read_body(request, MAX_UPLOAD + FORM_SLACK)

        async def once() -> AsyncGenerator[bytes, None]:
            yield body

        try:
            form = await MultiPartParser(request.headers, once(), max_files=1, max_fields=8).parse()
        except MultiPartException as error:
            raise BadUpload(f"the form could not be read: {error.message}") from None
        file = form.get("file")
        if not isinstance(file, UploadFile):
            raise BadUpload("send the bot as the form's 'file' field")
        data = await file.read(MAX_UPLOAD + 1)
        await form.close()
        filename = str(form.get("filename") or file.filename or "")
        interface = str(form.get("interface") or query.get("interface") or "python")
    else:
        data = await read_body(request, MAX_UPLOAD)
        filename, interface = query.get("filename", ""), query.get("interface", "python")
    if len(data) > MAX_UPLOAD:
        raise TooLarge
    if not filename:
        raise BadUpload("name the file: ?filename=mybot.py, or a form's 'file' with its file name")
    if interface not in INTERFACES:
        raise BadUpload(f"interface: {' or '.join(INTERFACES)}")
    return Upload(filename, data, interface)


def bearer(request: Request) -> str | None:
    """The token of ``Authorization: Bearer TOKEN``, if any."""
    kind, _, token = request.headers.get("authorization", "").partition(" ")
    return token.strip() or None if kind.lower() == "bearer" else None


# ---------------------------------------------------------------- routes


def season_routes(site: Site, settings: Settings) -> list[BaseRoute]:
    """The seasons' pages, the ladder's live stream, the team pages and the API."""
    sessions = site.sessions
    validating = asyncio.Semaphore(VALIDATIONS)
    waiting: set[tuple[str, str]] = set()  # (season, token) of the submissions waiting or being validated
    stamps = Polled(lambda name: season_stamp(sessions, name))
    refused_read_only = (
        "this server takes no submissions: it is read-only ('arena serve --season-uploads' turns them on)"
    )

    def name_of(request: Request) -> str:
        name = request.path_params["name"]
        assert isinstance(name, str)
        return name

    async def take(name: str, token: str, upload: Upload) -> Outcome:
        # refused before it waits for the validation slot, and one waiting a team: a team's
        # uploads sent at once neither fill the server's memory nor pass the hour's limit
        await run_in_threadpool(check_team, sessions, name, token)
        if (name, token) in waiting:
            raise RateLimited("this team's last submission is still being validated; send the next one after it")
        waiting.add((name, token))
        try:
            async with validating:
                return await run_in_threadpool(
                    submit, sessions, name, token, upload.filename, upload.data, upload.interface
                )
        finally:
            waiting.discard((name, token))

    async def listing(request: Request) -> HTMLResponse:
        rows = await run_in_threadpool(seasons, sessions)
        return HTMLResponse(site.render("seasons.html", rows=rows, play=settings.play))

    async def ladder(request: Request) -> HTMLResponse:
        name = name_of(request)
        stamp = await run_in_threadpool(season_stamp, sessions, name)
        values = await run_in_threadpool(ladder_values, sessions, name)
        live = f"/s/{quote(name, safe='')}/events?seen={stamp_token(stamp)}"
        return HTMLResponse(site.render("season.html", live=live, root=season_root(name), play=settings.play, **values))

    async def events(request: Request) -> Response:
        name = name_of(request)
        first = await stamps.get(name)
        shown = request.query_params.get("seen")

        async def changes() -> AsyncIterator[dict[str, str]]:
            seen = first
            if shown is not None and shown != stamp_token(first):
                yield {"event": "changed", "data": json.dumps(first[1:4])}
            while not settings.stopping.is_set():
                await asyncio.sleep(POLL)
                stamp = await stamps.get(name)
                if stamp != seen:
                    seen = stamp
                    yield {"event": "changed", "data": json.dumps(stamp[1:4])}

        return _stream(changes(), settings)

    async def team_page(request: Request, token: str | None, status: int = 200, note: str | None = None) -> Response:
        name = name_of(request)
        values: dict[str, Any] = {"team": None, "rows": [], "faults": []}
        if token is not None:
            try:
                values = await run_in_threadpool(own_submissions, sessions, name, token)
            except BadToken:
                token, status, note = None, 401, "that is not a team's token of this season"
        else:
            await run_in_threadpool(season_stamp, sessions, name)  # a 404 for no season
        html = site.render(
            "season_team.html",
            root=season_root(name),
            season=name,
            note=note,
            uploads=settings.uploads,
            interfaces=INTERFACES,
            max_upload=MAX_UPLOAD,
            play=settings.play,
            **values,
        )
        response = HTMLResponse(html, status_code=status, headers={"cache-control": "no-store"})
        if token is None and request.cookies.get(TEAM_COOKIE):
            response.delete_cookie(TEAM_COOKIE, path=season_root(name))
        return response

    async def team(request: Request) -> Response:
        return await team_page(request, request.cookies.get(TEAM_COOKIE))

    async def sign_in(request: Request) -> Response:
        name = name_of(request)
        form = await request.form(max_files=0, max_fields=4)
        token = str(form.get("token") or "").strip()
        try:
            await run_in_threadpool(own_submissions, sessions, name, token)
        except BadToken:
            return await team_page(request, None, 401, "that is not a team's token of this season")
        response = RedirectResponse(f"{season_root(name)}team", status_code=303)
        response.set_cookie(TEAM_COOKIE, token, path=season_root(name), httponly=True, samesite="strict")
        return response

    async def sign_out(request: Request) -> Response:
        response = RedirectResponse(f"{season_root(name_of(request))}team", status_code=303)
        response.delete_cookie(TEAM_COOKIE, path=season_root(name_of(request)))
        return response

    async def upload(request: Request) -> Response:
        name, token = name_of(request), request.cookies.get(TEAM_COOKIE)
        if not settings.uploads:
            return await team_page(request, token, 403, refused_read_only)
        if token is None:
            return await team_page(request, None, 401, "enter your team's token first")
        try:
            sent = await read_upload(request)
            await take(name, token, sent)
        except TooLarge:
            return await team_page(request, token, 413, f"the file is too large: at most {MAX_UPLOAD} bytes")
        except BadUpload as error:
            return await team_page(request, token, 400, str(error))
        except SeasonError as error:
            return await team_page(request, token, STATUS.get(type(error), 400), str(error))
        return RedirectResponse(f"{season_root(name)}team", status_code=303)

    async def api_submit(request: Request) -> Response:
        name, token = name_of(request), bearer(request)
        if not settings.uploads:
            return json_error(403, refused_read_only)
        if token is None:
            return json_error(401, "send the team's token: Authorization: Bearer TOKEN")
        try:
            await run_in_threadpool(check_team, sessions, name, token)
            sent = await read_upload(request)
            outcome = await take(name, token, sent)
        except TooLarge:
            return json_error(413, f"the file is too large: an upload has at most {MAX_UPLOAD} bytes")
        except BadUpload as error:
            return json_error(400, str(error))
        except SeasonError as error:
            return json_error(STATUS.get(type(error), 400), str(error))
        body = {"team": outcome.team, "version": outcome.version, "status": outcome.status, "log": outcome.log}
        return JSONResponse(body, status_code=201 if outcome.status == "active" else 422)

    async def api_standings(request: Request) -> Response:
        try:
            values = await run_in_threadpool(ladder_values, sessions, name_of(request))
        except NotFound as error:
            return json_error(404, str(error))
        fields = ("team", "version", "mu", "sigma", "rating", "games")
        return JSONResponse([{field: getattr(s, field) for field in fields} for s in values["standings"]])

    return [
        Route("/seasons", listing),
        Route("/s/{name}/", ladder),
        Route("/s/{name}/events", events),
        Route("/s/{name}/team", team, methods=["GET"]),
        Route("/s/{name}/team", sign_in, methods=["POST"]),
        Route("/s/{name}/team/leave", sign_out, methods=["POST"]),
        Route("/s/{name}/team/upload", upload, methods=["POST"]),
        Route("/api/seasons/{name}/submissions", api_submit, methods=["POST"]),
        Route("/api/seasons/{name}/standings", api_standings),
    ]
