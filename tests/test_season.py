"""Seasons (arena/store/seasons.py, arena/contests/season.py, arena/entrants/uploads.py,
arena/formats/ladder.py): teams with
hashed tokens submit bots; uploads are unpacked safely; each submission is validated by a game
against itself in the sandbox; the ladder pairs by information and rates as games end; staff
freeze it into a tournament file."""

from __future__ import annotations

import io
import random
import re
import sqlite3
import stat
import zipfile
from collections import Counter
from pathlib import Path

import pytest
from sqlalchemy import select, text

from arena.contests.config import GameDef, TimeDef, parse_config
from arena.contests.season import LADDER, create_season, freeze, play_ladder, prune, standings, submit
from arena.entrants.uploads import MAX_RATIO, MAX_UPLOAD, UploadError, unpack
from arena.formats.ladder import InformationPairing, Ladder, RandomPairing, RoundRobinPairing, ranks_of, seats
from arena.runners.local import LocalRunner
from arena.store.database import open_store
from arena.store.models import KeptRatings
from arena.store.seasons import MAX_PER_HOUR, OutOfSpace, SeasonError, add_teams, hash_token
from tests.builders import before_game_seats
from tests.fixtures.harnesskit import arena, arena_here

RANDOM_BOT = Path(__file__).resolve().parent.parent / "bots" / "randombot.py"
RULES_BOT = (RANDOM_BOT.parent / "rules.py").read_bytes()
CRASHING = b'GAMES = ["tictactoe"]\n\n\ndef move(state, clock):\n    raise ValueError("boom at move")\n'
# plays the lowest free cell, and raises when the board is not what playing itself gives: it passes
# its validation against itself, then forfeits every ladder game against another bot
SORE_LOSER = b"""GAMES = ["tictactoe"]

def move(state, clock):
    legal = sorted(state.legal_moves())
    if legal != list(range(9 - len(legal), 9)):
        raise RuntimeError("not playing myself")
    return legal[0]
"""


def zipped(*entries: tuple[str, bytes], mode: int | None = None, compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, data in entries:
            info = zipfile.ZipInfo(name)
            if mode is not None:
                info.external_attr = mode << 16
            archive.writestr(info, data, compression)
    return buffer.getvalue()


# ---------------------------------------------------------------- uploads


def test_a_py_upload_becomes_a_package_but_a_course_bot_stays_a_file(tmp_path):
    assert unpack("mine.py", b"x = 1\n", tmp_path / "v1", "pkg") == ("pkg", tmp_path / "v1")
    assert (tmp_path / "v1" / "pkg" / "bot.py").read_bytes() == b"x = 1\n"
    assert (tmp_path / "v1" / "pkg" / "__init__.py").is_file()
    target, base = unpack("team7.py", b"x = 1\n", tmp_path / "v2", "pkg", as_package=False)
    assert (target, base) == (str(tmp_path / "v2" / "team7.py"), tmp_path / "v2")


def test_a_zip_upload_becomes_a_package_that_runs_its_bot_py(tmp_path):
    data = zipped(("bot.py", b"from helpers.tables import T\n"), ("helpers/tables.py", b"T = 1\n"))
    assert unpack("team.zip", data, tmp_path / "v1", "pkg") == ("pkg", tmp_path / "v1")
    assert (tmp_path / "v1" / "pkg" / "helpers" / "tables.py").read_bytes() == b"T = 1\n"
    assert "import bot as _bot" in (tmp_path / "v1" / "pkg" / "__init__.py").read_text()


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("../evil.py", b"", "will not do"),
        ("bot.exe", b"", "will not do"),
        ("big.py", b"#" * (MAX_UPLOAD + 1), "at most"),
        ("a.zip", b"not a zip at all", "not a zip"),
        ("a.zip", zipped(("../../escape.py", b"x")), "never '..'"),
        ("a.zip", zipped(("/etc/passwd", b"x")), "absolute path"),
        ("a.zip", zipped(("bot.py", b"x"), ("dir\\bot.py", b"x")), "backslash"),
        ("a.zip", zipped(("bot.py", b"x"), ("link", b"/etc/passwd"), mode=stat.S_IFLNK | 0o777), "link"),
        ("a.zip", zipped(("helper.py", b"x")), "no bot.py"),
        ("a.zip", zipped(("bot.py", b"\0" * (MAX_RATIO * 4096))), "zip bomb"),
        ("a.zip", zipped(*[(f"f{i}.py", b"") for i in range(201)]), "entries"),
        ("a.zip", zipped(("bot.py", b"x"), ("bot.py/x", b"y")), "cannot be written"),
        ("a.zip", zipped(("bot.py", b"x"), ("/".join(["a" * 200] * 25) + "/bot.py", b"x")), "longer than"),
        ("a.zip", zipped(("bot.py", b"x"), ("__init__.py", b"")), "__init__.py"),
        ("a.zip", zipped(("bot.py", b"\0" * 10_000), compression=zipfile.ZIP_BZIP2), "use deflate"),
        ("a.zip", zipped(("bot.py", b"\0" * 10_000), compression=zipfile.ZIP_LZMA), "use deflate"),
    ],
)
def test_unsafe_uploads_are_refused_saying_why_and_write_nothing_outside(tmp_path, name, data, message):
    with pytest.raises(UploadError, match=message):
        unpack(name, data, tmp_path / "inside" / "v1", "pkg")
    assert sorted(p.name for p in tmp_path.iterdir()) == (["inside"] if (tmp_path / "inside").exists() else [])
    assert not (tmp_path / "escape.py").exists()


