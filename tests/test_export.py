"""``arena export``: a tournament's games as PGN (chess) and SGF (Go, othello). Real tournaments
of random bots are written and read back: the PGN's SAN re-played through OpenSpiel's chess and
the SGF's points through Go and othello reach each stored game's last position, and the tags and
properties say who played, when, how it ended and under what clock. Records built by hand show
the rest: an engine's info as cutechess's comments, every termination, a chess960 start, Go's
handicap, the text a name needs escaped. A game with neither file, or the other format, is
refused; ``-o`` writes a file; games not played yet are left out."""

from __future__ import annotations

import json
import random
import re
import sqlite3
import time
from pathlib import Path

import pytest

pytest.importorskip("pyspiel")

import pyspiel

from arena.contests.config import TimeDef
from arena.core.records import GameRecord, MoveRecord, Termination
from arena.entrants.engines.notation import GoVertices
from arena.games import CHANCE, Game, get_game
from arena.games.openspiel import openspiel_game
from arena.results.export import Export, ExportedGame, StoredMove, area_count, write_pgn, write_sgf
from arena.results.tables import GameSummary
from tests.builders import FIRST_LEGAL, create, play_stage
from tests.fixtures.harnesskit import arena, arena_here

HANGS = Path(__file__).resolve().parent / "fixtures" / "bots" / "hangs_after_two_moves.py"
GO9 = "go(board_size=9,komi=7.5)"
RANDOM = "{module: bots.randombot}"
#: each game's tournament: its name, game, teams and games a pair; two random bots, and at chess
#: a third that times out after two moves of its own
TOURNAMENTS = {
    "chess": ("chess-export", "{openspiel: chess}", {"r1": RANDOM, "r2": RANDOM, "hang": f"{{path: {HANGS}}}"}, 1),
    "go": ("go-export", f'{{openspiel: "{GO9}"}}', {"r1": RANDOM, "r2": RANDOM}, 2),
    "othello": ("othello-export", "othello", {"r1": RANDOM, "r2": RANDOM}, 2),
}


@pytest.fixture(scope="module", params=list(TOURNAMENTS))
def played(request, tmp_path_factory) -> tuple[str, Path, str]:
    """A finished tournament of each game: its name, folder and database URL."""
    name, game, bots, pair_games = TOURNAMENTS[request.param]
    folder = tmp_path_factory.mktemp(request.param)
    teams = "".join(f"  {team}: {bot}\n" for team, bot in bots.items())
    (folder / "t.yaml").write_text(
        f"name: {name}\ngame: {game}\nseed: 3\ntime: {{move: 1.0}}\nworkers: 1\nbots:\n{teams}"
        f"stages: [{{name: league, games_per_pair: {pair_games}}}]\n"
    )
    url = f"sqlite:///{folder / 'arena.sqlite3'}"
    done = arena("run", "t.yaml", "--db", url, "-q", cwd=folder, timeout=120)
    assert done.returncode == 0, done.stderr
    return name, folder, url


def game_of(played: tuple[str, Path, str]) -> str:
    return next(kind for kind, (name, *_) in TOURNAMENTS.items() if name == played[0])


def stored(folder: Path) -> list[dict]:
    """Every stored game of the database in ``folder``, in schedule order: its teams by seat,
    result, how it ended, and its moves (seat, text)."""
    with sqlite3.connect(folder / "arena.sqlite3") as db:
        games = db.execute("SELECT id, winner, termination, offender FROM games ORDER BY id").fetchall()
        found = []
        for game_id, winner, termination, offender in games:
            teams = db.execute(
                "SELECT e.team FROM game_seats s JOIN entries e ON e.id = s.entry_id WHERE s.game_id = ? "
                "ORDER BY s.seat",
                (game_id,),
            ).fetchall()
            moves = db.execute("SELECT seat, move FROM moves WHERE game_id = ? ORDER BY ply", (game_id,)).fetchall()
            found.append(
                {
                    "teams": [team for (team,) in teams],
                    "winner": winner,
                    "termination": termination,
                    "offender": offender,
                    "moves": moves,
                }
            )
    return found


