"""Training data for the learning bots: every position of played games, with the move played
there and how the game ended for the side to move.

``export_dataset`` takes the finished games of stored tournaments that ended normally (a game
lost by a forfeit was not played to its end: its last positions say nothing about who was
winning) and replays each through the game engine (``State.play``); ``dataset_from_games``
does the same for games played in-process. A ``Dataset`` is saved as an ``.npz`` archive
(``arena.learning.npz``) of these columns, one row per position (the position before each move):

- ``features`` (uint8, positions x encoding size): the position, ``arena.learning.features``;
- ``legal`` (bool, positions x move ints): which moves were legal there;
- ``move`` (int16): the move played, as the game's move int;
- ``to_move`` (int8): the seat to move (0 or 1);
- ``outcome`` (float32): the game's result for the side to move: 1 win, 0.5 draw, 0 loss;
- ``game`` (int64): the game's id (in-process games: their number), ``ply`` (int16): the
  moves played before the position;
- ``player`` (int16): the index in the meta's ``players`` of the team (or bot) that moved.

The ``meta`` member holds the game, the encoding's name and version, the players and where
the games came from (docs/learning.md).

Those encodings exist for arena's four games only. ``export_views`` takes the same games of any
game and writes them as JSON lines (``.jsonl``), one a decision a seat took: that seat's
``State.view`` then, its legal moves, the move it played, and how the game ended. Chance
outcomes are no decision; a simultaneous step is one line for each acting seat, each with the
view before the step. A line holds one seat's view only, so a game of hidden information keeps
what the others knew out of it. The file's first line is its metadata (``VIEWS_FORMAT``,
``VIEWS_VERSION``, the game, the tournaments, the counts); the rest is written as the games
are read, one game in memory at a time.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import groupby
from pathlib import Path
from typing import Any, BinaryIO

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from arena.core.records import Termination
from arena.errors import ArenaError
from arena.games import CHANCE, SIMULTANEOUS, Game, IllegalMoveError, MoveSyntaxError, State, get_game_from_spec
from arena.learning.features import ENCODING_VERSION, encoding_for
from arena.learning.npz import read_npz, write_npz
from arena.learning.numeric import np
from arena.store.models import Entry, GameRow, MoveRow, Tournament, game_seats

#: what the ``format`` of a dataset file's meta says
DATASET_FORMAT = "arena-dataset"
COLUMNS = ("features", "legal", "move", "to_move", "outcome", "game", "ply", "player")
#: what the ``format`` of a views file's first line says, and the version of its lines
VIEWS_FORMAT = "arena-views"
VIEWS_VERSION = 1
#: the moves read from the database at a time while views are written
_BATCH = 10_000


class DatasetError(ArenaError):
    """Games that cannot be made into a dataset, or a dataset file that cannot be used."""


@dataclass(frozen=True)
class PlayedGame:
    """One game for a dataset: its id, the moves from the start (ints or text) and who
    played each seat."""

    id: int
    moves: Sequence[int | str]
    players: tuple[str, ...]


@dataclass
class Dataset:
    """Positions of played games, one row each (the columns in the module docstring)."""

    game: Game
    columns: dict[str, np.ndarray]
    players: list[str]
    sources: list[str] = field(default_factory=list)
    games: int = 0

    def __len__(self) -> int:
        return len(self.columns["move"])

    def meta(self) -> dict[str, Any]:
        """What the file's meta member says: the game, the encoding, the players, the sources."""
        encoding = encoding_for(self.game)
        return {
            "format": DATASET_FORMAT,
            "game": self.game.spec(),
            "encoding": encoding.name,
            "encoding_version": ENCODING_VERSION,
            "players": self.players,
            "sources": self.sources,
            "games": self.games,
            "positions": len(self),
        }

    def save(self, path: Path) -> None:
        """Write the dataset as an ``.npz`` archive."""
        write_npz(path, self.columns, self.meta())