def test_a_zip_that_lies_about_its_sizes_is_stopped_by_the_bytes_it_unpacks(tmp_path):
    data = bytearray(zipped(("bot.py", b"\0" * (2 * 1024 * 1024))))
    # shrink the declared size in the local header and the central directory: a reader that
    # trusts them would write it all
    for header, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = data.index(header) + offset
        data[at : at + 4] = (10).to_bytes(4, "little")
    with pytest.raises(UploadError):
        unpack("a.zip", bytes(data), tmp_path / "v1", "pkg")
    assert not (tmp_path / "v1" / "bot.py").exists() or (tmp_path / "v1" / "bot.py").stat().st_size <= 2 * 1024 * 1024


def test_an_encrypted_entry_and_an_existing_folder_are_refused(tmp_path):
    data = bytearray(zipped(("bot.py", b"x = 1\n"), compression=zipfile.ZIP_STORED))
    for header, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        data[data.index(header) + offset] |= 1  # the "encrypted" flag
    with pytest.raises(UploadError, match="encrypted"):
        unpack("a.zip", bytes(data), tmp_path / "v1", "pkg")
    (tmp_path / "v2").mkdir()
    with pytest.raises(UploadError, match="cannot be written"):
        unpack("mine.py", b"x = 1\n", tmp_path / "v2", "pkg")


# ---------------------------------------------------------------- the ladder's pairing


def test_information_pairing_plays_a_new_bot_at_once_and_balances_seats():
    ladder = Ladder()
    for name in ("a", "b", "c"):
        ladder.join(name)
    rng = random.Random(1)
    for _ in range(30):  # the three settle a little
        first, second = RandomPairing().next(ladder, rng)
        ladder.record((first, second), ranks_of(0 if first < second else 1))
    ladder.join("new")
    first, second = InformationPairing().next(ladder, rng)
    assert "new" in (first, second)
    ladder.rungs["a"].games, ladder.rungs["a"].seated = 10, Counter({0: 8, 1: 2})
    ladder.rungs["b"].games, ladder.rungs["b"].seated = 10, Counter({0: 2, 1: 8})
    assert seats(ladder, ("a", "b")) == ("b", "a")


def test_information_pairing_skips_the_pairs_taken_and_round_robin_plays_every_pair_both_ways():
    ladder = Ladder()
    for name in ("a", "b", "c"):
        ladder.join(name)
    rng = random.Random(2)
    taken: set[frozenset[str]] = set()
    for _ in range(3):
        pair = InformationPairing().next(ladder, rng, taken)
        assert frozenset(pair) not in taken
        taken.add(frozenset(pair))
    robin = RoundRobinPairing()
    assert sorted(robin.next(ladder, rng) for _ in range(6)) == sorted(
        [("a", "b"), ("b", "a"), ("a", "c"), ("c", "a"), ("b", "c"), ("c", "b")]
    )


