"""``arena submit``: send a bot to a season on an ``arena serve`` server (docs/season.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote, urlencode, urlsplit

import typer

from arena.commands.common import Token, TokenFile, out, secret
from arena.core.text import printable
from arena.errors import ArenaError

app = typer.Typer()

#: seconds to wait for the server's answer: validation plays a whole game in the sandbox
PATIENCE = 600.0
#: the most bytes of an answer read
MAX_ANSWER = 256 * 1024


class SubmitError(ArenaError):
    """The server could not be reached, or refused the submission; the message says why."""


@app.command("submit")
def submit(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="The bot: a .py file or a .zip with bot.py at its top.")],
    server: Annotated[str, typer.Option(help="The address of the 'arena serve' server, http://HOST:PORT.")],
    season: Annotated[str, typer.Option(help="The season.")],
    token: Token = None,
    token_file: TokenFile = None,
    interface: Annotated[str, typer.Option(help="python (arena's bot interface) or course2019.")] = "python",
    server_token: Annotated[
        str | None,
        typer.Option(envvar="ARENA_SERVER_TOKEN", help="The server's own token, if it needs one (off 127.0.0.1)."),
    ] = None,
    server_token_file: Annotated[
        Path | None, typer.Option(help="A file whose first line is the server's own token.")
    ] = None,
) -> None:
    """Submit FILE to a season on a server as the team of the token: it is validated there (a
    whole game against itself in the sandbox) and, if it passes, joins the ladder. Exit 0 if it
    is active, 1 if validation failed, 2 if the server refused it or could not be reached."""
    try:
        data = file.read_bytes()
    except OSError as error:
        raise ArenaError(f"{file}: {error.strerror}") from None
    key = secret(ctx, "token", token, token_file, "ARENA_TOKEN")
    if server_token is not None or server_token_file is not None:
        server_token = secret(ctx, "server-token", server_token, server_token_file, "ARENA_SERVER_TOKEN")
    status, answer = post(server, season, key, file.name, data, interface, server_token)
    outcome = answer if isinstance(answer, dict) else {}
    if status not in (201, 422) or not {"team", "version", "status", "log"} <= set(outcome):
        why = outcome.get("error") if isinstance(outcome.get("error"), str) else None
        if why is None and status == 401:  # the server's own page, before the season's API: its token
            why = "the server wants its own token (ARENA_SERVER_TOKEN or --server-token-file) besides the team's"
        raise SubmitError(f"the server refused the submission (HTTP {status}): {why or 'no reason given'}")
    text = f"{outcome['team']} v{outcome['version']}: {outcome['status']}\n{outcome['log']}"
    out().print(printable(text, lines=True), markup=False, highlight=False)
    if outcome["status"] != "active":
        raise typer.Exit(1)


def post(
    server: str,
    season: str,
    token: str,
    filename: str,
    data: bytes,
    interface: str,
    server_token: str | None = None,
) -> tuple[int, Any]:
    """POST the file to the server's API: (HTTP status, its JSON answer or ``None``). The team's
    token goes as ``Authorization: Bearer``; the server's own, if any, as its cookie."""
    import urllib.error
    import urllib.request  # (http, ssl, email: only for the commands that send)

    parts = urlsplit(server)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise SubmitError(f"--server {server!r}: an address such as http://127.0.0.1:8000")
    query = urlencode({"filename": filename, "interface": interface})
    address = f"{parts.scheme}://{parts.netloc}/api/seasons/{quote(season, safe='')}/submissions?{query}"
    headers = {"Authorization": f"Bearer {token.strip()}", "Content-Type": "application/octet-stream"}
    if server_token:
        headers["Cookie"] = f"arena_token={server_token}"
    request = urllib.request.Request(address, data=data, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=PATIENCE) as response:
            return response.status, _json(response.read(MAX_ANSWER))
    except urllib.error.HTTPError as error:
        with error:
            return error.code, _json(error.read(MAX_ANSWER))
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise SubmitError(f"the server at {parts.netloc} could not be reached: {reason}") from None


def _json(body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return None
