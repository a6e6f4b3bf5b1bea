"""Engines over standard protocols as bots (docs/engines.md): Fairy-Stockfish over UCI plays
tic-tac-toe and Connect Four, GNU Go plays 9x9 Go over GTP, a UGI engine plays in the game's own
notation; moves map between the protocols' notations and the games'; each move keeps the
engine's info; and an engine that is silent, illegal, late, crashing or flooding forfeits as any
bot does. The real engines are Debian's (``.ci/run`` installs them); a test of one skips only
when its program is missing."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from arena.contests.config import TournamentDef, load_config, parse_config
from arena.core.botspec import BotSpec
from arena.core.gameloop import BOOK
from arena.core.records import GameRecord, MoveRecord, Termination, record_from_json, record_to_json
from arena.entrants.engines import VARIANTS, protocols
from arena.entrants.engines.notation import CellDrops, ColumnDrops, GoVertices, NotationError, notation_for
from arena.entrants.kinds import engine_program
from arena.errors import ConfigError
from arena.formats.openings import OpeningError, assign_openings, check_openings, parse_openings
from arena.games import get_game
from arena.runners.worker import GameWorker
from tests.fixtures.harnesskit import arena, arena_here, job

ENGINES = Path(__file__).resolve().parent / "engines"
CONNECT4 = Path(__file__).resolve().parent.parent / "examples" / "games" / "connect4.py"
EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "engines"
RANDOM = BotSpec("random", "python", "bots.randombot")

needs_fairy = pytest.mark.skipif(
    engine_program("fairy-stockfish") is None,
    reason="fairy-stockfish is not installed (apt-get install fairy-stockfish)",
)
needs_gnugo = pytest.mark.skipif(
    engine_program("gnugo") is None, reason="gnugo is not installed (apt-get install gnugo)"
)


def fairy(variant: str) -> BotSpec:
    return BotSpec("fairy", "uci", "fairy-stockfish", json.dumps({"options": {"Threads": 1}, "variant": variant}))


def fake(script: str, kind: str = "uci", **params: object) -> BotSpec:
    """The fake engine ``tests/engines/<script>`` run by this interpreter."""
    return BotSpec(script, kind, f"{sys.executable} {ENGINES / script}", json.dumps(params))


def game_spec(game: str) -> dict:
    """The spec of the game a tournament file declares as ``game: GAME``."""
    bots = "bots:\n  a: {module: bots.randombot}\n  b: {module: bots.randombot}\n"
    return parse_config(f"name: g\ngame: {game}\n{bots}").game.spec()


def play_both_ways(engine: BotSpec, game: dict, move: float) -> list[GameRecord]:
    """Two games of ``engine`` against the random bot, the engine first, then second."""
    with GameWorker(fork=False) as worker:
        return [
            worker.play(job(*bots, move=move, game=game, seed=3, game_id=number))
            for number, bots in enumerate(((engine, RANDOM), (RANDOM, engine)), 1)
        ]


# -- real engines --------------------------------------------------------------------------


@needs_fairy
def test_fairy_stockfish_tictactoe_gauntlet_against_arenas_bots(tmp_path):
    (tmp_path / "t.yaml").write_text(
        "name: engine gauntlet\ngame: tictactoe\nseed: 1\ntime: {move: 0.1}\nworkers: 1\n"
        "bots:\n"
        "  fairy: {uci: fairy-stockfish, variant: tictactoe, options: {Threads: 1}}\n"
        "  random: {module: bots.randombot}\n"
        "  onestep: {module: bots.onestep}\n"
        "stages: [{name: gauntlet, format: gauntlet, named: [fairy], games_per_pair: 2}]\n"
        "openings: book.txt\n"
    )
    (tmp_path / "book.txt").write_text("# the engine is told the book's moves, its own included\n4\n")
    url = f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    done = arena("run", "t.yaml", "--db", url, "-q", cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(tmp_path / "arena.sqlite3") as db:
        games = db.execute(
            "SELECT g.id, g.termination, g.winner, e.team FROM games g JOIN game_seats s ON s.game_id = g.id "
            "JOIN entries e ON e.id = s.entry_id WHERE e.team = 'fairy' ORDER BY g.id"
        ).fetchall()
        infos = db.execute(
            "SELECT m.info FROM moves m JOIN game_seats s ON s.game_id = m.game_id AND s.seat = m.seat "
            "JOIN entries e ON e.id = s.entry_id WHERE e.team = 'fairy'"
        ).fetchall()
        losses = db.execute(
            "SELECT count(*) FROM games g JOIN game_seats s ON s.game_id = g.id AND s.seat = g.winner "
            "JOIN entries e ON e.id = s.entry_id WHERE e.team != 'fairy'"
        ).fetchone()[0]
    assert len(games) == 4 and {termination for _, termination, _, _ in games} == {"normal"}
    assert losses == 0  # tic-tac-toe is solved: the engine never loses
    searched = [json.loads(info) for (info,) in infos if info != BOOK]
    assert searched and all(info["depth"] >= 1 and "score" in info for info in searched)


@needs_fairy
def test_fairy_stockfish_plays_on_a_bank_and_reads_a_variants_file_of_ones_own(tmp_path):
    own = tmp_path / "mine" / "games.ini"
    own.parent.mkdir()
    own.write_text(VARIANTS.read_text().replace("[tictactoe]", "[noughts]"))
    engine = BotSpec("mine", "uci", "fairy-stockfish", json.dumps({"variant": "noughts", "variants": str(own)}))
    with GameWorker(fork=False) as worker:
        record = worker.play(job(engine, RANDOM, move=None, bank=1.0, increment=0.05, seed=6))
    assert record.termination is Termination.NORMAL and record.winner in (0, None)
    assert all(json.loads(m.info or "{}").get("depth", 0) >= 1 for m in record.moves if m.seat == 0)


@needs_fairy
def test_fairy_stockfish_plays_the_example_connect_four_and_wins_both_seats():
    records = play_both_ways(fairy("connect4"), game_spec(f"{{module: {CONNECT4}}}"), 0.05)
    assert [(r.termination, r.winner) for r in records] == [(Termination.NORMAL, 0), (Termination.NORMAL, 1)]
    engine_moves = [m for seat, r in enumerate(records) for m in r.moves if m.seat == seat]
    assert engine_moves and all(json.loads(m.info or "{}").get("nodes", 0) > 0 for m in engine_moves)


@needs_fairy
def test_fairy_stockfish_plays_openspiels_connect_four():
    pytest.importorskip("pyspiel")
    records = play_both_ways(fairy("connect4"), game_spec("{openspiel: connect_four}"), 0.05)
    assert [(r.termination, r.winner) for r in records] == [(Termination.NORMAL, 0), (Termination.NORMAL, 1)]


@needs_gnugo
def test_gnu_go_plays_a_9x9_game_over_gtp_and_beats_the_random_bot():
    pytest.importorskip("pyspiel")
    spec = game_spec('{openspiel: "go(board_size=9,komi=7.5)"}')
    # Tromp-Taylor scoring counts every stone left on the board: GNU Go must capture the dead ones
    gnugo = BotSpec("gnugo", "gtp", "gnugo --mode gtp --level 1 --capture-all-dead")
    with GameWorker(fork=False) as worker:
        # (GNU Go takes up to 1.5 s a move at level 1 on an idle machine, whatever it is told)
        record = worker.play(job(gnugo, RANDOM, move=10.0, game=spec, seed=4))
    assert (record.termination, record.winner) == (Termination.NORMAL, 0)
    assert len(record.moves) > 20 and record.moves[-2:][0].move == "81"  # it ended on two passes


def test_a_ugi_engine_plays_in_the_games_own_notation_and_its_info_is_kept():
    records = play_both_ways(fake("ugi_first.py", "ugi"), {"name": "tictactoe", "params": {}}, 1.0)
    for seat, record in enumerate(records):
        assert record.termination is Termination.NORMAL
        for ply, move in enumerate(record.moves):
            if move.seat == seat:  # the engine's: the first empty cell, as it saw the moves before
                before = {m.move for m in record.moves[:ply]}
                assert move.move == next(str(cell) for cell in range(9) if str(cell) not in before)
                assert json.loads(move.info or "") == {"depth": 1, "nodes": 9 - ply, "score": "cp 0"}


# -- failures: the same terminations as any bot --------------------------------------------


@pytest.mark.parametrize(
    ("script", "termination", "detail"),
    [
        ("silent.py", Termination.TIMEOUT, "during startup"),
        ("illegal.py", Termination.ILLEGAL_MOVE, "4 is illegal in tictactoe: cell 4 is occupied"),
        ("late.py", Termination.TIMEOUT, "no reply within 0.200 s"),
        ("crash.py", Termination.CRASH, "exited with status 3"),
        ("flood.py", Termination.PROTOCOL_ERROR, "sent a line longer than 65536 bytes"),
    ],
)
def test_a_failing_engine_forfeits_with_the_termination_of_any_bot(script, termination, detail):
    with GameWorker(fork=False) as worker:
        record = worker.play(job(fake(script), RANDOM, move=0.2, startup=1.0, seed=2))
    assert (record.termination, record.offender, record.winner) == (termination, 0, 1)
    assert detail in (record.detail or "")


def test_an_engine_that_plays_off_the_board_forfeits_naming_its_move():
    notation = CellDrops(3, 3)
    with pytest.raises(ValueError, match="off the 3x3 board"):
        notation.from_engine([], "P@d4")
    with pytest.raises(ValueError, match="not a drop on a square"):
        notation.from_engine([], "e2e4")


def test_the_preflight_check_finds_a_missing_engine_and_a_game_its_protocol_cannot_play(tmp_path):
    (tmp_path / "t.yaml").write_text(
        "name: pf\ngame: uttt\nbots:\n  gone: {uci: no-such-engine-here}\n"
        f"  fake: {{uci: {sys.executable} {ENGINES / 'illegal.py'}}}\n  r: {{module: bots.randombot}}\n"
    )
    done = arena_here("run", "--check", "t.yaml", "--db", f"sqlite:///{tmp_path / 'db.sqlite3'}", cwd=tmp_path)
    assert done.returncode == 2
    assert "bots.gone.uci: no program 'no-such-engine-here' on the PATH (nor in /usr/games)" in done.stderr
    assert "bots.fake.uci: UCI has no notation for uttt here" in done.stderr


# -- notation, info and settings ----------------------------------------------------------


def test_tictactoe_cells_are_drops_counted_from_the_bottom_left():
    notation = notation_for("uci", get_game("tictactoe"))
    assert [notation.to_engine([], cell) for cell in (0, 2, 4, 6, 8)] == ["P@a3", "P@c3", "P@b2", "P@a1", "P@c1"]
    assert all(notation.from_engine([], notation.to_engine([], cell)) == cell for cell in range(9))


def test_a_connect_four_drop_names_the_square_the_stone_lands_on():
    notation = ColumnDrops(7, 6)
    assert notation.to_engine([3, 3, 2], 3) == "P@d3"
    assert notation.from_engine([3, 3, 2], "P@d3") == 3
    with pytest.raises(ValueError, match="lands \\(rank 3\\)"):
        notation.from_engine([3, 3, 2], "P@d5")


def test_go_vertices_skip_the_letter_i_and_pass_is_the_last_move():
    notation = GoVertices(9)
    assert [notation.to_engine([], move) for move in (0, 8, 9, 40, 80, 81)] == ["A1", "J1", "A2", "E5", "J9", "pass"]
    assert [notation.from_engine([], text) for text in ("j9", "PASS", "H8")] == [80, 81, 70]
    with pytest.raises(ValueError, match="not a GTP vertex"):
        notation.from_engine([], "I5")


def test_uci_has_no_notation_for_a_game_it_cannot_play():
    with pytest.raises(NotationError, match="UCI has no notation for uttt"):
        notation_for("uci", get_game("uttt"))


def test_the_last_scored_info_line_is_kept_with_the_move():
    reader = protocols.BestMove()
    for line in (
        b"info depth 3 seldepth 4 multipv 1 score cp -72 nodes 105 nps 1 time 1 pv P@c3",
        b"info string thinking",
        b"info depth 5 score mate 2 lowerbound nodes 147 time 2 pv P@c3",
    ):
        assert reader(line) is False
    assert reader(b"bestmove P@c3 ponder P@a1") is True
    assert (reader.move, reader.info_text()) == ("P@c3", '{"depth":5,"nodes":147,"score":"mate 2","time":2}')


def test_the_go_command_sends_the_moves_time_or_the_bank():
    settings = protocols.EngineSettings(nodes=1000)
    per_move = protocols.go("uci", ["P@b2"], 1, 0.1, None, 0.0, settings)
    banked = protocols.go("ugi", [], 0, 10.5, 10.0, 0.5, protocols.EngineSettings())
    assert per_move.data == b"position startpos moves P@b2\ngo movetime 100 nodes 1000\n"
    assert banked.data == b"position startpos\ngo p1time 10500 p2time 10500 p1inc 500 p2inc 500\n"


def test_a_gtp_refusal_is_a_protocol_error():
    reader = protocols.GtpReplies(2, ["play black E5", "genmove white"])
    assert reader(b"= ") is False and reader(b"") is False
    with pytest.raises(Exception, match="refused 'genmove white': illegal move"):
        reader(b"? illegal move")


@pytest.mark.parametrize(
    ("bot", "message"),
    [
        ("{uci: fairy-stockfish, params: {level: 3}}", "uci engine: an engine takes variant, .*; not level"),
        ("{uci: fairy-stockfish, variant: x, params: {variant: y}}", "an engine's settings are variant"),
        ("{module: bots.randombot, variant: tictactoe}", "variant: settings of an engine"),
        ("{gtp: gnugo, options: {level: 1}}", "a GTP engine is set up by its command line alone"),
        ("{uci: fairy-stockfish, options: {Hash: [1]}}", "option 'Hash': \\[1\\] is not an option value"),
        ("{uci: fairy-stockfish, variant: 'tic tac'}", "variant must be a word"),
        ("{uci: fairy-stockfish, depth: 0}", "depth must be a positive whole number"),
        ("{uci: fairy-stockfish, ugi: other}", "give exactly one of"),
    ],
)
def test_an_engine_declaration_is_checked_with_a_clear_error(bot, message):
    with pytest.raises(ConfigError, match=message):
        parse_config(f"name: t\ngame: tictactoe\nbots:\n  e: {bot}\n  r: {{module: bots.randombot}}\n")


def test_an_engine_declaration_keeps_its_settings_as_its_parameters():
    config = parse_config(
        "name: t\ngame: tictactoe\nbots:\n  e: {uci: fairy-stockfish, variant: tictactoe, options: {Threads: 1}}\n"
        "  r: {module: bots.randombot}\n"
    )
    bot = config.bots["e"]
    assert (bot.kind, bot.target, bot.params) == (
        "uci",
        "fairy-stockfish",
        {"options": {"Threads": 1}, "variant": "tictactoe"},
    )


def test_a_stored_engine_declaration_reads_back_as_the_same_tournament():
    config = parse_config(
        "name: t\ngame: tictactoe\nbots:\n  e: {uci: fairy-stockfish, variant: tictactoe, depth: 3}\n"
        '  r: {module: bots.randombot}\nopenings: [["4"], ["0", "8"]]\n'
    )
    again = TournamentDef.model_validate(config.model_dump(mode="json"))
    assert again.digest() == config.digest() and again.bots["e"].params == {"depth": 3, "variant": "tictactoe"}
    plain = parse_config("name: t\ngame: tictactoe\nbots:\n  a: {module: bots.randombot}\n  b: {command: x}\n")
    assert "openings" not in plain.canonical() and "uci" not in plain.canonical()


def test_a_moves_engine_info_survives_the_records_json():
    record = GameRecord(7, [MoveRecord(0, "4", 1.0, 1.0, 0.0, False, '{"depth":3}'), MoveRecord(1, "0", 1.0, None)])
    again = record_from_json(record_to_json(record))
    assert [m.info for m in again.moves] == ['{"depth":3}', None]


# -- openings ------------------------------------------------------------------------------


def test_openings_are_read_one_a_line_by_spaces_or_commas():
    assert parse_openings("# book\n4 0\n\n 4 0, 0 4  # uttt\n") == [["4", "0"], ["4 0", "0 4"]]
    with pytest.raises(OpeningError, match="no opening"):
        parse_openings("# nothing\n")


def test_an_opening_must_be_legal_and_leave_the_game_to_play():
    game = get_game("tictactoe")
    assert check_openings(game, [["4", "0"]]) == [["4", "0"]]
    with pytest.raises(OpeningError, match="opening 2: 4 is illegal in tictactoe: cell 4 is occupied"):
        check_openings(game, [["0"], ["4", "4"]])
    with pytest.raises(OpeningError, match="opening 1 ends the game"):
        check_openings(game, [["0", "3", "1", "4", "2"]])


def test_each_pair_plays_each_opening_twice_in_turn():
    a_b, a_c = frozenset({1, 2}), frozenset({1, 3})
    games = [(10, a_b), (11, a_b), (12, a_c), (13, a_b), (14, a_c), (15, a_b), (16, a_b)]
    assert assign_openings([["4"], ["0"], ["8"]], games) == {10: 0, 11: 0, 12: 0, 13: 1, 14: 0, 15: 1, 16: 2}


def test_a_tournament_with_openings_plays_each_from_both_seats(tmp_path):
    (tmp_path / "book.txt").write_text("4\n0, 8\n")
    (tmp_path / "t.yaml").write_text(
        "name: book\ngame: tictactoe\nseed: 2\nworkers: 1\nopenings: book.txt\n"
        "bots:\n  a: {module: bots.randombot}\n  b: {module: bots.randombot}\nstages: [{games_per_pair: 4}]\n"
    )
    url = f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    done = arena("run", "t.yaml", "--db", url, "-q", cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(tmp_path / "arena.sqlite3") as db:
        starts = db.execute(
            "SELECT g.id, group_concat(m.move, ' '), e.team FROM games g "
            "JOIN moves m ON m.game_id = g.id AND m.info = ? "
            "JOIN game_seats s ON s.game_id = g.id AND s.seat = 0 JOIN entries e ON e.id = s.entry_id "
            "GROUP BY g.id ORDER BY g.id",
            (BOOK,),
        ).fetchall()
    assert [(moves, first) for _, moves, first in starts] == [("4", "a"), ("4", "b"), ("0 8", "a"), ("0 8", "b")]


def test_an_openings_file_the_game_refuses_is_a_config_error(tmp_path):
    (tmp_path / "book.txt").write_text("4 9\n")
    with pytest.raises(ConfigError, match=r"openings: opening 1: .*9"):
        parse_config(
            "name: t\ngame: tictactoe\nopenings: book.txt\nbots:\n  a: {module: bots.randombot}\n"
            "  b: {module: bots.randombot}\n",
            base=tmp_path,
        )


# -- the benchmark -------------------------------------------------------------------------


@needs_fairy
def test_the_uci_overhead_benchmark_smoke_runs():
    script = Path(__file__).resolve().parent.parent / "benchmarks" / "outside.py"
    done = subprocess.run([sys.executable, str(script), "uci", "--quick"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "bare UCI over a pipe" in done.stdout and "overhead: " in done.stdout


@needs_fairy
def test_the_preflight_check_shakes_hands_and_warns_of_a_variant_the_engine_does_not_know(tmp_path):
    (tmp_path / "t.yaml").write_text(
        "name: pf\ngame: tictactoe\nbots:\n  fairy: {uci: fairy-stockfish, variant: tictactoe}\n"
        "  typo: {uci: fairy-stockfish, variant: tictactoes}\n  r: {module: bots.randombot}\n"
    )
    done = arena_here("run", "--check", "t.yaml", "--db", f"sqlite:///{tmp_path / 'db.sqlite3'}", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    said = done.stdout + done.stderr
    assert "bots.typo: the engine did not say it plays variant 'tictactoes'" in said
    assert "bots.fairy:" not in said


@pytest.mark.parametrize("example", ["tictactoe", "connect4", "go9"])
def test_the_engine_examples_are_valid_tournaments(example):
    if example == "go9":
        pytest.importorskip("pyspiel")
    config, _ = load_config(EXAMPLES / f"{example}.yaml")
    assert {bot.kind for bot in config.bots.values()} & {"uci", "gtp"}


@pytest.mark.parametrize(
    ("script", "termination", "detail"),
    [
        ("gtp_refuses.py", Termination.PROTOCOL_ERROR, "refused 'play black "),
        ("gtp_resigns.py", Termination.RESIGNATION, None),
    ],
)
def test_a_gtp_engine_that_refuses_a_legal_move_forfeits_and_one_that_resigns_loses(script, termination, detail):
    pytest.importorskip("pyspiel")
    spec = game_spec('{openspiel: "go(board_size=9,komi=7.5)"}')
    with GameWorker(fork=False) as worker:
        record = worker.play(job(RANDOM, fake(script, "gtp"), move=1.0, game=spec, seed=2))
    assert (record.termination, record.offender, record.winner) == (termination, 1, 0)
    assert detail is None or detail in (record.detail or "")