def test_tables_of_three_are_distinct_in_a_batch_seat_each_bot_where_it_sat_least_and_rate_the_order():
    ladder = Ladder()
    for name in "abcde":
        ladder.join(name)
    rng = random.Random(4)
    taken: set[frozenset[str]] = set()
    for _ in range(10):  # every table of three of five, then none is left
        table = InformationPairing().next(ladder, rng, taken, size=3)
        assert len(set(table)) == 3 and frozenset(table) not in taken
        taken.add(frozenset(table))
    with pytest.raises(ValueError, match="every table of 3 of the 5 bots is taken"):
        InformationPairing().next(ladder, rng, taken, size=3)
    ladder.record(("a", "b", "c"), (0, 2, 1))  # a first, c second, b last
    assert ladder.rungs["a"].rating.mu > ladder.rungs["c"].rating.mu > ladder.rungs["b"].rating.mu
    assert (ladder.rungs["a"].wins, ladder.rungs["b"].seated[1], ladder.rungs["d"].games) == (1, 1, 0)
    ladder.record(("a", "b", "c"), (0, 0, 1))  # a and b share first: a draw for both
    assert (ladder.rungs["a"].draws, ladder.rungs["b"].draws, ladder.rungs["c"].draws) == (1, 1, 0)
    assert seats(ladder, ("a", "b", "c")) in {("b", "c", "a"), ("c", "a", "b")}  # each where it has not sat yet
    ladder.join("new")
    assert "new" in InformationPairing().next(ladder, rng, size=3)  # the most uncertain plays at once


def test_tables_of_four_of_five_are_all_found_though_the_grown_ones_are_taken():
    # grown from the best pairs, every table took the one most uncertain bot third, and the last
    # table was not found while it was free
    ladder = Ladder()
    for name in "ABCDE":
        ladder.join(name)
    ladder.rungs["E"].rating = ladder.env.create_rating(sigma=20.0)
    taken: set[frozenset[str]] = set()
    for _ in range(5):
        table = InformationPairing().next(ladder, random.Random(1), taken, size=4)
        assert frozenset(table) not in taken
        taken.add(frozenset(table))
    assert len(taken) == 5


def test_the_ladder_orders_a_field_of_known_strengths_with_information_pairing():
    from benchmarks.ladder import found, games_needed, simulated

    truth, play = simulated(8)
    needed = games_needed("information", truth, play, seed=3, limit=3000, stable=30)
    assert needed is not None and needed < 3000
    assert found(truth, truth)


# ---------------------------------------------------------------- a season end to end


@pytest.fixture
def season(tmp_path):
    sessions = open_store(f"sqlite:///{tmp_path / 's.sqlite3'}")
    create_season(sessions, "spring", GameDef(name="tictactoe"), TimeDef(move=1.0), tmp_path / "files")
    tokens = add_teams(sessions, "spring", ["red", "blue", "green"])
    return sessions, tokens, tmp_path


def test_tokens_are_stored_only_as_their_hash_and_a_wrong_one_is_refused(season):
    sessions, tokens, tmp_path = season
    with sqlite3.connect(tmp_path / "s.sqlite3") as connection:
        stored = dict(connection.execute("SELECT name, token_hash FROM season_teams"))
    assert stored == {team: hash_token(token) for team, token in tokens.items()}
    assert not any(token in (tmp_path / "s.sqlite3").read_bytes().decode("latin-1") for token in tokens.values())
    with pytest.raises(SeasonError, match="not a team's token"):
        submit(sessions, "spring", "guess", "mine.py", RANDOM_BOT.read_bytes())
    with pytest.raises(SeasonError, match="already"):
        add_teams(sessions, "spring", ["red"])


