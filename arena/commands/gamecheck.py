"""``arena game``: a game of one's own checked against arena's game contract (``arena game
check``: arena/games/conformance.py), or started from a small complete one (``arena game new``:
arena/games/template.py)."""

from __future__ import annotations

import keyword
import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from arena.commands.common import Json, cells, out, parse_params, print_json
from arena.errors import ArenaError

if TYPE_CHECKING:
    from arena.games import Game
    from arena.games.conformance import Report

app = typer.Typer()
game_app = typer.Typer(
    help="Check a game against arena's game contract, or start a game of your own.", no_args_is_help=True
)
app.add_typer(game_app, name="game")

#: the random games ``arena game check`` plays unless told
SEEDS = 20
#: the names the template's code uses, which a game's class may not take
TAKEN = {"Game", "State", "Move", "IllegalMoveError", "Mapping", "Sequence", "Any", "ClassVar", "HEAPS", "LETTERS"}
#: the test ``arena game new`` writes beside a new game
TEST = '''"""The checks of arena's game contract, run on {name}.py (``arena game check {name}.py`` runs the
same and prints them)."""

from pathlib import Path

from arena.games.conformance import check_game
from arena.games.loading import load_game

GAME = Path(__file__).with_name("{name}.py")


def test_{name}_passes_the_game_checks():
    report = check_game(load_game({{"module": str(GAME)}}), seeds=20, time_budget=0.1)
    assert report.passed, report.summary()
'''


@game_app.command(name="check")
def check(
    game: Annotated[
        str,
        typer.Argument(
            help="The game: one of arena's or an installed one by name, a .py file, a dotted module, or "
            "openspiel:NAME (OpenSpiel's game string, e.g. openspiel:connect_four), or a referee program's "
            "command (e.g. 'node pig.js': docs/referee.md).",
            show_default=False,
        ),
    ],
    param: Annotated[
        list[str], typer.Option("--param", "-p", help="A game parameter, key=value (repeatable; e.g. size=6).")
    ] = [],  # noqa: B006
    class_name: Annotated[
        str | None, typer.Option("--class", help="The game's class, where its module defines several.")
    ] = None,
    players: Annotated[
        int | None,
        typer.Option(min=1, help="Check with this many seats only (default: the fewest and the most, up to 6)."),
    ] = None,
    seeds: Annotated[int, typer.Option(min=1, max=10_000, help="The random games to play.")] = SEEDS,
    time_budget: Annotated[
        float, typer.Option(min=0.0, max=600.0, help="The seconds each timed figure (perft, playouts) may take.")
    ] = 1.0,
    as_json: Json = False,
) -> None:
    """Check a game against the game contract by playing random games (exit status 1 if a check fails).

    Prints each check (docs/games.md, "Writing a game") passed or failed, and figures: perft,
    random playouts a second, the mean length of a game."""
    from arena.games.conformance import check_game

    chosen = load(game, parse_params(param), class_name, players)
    report = check_game(chosen, seeds, seat_counts=None if players is None else [players], time_budget=time_budget)
    if as_json:
        print_json(report.to_dict())
    else:
        show(report, seeds)
    if not report.passed:
        raise typer.Exit(1)


def load(target: str, params: dict[str, Any], class_name: str | None, players: int | None) -> Game:
    """The game ``target`` names (arena's or an installed one's name, a .py file or a dotted
    module, ``class_name`` its class) with ``params``, and ``players`` seats if given."""
    from arena.games import GAMES, UnknownGameError, game_class, get_game
    from arena.games.loading import installed_source, is_path, load_class, load_game

    if target.startswith("openspiel:"):
        from arena.games.openspiel import openspiel_game

        return openspiel_game(target.removeprefix("openspiel:"), params)
    from arena.games.referee import is_command, referee_game

    if target.startswith("command:") or is_command(target):  # a referee program (docs/referee.md)
        if players is not None:
            params = {**params, "players": players}
        return referee_game(target.removeprefix("command:"), Path.cwd(), params)
    source = None if is_path(target) or target in GAMES else installed_source(target)
    if (target in GAMES or source is not None) and class_name is not None:
        raise ArenaError(
            f"--class {class_name}: {target!r} is a game's name; --class picks the class of a game module (a .py "
            "file or a dotted module)"
        )
    if source is None and target not in GAMES:
        if not is_path(target) and "." not in target and not _importable(target):
            raise UnknownGameError(
                f"unknown game {target!r}; the games are: {', '.join(sorted(GAMES))}, or a game of your own: "
                "a .py file (e.g. games/nim.py) or a dotted module"
            )
        source = {"module": target} if class_name is None else {"module": target, "class": class_name}
    cls: type[Game] = game_class(target) if source is None else load_class(source)
    if players is not None:
        low, high = cls.PLAYERS
        if not low <= players <= high:
            seats = f"{low}" if low == high else f"{low} to {high}"
            raise ArenaError(f"--players {players}: {cls.name} is played by {seats} seats")
        if low != high:
            params = {**params, "players": players}
    return get_game(target, **params) if source is None else load_game(source, params)