def export(played: tuple[str, Path, str], *options: str):
    name, folder, url = played
    return arena_here("export", name, *options, "--db", url, cwd=folder)


# ---------------------------------------------------------------- reading the files back


def parse_pgn(text: str) -> list[tuple[dict[str, str], list[str], list[str], str]]:
    """Each game of a PGN file: its tags, its SAN moves, its comments and its result."""
    games = []
    for chunk in re.split(r"\n\n(?=\[)", text.strip()):
        header, _, movetext = chunk.partition("\n\n")
        tags = {
            name: value.replace('\\"', '"').replace("\\\\", "\\")
            for name, value in re.findall(r'^\[(\w+) "((?:[^"\\]|\\.)*)"\]$', header, re.MULTILINE)
        }
        assert len(tags) == len(header.splitlines()), header
        comments = [" ".join(c.split()) for c in re.findall(r"\{([^}]*)\}", movetext)]
        words = re.sub(r"\{[^}]*\}", " ", movetext).split()
        result = words.pop()
        games.append((tags, [w for w in words if not re.fullmatch(r"\d+\.(\.\.)?", w)], comments, result))
    return games


def play_san(state, sans: list[str]):
    """``state`` (OpenSpiel's chess) after the moves ``sans``, each found among the legal ones."""
    for san in sans:
        legal = {state.action_to_string(action): action for action in state.legal_actions()}
        state.apply_action(legal[san])
    return state


SGF_TOKEN = re.compile(r"\s*(?:(\()|(\))|(;)|([A-Z]+)((?:\s*\[(?:\\.|[^\\\]])*\])+))", re.DOTALL)


def parse_sgf(text: str) -> list[list[dict[str, list[str]]]]:
    """Each game tree of an SGF collection (no variations): its nodes, each its properties and
    their values, unescaped."""
    games: list[list[dict[str, list[str]]]] = []
    position = 0
    while text[position:].strip():
        match = SGF_TOKEN.match(text, position)
        assert match is not None, text[position : position + 40]
        position = match.end()
        opened, _, node, name, values = match.groups()
        if opened:
            games.append([])
        elif node:
            games[-1].append({})
        elif name:
            found = re.findall(r"\[((?:\\.|[^\\\]])*)\]", values)
            games[-1][-1][name] = [re.sub(r"\\(.)", r"\1", value) for value in found]
    return games


def sgf_moves(nodes: list[dict[str, list[str]]]) -> list[tuple[str, str]]:
    """The (colour, point) of each move node."""
    return [(colour, node[colour][0]) for node in nodes[1:] for colour in "BW" if colour in node]


def go_action(point: str, size: int) -> int:
    """OpenSpiel's Go action of an SGF point (``""``: the pass)."""
    if not point:
        return size * size
    col, row = ord(point[0]) - ord("a"), ord(point[1]) - ord("a")
    return (size - 1 - row) * size + col


def gtp_to_sgf(vertex: str, size: int) -> str:
    """An SGF point from a GTP vertex (its columns skip I; its rows count from the bottom)."""
    if vertex == "pass":
        return ""
    return "abcdefghijklmnopqrs"["ABCDEFGHJKLMNOPQRST".index(vertex[0])] + "abcdefghijklmnopqrs"[size - int(vertex[1:])]


# ---------------------------------------------------------------- real tournaments


def test_each_stored_game_is_written_and_read_back_to_its_last_position_and_result(played):
    kind = game_of(played)
    done = export(played, "--pgn" if kind == "chess" else "--sgf")
    assert done.returncode == 0, done.stderr
    games = stored(played[1])
    {"chess": check_pgn, "go": check_go_sgf, "othello": check_othello_sgf}[kind](done.stdout, games, played[0])


