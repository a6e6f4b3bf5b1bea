"""``arena serve`` put together: the database opened (read-only unless people may play), the
pages, and the routes of playing a bot in the browser."""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Callable
from pathlib import Path

from starlette.formparsers import MultiPartException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from arena.core.live import live_folder, read_live, sqlite_file
from arena.errors import ArenaError
from arena.store.database import open_store
from arena.web.app import POLL, BadBody, Guard, Settings, TooLarge, create_app, error_page, json_error, read_body
from arena.web.playing import IDLE_SECONDS, MAX_MOVE_TIME, Choice, PlayError, Tables, seat_key, seat_of_key
from arena.web.seasons import season_routes
from arena.web.site import LiveMoves, Site

#: the longest a page's request for news of its game waits (seconds)
LONG_POLL = 20.0
#: the longest body of a move or another action in a browser game ({"action": "move", "move": "..."}),
#: and of the form that starts one
MAX_ACTION = 4096


def build(
    url: str,
    host: str = "127.0.0.1",
    play: bool = True,
    token: str | None = None,
    uploads: bool | None = None,
    idle: float = IDLE_SECONDS,
    compile_pages: bool = False,
) -> Guard:
    """The web app over the database at ``url``; people may play a bot if ``play`` (a game
    left ``idle`` seconds without their move is left), and teams submit bots to seasons if
    ``uploads`` (default: as ``play``). Read-only (neither), an SQLite file that is not there
    yet is an ``ArenaError`` (it would never be seen). ``compile_pages``: compile the pages'
    templates and import what they need now, not on the first request (``Site.prepare``: a
    server's first answers come sooner)."""
    uploads = play if uploads is None else uploads
    writes = play or uploads
    database = sqlite_file(url)
    if not writes and database is not None and not database.exists():
        raise ArenaError(
            f"there is no database at {database} yet: run a tournament there first, "
            "or serve it with --play, which creates it"
        )
    sessions = open_store(url) if writes else open_store(url, read_only=True)
    site = Site(sessions, live_moves=live_reader(url))
    if compile_pages:
        site.prepare()
    settings = Settings(host=host, play=play, token=token, uploads=uploads)
    seasons = season_routes(site, settings)
    if not play:
        refuse = Route("/play", _no_play(site), methods=["GET", "POST"])
        return create_app(site, settings, extra=[*seasons, refuse])
    tables = Tables(sessions, Path.cwd(), live_folder(url), idle)

    async def leave_games() -> None:
        await asyncio.to_thread(tables.close)

    extra = [*seasons, *play_routes(site, settings, tables)]
    return create_app(site, settings, extra=extra, on_shutdown=leave_games)


def live_reader(url: str) -> LiveMoves | None:
    """What reads the moves of games in progress at ``url`` from the run's live files, if any."""
    folder = live_folder(url)
    if folder is None:
        return None
    return functools.partial(read_live, folder)


def _no_play(site: Site) -> Callable[[Request], Response]:
    def refuse(request: Request) -> Response:
        return error_page(
            site, 403, "this server is read-only: playing a bot is off ('arena serve --play' turns it on)"
        )

    return refuse


def play_routes(site: Site, settings: Settings, tables: Tables) -> list[BaseRoute]:
    """Choosing a game and a bot, the game's page, its news and the person's actions."""

    def choose(request: Request) -> HTMLResponse:
        # arena's games and the games of the stored tournaments (a user's, of two seats or more)
        offers = tables.offers()
        bots: dict[str, list[str]] = {}  # each bot once, with the games it plays
        for offer in offers:
            for bot in offer.bots:
                bots.setdefault(bot, []).append(offer.game)
        most = max((len(offer.seats) for offer in offers), default=2)
        return HTMLResponse(
            site.render(
                "play_choose.html",
                play=True,
                offers=offers,
                bots=bots,
                seats=[seat_key(seat) for seat in range(most)],
                max_move_time=MAX_MOVE_TIME,
            )
        )

    async def start(request: Request) -> Response:
        length = request.headers.get("content-length", "")
        if not length.isdigit() or int(length) > MAX_ACTION:  # the form's four short fields, no file
            return error_page(site, 400, f"send the form's fields only, in at most {MAX_ACTION} bytes")
        try:
            form = await request.form(max_files=0, max_fields=16, max_part_size=MAX_ACTION)
        except MultiPartException as error:
            return error_page(site, 400, f"the form could not be read: {error.message}")
        try:
            choice = Choice(
                game=str(form.get("game", "")),
                bot=str(form.get("bot", "")),
                seat=seat_of_key(str(form.get("seat", ""))),
                move_time=float(str(form.get("move_time", ""))),
            )
        except (KeyError, ValueError):
            return error_page(
                site, 400, "choose a game, a bot, a seat (x or o, p3...) and the bot's move time in seconds"
            )
        try:
            visitor = request.client.host if request.client is not None else ""
            table = await asyncio.to_thread(tables.start, choice, visitor)
        except PlayError as error:
            return error_page(site, error.status, str(error))
        return RedirectResponse(f"/play/{table.id}", status_code=303)

    def page(request: Request) -> Response:
        table = tables.find(request.path_params["table"])
        if table is None:
            return error_page(site, 404, "there is no such game here (it may have ended a while ago)")
        return HTMLResponse(site.render("play.html", play=True, table=table, choice=table.choice))

    async def state(request: Request) -> Response:
        table = tables.find(request.path_params["table"])
        if table is None:
            return json_error(404, "there is no such game here")
        try:
            after = int(request.query_params.get("after", "-1"))
        except ValueError:
            return json_error(400, "after: a version number")
        # waits on the event loop, holding no thread: many waiting pages leave the pool free
        table.seen()
        waited = 0.0
        while after == table.version and waited < LONG_POLL and not settings.stopping.is_set():
            await asyncio.sleep(POLL)
            waited += POLL
        return JSONResponse(table.snapshot(), headers={"cache-control": "no-store"})

    async def act(request: Request) -> Response:
        table = tables.find(request.path_params["table"])
        if table is None:
            return json_error(404, "there is no such game here")
        try:
            body = json.loads(await read_body(request, MAX_ACTION))
            action, move = body["action"], body.get("move")
            if not isinstance(action, str) or not (move is None or isinstance(move, str)):
                raise TypeError
            table.act(action, move)
        except (ValueError, KeyError, TypeError, RecursionError, TooLarge, BadBody) as error:
            message = str(error) if isinstance(error, PlayError) else 'send JSON: {"action": "move", "move": "4"}'
            return json_error(400, message)
        return JSONResponse({"ok": True})

    return [
        Route("/play", choose, methods=["GET"]),
        Route("/play", start, methods=["POST"]),
        Route("/play/{table}", page),
        Route("/play/{table}/state", state),
        Route("/play/{table}/act", act, methods=["POST"]),
    ]
