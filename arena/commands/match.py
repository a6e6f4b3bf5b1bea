"""``arena match``: two bots in pairs of games, with a live score, Elo and an SPRT that stops the
match once it decides (``arena.contests.match``)."""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from arena.commands.common import (
    DEFAULT_DB,
    MAX_MOVE_TIME,
    Db,
    GameName,
    GameParams,
    check_text,
    chosen_game,
    out,
    sessions,
    warn_if_root,
)
from arena.core.text import printable
from arena.errors import ArenaError

if TYPE_CHECKING:
    from arena.contests.match import DuelScore
    from arena.stats.matchstats import MatchStats

app = typer.Typer()

#: the most games a match may plan (a tournament stage's most, ``stagedef.MAX_STAGE_GAMES``)
MAX_GAMES = 1_000_000


@app.command()
def match(
    first: Annotated[str, typer.Argument(help="A registered bot, a module (bots.uct) or a .py file.")],
    second: Annotated[str, typer.Argument(help="The bot it plays against, given the same way.")],
    game: GameName,
    games: Annotated[
        int, typer.Option("--games", "-n", min=2, max=MAX_GAMES, help="The most games: an even number (pairs).")
    ] = 100,
    sprt: Annotated[
        str | None,
        typer.Option(help="Stop once the test decides: elo0=0,elo1=5,alpha=0.05,beta=0.05 (alpha, beta default 0.05)."),
    ] = None,
    move_time: Annotated[
        float | None,
        typer.Option("--time", "-t", min=0.001, max=MAX_MOVE_TIME, help="Seconds a move (default 1; none with --bank)"),
    ] = None,
    bank: Annotated[
        float | None,
        typer.Option(min=0.001, max=MAX_MOVE_TIME, help="Seconds a seat has for the game beyond its moves' own."),
    ] = None,
    increment: Annotated[
        float, typer.Option(min=0.0, max=MAX_MOVE_TIME, help="Seconds added to the bank after each move.")
    ] = 0.0,
    clock: Annotated[
        str, typer.Option(help="How the bots' time is counted: wall or cpu (cpu: paced, the same moves when busy).")
    ] = "wall",
    seed: Annotated[int, typer.Option(min=0, max=2**63 - 1, help="The seed every pair's seed derives from.")] = 0,
    params: GameParams = None,
    name: Annotated[
        str | None, typer.Option(help="Store it as this tournament (default: match-FIRST-SECOND-TIME).")
    ] = None,
    workers: Annotated[int | None, typer.Option(min=1, help="Worker processes (default: the cores).")] = None,
    openings: Annotated[
        Path | None,
        typer.Option(help="A file of openings, one a line (moves by spaces or commas); each pair plays the next."),
    ] = None,
    db: Db = DEFAULT_DB,
) -> None:
    """Play FIRST against SECOND in pairs of games (one seed, seats swapped) until --games or the
    SPRT decides; print the score, Elo and LLR after each pair. The games are stored as a
    tournament (arena leaderboard, report, replay)."""
    from pydantic import ValidationError

    from arena.contests.config import TimeDef
    from arena.contests.match import Duel, default_name, match_config, side
    from arena.contests.run import log_file, logging_to
    from arena.contests.yamlfile import read_file
    from arena.errors import ConfigError
    from arena.formats.openings import OpeningError, parse_openings
    from arena.runners.local import LocalRunner
    from arena.stats.sprt import parse_settings

    if games % 2:
        raise ArenaError(f"--games {games}: give an even number; the games are played in pairs, seats swapped")
    settings = None if sprt is None else parse_settings(sprt, "--sprt")
    check_text("the current folder", str(Path.cwd()))  # bot files are stored relative to it
    game_def = chosen_game(game, params)
    if game_def.players != 2:
        raise ArenaError(f"--game {game!r}: a match is between two bots; {game_def.name} has {game_def.players} seats")
    if increment and bank is None:
        raise ArenaError("--increment needs --bank (e.g. --bank 60 --increment 1)")
    if clock not in ("wall", "cpu"):
        raise ArenaError(f"--clock {clock!r}: choose wall or cpu")
    timing: dict[str, float | str | None] = {"clock": clock}
    timing |= {"move": move_time or 1.0} if bank is None else {"move": move_time, "bank": bank, "increment": increment}
    book = None
    if openings is not None:
        try:
            book = parse_openings(read_file(openings, "openings file"))
        except OpeningError as error:
            raise ConfigError(f"--openings {str(openings)!r}: {error}") from None
    store = sessions(db)
    with store.begin() as session:
        sides = (side(session, first), side(session, second))
    try:
        config = match_config(
            name or default_name(sides[0][0], sides[1][0]), game_def, sides, games, TimeDef(**timing), seed, book
        )
    except ValidationError as error:
        problem = error.errors()[0]
        where = ".".join(str(part) for part in problem["loc"])
        what = "--name" if where == "name" else where
        raise ConfigError(f"{what}: {problem['msg'].removeprefix('Value error, ')}") from None
    duel = Duel(config, settings, store, Path.cwd())
    runner = LocalRunner(workers)
    with logging_to(log_file(db, config.name)):
        try:
            duel.prepare()
            warn_if_root()
            first_team, second_team = duel.teams
            test = "" if settings is None else f"; SPRT {settings.text()}"
            say(
                f"Match {first_team} vs {second_team}: {config.game.name}, up to {games} games in pairs (seats "
                f"swapped), {config.time.control().describe()}, {runner.workers} workers{test}; stored as "
                f"tournament {config.name!r}."
            )
            start = time.monotonic()
            score = duel.run(runner, lambda score: say(pair_line(score, first_team)))
        except KeyboardInterrupt:
            say(f"stopped; the games played are stored as tournament {config.name!r}")
            raise typer.Exit(130) from None
    say(f"{final_line(score, first_team, second_team)} ({time.monotonic() - start:.1f} s)")
    if duel.unplayable:
        say(f"{len(duel.unplayable)} game(s) could not be timed fairly (the machine was too busy) and were left out.")
    say(f"Stored as tournament {config.name!r}: see 'arena leaderboard {config.name}'.")