def check_pgn(text: str, games: list[dict], name: str) -> None:
    assert all(len(line) < 80 for line in text.splitlines())
    assert text.count("\n\n[Event ") == len(games) - 1  # a blank line between games
    written = parse_pgn(text)
    assert len(written) == len(games) == 3
    chess = openspiel_game("chess")
    for number, ((tags, sans, comments, result), game) in enumerate(zip(written, games), 1):
        want = chess.replay([text for _, text in game["moves"]])
        reached = play_san(pyspiel.load_game("chess").new_initial_state(), sans)
        assert str(reached) == str(want.spiel)
        # OpenSpiel's player 0 plays black
        assert (tags["White"], tags["Black"]) == (game["teams"][1], game["teams"][0])
        assert tags["Result"] == {1: "1-0", 0: "0-1", None: "1/2-1/2"}[game["winner"]] == result
        assert (tags["Event"], tags["Site"], tags["Round"], tags["TimeControl"]) == (name, "?", str(number), "1/move")
        assert re.fullmatch(r"\d{4}\.\d\d\.\d\d", tags["Date"]) and "FEN" not in tags
        assert tags["PlyCount"] == str(len(game["moves"])) and len(sans) == len(game["moves"])
        assert all(re.fullmatch(r"\d+\.\d{3}s", comment) for comment in comments[: len(sans)])
        if game["termination"] == "normal":
            assert tags["Termination"] == "normal" and reached.is_terminal()
        else:  # the bot that hangs after two moves of its own
            assert (game["termination"], tags["Termination"]) == ("timeout", "time forfeit")
            hung = ("Black", "White")[game["offender"]]
            assert game["teams"][game["offender"]] == "hang" and not reached.is_terminal()
            assert comments[-1].startswith(f"{hung} forfeits by timeout: no reply within 1.000 s")


def check_go_sgf(text: str, games: list[dict], name: str) -> None:
    written = parse_sgf(text)
    assert len(written) == len(games) == 2
    go = openspiel_game(GO9)
    vertices = GoVertices(9)
    for number, (nodes, game) in enumerate(zip(written, games), 1):
        root = nodes[0]
        assert {key: root[key] for key in ("FF", "GM", "SZ", "KM", "RU", "EV", "RO", "PB", "PW")} == {
            "FF": ["4"], "GM": ["1"], "SZ": ["9"], "KM": ["7.5"], "RU": ["Tromp-Taylor"], "EV": [name],
            "RO": [str(number)], "PB": [game["teams"][0]], "PW": [game["teams"][1]],
        }  # fmt: skip
        assert re.fullmatch(r"\d{4}-\d\d-\d\d", root["DT"][0]) and "AB" not in root
        moves = sgf_moves(nodes)
        # each point as GTP's vertex names it, a letter for I kept: the two notations agree
        assert moves == [("BW"[seat], gtp_to_sgf(vertices.to_engine([], int(text)), 9)) for seat, text in game["moves"]]
        state = pyspiel.load_game(GO9).new_initial_state()
        for _, point in moves:
            state.apply_action(go_action(point, 9))
        assert str(state) == str(go.replay([text for _, text in game["moves"]]).spiel)
        assert state.is_terminal() and game["termination"] == "normal"
        result = re.fullmatch(r"([BW])\+(\d+\.5)", root["RE"][0])
        assert result is not None and result.group(1) == "BW"[game["winner"]]
        assert state.returns()[game["winner"]] == 1.0


def check_othello_sgf(text: str, games: list[dict], name: str) -> None:
    written = parse_sgf(text)
    assert len(written) == len(games) == 2
    othello = get_game("othello")
    for nodes, game in zip(written, games):
        root = nodes[0]
        assert (root["GM"], root["SZ"], root["EV"]) == (["2"], ["8"], [name])
        assert (root["PB"], root["PW"]) == ([game["teams"][0]], [game["teams"][1]])
        assert (sorted(root["AB"]), sorted(root["AW"])) == (["de", "ed"], ["dd", "ee"])  # e4 d5 black, d4 e5 white
        moves = sgf_moves(nodes)
        assert [colour for colour, _ in moves] == ["BW"[seat] for seat, _ in game["moves"]]
        # a point's letters: column, then the row from the top (othello's row 1)
        texts = [point[0] + str(ord(point[1]) - ord("a") + 1) if point else "pass" for _, point in moves]
        assert texts == [text for _, text in game["moves"]]
        state = othello.replay(texts)
        margin = state.count(0) - state.count(1)
        want = f"B+{margin}" if margin > 0 else f"W+{-margin}" if margin < 0 else "0"
        assert root["RE"] == [want] and state.is_terminal


