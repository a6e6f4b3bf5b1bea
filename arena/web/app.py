"""``arena serve``'s web app (Starlette): the tournaments of one database as the static report
shows them, updated live (server-sent events) while ``arena run`` plays in another process, and,
when play is on, a person playing a bot in the browser (``arena/web/playing.py``).

Safe by default: a request must name this server (``Host``: no DNS rebinding) or carry the
token when one is set; a form or action must come from its own pages (``Origin``); every
error is a short page with a 4xx or 5xx status, never a traceback; and everything from bots or
files is escaped (Jinja2's autoescape, JSON made safe for a ``<script>`` block).
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import re
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any
from urllib.parse import urlencode, urlsplit

from sqlalchemy.exc import SQLAlchemyError
from starlette.applications import Starlette
from starlette.convertors import Convertor, register_url_convertor
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arena.core.text import clean
from arena.errors import ArenaError
from arena.results.pages import SERVED_ASSETS, TEMPLATES
from arena.store.models import StoreError
from arena.web.site import NotFound, Site, stamp_token

log = logging.getLogger(__name__)

#: the names this server answers to when it listens on the loopback interface only
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
#: the cookie that keeps the token after a first visit with ``?token=``
TOKEN_COOKIE = "arena_token"
#: how often the live streams look at the database (seconds)
POLL = 0.2
#: seconds between keep-alive comments on a live stream
PING = 15
MEDIA = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}
#: a ``Host`` header as RFC 9110 has it: a name or an IPv4 address, or an IPv6 one in brackets,
#: then an optional port; nothing else (no user part, no spaces)
HOST = re.compile(r"(?P<name>[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?")


class IdConvertor(Convertor[int]):
    """A row's id in an address (``{tid:id}``): 1 to 18 digits, what a database integer holds;
    a longer number is no page here (404), not a server error."""

    regex = "[0-9]{1,18}"

    def convert(self, value: str) -> int:
        """The id the address holds."""
        return int(value)

    def to_string(self, value: int) -> str:
        """The id as an address holds it."""
        return str(value)


register_url_convertor("id", IdConvertor())


def host_name(header: str | None) -> str | None:
    """The name a ``Host`` header gives (lower case, an IPv6 address without its brackets), or
    ``None`` if it is not a well-formed one."""
    found = HOST.fullmatch(header or "")
    return None if found is None else found["name"].lower().strip("[]")


@dataclass
class Settings:
    """How the app is served: where it listens, whether a person may play, whether teams may
    submit bots to seasons, the token if any."""

    host: str = "127.0.0.1"
    play: bool = True
    uploads: bool = False
    token: str | None = None
    #: set when the server stops: the live streams end
    stopping: threading.Event = field(default_factory=threading.Event)
    #: the live streams open now, and the most there may be (each holds a connection for as
    #: long as its page is open; past the bound a new one is a 503 the page retries later)
    streams: int = 0
    max_streams: int = 256
    #: connections the server serves at once (streams and page requests; uvicorn answers 503
    #: past it), seconds an idle keep-alive connection stays open
    max_connections: int = 384
    keep_alive: float = 5.0


def is_local(host: str) -> bool:
    """Whether ``host`` (an address to listen on) is the loopback interface only."""
    return host in LOCAL_HOSTS or host.startswith("127.")


# ---------------------------------------------------------------- errors


def error_page(site: Site, status: int, message: str) -> HTMLResponse:
    """A short page saying what went wrong (``message`` is escaped like every other text)."""
    title = HTTPStatus(status).phrase
    html = site.render("error.html", title=title, status=status, message=clean(message, 500))
    return HTMLResponse(html, status_code=status)


class TooLarge(Exception):
    """A request body longer than its limit."""


class BadBody(Exception):
    """A request body that is not what the route takes; the message says why."""


async def read_body(request: Request, limit: int) -> bytes:
    """The request's body, ``TooLarge`` past ``limit`` bytes (said by its ``Content-Length`` or
    counted as it comes: at most ``limit + 1`` bytes are read)."""
    length = request.headers.get("content-length")
    if length is not None:
        if not length.isdigit():
            raise BadBody("Content-Length: a number of bytes")
        if int(length) > limit:
            raise TooLarge
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise TooLarge
        chunks.append(chunk)
    return b"".join(chunks)


# ---------------------------------------------------------------- the guard


class Guard:
    """Refuses requests that do not name this server or lack the token, and forms or actions
    posted from another site; a first visit with ``?token=`` keeps it in a cookie."""

    def __init__(self, app: ASGIApp, site: Site, settings: Settings) -> None:
        self.app, self.site, self.settings = app, site, settings

    def stop_streams(self) -> None:
        """End the live streams (the server is stopping: they would keep it waiting)."""
        self.settings.stopping.set()

    def problem(self, request: Request) -> tuple[int, str] | None:
        """What is wrong with ``request`` (a status and why), or ``None``."""
        token = self.settings.token
        host = host_name(request.headers.get("host"))
        if host is None:
            return 400, "the request's Host header is not a host name and port"
        if token is None:
            if host not in LOCAL_HOSTS:
                return 400, "this server answers to 127.0.0.1 and localhost only"
        else:
            given = (
                request.query_params.get("token")
                or request.cookies.get(TOKEN_COOKIE)
                or request.headers.get("authorization", "").removeprefix("Bearer ")
            )
            if not given or not hmac.compare_digest(given.encode(), token.encode()):
                return 401, "this server needs its token: open the address 'arena serve' printed, with ?token=…"
        if request.method not in ("GET", "HEAD"):
            origin = request.headers.get("origin")
            if origin is not None and urlsplit(origin).netloc != request.headers.get("host"):
                return 403, "this form was sent from another site"
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        token = request.query_params.get("token") if self.settings.token is not None else None

        async def guarded(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                # no address of this server goes to another site; its own forms keep their Origin
                # (under no-referrer a browser sends "Origin: null", which the form check refuses)
                headers["referrer-policy"] = "same-origin"
                if token is not None:
                    headers.append("set-cookie", f"{TOKEN_COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict")
            await send(message)

        problem = self.problem(request)
        if problem is not None:
            token = None
            await error_page(self.site, *problem)(scope, receive, guarded)
        elif token is not None and request.method in ("GET", "HEAD"):
            # the token goes into the cookie and out of the address (the history, the screen, logs)
            rest = urlencode([(key, value) for key, value in request.query_params.multi_items() if key != "token"])
            await RedirectResponse(request.url.path + (f"?{rest}" if rest else ""), 303)(scope, receive, guarded)
        else:
            await self.app(scope, receive, guarded)


# ---------------------------------------------------------------- pages


def _int(request: Request, name: str) -> int:
    value = request.path_params[name]
    assert isinstance(value, int)
    return value


def tournament_routes(site: Site, settings: Settings) -> list[BaseRoute]:
    """The tournaments' pages, their assets and their live streams."""
    stamps = Polled(site.stamp)
    games_data = Polled(lambda key: site.game_data(*key))

    def root(request: Request) -> str:
        return f"/t/{_int(request, 'tid')}/"

    def home(request: Request) -> HTMLResponse:
        return HTMLResponse(site.render("tournaments.html", rows=site.tournaments(), play=settings.play))

    def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in SERVED_ASSETS:
            raise NotFound(f"there is no asset {name!r}")
        media = MEDIA[name[name.rindex(".") :]]
        return Response((TEMPLATES / name).read_bytes(), media_type=media, headers={"cache-control": "no-cache"})

    def start(request: Request) -> RedirectResponse:
        return RedirectResponse(f"{root(request)}index.html", status_code=303)

    def index(request: Request) -> HTMLResponse:
        return HTMLResponse(site.index(_int(request, "tid"), root(request), f"{root(request)}events"))

    def crosstable(request: Request) -> HTMLResponse:
        return HTMLResponse(site.crosstable(_int(request, "tid"), root(request)))

    def games(request: Request) -> HTMLResponse:
        return HTMLResponse(site.games(_int(request, "tid"), root(request), request.query_params))

    def team(request: Request) -> HTMLResponse:
        return HTMLResponse(site.team(_int(request, "tid"), request.path_params["file"], root(request)))

    def game(request: Request) -> HTMLResponse:
        tid, gid = _int(request, "tid"), _int(request, "gid")
        return HTMLResponse(site.game(tid, gid, root(request), f"{root(request)}games/{gid}/events"))

    async def events(request: Request) -> Response:
        """``changed`` each time the tournament's games change, and at once if they changed
        since the page was made (``?seen=``: ``site.stamp_token`` of what it shows)."""
        tid = _int(request, "tid")
        first = await stamps.get(tid)
        shown = request.query_params.get("seen")

        async def changes() -> AsyncIterator[dict[str, str]]:
            seen = first
            if shown is not None and shown != stamp_token(first):
                yield {"event": "changed", "data": json.dumps(first[:3])}
            while not settings.stopping.is_set():
                await asyncio.sleep(POLL)
                stamp = await stamps.get(tid)
                if stamp != seen:
                    seen = stamp
                    yield {"event": "changed", "data": json.dumps(stamp[:3])}

        return _stream(changes(), settings)

    async def game_events(request: Request) -> Response:
        """``moves`` (the replay's data) each time a game in progress has moved; the last when
        it is over."""
        tid, gid = _int(request, "tid"), _int(request, "gid")
        await asyncio.to_thread(site.summary, tid, gid)

        async def moves() -> AsyncIterator[dict[str, str]]:
            seen = -1
            while not settings.stopping.is_set():
                data, _, over = await games_data.get((tid, gid))
                if len(data["moves"]) != seen or over:
                    seen = len(data["moves"])
                    yield {"event": "moves", "data": json.dumps({**data, "over": over})}
                if over:
                    return
                await asyncio.sleep(POLL)

        return _stream(moves(), settings)

    return [
        Route("/", home),
        Route("/favicon.ico", lambda request: Response(status_code=204)),
        Route("/assets/{name}", asset),
        Route("/t/{tid:id}/", start),
        Route("/t/{tid:id}/index.html", index),
        Route("/t/{tid:id}/crosstable.html", crosstable),
        Route("/t/{tid:id}/games.html", games),
        Route("/t/{tid:id}/teams/{file}", team),
        Route("/t/{tid:id}/games/{gid:id}.html", game),
        Route("/t/{tid:id}/assets/{name}", asset),
        Route("/t/{tid:id}/events", events),
        Route("/t/{tid:id}/games/{gid:id}/events", game_events),
    ]


