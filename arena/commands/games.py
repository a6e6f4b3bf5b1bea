"""Commands that look at stored games: the list, one game in full, and its replay."""

from __future__ import annotations

import sys
import time
from typing import Annotated, Any

import typer
from rich.markup import escape

from arena.commands.common import (
    DEFAULT_DB,
    Db,
    Json,
    err,
    out,
    print_json,
    print_listing,
    sessions,
)
from arena.core.text import printable
from arena.errors import ArenaError

app = typer.Typer()

games_app = typer.Typer(help="List stored games, or show one in full.")
app.add_typer(games_app, name="games")
#: how many games ``arena games`` lists unless told otherwise
GAMES_SHOWN = 50


@games_app.callback(invoke_without_command=True)
def list_games(
    ctx: typer.Context,
    tournament: Annotated[str | None, typer.Option("--tournament", "-t", help="Only this tournament.")] = None,
    bot: Annotated[str | None, typer.Option("--bot", "-b", help="Only games of this team or bot.")] = None,
    limit: Annotated[int, typer.Option(min=1, help="At most this many (newest first).")] = GAMES_SHOWN,
    every: Annotated[bool, typer.Option("--all", help="Every game, however many.")] = False,
    db: Db = DEFAULT_DB,
    as_json: Json = False,
) -> None:
    """List stored games, newest first; 'arena games show ID' shows one in full. A game of more
    than two seats lists every seat's team, and its result as each seat's finishing place
    (1-3-2: the first seat's team came first, the second's third, the third's second)."""
    from arena.games import RESULTS
    from arena.results.listings import game_rows
    from arena.results.lookup import check_any_tournament

    if ctx.invoked_subcommand is not None:
        given = [f"--{name}" for name in ("tournament", "bot", "limit", "every") if _given(ctx, name)]
        if given:
            shown = " and ".join("--all" if option == "--every" else option for option in given)
            raise ArenaError(
                f"'arena games {ctx.invoked_subcommand}' takes no {shown}: they choose the games that "
                "'arena games' lists; leave them out"
            )
        return
    with sessions(db, read_only=True).begin() as session:
        check_any_tournament(session)
        rows, total = game_rows(session, tournament, bot, None if every else limit)
    if len(rows) < total:
        err().print(
            f"showing the newest {len(rows)} of {total} games; --limit N or --all for more",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )

    # a game of more than two seats lists its teams in one column, in seat order
    many = any("teams" in r for r in rows)

    def row_cells(r: dict[str, Any]) -> tuple[object, ...]:
        teams = r.get("teams") or [r["first"], r["second"]]
        if r["status"] != "finished":
            result = r["status"]
        elif "teams" in r:
            result = r["result"] or "none"
        else:
            result = RESULTS.get(r["winner"], "?")
        ending = r["termination"] or ""
        if r["offender"] is not None and 0 <= r["offender"] < len(teams):
            ending += f" ({teams[r['offender']]})"
        if r["replays"]:
            ending += f"{', ' if ending else ''}replayed {r['replays']}x (machine too busy)"
        seated = (TEAMS_SEPARATOR.join(teams),) if many else (r["first"], r["second"])
        return (r["id"], r["tournament"], r["stage_name"], r["pool_name"], *seated, result, ending, r["plies"] or "")

    seat_columns = ("teams",) if many else ("first", "second")
    print_listing(
        rows,
        as_json,
        ("id", "tournament", "stage", "pool", *seat_columns, "result", "ending", "plies"),
        row_cells,
    )


#: between the teams of a game of more than two seats, in the listing's ``teams`` column
TEAMS_SEPARATOR = " · "


def _given(ctx: typer.Context, name: str) -> bool:
    """Whether the option ``name`` of the command of ``ctx`` was given (on the command line or
    in the environment), not left at its default."""
    source = ctx.get_parameter_source(name)
    return source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")


@games_app.command(name="show")
def show_game(
    ctx: typer.Context,
    game_id: Annotated[int, typer.Argument(help="The game's id (see 'arena games').", show_default=False)],
    db: Db = DEFAULT_DB,
    as_json: Json = False,
) -> None:
    """A stored game in full: tournament, stage, pool and round, seats and bots, result, how it
    ended and why, each bot's error output, and its moves' times."""
    from arena.results.listings import game_record
    from arena.results.replay import joined

    parent = ctx.parent
    if parent is not None:  # 'arena games --db X show ID' means the same as 'arena games show ID --db X'
        db = db if _given(ctx, "db") else parent.params["db"]
        as_json = as_json or parent.params["as_json"]
    with sessions(db, read_only=True).begin() as session:
        record = game_record(session, game_id)
    if as_json:
        print_json(record)
    else:
        for line in game_lines(record):
            out().print(line, markup=False, highlight=False, soft_wrap=True)
    if record.get("game_problem"):  # the record is shown; its game, which names the seats, is not there
        sides = [s["side"] for s in record["seats"]] or ["p1", "p2"]
        raise ArenaError(f"{record['game_problem']}; its seats are called {joined(sides)} here")


def _when(moment: float | None) -> str:
    return "" if moment is None else time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(moment))


def _seconds(ms: float) -> str:
    return f"{ms / 1000:.3f} s"


