"""The store on PostgreSQL as on SQLite (issue 16): the same tournament stored in both reads
back the same through every command that reads, a tournament runs end to end on each, and
what only a server can do wrong (a 63-bit seed, an unreachable server) is said clearly.

PostgreSQL is a real server the tests start themselves (tests/fixtures/pgserver.py); without
its binaries these tests skip, saying why (under CI they fail).
"""

from __future__ import annotations

import dataclasses
import filecmp
import re
import types
from pathlib import Path

import pytest
from sqlalchemy import func, select
from typer.testing import CliRunner

from arena.commands.cli import app
from arena.core.records import GameRecord, MoveRecord
from arena.errors import ArenaError
from arena.store.database import open_store
from arena.store.models import GameRow, MoveRow, Tournament
from arena.store.writes import save_record
from tests.builders import before_game_seats, synthesize
from tests.fixtures.harnesskit import TournamentFolder, arena

STAGES = [{"name": "group", "pools": 2, "games_per_pair": 2, "advance": 2}, {"name": "final"}]


def cli(*args: str) -> str:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.output


def test_a_63_bit_seed_and_a_record_stored_twice_round_trip(store_url):
    synthesize(store_url, teams=4, game="tictactoe", stages=[{"name": "league"}], seed=2**62 + 7, name="big")
    sessions = open_store(store_url)
    with sessions.begin() as session:
        tournament = session.scalars(select(Tournament)).one()
        game = session.scalars(select(GameRow).order_by(GameRow.id)).first()
        assert game is not None
        record = GameRecord(game.id, moves=[MoveRecord(0, "x", 1.0, 1.0)], winner=0, started_at=1.0, finished_at=2.0)
        stored_again = save_record(session, record)
        moves = session.scalar(select(func.count()).select_from(MoveRow).where(MoveRow.game_id == game.id))
        seeds = list(session.scalars(select(GameRow.seed)))
    assert tournament.seed == 2**62 + 7
    assert stored_again is False and moves == game.plies
    assert max(seeds) > 2**31  # every game's seed is 63-bit


@pytest.mark.slow
def test_every_reading_command_says_the_same_of_postgresql_as_of_sqlite(tmp_path, postgres, monkeypatch):
    # every page says when its report was written, to the minute: the same minute for both
    import arena.results.pages

    monkeypatch.setattr(arena.results.pages, "time", types.SimpleNamespace(time=lambda: 1_700_000_000.0))
    urls = {"sqlite": f"sqlite:///{tmp_path / 'a.db'}", "postgresql": postgres.new_database()}
    outputs: dict[str, dict[str, str]] = {}
    for kind, url in urls.items():
        synthesize(url, teams=8, game="tictactoe", stages=STAGES, name="staged", forfeit_every=4)
        said = outputs[kind] = {}
        for command in (
            ["leaderboard", "staged"],
            ["leaderboard", "staged", "--rating", "elo"],
            ["standings", "staged"],
            ["games", "--tournament", "staged", "--all", "--json"],
            ["games", "show", "7"],
            ["replay", "5"],
            ["bots", "--json"],
        ):
            said[" ".join(command)] = cli(*command, "--db", url)
        cli("report", "staged", "--db", url, "--out", str(tmp_path / kind))
        listing = cli("tournaments", "--db", url)
        assert "staged" in listing and "finished" in listing
    assert outputs["postgresql"] == outputs["sqlite"]
    compared = filecmp.dircmp(tmp_path / "sqlite", tmp_path / "postgresql")
    assert compared.left_only == [] and compared.right_only == [] and compared.diff_files == []
    assert len(list((tmp_path / "sqlite").rglob("*.html"))) > 10
    cli("delete", "staged", "--yes", "--db", urls["postgresql"])
    assert "staged" not in cli("tournaments", "--db", urls["postgresql"])