def _stream(events: AsyncIterator[dict[str, str]], settings: Settings) -> Response:
    """A live stream of ``events``, or a 503 when ``settings.max_streams`` are open already.

    A stream counts from the moment it is accepted, not from its first event, so that many
    asked for at once cannot all pass the bound (the event loop's one thread counts)."""
    from sse_starlette import EventSourceResponse

    if settings.streams >= settings.max_streams:
        answer = json_error(503, f"this server follows {settings.max_streams} live pages already; try again soon")
        answer.headers["retry-after"] = "30"
        return answer

    class Counted(EventSourceResponse):
        async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
            try:
                await super().__call__(scope, receive, send)
            finally:
                settings.streams -= 1

    settings.streams += 1
    return Counted(events, ping=PING, headers={"cache-control": "no-store"})


class Polled:
    """The latest ``read(key)``, read at most once every ``POLL`` seconds however many live
    streams wait on it: each stream reading the database itself, 256 of them read it some 1,300
    times a second and slowed every page."""

    def __init__(self, read: Callable[[Any], Any]) -> None:
        self.read = read
        self.values: dict[Any, tuple[float, Any]] = {}
        self.locks: dict[Any, asyncio.Lock] = {}

    async def get(self, key: Any) -> Any:
        """``read(key)`` as of at most ``POLL`` seconds ago (it raises as ``read`` does)."""
        async with self.locks.setdefault(key, asyncio.Lock()):
            at, value = self.values.get(key, (float("-inf"), None))
            now = time.monotonic()
            if now - at >= POLL:
                try:
                    value = await asyncio.to_thread(self.read, key)
                except BaseException:
                    if key not in self.values:  # nothing to keep of a key that is not there
                        self.locks.pop(key, None)
                    raise
                self.values[key] = (time.monotonic(), value)
                if len(self.values) > 64:  # what no stream has asked for in a while goes
                    for old in [k for k, (when, _) in self.values.items() if now - when > 60 * POLL]:
                        del self.values[old]
                        self.locks.pop(old, None)
            return value


