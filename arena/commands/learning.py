"""Commands that make the learning bots' networks: ``arena dataset`` exports stored games as
training data, ``arena train`` trains a network on them (docs/learning.md)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, TypeVar

import typer
from rich.markup import escape

from arena.commands.common import DEFAULT_DB, Db, out, sessions
from arena.errors import ArenaError

app = typer.Typer()

#: the suffix of ``--out`` that writes a views file (any game) instead of an .npz dataset
VIEWS_SUFFIX = ".jsonl"
T = TypeVar("T")

Tournaments = Annotated[list[str], typer.Argument(help="The tournaments whose games to export.", show_default=False)]


def _write(save: Callable[[Path], T], path: Path, what: str) -> T:
    """``save(path)``, a file that cannot be written said as an ``ArenaError``."""
    try:
        return save(path)
    except OSError as error:
        raise ArenaError(
            f"cannot write the {what} {str(path)!r}: {error.strerror or error}; choose another path with --out"
        ) from None


@app.command()
def dataset(
    tournaments: Tournaments,
    into: Annotated[
        Path,
        typer.Option(
            "--out",
            "-o",
            help="The file to write: .npz (feature planes of arena's games) or .jsonl (each seat's views, any game).",
            show_default=False,
        ),
    ],
    game: Annotated[str | None, typer.Option("--game", "-g", help="Check that the tournaments play this game.")] = None,
    db: Db = DEFAULT_DB,
) -> None:
    """Export every position of the tournaments' normally ended games, with the move played and the outcome."""
    from arena.learning.dataset import export_dataset, export_views
    from arena.learning.features import NoEncoding

    if into.suffix.lower() == VIEWS_SUFFIX:
        with sessions(db, read_only=True).begin() as session:
            views = _write(lambda path: export_views(session, tournaments, path, game), into, "dataset")
        _said(
            f"wrote {views.positions} decisions of {views.games} {views.game.name} games "
            f"({', '.join(views.sources)}), one line each, to {into}",
            views.left_out,
        )
        return
    with sessions(db, read_only=True).begin() as session:
        try:
            data, left_out = export_dataset(session, tournaments, game)
        except NoEncoding as error:
            raise NoEncoding(
                f"{error}; export any game's games as each seat's views instead, one JSON line a "
                f"decision: --out {into.with_suffix(VIEWS_SUFFIX)}"
            ) from None
    _write(data.save, into, "dataset")
    _said(
        f"wrote {len(data)} positions of {data.games} {data.game.name} games ({', '.join(data.sources)}) to {into}",
        left_out,
    )


def _said(text: str, left_out: int) -> None:
    """Say what ``arena dataset`` wrote (``text``) and how many finished games it left out."""
    games = "game" if left_out == 1 else "games"
    skipped = f"; left out {left_out} finished {games} that did not end normally" if left_out else ""
    # soft_wrap: a long path stays on one line, whole, whatever the terminal's width
    out().print(escape(text + skipped), highlight=False, soft_wrap=True)


def _hidden(text: str) -> tuple[int, ...]:
    """``--hidden 128`` or ``--hidden 128,64`` as layer sizes."""
    try:
        sizes = tuple(int(part) for part in text.split(","))
    except ValueError:
        sizes = ()
    if not sizes or min(sizes) < 1:
        raise ArenaError(f"--hidden {text!r}: give the hidden layer sizes, e.g. --hidden 128 or --hidden 128,64")
    return sizes


@app.command()
def train(
    kind: Annotated[str, typer.Argument(help="The network: nnvalue or nnpolicy.", show_default=False)],
    game: Annotated[str, typer.Option("--game", "-g", help="The game it plays.", show_default=False)],
    into: Annotated[Path, typer.Option("--out", "-o", help="The model file to write (.npz).", show_default=False)],
    from_db: Annotated[
        list[str], typer.Option("--from-db", help="Train on this stored tournament's games (repeatable).")
    ] = [],  # noqa: B006
    dataset_file: Annotated[Path | None, typer.Option("--dataset", help="Train on this 'arena dataset' file.")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the initial weights and the order of the positions.")] = 0,
    epochs: Annotated[int, typer.Option(min=1, help="Passes over the data.")] = 10,
    hidden: Annotated[str, typer.Option(help="Hidden layer sizes, e.g. 128 or 128,64.")] = "128",
    batch: Annotated[int, typer.Option(min=1, help="Positions a gradient step.")] = 64,
    learning_rate: Annotated[float, typer.Option(help="Adam's step size.")] = 0.001,
    holdout: Annotated[float, typer.Option(help="Share of the games held out to measure it on.")] = 0.0,
    augment: Annotated[bool, typer.Option(help="Show positions turned and mirrored too.")] = True,
    player: Annotated[
        list[str],
        typer.Option(
            "--player",
            help="Learn only from positions where this team moved "
            "(repeatable; default: all for a value network, "
            "those of players who did not lose for a "
            "policy).",
        ),
    ] = [],  # noqa: B006
    db: Db = DEFAULT_DB,
) -> None:
    """Train a network for the nnvalue or nnpolicy bot on stored games and write its model file."""
    from arena.games import get_game
    from arena.learning.dataset import export_dataset, load_dataset
    from arena.learning.network import KINDS
    from arena.learning.training import Settings
    from arena.learning.training import train as train_network

    if kind not in KINDS:
        raise ArenaError(f"there is no {kind!r} network to train; choose {' or '.join(KINDS)}")
    get_game(game)  # an unknown game is said before any data is read
    if bool(from_db) == (dataset_file is not None):
        raise ArenaError("give the games to learn from: --from-db TOURNAMENT (repeatable) or --dataset FILE, not both")
    settings = Settings(
        hidden=_hidden(hidden),
        epochs=epochs,
        seed=seed,
        batch=batch,
        learning_rate=learning_rate,
        holdout=holdout,
        augment=augment,
    )
    settings.check()
    if dataset_file is not None:
        data = load_dataset(dataset_file)
        if data.game.name != game:
            raise ArenaError(
                f"the dataset {str(dataset_file)!r} holds {data.game.name} games, not {game}; give "
                f"--game {data.game.name}, or a dataset of {game} games"
            )
    else:
        with sessions(db, read_only=True).begin() as session:
            data, _ = export_dataset(session, from_db, game)

    def progress(epoch: int, loss: float) -> None:
        """Say each epoch's mean loss as it ends."""
        out().print(f"epoch {epoch}/{epochs}: loss {loss:.4f}", highlight=False, soft_wrap=True)

    network, report = train_network(kind, data, settings, player, progress)
    _write(network.save, into, "model file")
    held = ""
    if report.held_out:
        accuracy = "" if report.holdout_accuracy is None else f", accuracy {report.holdout_accuracy:.3f}"
        held = f"; {report.held_out} held out: loss {report.holdout_loss:.4f}{accuracy}"
    out().print(
        f"trained {kind} for {escape(data.game.name)} on {report.positions} positions of {data.games} "
        f"games in {report.seconds:.1f} s{held}; wrote {escape(str(into))} (layers "
        f"{'-'.join(map(str, network.sizes))})",
        highlight=False,
        soft_wrap=True,
    )