def test_o_writes_the_file_a_stage_holds_and_stdout_has_the_same_text(played, tmp_path):
    kind = "--pgn" if game_of(played) == "chess" else "--sgf"
    printed = export(played, kind)
    into = tmp_path / "games.txt"
    done = export(played, kind, "--stage", "league", "-o", str(into))
    assert done.returncode == 0, done.stderr
    count = len(stored(played[1]))
    assert done.stdout == f"Wrote {count} games of {played[0]} (stage league) as {kind[2:].upper()} to {into}\n"
    assert into.read_text() == printed.stdout and printed.stderr == ""
    # without a name, the latest tournament run
    latest = arena_here("export", kind, "--db", played[2], cwd=played[1])
    assert latest.stdout == printed.stdout


# ---------------------------------------------------------------- records built by hand


def summary(game_id: int, teams: tuple[str, str], winner: int | None, **fields) -> GameSummary:
    """A stored game as the results read it: finished normally unless ``fields`` say otherwise."""
    values = {"stage": 0, "round": game_id - 1, "status": "finished", "termination": "normal", "offender": None,
              "detail": None, "started_at": 1_700_000_000.0}  # fmt: skip
    values.update(fields)
    return GameSummary(
        game_id,
        values["stage"],
        0,
        values["round"],
        teams,
        values["status"],
        winner,
        None,
        None,
        values["termination"],
        values["offender"],
        values["detail"],
        None,
        values["started_at"],
        None,
    )


def actions(game_string: str, sans: list[str], chance: int | None = None) -> list[str]:
    """The texts arena stores for the chess moves ``sans`` (OpenSpiel's action numbers), after
    the chance outcome ``chance`` that draws a chess960 start."""
    state = pyspiel.load_game(game_string).new_initial_state()
    texts = []
    if chance is not None:
        state.apply_action(chance)
        texts.append(f"chance {chance}")
    for san in sans:
        action = next(a for a in state.legal_actions() if state.action_to_string(a) == san)
        state.apply_action(action)
        texts.append(str(action))
    return texts


def moves_of(game: Game, texts: list[str], infos: dict[int, dict] | None = None, wall: float = 20.0):
    """``texts`` as stored moves of ``game``, each with its seat, ``wall`` ms and its info."""
    state, moves = game.initial_state(), []
    for ply, text in enumerate(texts):
        seat = state.to_move
        moves.append(StoredMove(seat, text, 0.0 if seat == CHANCE else wall, (infos or {}).get(ply)))
        state = state.play(game.parse_move(text))
    return tuple(moves)


def test_pgn_comments_carry_an_engines_info_and_tags_say_how_each_game_ended():
    chess = openspiel_game("chess")
    fools_mate = actions("chess", ["f3", "e5", "g4", "Qh4#"])
    infos = {
        0: {"score": "cp 25", "depth": 12, "nodes": 105875, "seldepth": 16, "time": 101},
        1: {"book": True},
        2: {"score": "cp -340"},
        3: {"score": "mate 1", "depth": 3},
    }
    white, black = 'gauntlet "A"', "black\\box"
    games = (
        ExportedGame(summary(1, (black, white), 0), moves_of(chess, fools_mate, infos, wall=512.0)),
        ExportedGame(
            summary(2, (black, white), 1, termination="illegal_move", offender=0, detail="'e9' is {no} move"),
            moves_of(chess, actions("chess", ["e4"])),
        ),
        ExportedGame(summary(3, (black, white), None, status="aborted", termination="aborted"), ()),
        ExportedGame(
            summary(4, (black, white), 1, termination="resignation", offender=0, stage=1),
            moves_of(chess, actions("chess", ["Na3"])),
        ),
    )
    text = write_pgn(Export("cup", chess, TimeDef(bank=60, increment=0.5), ("group", "final"), games))
    assert all(len(line) < 80 for line in text.splitlines())
    written = parse_pgn(text)
    assert [tags["Result"] for tags, *_ in written] == ["0-1", "1-0", "*", "1-0"]
    assert [tags["Termination"] for tags, *_ in written] == ["normal", "illegal move", "unterminated", "normal"]
    assert [tags["PlyCount"] for tags, *_ in written] == ["4", "1", "0", "1"]
    tags, sans, comments, _ = written[0]
    assert (tags["White"], tags["Black"], tags["TimeControl"], tags["Stage"]) == (white, black, "60+0.5", "group")
    assert (tags["Round"], tags["Date"]) == ("1", time.strftime("%Y.%m.%d", time.localtime(1_700_000_000)))
    assert sans == ["f3", "e5", "g4", "Qh4#"]
    assert comments == ["+0.25/12 0.512s, n=105875, sd=16", "book", "-3.40 0.512s", "+M1/3 0.512s"]
    assert '[White "gauntlet \\"A\\""]' in text and '[Black "black\\\\box"]' in text
    assert written[1][2] == ["0.020s", "Black forfeits by illegal move: 'e9' is (no) move"]
    assert written[2][1:] == ([], ["left unfinished"], "*")
    assert written[3][1:3] == (["Na3"], ["0.020s", "Black resigns"])
    assert written[3][0]["Stage"] == "final"