def say(text: str) -> None:
    """One line on standard output, shown as it is (names in it are escaped, never markup)."""
    out().print(printable(text), highlight=False, markup=False, soft_wrap=True)


def score_text(score: DuelScore, first: str) -> str:
    """``FIRST 5-1-0 (W-D-L), score 91.7 %, Elo +417 ± 290``: the first bot's results so far."""
    stats = score.stats()
    if stats is None:
        return f"{first}: no pair finished"
    return (
        f"{first} {score.wins}-{score.draws}-{score.losses} (W-D-L), score {100 * stats.score:.1f} %, {elo_text(stats)}"
    )


def elo_text(stats: MatchStats) -> str:
    """``Elo +417 ± 290``: the Elo of the pairs' statistics and the half width of its 95 %
    interval (docs/ratings.md). The interval is ``± inf`` where it has no bound (a score too near
    0 or 100 %), and where its width is unknown: every pair so far scored alike, so the pairs show
    no spread to measure it by (at a score of 100 % or 0 %, ``+inf ± inf`` or ``-inf ± inf``)."""
    from arena.results.figures import signed_elo

    half = stats.error
    shown = "inf" if stats.variance == 0.0 or not math.isfinite(half) else f"{half:.0f}"
    return f"Elo {signed_elo(stats.elo)} ± {shown}"


def pair_line(score: DuelScore, first: str) -> str:
    """The line printed after each pair: games, the first bot's results, Elo and, with a test,
    the LLR between its bounds."""
    line = f"pair {score.pairs}: {score.games} games, {score_text(score, first)}"
    if score.test is not None:
        test = score.test
        line += f", LLR {test.llr:.2f} ({test.lower:.2f}, {test.upper:.2f})"
    return line


def final_line(score: DuelScore, first: str, second: str) -> str:
    """What the match came to: the hypothesis accepted, or no decision, or (without a test) the
    result."""
    from arena.stats.sprt import H0, H1

    test = score.test
    if test is None:
        return f"Played {score.games} games: {score_text(score, first)} against {second}"
    if test.decision in (H0, H1) and score.decided_games is not None and score.decided_llr is not None:
        bound = test.upper if test.decision == H1 else test.lower
        favoured, other = ("elo1", "elo0") if test.decision == H1 else ("elo0", "elo1")
        late = ""
        if score.games > score.decided_games:
            late = f" ({score.games} played: the games under way then finished, LLR now {test.llr:.2f})"
        return (
            f"{test.decision} after {score.decided_games} games: LLR {score.decided_llr:.2f} reached {bound:.2f}"
            f"{late}; for {first} against {second} the test favours {favoured}={getattr(test, favoured):g} "
            f"over {other}={getattr(test, other):g}"
        )
    return (
        f"No decision after {score.games} games: LLR {test.llr:.2f} stayed between {test.lower:.2f} and "
        f"{test.upper:.2f}"
    )