@pytest.mark.slow
def test_submissions_are_validated_and_the_ladder_plays_and_freezes(season):
    sessions, tokens, tmp_path = season
    ok = submit(sessions, "spring", tokens["red"], "rnd.py", RANDOM_BOT.read_bytes())
    assert (ok.team, ok.version, ok.status) == ("red", 1, "active")
    assert ok.log.startswith("validated: a whole game against itself")
    bad = submit(sessions, "spring", tokens["blue"], "crash.py", CRASHING)
    assert bad.status == "error" and "boom at move" in bad.log and "crash" in bad.log
    rules = (RANDOM_BOT.parent / "rules.py").read_bytes()
    assert submit(sessions, "spring", tokens["blue"], "rules.py", rules).status == "active"
    refused = submit(sessions, "spring", tokens["green"], "../x.py", rules)
    assert refused.status == "error" and refused.log.startswith("refused: ")
    assert [s.team for s in standings(sessions, "spring")] == ["blue", "red"]  # equal; by name
    played = play_ladder(sessions, "spring", LocalRunner(2), 6, 2)
    assert played == 6
    after = standings(sessions, "spring")
    assert sum(s.games for s in after) == 12 and all(s.sigma < 25 / 3 for s in after)
    with sessions.begin() as session:  # the ladder kept after the games is what rating them all gives
        (kept,) = session.scalars(select(KeptRatings).where(KeptRatings.settings == LADDER)).all()
        assert kept.rated == 6
        session.delete(kept)
    assert standings(sessions, "spring") == after
    text = freeze(sessions, "spring", top=2, folder=tmp_path)
    config = parse_config(text)
    assert sorted(config.team_bots()) == ["blue", "red"]
    assert "module: season1_team1_v1" in text and (tmp_path / "season1_team1_v1" / "bot.py").is_file()
    with pytest.raises(SeasonError, match="frozen"):
        submit(sessions, "spring", tokens["red"], "rnd.py", RANDOM_BOT.read_bytes())


@pytest.fixture
def keep_two(tmp_path):
    sessions = open_store(f"sqlite:///{tmp_path / 's.sqlite3'}")
    create_season(sessions, "spring", GameDef(name="tictactoe"), TimeDef(move=1.0), tmp_path / "files", keep=2)
    return sessions, add_teams(sessions, "spring", ["red", "blue", "green"]), tmp_path


@pytest.mark.slow
def test_a_zipped_bot_imports_its_own_modules_and_its_final_finds_them(keep_two):
    sessions, tokens, tmp_path = keep_two
    bot = b"from helpers import choose\nGAMES = ['tictactoe']\n\ndef move(state, clock):\n    return choose(state)\n"
    data = zipped(("bot.py", bot), ("helpers.py", b"def choose(state):\n    return state.legal_moves()[0]\n"))
    assert (outcome := submit(sessions, "spring", tokens["red"], "team.zip", data)).status == "active", outcome.log
    assert submit(sessions, "spring", tokens["red"], "a.py", RANDOM_BOT.read_bytes()).status == "active"
    assert submit(sessions, "spring", tokens["blue"], "b.py", RULES_BOT).status == "active"
    final = tmp_path / "final"
    final.mkdir()
    text = freeze(sessions, "spring", top=3, folder=final)
    assert sorted(parse_config(text).team_bots()) == ["blue", "red"]  # a team's best version only: keep=2 kept two
    (final / "final.yaml").write_text(text)
    done = arena("run", "final.yaml", "--db", f"sqlite:///{tmp_path / 'final.sqlite3'}", "-q", cwd=final)
    assert done.returncode == 0, done.stderr


@pytest.mark.slow
def test_a_bot_that_forfeits_against_others_loses_those_games_on_the_ladder(keep_two):
    sessions, tokens, _ = keep_two
    assert submit(sessions, "spring", tokens["red"], "rnd.py", RANDOM_BOT.read_bytes()).status == "active"
    assert submit(sessions, "spring", tokens["blue"], "rules.py", RULES_BOT).status == "active"
    sore = submit(sessions, "spring", tokens["green"], "sore.py", SORE_LOSER)
    assert sore.status == "active", sore.log  # it passes its validation against itself
    played: list = []
    play_ladder(sessions, "spring", LocalRunner(1), 6, 1, lambda record, names: played.append(record))
    forfeited = [r for r in played if r.offender is not None]
    assert forfeited and len(played) == 6
    rows = standings(sessions, "spring")
    assert rows[-1].team == "green" and rows[-1].games == len(forfeited)