def test_a_chess960_game_says_its_start_and_replays_from_it():
    chess960 = openspiel_game("chess(chess960=true)")
    texts = actions("chess(chess960=true)", ["a4", "a5", "b4"], chance=517)
    game = ExportedGame(
        summary(1, ("b", "w"), None, status="aborted", termination="aborted"), moves_of(chess960, texts)
    )
    tags, sans, _, result = parse_pgn(write_pgn(Export("960", chess960, None, ("league",), (game,))))[0]
    start = pyspiel.load_game("chess(chess960=true)").new_initial_state()
    start.apply_action(517)
    assert (tags["Variant"], tags["SetUp"], tags["FEN"]) == ("chess960", "1", str(start))
    assert (tags["PlyCount"], tags["TimeControl"], result) == ("3", "?", "*")
    assert str(play_san(start, sans)) == str(chess960.replay(texts).spiel)


def test_sgf_results_say_how_each_game_ended_and_comments_carry_an_engines_info():
    go = openspiel_game(GO9)
    teams = ("bl]ack", "white\\")
    moves = moves_of(go, ["40", "81", "41"], {1: {"score": "cp 80", "depth": 4, "nodes": 12}})
    ends = [
        (0, {"termination": "resignation", "offender": 1}, "B+R"),
        (1, {"termination": "timeout", "offender": 0, "detail": "no reply [late]"}, "W+T"),
        (0, {"termination": "crash", "offender": 1}, "B+F"),
        (None, {}, "0"),
        (None, {"status": "aborted", "termination": "aborted"}, "Void"),
    ]
    games = tuple(
        ExportedGame(summary(n, teams, winner, **fields), moves) for n, (winner, fields, _) in enumerate(ends, 1)
    )
    written = parse_sgf(write_sgf(Export("go", go, None, ("league",), games)))
    assert [nodes[0]["RE"] for nodes in written] == [[want] for *_, want in ends]
    root = written[1][0]
    assert (root["PB"], root["PW"], root["C"]) == (
        ["bl]ack"],
        ["white\\"],
        ["black forfeits by timeout: no reply [late]"],
    )
    assert sgf_moves(written[0]) == [("B", "ee"), ("W", ""), ("B", "fe")]
    assert [node.get("C") for node in written[0][1:]] == [None, ["+0.80/4 0.020s, n=12"], None]


def test_go_with_a_handicap_starts_from_its_stones_and_openspiels_othello_is_othello():
    handicap = openspiel_game("go(board_size=19,handicap=2,komi=0.5)")
    forfeit = summary(1, ("b", "w"), 0, termination="crash", offender=1)
    (nodes,) = parse_sgf(write_sgf(Export("h", handicap, None, ("league",), (ExportedGame(forfeit, ()),))))
    root = nodes[0]
    # OpenSpiel puts black's two stones on D4 and Q16, and white moves first
    assert (root["SZ"], root["KM"], root["HA"], sorted(root["AB"]), root["PL"]) == (
        ["19"], ["0.5"], ["2"], ["dp", "pd"], ["W"]
    )  # fmt: skip
    othello = openspiel_game("othello")
    texts = ["d3", "c5", "f6"]
    game = ExportedGame(summary(1, ("b", "w"), None, status="aborted", termination="aborted"), moves_of(othello, texts))
    (nodes,) = parse_sgf(write_sgf(Export("o", othello, None, ("league",), (game,))))
    assert (nodes[0]["GM"], nodes[0]["SZ"], sorted(nodes[0]["AW"])) == (["2"], ["8"], ["dd", "ee"])
    assert sgf_moves(nodes) == [("B", "dc"), ("W", "ce"), ("B", "ff")]