def dataset_from_games(game: Game, games: Iterable[PlayedGame], sources: Sequence[str] = ()) -> Dataset:
    """Every position of ``games`` (each played to its end from the start), replayed through
    ``game``'s engine; ``DatasetError`` naming the game if its moves are illegal or do not
    finish it."""
    encoding = encoding_for(game)
    players: dict[str, int] = {}
    states: list[State] = []
    moves, seats, outcomes, ids, plies, movers = [], [], [], [], [], []
    count = 0
    for played in games:
        count += 1
        state = game.initial_state()
        start = len(states)
        seat_players = [players.setdefault(name, len(players)) for name in played.players]
        try:
            for text in played.moves:
                move = game.parse_move(text) if isinstance(text, str) else text
                states.append(state)
                moves.append(move)
                seats.append(state.to_move)
                plies.append(state.ply)
                movers.append(seat_players[state.to_move])
                state = state.play(move)
        except (IllegalMoveError, MoveSyntaxError) as error:
            raise DatasetError(
                f"game {played.id} does not replay: its move {len(states) - start}: {error} "
                f"(see 'arena replay {played.id}')"
            ) from None
        outcome = state.outcome
        if outcome is None:
            raise DatasetError(
                f"game {played.id} is not over after its {len(played.moves)} moves (see 'arena replay {played.id}')"
            )
        outcomes += [outcome.score(seat) for seat in seats[start:]]
        ids += [played.id] * (len(states) - start)
    legal = np.zeros((len(states), encoding.moves), dtype=bool)
    for row, state in zip(legal, states):
        row[state.legal_moves()] = True
    columns = {
        "features": encoding.encode_many(states),
        "legal": legal,
        "move": np.array(moves, dtype=np.int16),
        "to_move": np.array(seats, dtype=np.int8),
        "outcome": np.array(outcomes, dtype=np.float32),
        "game": np.array(ids, dtype=np.int64),
        "ply": np.array(plies, dtype=np.int16),
        "player": np.array(movers, dtype=np.int16),
    }
    return Dataset(game, columns, list(players), list(sources), count)


def find_tournaments(
    session: Session, names: Sequence[str], game: str | None, *, encoded: bool = True
) -> list[Tournament]:
    """The tournaments called ``names``, all of one game (``game``, if given); ``DatasetError``
    naming what is unknown or mixed. ``encoded``: they must play a game with an encoding
    (``NoEncoding`` otherwise), one encoding for all; else, for views, the same game with the
    same parameters (and, for a game of your own, the same code)."""
    if not names:
        raise DatasetError("name at least one tournament (see 'arena tournaments')")
    found = {t.name: t for t in session.scalars(select(Tournament).where(Tournament.name.in_(names)))}
    missing = [name for name in names if name not in found]
    if missing:
        known = session.scalars(select(Tournament.name).order_by(Tournament.id)).all()
        raise DatasetError(
            f"no tournament {', '.join(map(repr, missing))} in the database; its tournaments: "
            f"{', '.join(known) or 'none'}"
        )
    chosen = [found[name] for name in dict.fromkeys(names)]
    for tournament in chosen:
        if game is not None and tournament.game["name"] != game:
            raise DatasetError(
                f"tournament {tournament.name!r} plays {tournament.game['name']}, not {game}; "
                f"name only {game} tournaments, or drop --game"
            )
    specs = {t.name: get_game_from_spec(t.game) for t in chosen}
    first = chosen[0].name
    if not encoded:
        for name, spec in specs.items():
            if _identity(spec) != _identity(specs[first]):
                raise DatasetError(
                    f"tournaments {first!r} ({_described(specs[first])}) and {name!r} ({_described(spec)}) "
                    "play different games; export them separately"
                )
        return chosen
    for name, spec in specs.items():
        if encoding_for(spec).name != encoding_for(specs[first]).name:
            raise DatasetError(
                f"tournaments {first!r} ({encoding_for(specs[first]).name}) and {name!r} "
                f"({encoding_for(spec).name}) play different games; export them separately"
            )
    return chosen


def _identity(game: Game) -> dict[str, Any]:
    """What makes games the same for views: the name, the parameters and, for a game of your
    own, its class and code (not the path it was loaded from)."""
    return {key: value for key, value in game.spec().items() if key != "module"}


def _described(game: Game) -> str:
    """A game as an error names it: its name and parameters."""
    params = ", ".join(f"{key} {value}" for key, value in game.params.items())
    return f"{game.name} {params}" if params else game.name


def _normal_games(session: Session, tournaments: Sequence[Tournament]) -> tuple[dict[int, tuple[str, ...]], int]:
    """The finished games of ``tournaments`` that ended normally, in id order, each with the
    team of each seat, and how many finished games were left out (forfeits, resignations,
    aborted games)."""
    ids = [t.id for t in tournaments]
    teams = dict(session.execute(select(Entry.id, Entry.team).where(Entry.tournament_id.in_(ids))).all())
    where = (GameRow.tournament_id.in_(ids), GameRow.status == "finished")
    seats = game_seats(session, *where)
    rows = session.execute(select(GameRow.id, GameRow.termination).where(*where).order_by(GameRow.id)).all()
    normal = {
        row.id: tuple(teams[seat.entry_id] for seat in seats[row.id])
        for row in rows
        if row.termination == Termination.NORMAL.value
    }
    return normal, len(rows) - len(normal)


