"""``arena dataset ... --out FILE.jsonl``: the games of any game as each seat's views, one JSON
line a decision a seat took, after a line of metadata. A stored three-seat goofspiel tournament
(chance and simultaneous bids), a kuhn poker one (hidden cards: a line never holds the other
seat's card) and a tic-tac-toe league (an arena game: its views are its ``to_dict()``)."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import func, select
from typer.testing import CliRunner

from arena.commands.cli import app
from arena.core.gameloop import result_of
from arena.core.records import GameRecord, MoveRecord, Termination
from arena.games import CHANCE, SIMULTANEOUS, get_game, get_game_from_spec
from arena.learning.dataset import DatasetError, PlayedGame, export_views, game_views, load_dataset, write_views
from arena.learning.features import NoEncoding
from arena.store.database import open_store
from arena.store.models import Entry, GameRow, MoveRow, game_seats
from arena.store.writes import save_record
from tests.builders import ROOT, create
from tests.fixtures.learningkit import CUT, DRAW, X_WINS, record, store_tournament

runner = CliRunner()
GOOFSPIEL = {"module": "examples/games/goofspiel.py", "params": {"players": 3, "cards": 3}}
KUHN = {"module": "tests/fixtures/hidden/kuhn_poker.py"}


def tied(cards: int) -> list[str]:
    """A goofspiel record where the prizes come up in order and every seat bids the prize: no
    bid is unique, so nobody wins a prize."""
    return [str(card) for card in range(1, cards + 1) for _ in range(4)]


#: goofspiel for three with the cards 1-3, each game a record of three rounds (the prize, then
#: the bids of seats 0, 1 and 2). Game 1: prize 2 to seat 2's bid 3; prize 3 to seat 0's 3 (1
#: and 2 are the others'); prize 1 to seat 1's 3: returns 3, 1, 2. Game 2: bids 3, 3, 1 give
#: prize 3 to seat 2, then 2, 1, 3 prize 1 to seat 2, then 1, 2, 2 prize 2 to seat 0. Game 3:
#: nobody wins anything.
GOOF_GAMES = [
    ["2", "1", "2", "3", "3", "3", "1", "2", "1", "2", "3", "1"],
    ["3", "3", "3", "1", "1", "2", "1", "3", "2", "1", "2", "2"],
    tied(3),
]
#: kuhn poker games: the deals (seat 0's card, seat 1's) and the betting
KUHN_GAMES = [
    ("K", "J", ["bet", "bet"]),
    ("J", "Q", ["pass", "bet", "pass"]),
    ("Q", "K", ["pass", "pass"]),
    ("J", "K", ["bet", "pass"]),
]


def invoke(*args: str):
    return runner.invoke(app, list(args), env={"COLUMNS": "500"})


def store(url: str, name: str, game: dict, teams: int, records) -> dict[int, tuple[str, ...]]:
    """A tournament of ``game`` among ``teams`` teams of the random bot, planned as ``arena run``
    plans it, its games, in id order, finished as ``records(their number from 0)`` says (each a
    list of (seat, move text), chance entries seat -1); each game's team of each seat."""
    config = {
        "name": name,
        "game": game,
        "seed": 3,
        "bots": {"r": {"module": "bots.randombot"}},
        "teams": {f"t{n}": "r" for n in range(1, teams + 1)},
        "stages": [{"name": "league", "games_per_pair": 3 if teams == 3 else 4}],
    }
    sessions, tournament_id = create(url, config)
    engine = get_game_from_spec(dict(game, module=str(ROOT / game["module"])))
    with sessions.begin() as session:
        rows = session.scalars(select(GameRow).where(GameRow.tournament_id == tournament_id).order_by(GameRow.id))
        ids = [row.id for row in rows]
        names = dict(session.execute(select(Entry.id, Entry.team)).all())
        seats = game_seats(session, GameRow.tournament_id == tournament_id)
        for number, game_id in enumerate(ids):
            moves = records(number)
            state = engine.replay([move for _, move in moves])
            winner, points = result_of(state.outcome)
            played = [MoveRecord(seat, move, 1.0, None) for seat, move in moves]
            save_record(session, GameRecord(game_id, played, winner, points, stderr=("",) * engine.players))
        return {game_id: tuple(names[seat.entry_id] for seat in seats[game_id]) for game_id in ids}


def goofspiel_record(moves: list[str]) -> list[tuple[int, str]]:
    """A goofspiel record's entries with their seats: each round's prize drawn by chance, then
    the bid of each seat."""
    return [(CHANCE if index % 4 == 0 else index % 4 - 1, move) for index, move in enumerate(moves)]


def kuhn_record(number: int) -> list[tuple[int, str]]:
    """The entries of kuhn poker game ``number``: the two deals, then the betting."""
    first, second, betting = KUHN_GAMES[number % len(KUHN_GAMES)]
    return [(CHANCE, f"deal {first}"), (CHANCE, f"deal {second}")] + [
        (index % 2, move) for index, move in enumerate(betting)
    ]