@pytest.mark.slow
def test_a_tournament_runs_and_resumes_on_postgresql(tmp_path, postgres):
    url = postgres.new_database()
    folder = TournamentFolder(
        tmp_path,
        "name: pg\ngame: tictactoe\nseed: 5\ntime: {move: 2.0}\n"
        "bots: {uct: {module: bots.uct, params: {iterations: 30}}, random: {module: bots.randombot}}\n"
        "teams: {A: uct, B: random, C: random}\n"
        "stages: [{name: league, games_per_pair: 2}]\n",
        (),
    )
    folder.args = ("run", "t.yaml", "--db", url, "-q", "--workers", "2")
    first = folder.run()
    assert first.returncode == 0, first.stderr
    again = folder.run()
    assert again.returncode == 0, again.stderr
    sessions = open_store(url)
    with sessions.begin() as session:
        statuses = list(session.scalars(select(GameRow.status)))
        plies = session.scalar(select(func.sum(GameRow.plies)))
        moves = session.scalar(select(func.count()).select_from(MoveRow))
    assert statuses == ["finished"] * 6
    assert plies == moves
    board = arena("leaderboard", "pg", "--db", url, cwd=tmp_path)
    assert board.returncode == 0 and re.search(r"\bA\b", board.stdout)


def test_an_unreachable_server_is_a_clear_error_without_the_password(tmp_path):
    from tests.fixtures.pgserver import free_port

    url = f"postgresql+psycopg://someone:secret@127.0.0.1:{free_port()}/nothing"
    with pytest.raises(ArenaError, match=r"cannot use the database postgresql\+psycopg://someone:\*\*\*@") as caught:
        open_store(url)
    assert "secret" not in str(caught.value)
    result = arena("tournaments", "--db", url, cwd=Path(tmp_path))
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "secret" not in result.stderr + result.stdout


def test_two_runs_of_one_tournament_on_one_server_are_kept_apart(postgres):
    from arena.contests.tournament import TournamentError, run_lock

    url = postgres.new_database()
    with run_lock(url, "league"):
        with pytest.raises(TournamentError, match="'league' is already running"), run_lock(url, "league"):
            pass
        with run_lock(url, "another"):
            pass
    with run_lock(url, "league"):  # let go at the end of the run
        pass


def test_a_database_of_the_schema_before_machines_is_brought_up_to_date(store_url):
    from sqlalchemy import create_engine, inspect, text

    from arena.store.database import SCHEMA_VERSION

    synthesize(store_url, teams=4, game="tictactoe", stages=[{"name": "league"}], name="old")
    engine = create_engine(store_url)
    with engine.begin() as connection:  # as arena before it recorded machines left it
        for column in ("node", "cpu", "clock", "time_scale"):
            connection.execute(text(f"ALTER TABLE games DROP COLUMN {column}"))
        for table in ("paces", "submissions", "season_teams", "seasons"):  # the later schemas' tables
            connection.execute(text(f"DROP TABLE {table}"))
        connection.execute(text("DROP INDEX ix_moves_cut"))  # and columns, and indexes
        connection.execute(text("ALTER TABLE moves DROP COLUMN cut"))
        before_game_seats(lambda statement: connection.execute(text(statement)))
        connection.execute(text("UPDATE schema_version SET version = 2"))
    engine.dispose()
    sessions = open_store(store_url)
    with sessions.begin() as session:
        columns = {c["name"] for c in inspect(session.connection()).get_columns("games")}
        version = session.scalar(text("SELECT version FROM schema_version"))
        finished = session.scalar(select(func.count()).select_from(GameRow).where(GameRow.status == "finished"))
    assert {"node", "cpu", "clock", "time_scale"} <= columns
    assert (version, finished) == (SCHEMA_VERSION, 12)


def test_deleting_a_tournament_removes_exactly_its_rows(store_url):
    from arena.store.writes import delete_tournament, tournament_contents

    synthesize(store_url, teams=4, game="tictactoe", stages=[{"name": "league"}], name="gone")
    synthesize(store_url, teams=4, game="tictactoe", stages=[{"name": "league"}], name="kept")
    sessions = open_store(store_url)
    with sessions.begin() as session:
        kept_id = session.scalar(select(Tournament.id).where(Tournament.name == "kept"))
        before = tournament_contents(session, kept_id)
        removed = delete_tournament(session, "gone")
    with sessions.begin() as session:
        after = tournament_contents(session, kept_id)
        names = list(session.scalars(select(Tournament.name)))
    assert removed is not None and removed.games == 12 and removed.moves > 0
    assert names == ["kept"]
    # the four bot versions it shared with the deleted one are its own now; the rest is as it was
    assert before.bots == 0 and after == dataclasses.replace(before, bots=4)