def _importable(name: str) -> bool:
    """Whether ``name`` is a module Python can import from here."""
    import importlib.util

    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def show(report: Report, seeds: int) -> None:
    """The report as tables, then a line for each failure: ``FAIL check: message``."""
    console = out()
    several = len(report.seat_counts) > 1
    seats = ", ".join(map(str, report.seat_counts))
    console.print(
        f"{report.game}: {seeds} random games with {seats} seats", markup=False, highlight=False, soft_wrap=True
    )
    checks = Table("check", *(["seats"] if several else []), "result", "details")
    for check in report.checks:
        shown = (check.name, *([check.players] if several else []), "pass" if check.passed else "FAIL")
        checks.add_row(*cells(*shown, check.message if check.passed else "(below)"))
    console.print(checks)
    figures = Table("figure", *(["seats"] if several else []), "value")
    for figure in report.figures:
        figures.add_row(*cells(figure.name, *([figure.players] if several else []), figure.text()))
    console.print(figures)
    for failure in report.failures():
        console.print(f"FAIL {report.label(failure)}: {failure.message}", markup=False, highlight=False, soft_wrap=True)


@game_app.command(name="new")
def new(
    name: Annotated[
        str,
        typer.Argument(
            help="The game's name, a Python name (e.g. my_game): the file is DIR/NAME.py.", show_default=False
        ),
    ],
    folder: Annotated[Path, typer.Option("--dir", help="The folder to write the game and its test in.")] = Path(
        "games"
    ),
) -> None:
    """Start a game of your own: a small complete game to edit, and its test.

    Writes DIR/NAME.py (Nim with a board, passing 'arena game check') and DIR/test_NAME.py, a
    pytest test that runs the same checks; never over a file that exists."""
    game, test = write_new_game(name, folder)
    out().print(
        f"wrote {game} and {test}: edit {game.name} into your game; check it with 'arena game check {game}' "
        f"or 'pytest {test}'",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )


def write_new_game(name: str, folder: Path) -> tuple[Path, Path]:
    """Write the template game as ``folder/NAME.py`` and its test as ``folder/test_NAME.py``
    (never over a file that exists); the two paths."""
    from importlib.resources import files

    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name) or keyword.iskeyword(name):
        raise ArenaError(
            f"game name {name!r}: use letters, digits and _, starting with a letter (e.g. my_game); it names the "
            "game, its file and its test"
        )
    game, test = folder / f"{name}.py", folder / f"test_{name}.py"
    for path in (game, test):
        try:
            exists = path.exists()
        except OSError as error:
            raise ArenaError(f"cannot write {path}: {error.strerror or error}") from None
        if exists:
            raise ArenaError(
                f"{path} already exists: 'arena game new' writes new files only; choose another name or --dir, "
                "or move the file away"
            )
    camel = "".join(part[:1].upper() + part[1:] for part in name.split("_") if part)
    camel = camel + "Game" if camel in TAKEN else camel
    template = files("arena.games").joinpath("template.py").read_text(encoding="utf-8")
    code = (
        template.replace("TemplateGame", camel)
        .replace("TemplateState", f"{camel}State")
        .replace('name = "template"', f'name = "{name}"')
        .replace('"""template: ', f'"""{name}: ', 1)
    )
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with game.open("x", encoding="utf-8") as file:
            file.write(code)
        with test.open("x", encoding="utf-8") as file:
            file.write(TEST.format(name=name))
    except OSError as error:
        raise ArenaError(f"cannot write the game in {folder}: {error.strerror or error}") from None
    return game, test


@game_app.command(name="openspiel")
def openspiel(as_json: Json = False) -> None:
    """List OpenSpiel's games: which arena plays (game: {openspiel: NAME} in a tournament file)
    and why it cannot play the others (needs: pip install 'arena[openspiel]')."""
    from arena.games.openspiel import playable

    found = playable()
    if as_json:
        print_json([{"game": name, "playable": why is None, "why_not": why} for name, why in found])
        return
    games = [name for name, why in found if why is None]
    out().print(f"{len(games)} of OpenSpiel's games play in arena:", markup=False, highlight=False)
    out().print("  " + ", ".join(games), markup=False, highlight=False, soft_wrap=True)
    out().print("not playable:", markup=False, highlight=False)
    for name, why in found:
        if why is not None:
            out().print(f"  {name}: {why}", markup=False, highlight=False, soft_wrap=True)