def read(path) -> tuple[dict, list[dict]]:
    """The metadata line and the other lines of a views file, each checked to be one JSON line."""
    text = path.read_text(encoding="utf-8")
    assert text.endswith("\n")
    meta, *lines = (json.loads(line) for line in text.splitlines())
    return meta, lines


@pytest.fixture
def goof(tmp_path):
    """(the database's url, each game's teams) of a stored goofspiel tournament ``goof``."""
    url = f"sqlite:///{tmp_path / 'goof.sqlite3'}"
    return url, store(url, "goof", GOOFSPIEL, 3, lambda number: goofspiel_record(GOOF_GAMES[number]))


def test_every_bid_is_a_line_with_its_seats_view_legal_cards_and_the_games_returns(goof, tmp_path):
    url, teams = goof
    out = tmp_path / "goof.jsonl"
    result = invoke("dataset", "goof", "--out", str(out), "--db", url)
    assert result.exit_code == 0, result.output
    assert result.output == f"wrote 27 decisions of 3 goofspiel games (goof), one line each, to {out}\n"
    meta, lines = read(out)
    assert {key: meta[key] for key in ("format", "version", "tournaments", "games", "positions")} == {
        "format": "arena-views",
        "version": 1,
        "tournaments": ["goof"],
        "games": 3,
        "positions": 27,
    }
    assert meta["game"]["name"] == "goofspiel" and meta["game"]["params"] == {"players": 3, "cards": 3}
    assert meta["game"]["class"] == "Goofspiel" and meta["game"]["module"].endswith("goofspiel.py")
    # one line a bid: 3 games x 3 rounds x 3 seats, none for the prizes drawn
    assert len(lines) == sum(len(moves) * 3 // 4 for moves in GOOF_GAMES) == 27
    with open_store(url).begin() as session:  # ... as many as the stored moves of a seat
        assert session.scalar(select(func.count()).select_from(MoveRow).where(MoveRow.seat >= 0)) == 27
    ids = sorted(teams)
    first = [line for line in lines if line["game"] == ids[0]]
    assert [(line["ply"], line["seat"], line["move"]) for line in first] == [
        (1, 0, "1"),
        (1, 1, "2"),
        (1, 2, "3"),
        (5, 0, "3"),
        (5, 1, "1"),
        (5, 2, "2"),
        (9, 0, "2"),
        (9, 1, "3"),
        (9, 2, "1"),
    ]
    assert [line["legal"] for line in first] == [["1", "2", "3"]] * 3 + [["2", "3"], ["1", "3"], ["1", "2"]] + [
        ["2"],
        ["3"],
        ["1"],
    ]
    assert all(line["returns"] == [3.0, 1.0, 2.0] for line in first)
    assert [line["score"] for line in first[:3]] == [1.0, 0.0, 0.5]  # the share of the others finished behind
    assert [line["team"] for line in first[:3]] == list(teams[ids[0]])
    # each seat of a step sees the state before the step: the prize up, nobody's bid yet
    state = get_game_from_spec(meta["game"]).replay(["2", "1", "2", "3", "3"])
    assert state.to_move == SIMULTANEOUS
    assert [line["view"] for line in first[3:6]] == [state.view(seat) for seat in range(3)]
    assert first[3]["view"]["notes"][0] == "prize 3 is up"
    # the game where every bid is shared: nobody wins anything, all tie
    last = [line for line in lines if line["game"] == ids[2]]
    assert {line["score"] for line in last} == {0.5} and last[0]["returns"] == [0.0, 0.0, 0.0]


def test_the_lines_of_a_game_played_in_turns_are_its_moves():
    engine = get_game("tictactoe")
    lines = list(game_views(engine, PlayedGame(7, DRAW, ("a", "b"))))
    assert len(lines) == len(DRAW)
    assert [line["seat"] for line in lines] == [0, 1] * 4 + [0]
    assert [line["team"] for line in lines[:2]] == ["a", "b"]
    assert lines[0]["view"] == engine.initial_state().to_dict()
    assert {line["score"] for line in lines} == {0.5} and lines[0]["returns"] == [0.5, 0.5]


def test_a_hidden_card_never_reaches_the_other_seats_lines(tmp_path):
    url = f"sqlite:///{tmp_path / 'kuhn.sqlite3'}"
    teams = store(url, "kuhn", KUHN, 2, kuhn_record)
    out = tmp_path / "kuhn.jsonl"
    result = invoke("dataset", "kuhn", "--out", str(out), "--db", url)
    assert result.exit_code == 0, result.output
    meta, lines = read(out)
    assert meta["games"] == len(teams) == 4 and meta["positions"] == len(lines)
    assert len(lines) == sum(len(betting) for _, _, betting in KUHN_GAMES)  # the deals are no decision
    text = out.read_text().splitlines()[1:]
    for number, game_id in enumerate(sorted(teams)):
        cards = KUHN_GAMES[number][:2]
        mine = [(line, raw) for line, raw in zip(lines, text) if line["game"] == game_id]
        assert [line["move"] for line, _ in mine] == KUHN_GAMES[number][2]
        for line, raw in mine:
            seat = line["seat"]
            assert line["view"]["card"] == cards[seat]
            assert line["legal"] == ["pass", "bet"]
            assert f'"{cards[1 - seat]}"' not in raw and "deal" not in raw, raw
            assert "cards" not in line["view"]  # the spectator's view names both
    first = [line for line in lines if line["game"] == min(teams)]
    assert first[0]["returns"] == [2.0, -2.0] and [line["score"] for line in first] == [1.0, 0.0]


def test_an_arena_game_gives_the_same_games_as_its_npz_dataset(tmp_path):
    url = f"sqlite:///{tmp_path / 'ttt.sqlite3'}"
    store_tournament(
        open_store(url),
        "league",
        "tictactoe",
        lambda ids: [record(ids[0], X_WINS), record(ids[1], DRAW), record(ids[2], CUT, Termination.TIMEOUT)],
    )
    result = invoke("dataset", "league", "--out", str(tmp_path / "d.jsonl"), "--db", url)
    assert result.exit_code == 0, result.output
    assert result.output.endswith(
        f", one line each, to {tmp_path / 'd.jsonl'}; left out 1 finished game that did not end normally\n"
    )
    assert invoke("dataset", "league", "--out", str(tmp_path / "d.npz"), "--db", url).exit_code == 0
    data = load_dataset(tmp_path / "d.npz")
    meta, lines = read(tmp_path / "d.jsonl")
    assert meta["game"] == {"name": "tictactoe", "params": {}} and meta["positions"] == len(data) == len(lines)
    engine = get_game("tictactoe")
    assert [line["move"] for line in lines] == [engine.format_move(int(m)) for m in data.columns["move"]]
    assert [line["seat"] for line in lines] == list(data.columns["to_move"])
    assert [line["ply"] for line in lines] == list(data.columns["ply"])
    assert [line["score"] for line in lines] == list(data.columns["outcome"])
    state = engine.replay(X_WINS[:2])
    assert lines[2]["view"] == state.to_dict() and lines[2]["legal"] == [
        engine.format_move(m) for m in state.legal_moves()
    ]


def test_a_game_of_your_own_asked_for_as_npz_is_told_to_write_jsonl(goof, tmp_path):
    url, _ = goof
    result = invoke("dataset", "goof", "--out", str(tmp_path / "d.npz"), "--db", url)
    assert isinstance(result.exception, NoEncoding)
    assert str(result.exception) == (
        "no encoding for game 'goofspiel': datasets and learning bots encode arena's four games "
        "(tictactoe, uttt, xtreme, othello) only; export any game's games as each seat's views "
        f"instead, one JSON line a decision: --out {tmp_path / 'd.jsonl'}"
    )
    assert not (tmp_path / "d.npz").exists()


def test_tournaments_of_other_parameters_are_not_mixed(goof, tmp_path):
    url, _ = goof
    store(url, "goof4", dict(GOOFSPIEL, params={"players": 3, "cards": 5}), 3, lambda n: goofspiel_record(tied(5)))
    with open_store(url).begin() as session, pytest.raises(DatasetError, match="play different games"):
        export_views(session, ["goof", "goof4"], tmp_path / "d.jsonl")
    assert not (tmp_path / "d.jsonl").exists()


def test_a_record_that_does_not_replay_or_finish_is_named_and_no_file_is_left(tmp_path):
    engine = get_game("tictactoe")
    with pytest.raises(DatasetError, match=r"game 9 does not replay: ply 2: .*arena replay 9"):
        list(game_views(engine, PlayedGame(9, ["4", "4"], ("a", "b"))))
    with pytest.raises(DatasetError, match="game 9 is not over after its 2 moves"):
        list(game_views(engine, PlayedGame(9, ["4", "0"], ("a", "b"))))
    games = [PlayedGame(1, DRAW, ("a", "b")), PlayedGame(9, ["4", "0"], ("a", "b"))]
    with pytest.raises(DatasetError, match="game 9 is not over"):
        write_views(tmp_path / "out" / "d.jsonl", engine, games, ["league"])
    assert list((tmp_path / "out").iterdir()) == []
    assert write_views(tmp_path / "out" / "d.jsonl", engine, games[:1], ["league"]) == (1, len(DRAW))
    assert [path.name for path in (tmp_path / "out").iterdir()] == ["d.jsonl"]
