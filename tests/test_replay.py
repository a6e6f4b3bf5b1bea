"""Replaying stored games: the moves re-played through the engine prove the record, a tampered
record is caught at the ply where it goes wrong, and ``arena replay`` shows it move by move."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time

import pytest
from sqlalchemy import delete, update

from arena.games import get_game
from arena.results.replay import ReplayError, load_replay, replay_record
from arena.store.models import GameRow, MoveRow
from tests.builders import DRAW, FIRST_LEGAL, O_WINS, X_WINS, create, play_stage, scripted, set_status
from tests.fixtures.harnesskit import run_arena

TTT = get_game("tictactoe")
#: game id -> (moves, forfeit) of the two-team tictactoe match the tests tamper with
MATCH = {1: (X_WINS, None), 2: (DRAW, None), 3: (["4", "0"], "crash"), 4: (O_WINS, None)}


@pytest.fixture
def match(tmp_path):
    """Two teams, four games: x wins, a draw, a crash by x after two moves, o wins; (url, sessions)."""
    url = f"sqlite:///{tmp_path / 'match.db'}"
    config = {
        "name": "match",
        "game": "tictactoe",
        "bots": {t: {"path": FIRST_LEGAL} for t in ("alpha", "beta")},
        "stages": [{"name": "match", "games_per_pair": 4}],
    }
    sessions, tid = create(url, config)
    play_stage(
        sessions,
        tid,
        0,
        lambda row, a, b: scripted(
            TTT, row.id, MATCH[row.id][0], forfeit=MATCH[row.id][1], times=[1.5] * len(MATCH[row.id][0])
        ),
    )
    set_status(sessions, tid, "finished")
    return url, sessions


def tamper(sessions, game_id: int, **changes) -> None:
    """Change a stored game: ``ply_N="text"`` rewrites move N; other keys are game columns."""
    with sessions.begin() as session:
        for key, value in changes.items():
            if key.startswith("ply_"):
                session.execute(
                    update(MoveRow).where(MoveRow.game_id == game_id, MoveRow.ply == int(key[4:])).values(move=value)
                )
            elif key == "seat_of_ply_1":
                session.execute(update(MoveRow).where(MoveRow.game_id == game_id, MoveRow.ply == 1).values(seat=value))
            else:
                session.execute(update(GameRow).where(GameRow.id == game_id).values(**{key: value}))


def replayed(sessions, game_id: int):
    with sessions.begin() as session:
        return load_replay(session, game_id)


def check(**record):
    base = {"status": "finished", "winner": 0, "points": None, "termination": "normal", "offender": None, "plies": None}
    moves = record.pop("moves")
    return replay_record(TTT, [(i % 2, m) for i, m in enumerate(moves)], **{**base, **record})


# ---------------------------------------------------------------- the re-play


def test_a_good_record_replays_to_its_stored_result(match):
    _, sessions = match
    shown = replayed(sessions, 1)
    assert shown.problem is None
    assert len(shown.states) == 6 and shown.states[-1].is_terminal and shown.states[-1].outcome.winner == 0
    assert shown.moves == [(0, "0", 1.5), (1, "3", 1.5), (0, "1", 1.5), (1, "4", 1.5), (0, "2", 1.5)]


def test_a_forfeit_replays_to_the_position_where_the_offender_was_to_move(match):
    _, sessions = match
    shown = replayed(sessions, 3)
    assert shown.problem is None
    assert (shown.termination, shown.offender, shown.winner, len(shown.states)) == ("crash", 0, 1, 3)


def test_an_illegal_move_is_caught_at_its_ply(match):
    _, sessions = match
    tamper(sessions, 1, ply_3="3")  # x plays on o's cell
    shown = replayed(sessions, 1)
    assert shown.problem == "ply 3: 3 is illegal in tictactoe: cell 3 is occupied"
    assert shown.last_ply == 2


def test_a_move_that_is_not_notation_is_caught(match):
    _, sessions = match
    tamper(sessions, 2, ply_4="e4")
    assert replayed(sessions, 2).problem.startswith("ply 4: 'e4' is not a tictactoe move")


def test_a_move_by_the_wrong_seat_is_caught():
    states, problem = replay_record(
        TTT, [(1, "4")], status="finished", winner=None, points=None, termination="normal", offender=None, plies=1
    )
    assert problem == "ply 1: the record has o playing '4', but it is x's turn"
    assert len(states) == 1


def test_a_wrong_winner_is_caught(match):
    _, sessions = match
    tamper(sessions, 4, winner=0)
    assert replayed(sessions, 4).problem == "the record says x winning, but its moves give o winning"


def test_a_record_cut_short_is_caught():
    _, problem = check(moves=X_WINS[:4], plies=4)
    assert problem == "the record ends after ply 4, before the game is over, yet says it ended normally"


def test_moves_after_the_end_are_caught():
    _, problem = check(moves=X_WINS + ["8"])
    assert problem == "ply 6: '8' is played after the game is over"


def test_a_forfeit_stored_for_a_finished_game_is_caught():
    _, problem = check(moves=X_WINS, winner=1, termination="timeout", offender=0)
    assert problem == "the game is over at ply 5, yet the record says it ended by timeout"


def test_a_forfeit_by_the_seat_not_to_move_is_caught():
    _, problem = check(moves=["4"], winner=0, termination="timeout", offender=0)
    assert problem == "the record has x forfeiting by timeout, but it was o's turn"


def test_a_missing_move_is_caught_by_the_ply_count(match):
    _, sessions = match
    with sessions.begin() as session:
        session.execute(delete(MoveRow).where(MoveRow.game_id == 2, MoveRow.ply == 9))
    assert replayed(sessions, 2).problem == "the game says it has 9 moves, but 8 are stored"


def test_wrong_points_are_caught():
    _, problem = check(moves=X_WINS, points=(1.0, 0.0))
    assert problem == "the record gives points 1-0, but its moves give none"


# ---------------------------------------------------------------- arena replay


def test_replay_prints_every_position_with_the_mover_the_move_and_its_time(match):
    url, _ = match
    result = run_arena("replay", "1", "--db", url)
    assert result.exit_code == 0, result.output
    assert "game 1 of match: tictactoe, stage match, pool A, round 1" in result.output
    assert "start; x (alpha) against o (beta)" in result.output
    assert "ply 3/5: x (alpha) plays 1 in 1.5 ms" in result.output
    assert " x | x | x" in result.output
    assert "result: alpha (x) wins" in result.output
    assert "re-played through the engine: every move legal, result confirmed" in result.output


def test_replay_ply_shows_that_position_only(match):
    url, _ = match
    result = run_arena("replay", "1", "--ply", "2", "--db", url)
    assert result.exit_code == 0, result.output
    assert "ply 2/5: o (beta) plays 3 in 1.5 ms" in result.output
    assert "ply 1/5" not in result.output and "ply 3/5" not in result.output
    assert " x | . | .\n---+---+---\n o | . | ." in result.output


def test_replay_delay_plays_the_game_back_from_the_ply_given(match):
    url, _ = match
    start = time.monotonic()
    result = run_arena("replay", "1", "--ply", "3", "--delay", "0.05", "--db", url)
    assert result.exit_code == 0, result.output
    assert [line.split(":")[0] for line in result.output.splitlines() if line.startswith("ply ")] == [
        "ply 3/5",
        "ply 4/5",
        "ply 5/5",
    ]
    assert time.monotonic() - start >= 0.1


def test_replay_of_a_tampered_record_says_so_and_exits_non_zero(match):
    url, sessions = match
    tamper(sessions, 1, ply_3="3")
    result = run_arena("replay", "1", "--db", url)
    assert result.exit_code != 0
    assert isinstance(result.exception, ReplayError)
    assert str(result.exception) == "game 1 does not re-play: ply 3: 3 is illegal in tictactoe: cell 3 is occupied"
    assert "the record does not re-play: ply 3" in result.output


def test_replay_of_an_unknown_game_says_how_to_find_games(match):
    url, _ = match
    result = run_arena("replay", "77", "--db", url)
    assert result.exit_code != 0
    assert "no game 77 in this database (game ids run from 1 to 4); list games with 'arena games'" in str(
        result.exception
    )


def test_replay_rejects_a_ply_the_game_does_not_have(match):
    url, _ = match
    result = run_arena("replay", "1", "--ply", "6", "--db", url)
    assert result.exit_code != 0
    assert str(result.exception) == "game 1 has plies 0-5; --ply 6 is not one of them"


def test_replay_json_gives_the_record_and_whether_it_replays(match):
    import json

    url, _ = match
    result = run_arena("replay", "3", "--json", "--db", url)
    data = json.loads(result.output)
    assert (data["replays"], data["termination"], data["offender"], data["winner"]) == (True, "crash", 0, 1)
    assert data["moves"] == [[0, "4", 1.5], [1, "0", 1.5]]


def test_the_command_exits_2_with_the_message_and_no_traceback(match):
    url, _ = match
    done = subprocess.run(
        [sys.executable, "-c", "from arena.commands.cli import main; main()", "replay", "99", "--db", url],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "no game 99 in this database" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.slow
def test_in_a_terminal_the_keys_step_through_the_game(match):
    url, _ = match
    pid, fd = pty.fork()
    if pid == 0:  # the child: arena replay on the pseudo-terminal
        os.environ["TERM"] = "xterm"
        os.execv(
            sys.executable,
            [sys.executable, "-c", "from arena.commands.cli import main; main()", "replay", "1", "--db", url],
        )
    screen = b""

    def read_until(text: bytes, timeout: float = 30.0) -> None:
        nonlocal screen
        end = time.monotonic() + timeout
        while text not in screen and time.monotonic() < end:
            if select.select([fd], [], [], 0.2)[0]:
                try:
                    screen += os.read(fd, 65536)
                except OSError:
                    break
        assert text in screen, screen.decode(errors="replace")[-500:]

    try:
        read_until(b"start; x (alpha)")
        os.write(fd, b"\x1b[C")  # right arrow
        read_until(b"ply 1/5: x (alpha) plays 0")
        os.write(fd, b"\x1b[F")  # End
        read_until(b"result: alpha (x) wins")
        os.write(fd, b"\x1b[D")  # left arrow
        read_until(b"ply 4/5: o (beta) plays 4")
        os.write(fd, b"q")
        _, status = os.waitpid(pid, 0)
    except BaseException:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise
    finally:
        os.close(fd)
    assert os.waitstatus_to_exitcode(status) == 0