# ---------------------------------------------------------------- the app


def create_app(
    site: Site,
    settings: Settings,
    extra: list[BaseRoute] | None = None,
    on_shutdown: Callable[[], Awaitable[None]] | None = None,
) -> Guard:
    """The web app over ``site``; ``extra`` routes (playing) go beside the pages."""

    def failed(request: Request, error: Exception) -> Response:
        if isinstance(error, HTTPException):
            return error_page(site, error.status_code, str(error.detail))
        if isinstance(error, NotFound):
            return error_page(site, 404, str(error))
        if isinstance(error, StoreError | SQLAlchemyError):
            log.error("the database failed on %s: %s", request.url.path, error)
            return error_page(site, 503, "the database could not be read just now; try again")
        if isinstance(error, ArenaError):
            return error_page(site, 400, str(error))
        log.error("%s failed", request.url.path, exc_info=error)  # (a handler, not an except: its traceback)
        return error_page(site, 500, "something went wrong on the server; its log says what")

    handlers: Any = {HTTPException: failed, Exception: failed, ArenaError: failed}

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        settings.stopping.set()
        if on_shutdown is not None:
            await on_shutdown()

    app = Starlette(
        routes=[*tournament_routes(site, settings), *(extra or [])],
        exception_handlers=handlers,
        lifespan=lifespan,
    )
    return Guard(app, site, settings)


def json_error(status: int, message: str) -> JSONResponse:
    """An error for a script (the play page's requests): ``{"error": message}``."""
    return JSONResponse({"error": clean(message, 500)}, status_code=status)
