"""The moves of games in progress, for onlookers (``arena serve``'s game pages).

A game's moves reach the database only with its record, when it ends, and only the run's
parent process writes the database. So that a game can be watched as it is played, the worker
playing it also appends each move (once the game has lasted 0.2 s) to a small side file,
``<database>.live/<game id>.jsonl`` (one JSON line a move: seat, move text, wall
milliseconds); the server reads it while the game is not finished in the database, and the
runner removes the files of its games when it is done. A reader takes whole lines only: a last
line still being written waits for its next look.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import IO

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from arena.core.gameloop import Watcher
from arena.core.records import MoveRecord
from arena.games import State

#: the most of a live file a reader takes (a game's moves are far fewer bytes)
MAX_BYTES = 1 << 20
#: seconds a game lasts before its moves are written for onlookers
WATCHABLE_AFTER = 0.2


def sqlite_file(url: str) -> Path | None:
    """The SQLite file of database ``url``, or ``None`` (another database, or one in memory)."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        return None
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    return Path(parsed.database).resolve()


def live_folder(url: str) -> Path | None:
    """Where the live files of the games stored at ``url`` go: beside an SQLite file; ``None``
    for any other database (there is no folder the server is sure to share)."""
    database = sqlite_file(url)
    return None if database is None else database.with_name(database.name + ".live")


def live_file(folder: Path, game_id: int) -> Path:
    """The live file of game ``game_id``."""
    return folder / f"{game_id}.jsonl"


class LiveMoves(Watcher):
    """Writes each move of one game to its live file as it is played, once the game has lasted
    ``after`` seconds: a game over sooner is never watched, and then costs no file at all (a
    fast game's moves come in microseconds, and creating a file would cost more than them)."""

    def __init__(self, folder: Path, game_id: int, after: float = WATCHABLE_AFTER) -> None:
        self.path = live_file(folder, game_id)
        self.after = after
        self.started: float | None = None
        self.moves: list[tuple[int, str, float]] = []  # the moves not written yet
        self.file: IO[str] | None = None
        self.broken = False

    def to_move(self, state: State, seat: int) -> None:
        if self.started is None:
            self.started = time.monotonic()

    def moved(self, state: State, move: MoveRecord) -> bool:
        if self.broken:
            return True
        self.moves.append((move.seat, move.move, move.wall_ms))
        if self.file is None and self.started is not None and time.monotonic() - self.started < self.after:
            return True
        try:
            if self.file is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self.file = self.path.open("w", encoding="utf-8")
            self.file.write("".join(json.dumps(list(m)) + "\n" for m in self.moves))
            self.file.flush()
            self.moves.clear()
        except OSError:
            self.close()
            self.broken = True  # a courtesy to onlookers: never a reason to stop the game
        return True

    def close(self) -> None:
        """Close the file (it stays until the runner removes it)."""
        if self.file is not None:
            try:
                self.file.close()
            except OSError:
                pass
            self.file = None


def write_live(folder: Path, game_id: int, moves: list[tuple[int, str, float]]) -> None:
    """Write every move of game ``game_id`` at once (a game with take-backs: ``arena serve``'s
    games against a person), replacing its live file whole; a failure is ignored."""
    path = live_file(folder, game_id)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".partial")
        partial.write_text("".join(json.dumps(list(move)) + "\n" for move in moves), encoding="utf-8")
        partial.replace(path)
    except OSError:
        pass


def read_live(folder: Path, game_id: int) -> list[tuple[int, str, float]] | None:
    """The moves game ``game_id`` has played so far, or ``None`` if it has no live file."""
    try:
        with live_file(folder, game_id).open("rb") as file:
            data = file.read(MAX_BYTES)
    except OSError:
        return None
    moves = []
    for line in data.split(b"\n")[:-1]:  # the last piece is empty, or a line being written
        try:
            seat, text, wall = json.loads(line)
            moves.append((int(seat), str(text)[:20], float(wall)))
        except (ValueError, TypeError):
            break
    return moves


def remove_live(folder: Path, game_ids: list[int]) -> None:
    """Remove the live files of games ``game_ids`` (and the folder once it is empty)."""
    for game_id in game_ids:
        live_file(folder, game_id).unlink(missing_ok=True)
    try:
        folder.rmdir()
    except OSError:
        pass