def test_tromp_taylor_counts_stones_and_the_regions_that_reach_one_side_alone():
    # 3x3, points from the bottom-left: black holds the bottom row, white the top left corner; the
    # middle row's empty region reaches both, so counts for nobody
    assert area_count({0, 1, 2}, {6}, 3) == 3 - 1
    # black's wall down the middle column: the left column is black's; the right column's two empty
    # points touch white's stone and black's wall, so are nobody's
    assert area_count({1, 4, 7}, {5}, 3) == 3 + 3 - 1


# ---------------------------------------------------------------- refusals, and what is left out


def test_a_game_without_either_file_and_the_other_format_are_refused(league_url, tmp_path):
    done = arena_here("export", "league", "--pgn", "--db", league_url, cwd=tmp_path)
    assert done.returncode == 2
    refused = "error: tournament 'league' plays tictactoe, which has neither a PGN nor an SGF file: arena writes"
    assert f"{refused} PGN for chess; SGF for go and othello" in done.stderr
    url = f"sqlite:///{tmp_path / 'o.sqlite3'}"
    create(url, {"name": "o", "game": "othello", "bots": {t: {"path": FIRST_LEGAL} for t in "ab"}})
    wrong = arena_here("export", "o", "--pgn", "--db", url, cwd=tmp_path)
    assert wrong.returncode == 2 and "plays othello, which has no PGN file" in wrong.stderr
    assert "write its games as SGF: --sgf" in wrong.stderr
    for options in ((), ("--pgn", "--sgf")):
        both = arena_here("export", "o", *options, "--db", url, cwd=tmp_path)
        assert both.returncode == 2 and "give one format: --pgn (chess) or --sgf (Go, othello)" in both.stderr
    stage = arena_here("export", "o", "--sgf", "--stage", "final", "--db", url, cwd=tmp_path)
    assert stage.returncode == 2 and "tournament 'o' has no stage 'final'; its stages: 0 round-robin" in stage.stderr
    none = arena_here("export", "o", "--sgf", "--db", url, cwd=tmp_path)
    assert none.returncode == 2 and "tournament 'o' has no game that ended yet: nothing to write" in none.stderr


def test_games_not_played_yet_are_left_out_and_an_engines_info_is_read_from_the_store(tmp_path):
    url = f"sqlite:///{tmp_path / 'o.sqlite3'}"
    config = {"name": "o", "game": "othello", "bots": {t: {"path": FIRST_LEGAL} for t in "ab"},
              "stages": [{"name": "league", "games_per_pair": 2}]}  # fmt: skip
    sessions, tid = create(url, config)
    othello = get_game("othello")

    def play(row, first, second):
        if row.id > 1:  # the second game is left to play
            return None
        state, moves, rng = othello.initial_state(), [], random.Random(1)
        while not state.is_terminal:
            move = rng.choice(state.legal_moves())
            info = json.dumps({"depth": 3, "nodes": 99, "score": f"cp {len(moves)}"})
            moves.append(MoveRecord(state.to_move, othello.format_move(move), 2.0, None, info=info))
            state = state.play(move)
        outcome = state.outcome
        return GameRecord(row.id, moves, outcome.winner, outcome.points, Termination.NORMAL)

    play_stage(sessions, tid, 0, play)
    done = arena_here("export", "o", "--sgf", "--db", url, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "left out 1 game not played yet\n"
    (nodes,) = parse_sgf(done.stdout)
    comments = [node["C"][0] for node in nodes[1:]]
    assert comments[:3] == ["0.00/3 0.002s, n=99", "+0.01/3 0.002s, n=99", "+0.02/3 0.002s, n=99"]
