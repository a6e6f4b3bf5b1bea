"""arena play: a person against a bot, driven through standard input and a pseudo-terminal."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import select as query

from arena.store.database import open_store
from arena.store.models import GameRow, GameSeat, MoveRow
from tests.fixtures.harnesskit import arena_here

FIRST_LEGAL = str(Path(__file__).parent / "fixtures" / "bots" / "first_legal.py")


def arena(*args: str, stdin: str = "", cwd: Path) -> subprocess.CompletedProcess:
    """``arena ARGS`` with ``stdin`` typed at it, as the person sees it (run in this process; the
    real terminal's test below runs the real command)."""
    return arena_here(*args, cwd=cwd, input=stdin)


def stored_games(db: Path) -> list[tuple[GameRow, list[MoveRow]]]:
    with open_store(f"sqlite:///{db}")() as session:
        games = list(session.scalars(query(GameRow).order_by(GameRow.id)))
        return [
            (g, list(session.scalars(query(MoveRow).where(MoveRow.game_id == g.id).order_by(MoveRow.ply))))
            for g in games
        ]


def test_a_whole_tictactoe_game_with_bad_input_in_between(tmp_path):
    # the bot plays the first legal cell: x 4, o 0, x 2, o 1, x 6 wins on the diagonal 2-4-6
    script = "banana\n4\n4\n9\nhelp\nmoves\n0\n2\n6\n"
    done = arena(
        "play",
        "tictactoe",
        "--bot",
        FIRST_LEGAL,
        "--db",
        f"sqlite:///{tmp_path / 'a.db'}",
        "--move-time",
        "2",
        stdin=script,
        cwd=tmp_path,
    )
    out = done.stdout
    assert done.returncode == 0, done.stderr
    assert "'banana' is not a tictactoe move" in out and "e.g." in out
    assert "cell 4 is occupied" in out
    assert "'9' is not a tictactoe move" in out
    assert "undo    take back your last move" in out
    assert "cell 0 is occupied" in out  # the bot took 0 after x's 4
    assert "Game over: you win." in out
    [(game, moves)] = stored_games(tmp_path / "a.db")
    assert (game.winner, game.termination, game.status) == (0, "normal", "finished")
    assert [(m.seat, m.move) for m in moves] == [(0, "4"), (1, "0"), (0, "2"), (1, "1"), (0, "6")]
    assert all(m.wall_ms > 0 for m in moves)
    # each move of the bot is said with its name, its seat and the time it took, as stored
    assert re.findall(r"\S+ \(o\) played [^\n]*", out) == [
        f"{FIRST_LEGAL} (o) played {m.move} in {m.wall_ms / 1000:.2f} s" for m in moves if m.seat == 1
    ]


def test_undo_takes_back_the_pair_and_the_game_goes_on(tmp_path):
    script = "4\nundo\n8\n2\n3\nresign\n"
    done = arena(
        "play", "tictactoe", "--bot", FIRST_LEGAL, "--db", f"sqlite:///{tmp_path / 'b.db'}", stdin=script, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    [(game, moves)] = stored_games(tmp_path / "b.db")
    # after undo the board is empty again: x 8, o 0, x 2, o 1, x 3, o 4, then x resigns
    assert [m.move for m in moves] == ["8", "0", "2", "1", "3", "4"]
    assert (game.winner, game.termination, game.offender) == (1, "resignation", 0)


def messages(out: str) -> list[str]:
    """What the game said of the moves: each 'BOT (SEAT) played MOVE in N s' (its time as N) and
    'took back ...'."""
    said = re.findall(r"(?:\S+ \([xo]\) played|took back) [^\n]*", out)
    return [re.sub(r" in \d+\.\d\d s$", " in N s", line) for line in said]


def test_undo_says_whose_moves_it_took_back(tmp_path):
    # x 4, o 0, x 2, o 1; undo takes back x's 2 and o's 1; x 8, o 1; x resigns
    db = f"sqlite:///{tmp_path / 'u.db'}"
    done = arena("play", "tictactoe", "--bot", FIRST_LEGAL, "--db", db, stdin="4\n2\nundo\n8\nresign\n", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert messages(done.stdout) == [
        f"{FIRST_LEGAL} (o) played 0 in N s",
        f"{FIRST_LEGAL} (o) played 1 in N s",
        "took back your 2 and the opponent's 1",
        f"{FIRST_LEGAL} (o) played 1 in N s",
    ]
    [(_game, moves)] = stored_games(tmp_path / "u.db")
    assert [m.move for m in moves] == ["4", "0", "8", "1"]


def test_undo_playing_second_says_whose_moves_it_took_back(tmp_path):
    # x 0, o 4, x 1; undo takes back o's 4 and x's 1; o 2, x 1; o quits
    done = arena(
        "play",
        "tictactoe",
        "--bot",
        FIRST_LEGAL,
        "--as",
        "o",
        "--db",
        f"sqlite:///{tmp_path / 'v.db'}",
        stdin="4\nundo\n2\nquit\n",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert messages(done.stdout) == [
        f"{FIRST_LEGAL} (x) played 0 in N s",
        f"{FIRST_LEGAL} (x) played 1 in N s",
        "took back your 4 and the opponent's 1",
        f"{FIRST_LEGAL} (x) played 1 in N s",
    ]
    [(_game, moves)] = stored_games(tmp_path / "v.db")
    assert [m.move for m in moves] == ["0", "2", "1"]


def test_the_games_of_arena_play_are_never_the_default_tournament(tmp_path):
    from tests.builders import create, league_config

    db = f"sqlite:///{tmp_path / 'p.db'}"
    create(db, league_config())
    done = arena("play", "tictactoe", "--bot", FIRST_LEGAL, "--db", db, stdin="4\nquit\n", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    names = [t["name"] for t in json.loads(arena("tournaments", "--json", "--db", db, cwd=tmp_path).stdout)]
    assert names[0] == "league" and len(names) == 2 and names[1].startswith("play tictactoe ")
    board = json.loads(arena("leaderboard", "--json", "--db", db, cwd=tmp_path).stdout)
    assert board["tournament"] == "league"
    report = arena("report", "--db", db, cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    assert [p.name for p in (tmp_path / "reports").iterdir()] == ["league"]
    by_name = json.loads(arena("leaderboard", names[1], "--json", "--db", db, cwd=tmp_path).stdout)
    # the person quit: the game is stored, without a result
    assert (by_name["tournament"], by_name["games_finished"], by_name["games_unfinished"]) == (names[1], 0, 1)


def test_a_database_of_arena_play_games_only_says_how_to_see_them(tmp_path):
    db = f"sqlite:///{tmp_path / 'q.db'}"
    done = arena("play", "tictactoe", "--bot", FIRST_LEGAL, "--db", db, stdin="quit\n", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    [name] = [t["name"] for t in json.loads(arena("tournaments", "--json", "--db", db, cwd=tmp_path).stdout)]
    board = arena("leaderboard", "--db", db, cwd=tmp_path)
    assert (board.returncode, board.stdout) == (2, "")
    assert board.stderr == (
        "error: there are no tournaments in this database yet, only the games of 'arena play': name one to "
        f"see it, e.g. arena leaderboard \"{name}\" (list them with 'arena tournaments')\n"
    )


def test_playing_second_and_quitting_stores_an_unfinished_result(tmp_path):
    done = arena(
        "play",
        "tictactoe",
        "--bot",
        FIRST_LEGAL,
        "--as",
        "o",
        "--db",
        f"sqlite:///{tmp_path / 'c.db'}",
        stdin="4\nquit\n",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert f"{FIRST_LEGAL} (x) played 0 in " in done.stdout
    [(game, moves)] = stored_games(tmp_path / "c.db")
    assert [m.move for m in moves] == ["0", "4", "1"]
    assert (game.winner, game.termination) == (None, "aborted")


def test_unknown_bot_is_a_clear_error(tmp_path):
    done = arena("play", "tictactoe", "--bot", "nobody", "--db", f"sqlite:///{tmp_path / 'd.db'}", cwd=tmp_path)
    assert done.returncode == 2
    assert "no registered bot 'nobody'" in done.stderr and "Traceback" not in done.stderr


def test_hint_asks_the_bot_for_the_persons_seat(tmp_path):
    done = arena(
        "play",
        "tictactoe",
        "--bot",
        FIRST_LEGAL,
        "--db",
        f"sqlite:///{tmp_path / 'e.db'}",
        stdin="4\nhint\nquit\n",
        cwd=tmp_path,
    )
    assert "hint: 1" in done.stdout  # after x 4, o 0 the first legal cell is 1


class Terminal:
    """``arena`` on a pseudo-terminal: type lines, read the screen."""

    def __init__(self, args: list[str], cwd: Path) -> None:
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "arena", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=cwd,
            close_fds=True,
            env={**os.environ, "COLUMNS": "120"},
        )
        os.close(slave)
        self.screen = ""

    def expect(self, text: str, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        while text not in self.screen:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{text!r} never appeared; screen:\n{self.screen[-2000:]}")
            if select.select([self.master], [], [], left)[0]:
                try:
                    self.screen += os.read(self.master, 65536).decode(errors="replace")
                except OSError:
                    break
        return self.screen

    def type(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def close(self) -> int:
        try:
            return self.proc.wait(timeout=60)
        finally:
            os.close(self.master)


@pytest.mark.slow
def test_a_few_moves_of_xtreme_on_a_real_terminal(tmp_path):
    term = Terminal(["play", "xtreme", "--bot", FIRST_LEGAL, "--db", f"sqlite:///{tmp_path / 'x.db'}"], tmp_path)
    term.expect("x to move (ply 1) >")
    term.type("1 4 4")
    term.expect("first_legal.py (o) played 0 3 3 in ")  # small board (1, 1) of either big board: first is 0 3 3
    term.expect("x to move (ply 3) >")
    term.type("1 9 9")
    term.expect("not a xtreme move")
    term.type("1 4 5")  # x must answer in small board (0, 0)
    term.expect("illegal")
    term.type("1 0 0")
    term.expect("x to move (ply 5) >")
    term.type("quit")
    assert term.close() == 0
    [(game, moves)] = stored_games(tmp_path / "x.db")
    assert [m.move for m in moves] == ["1 4 4", "0 3 3", "1 0 0", "0 0 0"]
    assert game.termination == "aborted"


def test_the_bot_can_be_given_a_bank_with_an_increment_on_the_cpu_clock(tmp_path):
    spends = str(Path(__file__).parent / "fixtures" / "bots" / "spends_time.py")
    done = arena(
        "play",
        "tictactoe",
        "--bot",
        spends,
        "--as",
        "o",
        "--bank",
        "5",
        "--increment",
        "0.5",
        "--clock",
        "cpu",
        "--db",
        f"sqlite:///{tmp_path / 'c.db'}",
        stdin="quit\n",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "bank 5 s + 0.5 s a move (cpu clock)" in " ".join(done.stdout.split())
    [(game, _moves)] = stored_games(tmp_path / "c.db")
    with open_store(f"sqlite:///{tmp_path / 'c.db'}")() as session:
        stderr = session.scalars(query(GameSeat.stderr).where(GameSeat.game_id == game.id, GameSeat.seat == 0)).one()
    seen = [json.loads(line.removeprefix("clock ")) for line in stderr.splitlines() if line.startswith("clock ")]
    assert [(s["kind"], s["limit"], s["bank"]) for s in seen] == [("cpu", 5.0, 5.0)]


def test_an_increment_without_a_bank_is_refused(tmp_path):
    done = arena(
        "play",
        "tictactoe",
        "--bot",
        FIRST_LEGAL,
        "--increment",
        "1",
        "--db",
        f"sqlite:///{tmp_path / 'd.db'}",
        cwd=tmp_path,
    )
    assert done.returncode == 2
    assert "--increment needs --bank" in done.stderr