@pytest.mark.slow
def test_the_ladder_says_who_beat_whom_and_the_standings_give_each_record(keep_two):
    # a newcomer once read "game 1: won by seat 0 (normal, 9 moves)", and standings without W-D-L
    sessions, tokens, tmp_path = keep_two
    assert submit(sessions, "spring", tokens["red"], "rnd.py", RANDOM_BOT.read_bytes()).status == "active"
    assert submit(sessions, "spring", tokens["blue"], "rules.py", RULES_BOT).status == "active"
    db = f"sqlite:///{tmp_path / 's.sqlite3'}"
    done = arena("season", "ladder", "spring", "--games", "4", "--workers", "1", "--db", db, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stdout.splitlines() if line.startswith("game ")]
    pair = "(red v1|blue v1)"
    assert len(said) == 4 and all(
        re.fullmatch(rf"game \d+: ({pair} beat {pair}|{pair} and {pair} drew) \(normal, \d+ moves\)", line)
        for line in said
    ), said
    rows = arena_here("season", "standings", "spring", "--db", db, cwd=tmp_path).stdout.splitlines()
    records = {row.split()[1]: re.search(r"(\d+)-(\d+)-(\d+) W-D-L", row) for row in rows}
    assert sorted(records) == ["blue", "red"] and all(records.values()), rows
    red, blue = (tuple(map(int, records[team].groups())) for team in ("red", "blue"))
    assert sum(red) == sum(blue) == 4 and (red[0], red[1]) == (blue[2], blue[1])
    assert red[0] == sum(line.split(": ")[1].startswith("red v1 beat") for line in said)


def files_of(folder) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*") if path.is_file())


def test_a_failed_versions_files_are_removed_and_a_teams_files_have_a_quota(season, monkeypatch):
    # one team's failed uploads (1 MiB zips unpacking to 16 MiB, 10 an hour) once filled the
    # season's file system, and the ladder stopped
    import arena.store.seasons

    sessions, tokens, tmp_path = season
    failed = submit(sessions, "spring", tokens["red"], "crash.py", CRASHING)
    assert failed.status == "error" and files_of(tmp_path / "files") == []
    assert submit(sessions, "spring", tokens["red"], "rnd.py", RANDOM_BOT.read_bytes()).status == "active"
    [init, bot] = files_of(tmp_path / "files")  # its package: what arena wrote, and the bot
    assert init.startswith("red-") and init.endswith("/__init__.py") and bot.endswith("/bot.py")
    monkeypatch.setattr(arena.store.seasons, "TEAM_QUOTA", 2 * RANDOM_BOT.stat().st_size)
    with pytest.raises(OutOfSpace, match=r"team 'red' keeps \d+ KB of files in this season, and may keep \d+ KB"):
        submit(sessions, "spring", tokens["red"], "rnd.py", RANDOM_BOT.read_bytes())
    assert submit(sessions, "spring", tokens["blue"], "rnd.py", RANDOM_BOT.read_bytes()).status == "active"
    monkeypatch.setattr(arena.store.seasons, "DISK_RESERVE", 1 << 62)
    with pytest.raises(OutOfSpace, match="the season's disk is nearly full"):
        submit(sessions, "spring", tokens["green"], "rnd.py", RANDOM_BOT.read_bytes())
    assert sorted(row.team for row in standings(sessions, "spring")) == ["blue", "red"]


def test_a_retired_versions_files_go_some_days_after_it_retired_and_its_rows_stay(season):
    sessions, tokens, tmp_path = season
    day = 86400.0
    first = submit(sessions, "spring", tokens["red"], "rnd.py", RANDOM_BOT.read_bytes(), now=lambda: 1000.0)
    assert submit(sessions, "spring", tokens["red"], "r.py", RULES_BOT, now=lambda: 2 * day).status == "active"
    assert first.status == "active" and len(files_of(tmp_path / "files")) == 4  # v1 retired by v2 (keep 1)
    assert prune(sessions, "spring", days=7, now=8.5 * day) == []  # retired 6.5 days ago: kept
    assert prune(sessions, "spring", days=7, now=9.5 * day) == ["red v1"]
    assert [name.split("/")[1].split("-")[0] for name in files_of(tmp_path / "files")] == ["v2", "v2"]
    assert prune(sessions, "spring", days=0) == []  # once
    with sessions.begin() as session:
        rows = session.execute(text("SELECT version, status, path IS NULL, retired_at FROM submissions")).all()
    assert sorted(rows) == [(1, "retired", 1, 2 * day), (2, "active", 0, None)]
    assert [(s.team, s.version) for s in standings(sessions, "spring")] == [("red", 2)]