def _normal_moves(tournaments: Sequence[Tournament]) -> Select[int, str]:
    """The query of (game id, move text) of every move of the normally ended games of
    ``tournaments``, game by game, each in its order."""
    return (
        select(MoveRow.game_id, MoveRow.move)
        .join(GameRow, GameRow.id == MoveRow.game_id)
        .where(
            GameRow.tournament_id.in_([t.id for t in tournaments]),
            GameRow.status == "finished",
            GameRow.termination == Termination.NORMAL.value,
        )
        .order_by(MoveRow.game_id, MoveRow.ply)
    )


def stored_games(session: Session, tournaments: Sequence[Tournament]) -> tuple[list[PlayedGame], int]:
    """The finished games of ``tournaments`` that ended normally, in id order, and how many
    finished games were left out (forfeits, resignations, aborted games)."""
    normal, left_out = _normal_games(session, tournaments)
    moves: dict[int, list[str]] = {game_id: [] for game_id in normal}
    for game_id, move in session.execute(_normal_moves(tournaments)):
        moves[game_id].append(move)
    return [PlayedGame(game_id, moves[game_id], players) for game_id, players in normal.items()], left_out


def _streamed_games(
    session: Session, tournaments: Sequence[Tournament], normal: dict[int, tuple[str, ...]]
) -> Iterator[PlayedGame]:
    """The games ``normal`` (``_normal_games``) one at a time, their moves read from the
    database in batches as they are needed: only one game's moves are held at once."""
    rows = session.execute(_normal_moves(tournaments), execution_options={"yield_per": _BATCH})
    groups = groupby(rows, key=lambda row: row[0])
    pending = next(groups, None)
    for game_id, players in normal.items():
        moves: list[str] = []
        if pending is not None and pending[0] == game_id:
            moves = [move for _, move in pending[1]]
            pending = next(groups, None)
        yield PlayedGame(game_id, moves, players)


def export_dataset(session: Session, names: Sequence[str], game: str | None = None) -> tuple[Dataset, int]:
    """The dataset of the normally ended games of the tournaments ``names`` (one game, ``game``
    if given), and how many of their finished games were left out as not ended normally."""
    tournaments = find_tournaments(session, names, game)
    games, left_out = stored_games(session, tournaments)
    engine = get_game_from_spec(tournaments[0].game)
    if not games:
        raise _nothing_ended(tournaments)
    return dataset_from_games(engine, games, [t.name for t in tournaments]), left_out


def _nothing_ended(tournaments: Sequence[Tournament]) -> DatasetError:
    """The error for tournaments without a normally ended game."""
    return DatasetError(
        f"the tournaments {', '.join(t.name for t in tournaments)} have no finished game that "
        "ended normally yet; run them first ('arena run')"
    )


@dataclass(frozen=True)
class ViewsExport:
    """What ``export_views`` wrote: the game, the tournaments, the games and lines (decisions),
    and how many finished games it left out as not ended normally."""

    game: Game
    sources: list[str]
    games: int
    positions: int
    left_out: int


def game_views(game: Game, played: PlayedGame) -> Iterator[dict[str, Any]]:
    """The lines of ``played`` (played from the start): one a decision a seat took, in the order
    of the record, each with that seat's view and legal moves before it, the move, the game's
    returns and the seat's score; ``DatasetError`` naming the game if its record does not
    replay or does not finish it."""
    decisions: list[tuple[int, int, dict[str, Any], list[str], str]] = []
    walk = game.steps(game.initial_state(), played.moves)
    while True:
        try:
            state, moves = next(walk)
        except ValueError as error:  # an illegal move, text that is no move, a step cut short
            raise DatasetError(f"game {played.id} does not replay: {error} (see 'arena replay {played.id}')") from None
        if not moves:
            break
        if state.to_move == CHANCE:
            continue
        seats = state.actors() if state.to_move == SIMULTANEOUS else (state.to_move,)
        for seat, played_move in zip(seats, moves, strict=True):
            legal = [game.format_move(option) for option in state.moves_of(seat)]
            decisions.append((state.ply, seat, state.view(seat), legal, game.format_move(played_move)))
    outcome = state.outcome
    if outcome is None:
        raise DatasetError(
            f"game {played.id} is not over after its {len(played.moves)} moves (see 'arena replay {played.id}')"
        )
    returns = [float(value) for value in state.returns()]
    for ply, seat, view, legal, move in decisions:
        yield {
            "game": played.id,
            "ply": ply,
            "seat": seat,
            "team": played.players[seat],
            "view": view,
            "legal": legal,
            "move": move,
            "returns": returns,
            "score": outcome.score(seat),
        }


