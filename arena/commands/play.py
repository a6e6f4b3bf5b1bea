"""``arena play``: a person against a bot in the terminal."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from arena.commands.common import (
    DEFAULT_DB,
    MAX_MOVE_TIME,
    Db,
    chosen_game,
    out,
    parse_params,
    sessions,
    warn_if_root,
)
from arena.core.text import printable
from arena.errors import ArenaError

app = typer.Typer()


@app.command()
def play(
    game: Annotated[
        str,
        typer.Argument(
            help="The game: tictactoe, uttt, xtreme, othello, a .py file, openspiel:NAME or command:REFEREE."
        ),
    ],
    bot: Annotated[str, typer.Option("--bot", "-b", help="A registered bot, a module (bots.uct) or a .py file.")],
    seat: Annotated[
        str, typer.Option("--as", help="Your seat: first or second, or the game's name of it (x, o, black, ...).")
    ] = "first",
    move_time: Annotated[
        float | None,
        typer.Option(min=0.01, max=MAX_MOVE_TIME, help="The bot's seconds a move (default 2, none with --bank)."),
    ] = None,
    bank: Annotated[
        float | None,
        typer.Option(
            min=0.01, max=MAX_MOVE_TIME, help="The bot's seconds for the game beyond its moves' own (a bank)."
        ),
    ] = None,
    increment: Annotated[
        float, typer.Option(min=0.0, max=MAX_MOVE_TIME, help="Seconds added to the bot's bank after each of its moves.")
    ] = 0.0,
    clock: Annotated[str, typer.Option(help="How the bot's time is counted: wall or cpu.")] = "wall",
    param: Annotated[list[str], typer.Option("--param", "-p", help="A bot parameter, key=value (repeatable).")] = [],  # noqa: B006
    db: Db = DEFAULT_DB,
) -> None:
    """Play a game against a bot; type 'help' at the prompt for the commands."""
    from arena.contests import roster
    from arena.contests.human_play import find_opponent, play_against, symbol
    from arena.core.timing import ClockKind, TimeControl
    from arena.games import get_game_from_spec

    chosen = get_game_from_spec(chosen_game(game, given_as="game").spec())
    if chosen.players != 2:
        raise ArenaError(
            f"{game!r}: 'arena play' seats you and one bot; {chosen.name} has {chosen.players} seats: play it "
            "in the browser ('arena serve', then /play: the game of a tournament of it, a bot in every other seat)"
        )
    try:
        human_seat = chosen.seat_of(seat)
    except ValueError as error:
        raise ArenaError(f"--as: {error}") from None
    params = parse_params(param)
    store = sessions(db)
    with store.begin() as session:
        row = find_opponent(session, bot, params, Path.cwd())
        session.expunge(row)
    if clock not in ("wall", "cpu"):
        raise ArenaError(f"--clock {clock!r}: choose wall or cpu")
    kind: ClockKind = "cpu" if clock == "cpu" else "wall"
    if increment and bank is None:
        raise ArenaError("--increment needs --bank (e.g. --bank 60 --increment 1)")
    if move_time is None and bank is None:
        move_time = 2.0
    control = TimeControl(move=move_time, bank=bank, increment=increment, clock=kind, grace=0.1, startup=30.0)
    warn_if_root()
    out().print(
        f"You play {symbol(chosen, human_seat)} ({'first' if human_seat == 0 else 'second'}) against "
        f"[bold]{escape(printable(row.name))}[/], {control.describe()}. Type 'help' for the commands.",
        highlight=False,
    )
    record = play_against(store, chosen, row, roster.spec(row, row.name), human_seat, control, sys.stdin, sys.stdout)
    final = chosen.replay([m.move for m in record.moves])
    out().print(final.render(), highlight=False, markup=False)
    if record.termination.value == "aborted":
        out().print(f"Game {record.game_id} left unfinished; it is stored ('arena replay {record.game_id}').")
        return
    result = "a draw" if record.winner is None else ("you win" if record.winner == human_seat else f"{row.name} wins")
    how = (
        ""
        if record.termination.value == "normal"
        else f" ({record.termination.value}{': ' + record.detail if record.detail else ''})"
    )
    stored = f"Stored as game {record.game_id} ('arena replay {record.game_id}')."
    out().print(printable(f"Game over: {result}{how}. {stored}"), highlight=False, markup=False)