def test_pruning_removes_the_retired_versions_own_folder_only_and_counts_old_retirements_from_the_upgrade(tmp_path):
    # two databases whose seasons keep their files in one folder: pruning one once removed the
    # other's active version (the same team name and version number)
    import time

    seasons = []
    for name in ("a", "b"):
        sessions = open_store(f"sqlite:///{tmp_path / name}.sqlite3")
        create_season(sessions, "spring", GameDef(name="tictactoe"), TimeDef(move=1.0), tmp_path / "files")
        seasons.append((sessions, add_teams(sessions, "spring", ["red"])["red"]))
    for sessions, token in seasons:
        assert (
            submit(sessions, "spring", token, "rnd.py", RANDOM_BOT.read_bytes(), now=lambda: 1000.0).status == "active"
        )
    a, token_a = seasons[0]
    assert submit(a, "spring", token_a, "r.py", RULES_BOT, now=lambda: 2000.0).status == "active"  # retires a's v1
    assert prune(a, "spring", days=0) == ["red v1"]
    kept = sorted(path.parent.parent.name.split("-")[0] for path in (tmp_path / "files").rglob("bot.py"))
    assert kept == ["v1", "v2"]  # b's v1, a's v2
    with sqlite3.connect(tmp_path / "a.sqlite3") as connection:  # as a database of schema 6 left it
        connection.execute("UPDATE submissions SET status = 'retired', path = 'x' WHERE version = 2")
        connection.execute("ALTER TABLE submissions DROP COLUMN retired_at")
        before_game_seats(connection.execute)
        connection.execute("UPDATE schema_version SET version = 6")
    upgraded = open_store(f"sqlite:///{tmp_path / 'a.sqlite3'}")
    assert prune(upgraded, "spring", days=7, now=time.time() + 86400) == []  # its 7 days count from the upgrade
    assert prune(upgraded, "spring", days=7, now=time.time() + 8 * 86400) == ["red v2"]


def test_a_failure_past_the_upload_is_an_error_not_a_submission_left_validating(season, monkeypatch):
    import arena.contests.season

    sessions, tokens, _ = season

    def broken(*_args):
        raise RuntimeError("the harness broke")

    monkeypatch.setattr(arena.contests.season, "_validate", broken)
    outcome = submit(sessions, "spring", tokens["red"], "rnd.py", RANDOM_BOT.read_bytes())
    assert (outcome.status, outcome.log) == ("error", "it could not be validated: RuntimeError: the harness broke")


def test_a_long_team_name_registers_under_ids_and_a_season_name_must_make_tournament_names(tmp_path):
    from arena.store.seasons import bot_name

    sessions = open_store(f"sqlite:///{tmp_path / 's.sqlite3'}")
    create_season(sessions, "spring-2025-advanced-game-ai", GameDef(name="tictactoe"), TimeDef(move=1.0), tmp_path)
    team = "t" * 80
    add_teams(sessions, "spring-2025-advanced-game-ai", [team])
    with sessions.begin() as session:
        from arena.store.seasons import Season, SeasonTeam

        season, row = session.query(Season).one(), session.query(SeasonTeam).one()
        assert bot_name(season, row) == f"team{row.id}@season{season.id}"
    for name in ("../x", "CS 101: AI", "s" * 90):
        with pytest.raises(SeasonError, match="letters, digits"):
            create_season(sessions, name, GameDef(name="tictactoe"), TimeDef(move=1.0), tmp_path)