def game_lines(record: dict[str, Any]) -> list[str]:
    """A game's record (``listings.game_record``) as the lines ``arena games show`` prints,
    every text from a file, a bot or the database escaped."""
    from arena.results.replay import ordinal, result_sentence

    seats, status = record["seats"], record["status"]
    game = record["game"]
    params = ", ".join(f"{key} {value}" for key, value in sorted((game.get("params") or {}).items()))
    lines = [
        f"game {record['id']} of {record['tournament']}: {game['name']}" + (f" ({params})" if params else ""),
        f"  stage {record['stage_name']}, pool {record['pool_name']}, round {record['round'] + 1}, "
        f"seed {record['seed']}",
    ]
    for s in seats:
        order = ordinal(s["seat"] + 1)
        lines.append(f"  {s['side']} ({order}): {s['team']} (bot {s['bot']} v{s['version']}, {s['kind']})")
    started, finished = record["started_at"], record["finished_at"]
    if status == "finished" and started and finished:  # (a record that never started has 0)
        lines.append(f"  played {_when(started)}, in {finished - started:.1f} s")
    points = None if record["points"] is None else tuple(record["points"])
    teams = [s["team"] for s in seats]
    sides = [s["side"] for s in seats]
    sentence = result_sentence(
        sides, teams, record["winner"], record["termination"], record["offender"], points, status
    )
    lines.append(f"result: {record['result']} ({sentence})" if record["result"] else f"result: {sentence}")
    if status == "finished":
        lines.append(f"termination: {record['termination'] or 'normal'}")
    if record["offender"] is not None:
        offender = seats[record["offender"]]
        lines.append(f"offender: {offender['team']} ({offender['side']})")
    if record["detail"]:
        lines.append(f"detail: {record['detail']}")
    if record["voids"]:
        lines.append(
            f"voided {len(record['voids'])}x and played again (the machine was too busy to time a bot fairly):"
        )
        lines += [
            f"  attempt {v['attempt']}, {_when(v['at'])}, after {v['plies']} moves: {v['reason']}"
            for v in record["voids"]
        ]
    counts = ", ".join(f"{s['side']} {s['moves']}" for s in seats)
    moves = sum(s["moves"] for s in seats)
    chance = record.get("chance_moves", 0)
    drawn = f" and {chance} chance outcome{'s' if chance != 1 else ''}" if chance else ""
    lines.append(
        f"moves: {moves} ({counts}){drawn}" + (f"; see them with 'arena replay {record['id']}'" if moves else "")
    )
    for s in seats:
        if s["moves"]:
            cpu = "" if s["cpu_ms"] is None else f", CPU {_seconds(s['cpu_ms'])}"
            wait = f", waited for a CPU {_seconds(s['wait_ms'])}" if s["wait_ms"] else ""
            lines.append(
                f"  time of {s['side']}: {_seconds(s['wall_ms'])} in all, {s['mean_ms']:.1f} ms a move on average, "
                f"{s['max_ms']:.1f} ms at most{cpu}{wait}"
            )
        if s["cut_plies"]:
            plies = ", ".join(map(str, s["cut_plies"]))
            lines.append(
                f"  {len(s['cut_plies'])} of {s['side']}'s moves were cut by the clock (plies {plies}): its search "
                "stopped short of its own budget, so on a less busy machine it may have played others"
            )
    lines = [printable(line) for line in lines]  # names, reasons and details come from files and bots
    for s in seats:
        who = f"{printable(s['team'])} ({s['side']})"
        tail = s["stderr"]
        if not tail:
            lines.append(f"error output of {who}: none")
            continue
        cut = f", its last {len(tail)} of {s['stderr_chars']} characters" if s["stderr_chars"] > len(tail) else ""
        lines.append(f"error output of {who}{cut}:")
        lines += [f"  | {printable(line)}" for line in tail.splitlines()]
    return lines


#: the longest pause between two moves of a replay, in seconds
MAX_DELAY = 60.0


@app.command()
def replay(
    game_id: Annotated[int, typer.Argument(help="The game's id (see 'arena games').", show_default=False)],
    ply: Annotated[int | None, typer.Option("--ply", "-n", help="Jump to this ply (0 = the start).")] = None,
    delay: Annotated[
        float | None,
        typer.Option("--delay", "-d", min=0, max=MAX_DELAY, help="Play it back, this many seconds a move."),
    ] = None,
    db: Db = DEFAULT_DB,
    as_json: Json = False,
) -> None:
    """Replay a stored game move by move, re-played through the engine (which checks the record).

    In a terminal: ←/→ step, Home/End jump, space plays or pauses, q quits.
    """
    from arena.results.replay import ReplayError, interactive, load_replay, print_replay

    with sessions(db, read_only=True).begin() as session:
        shown = load_replay(session, game_id)
    if ply is not None and not 0 <= ply <= shown.last_ply:
        joint = any(end - first > 1 for first, end in shown.steps)  # a simultaneous step is one position
        what = "positions" if joint else "plies"
        raise ArenaError(f"game {game_id} has {what} 0-{shown.last_ply}; --ply {ply} is not one of them")
    if as_json:
        print_json(shown.to_dict())
    elif sys.stdin.isatty() and out().is_terminal:
        interactive(shown, out(), ply or 0, delay)
    else:
        out().print(
            f"[bold]game {game_id}[/] of {escape(printable(shown.tournament))}: {shown.game.name}, stage "
            f"{escape(printable(shown.stage))}, pool {shown.pool}, round {shown.round + 1}",
            highlight=False,
        )
        print_replay(shown, lambda text: out().print(text + "\n", highlight=False, markup=False), ply, delay)
    if shown.problem is not None:
        raise ReplayError(f"game {game_id} does not re-play: {shown.problem}")
    if not as_json and shown.status == "finished":
        out().print("[green]re-played through the engine: every move legal, result confirmed[/]")
