"""``arena serve``: the tournaments of a database as a live web app, and a bot to play."""

from __future__ import annotations

import faulthandler
import secrets
import signal
from pathlib import Path
from types import FrameType
from typing import Annotated

import typer

from arena.commands.common import DEFAULT_DB, Db, err, out, secret, warn_if_root
from arena.errors import ArenaError

app = typer.Typer()


@app.command()
def serve(
    ctx: typer.Context,
    db: Db = DEFAULT_DB,
    host: Annotated[str, typer.Option(help="The address to listen on; anything but 127.0.0.1 needs a token.")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option(min=0, max=65535, help="The port to listen on.")] = 8000,
    play: Annotated[
        bool | None,
        typer.Option("--play/--no-play", help="Let visitors play a bot (default: on at 127.0.0.1 only)."),
    ] = None,
    season_uploads: Annotated[
        bool | None,
        typer.Option(
            "--season-uploads/--no-season-uploads",
            help="Let teams submit bots to seasons, with their tokens (default: as --play).",
        ),
    ] = None,
    token: Annotated[
        str | None,
        typer.Option(
            envvar="ARENA_TOKEN", help="The token visitors need (default: none at 127.0.0.1, else a new one)."
        ),
    ] = None,
    token_file: Annotated[
        Path | None,
        typer.Option(help="A file whose first line is the token visitors need: it stays off the command line."),
    ] = None,
    idle_minutes: Annotated[
        float, typer.Option(min=0.1, max=1440, help="Leave a browser game after this long without the person's move.")
    ] = 10.0,
) -> None:
    """Serve the tournaments as web pages that follow a running tournament live."""
    import uvicorn

    from arena.web.server import build

    if token is not None or token_file is not None:  # (none given: a new one, or none at 127.0.0.1)
        token = secret(ctx, "token", token, token_file, "ARENA_TOKEN")
    local = host in ("127.0.0.1", "localhost", "::1") or host.startswith("127.")
    if not local and token is None:
        token = secrets.token_urlsafe(18)
    if token is not None and len(token) < 12:
        raise ArenaError("--token: use at least 12 characters (or leave it out to get a new one)")
    play = local if play is None else play
    uploads = play if season_uploads is None else season_uploads
    if play or uploads:
        warn_if_root()
    application = build(
        db, host=host, play=play, token=token, uploads=uploads, idle=idle_minutes * 60, compile_pages=True
    )
    shown = f"[{host}]" if ":" in host else host
    address = f"http://{shown}:{port}/" + (f"?token={token}" if token else "")
    out().print(
        f"arena serve: {address} ({_mode(play, uploads)}); Ctrl-C stops",
        highlight=False,
        markup=False,
    )
    if token and not local:
        err().print("anyone with this address and token can read the tournaments; share it with care", highlight=False)

    class Server(uvicorn.Server):
        why = "it could not start (see above)"

        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            self.why = f"signal {signal.Signals(sig).name}"
            application.stop_streams()  # the live streams end at once rather than hold the exit
            super().handle_exit(sig, frame)

    faulthandler.enable()  # a fault in a C library leaves the threads' stacks on stderr, not a silent exit
    settings = application.settings
    config = uvicorn.Config(
        application,
        host=host,
        port=port,
        log_level="warning",
        timeout_graceful_shutdown=3,
        limit_concurrency=settings.max_connections,
        timeout_keep_alive=int(settings.keep_alive),
    )
    server = Server(config)
    try:
        server.run()
    except Exception as error:  # (uvicorn ends a Ctrl-C as SystemExit or KeyboardInterrupt: why is set)
        server.why = f"{type(error).__name__}: {error}"
        raise
    finally:
        err().print(f"arena serve stopped: {server.why}", highlight=False, markup=False)


def _mode(play: bool, uploads: bool) -> str:
    """What visitors may write, as the server's first line says it."""
    if not play and not uploads:
        return "read-only"
    may = [what for what, on in (("play a bot", play), ("submit to seasons", uploads)) if on]
    return f"read-write: visitors may {' and '.join(may)}"