def _json_line(data: dict[str, Any], what: str) -> bytes:
    """``data`` as one line of JSON (UTF-8, with its newline); ``DatasetError`` saying ``what``
    holds something that is not plain data."""
    try:
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as error:
        raise DatasetError(
            f"{what} is not JSON data ({error}); a game's State.view must return plain data (docs/games.md)"
        ) from None
    return text.encode() + b"\n"


def write_views(path: Path, game: Game, games: Iterable[PlayedGame], sources: Sequence[str]) -> tuple[int, int]:
    """Write the views file of ``games`` to ``path``: the metadata line, then ``game_views`` of
    each game as it comes (lines go to a temporary file beside ``path`` first, so that the
    metadata can count them; the file appears whole or not at all). The games and lines written."""
    path = Path(path)
    folder = path.parent
    if folder.exists() and not folder.is_dir():  # mkdir would say "File exists"
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(folder))
    folder.mkdir(parents=True, exist_ok=True)
    count = positions = 0
    with tempfile.TemporaryFile(dir=folder) as body:
        for played in games:
            count += 1
            for line in game_views(game, played):
                body.write(
                    _json_line(line, f"the view of seat {line['seat']} at ply {line['ply']} of game {played.id}")
                )
                positions += 1
        meta = {
            "format": VIEWS_FORMAT,
            "version": VIEWS_VERSION,
            "game": game.spec(),
            "tournaments": list(sources),
            "games": count,
            "positions": positions,
        }
        _publish(path, _json_line(meta, "the game's spec"), body)
    return count, positions


def _publish(path: Path, head: bytes, body: BinaryIO) -> None:
    """Write ``head`` then all of ``body`` to a file beside ``path``, then rename it ``path``
    (readable as the umask says, as a file ``open`` makes would be)."""
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        with os.fdopen(handle, "wb") as file:
            file.write(head)
            body.seek(0)
            shutil.copyfileobj(body, file)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def export_views(session: Session, names: Sequence[str], path: Path, game: str | None = None) -> ViewsExport:
    """Write the views file (``.jsonl``) of the normally ended games of the tournaments
    ``names`` (one game, ``game`` if given; any game, with or without an encoding) to ``path``,
    reading and writing one game at a time."""
    tournaments = find_tournaments(session, names, game, encoded=False)
    engine = get_game_from_spec(tournaments[0].game)
    normal, left_out = _normal_games(session, tournaments)
    if not normal:
        raise _nothing_ended(tournaments)
    sources = [t.name for t in tournaments]
    games, positions = write_views(path, engine, _streamed_games(session, tournaments, normal), sources)
    return ViewsExport(engine, sources, games, positions, left_out)


def load_dataset(path: str | Path) -> Dataset:
    """The dataset in file ``path``; ``DatasetError`` saying what is wrong otherwise."""
    shown = str(path)
    try:
        columns, meta = read_npz(Path(path))
    except FileNotFoundError:
        raise DatasetError(
            f"dataset file {shown!r} does not exist; make one with 'arena dataset TOURNAMENT --out FILE'"
        ) from None
    except OSError as error:
        raise DatasetError(f"dataset file {shown!r} cannot be read: {error.strerror or error}") from None
    except ValueError as error:
        raise DatasetError(f"{shown!r} is not a dataset made by 'arena dataset': {error}") from None
    if meta.get("format") != DATASET_FORMAT:
        raise DatasetError(f"{shown!r} is not a dataset made by 'arena dataset' (its format is {meta.get('format')!r})")
    try:
        game = get_game_from_spec(meta["game"])
    except (ArenaError, KeyError, TypeError):
        raise DatasetError(f"dataset file {shown!r} names no game arena knows ({meta.get('game')!r})") from None
    encoding = encoding_for(game)
    if meta.get("encoding") != encoding.name or meta.get("encoding_version") != ENCODING_VERSION:
        raise DatasetError(
            f"dataset file {shown!r} uses version {meta.get('encoding_version')} of the encoding "
            f"{meta.get('encoding')!r}; this arena uses version {ENCODING_VERSION} of "
            f"{encoding.name!r}: export it again"
        )
    rows = {name: len(column) for name, column in columns.items()}
    if set(columns) != set(COLUMNS) or len(set(rows.values())) != 1:
        raise DatasetError(f"dataset file {shown!r} is damaged: its columns are {rows}; export it again")
    if columns["features"].shape[1:] != (encoding.size,) or columns["legal"].shape[1:] != (encoding.moves,):
        raise DatasetError(
            f"dataset file {shown!r} is damaged: its features or legal moves do not fit the "
            f"{encoding.name} encoding; export it again"
        )
    return Dataset(
        game, columns, list(meta.get("players", [])), list(meta.get("sources", [])), int(meta.get("games", 0))
    )