def test_a_ladder_without_a_game_limit_keeps_playing(keep_two, monkeypatch):
    import arena.contests.season

    sessions, tokens, _ = keep_two
    for team in ("red", "blue"):
        assert submit(sessions, "spring", tokens[team], "rnd.py", RANDOM_BOT.read_bytes()).status == "active"
    loads, played = [0], []
    real = arena.contests.season.load_ladder

    def counting(session, season_row):
        loads[0] += 1
        assert loads[0] <= 10, f"{loads[0]} looks at the ladder for {len(played)} games"
        return real(session, season_row)

    class Enough(Exception):
        pass

    def told(record, names):
        played.append(record)
        if len(played) >= 4:
            raise Enough

    monkeypatch.setattr(arena.contests.season, "load_ladder", counting)
    with pytest.raises(Enough):
        play_ladder(sessions, "spring", LocalRunner(1), None, 1, told)


def test_two_submissions_of_a_team_at_once_both_get_a_version_on_postgresql(postgres, tmp_path, monkeypatch):
    import threading

    import arena.contests.season

    sessions = open_store(postgres.new_database())
    create_season(sessions, "spring", GameDef(name="tictactoe"), TimeDef(move=1.0), tmp_path / "files")
    token = add_teams(sessions, "spring", ["red"])["red"]
    barrier, real = threading.Barrier(2, timeout=5), arena.contests.season.folder_for

    def folder_for(season, team, version):  # both have chosen their version number here
        try:
            barrier.wait()
        except threading.BrokenBarrierError:
            pass
        return real(season, team, version)

    monkeypatch.setattr(arena.contests.season, "folder_for", folder_for)
    versions: list = []
    threads = [
        threading.Thread(target=lambda: versions.append(submit(sessions, "spring", token, "x.exe", b"").version))
        for _ in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(versions) == [1, 2]


def test_a_team_has_a_few_submissions_an_hour(season):
    sessions, tokens, _ = season
    clock = iter(range(1000, 100000, 10))
    for _ in range(MAX_PER_HOUR):
        assert submit(sessions, "spring", tokens["red"], "x.exe", b"", now=lambda: next(clock)).status == "error"
    with pytest.raises(SeasonError, match="this hour"):
        submit(sessions, "spring", tokens["red"], "x.exe", b"", now=lambda: next(clock))
    later = submit(sessions, "spring", tokens["red"], "x.exe", b"", now=lambda: 10_000.0)
    assert later.version == MAX_PER_HOUR + 1


def test_the_season_commands(tmp_path):
    db = f"sqlite:///{tmp_path / 's.sqlite3'}"
    done = arena_here("season", "create", "fall", "--game", "tictactoe", "--time", "1", "--db", db, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    done = arena_here("season", "teams", "add", "fall", "one", "two", "--db", db, cwd=tmp_path)
    tokens = dict(line.split("\t") for line in done.stdout.splitlines())
    assert sorted(tokens) == ["one", "two"]
    (tmp_path / "crash.py").write_bytes(CRASHING)
    done = arena_here("season", "submit", "fall", "crash.py", "--token", tokens["one"], "--db", db, cwd=tmp_path)
    assert done.returncode == 1 and "one v1: error" in done.stdout
    assert "warning: a token on the command line can be read by every process of this machine" in done.stderr
    for team in tokens:
        (tmp_path / f"{team}.token").write_text(tokens[team] + "\n")
    mine = arena_here("season", "submissions", "fall", "--token-file", "one.token", "--db", db, cwd=tmp_path)
    theirs = arena_here("season", "submissions", "fall", "--token-file", "two.token", "--db", db, cwd=tmp_path)
    assert "boom at move" in mine.stdout and "boom" not in theirs.stdout
    assert "warning" not in mine.stderr + theirs.stderr
    none = arena_here("season", "submissions", "fall", "--db", db, cwd=tmp_path)
    assert none.returncode == 2 and "no token: set ARENA_TOKEN, or give --token-file FILE" in none.stderr
    done = arena_here("season", "standings", "nope", "--db", db, cwd=tmp_path)
    assert done.returncode == 2 and "no season 'nope'; the seasons are: fall" in done.stderr
    done = arena_here("season", "prune", "fall", "--after", "0", "--db", db, cwd=tmp_path)
    assert done.returncode == 0 and "Removed the files of 0 retired version(s)." in done.stdout, done.stderr
