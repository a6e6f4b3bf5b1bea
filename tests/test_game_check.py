"""The conformance checker (arena/games/conformance.py) and its commands, ``arena game check``
and ``arena game new``: arena's games and two correct fixture games pass; each fixture game with
one fault (tests/fixtures/games/) fails on exactly the check for it, with a message naming the
fault; the game's own exceptions fail a check with the line they came from."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from arena.games import GAMES, get_game
from arena.games.conformance import CHECKS, check_game, random_game
from arena.games.loading import load_game
from tests.fixtures.harnesskit import arena_here

GAMES_DIR = Path(__file__).resolve().parent / "fixtures" / "games"
EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "games"
#: few random games and a short time for the timed figures: the checks stay fast
QUICK = {"seeds": 3, "time_budget": 0.01}
UNSEEDED = (
    "the game depends on something other than its moves and chance outcomes (the random module, the time, a global?)"
)


def fixture_game(name: str, **params: object):
    return load_game({"module": str(GAMES_DIR / f"{name}.py")}, params)


def failures(report) -> list[tuple[str, str]]:
    return [(check.name, check.message) for check in report.failures()]


def table_rows(output: str) -> list[list[str]]:
    """The rows of the tables rich printed (header rows left out)."""
    return [[cell.strip() for cell in line.split("│")[1:-1]] for line in output.splitlines() if line.startswith("│")]


# ---------------------------------------------------------------- games that pass


@pytest.mark.parametrize("name", sorted(GAMES))
def test_arenas_games_pass_every_check(name):
    report = check_game(get_game(name), **QUICK)
    assert failures(report) == []
    assert [check.name for check in report.checks] == list(CHECKS)


@pytest.mark.parametrize("name", ["connect4", "goofspiel", "liars_dice"])
def test_the_example_games_pass_every_check_at_their_fewest_and_most_seats(name):
    game = load_game({"module": str(EXAMPLES / f"{name}.py")})
    report = check_game(game, **QUICK)
    assert failures(report) == []
    low, high = type(game).PLAYERS
    assert {check.players for check in report.checks} == {low, game.players, min(high, 6)}  # and its default


def test_tictactoe_figures_count_its_records():
    report = check_game(get_game("tictactoe"), seeds=3, time_budget=0.3)
    figures = {figure.name: figure.value for figure in report.figures}
    assert figures["perft"][:3] == [9, 72, 504]  # as docs/games.md has them
    assert figures["playouts per second"] > 0 and 5 <= figures["mean length"] <= 9


def test_a_game_with_chance_hidden_information_and_three_seats_passes_the_views_check():
    report = check_game(fixture_game("swap_card"), **QUICK)
    assert failures(report) == []
    views = next(check for check in report.checks if check.name == "views")
    # the first deal is hidden from two seats; deals a seat cannot see were followed
    assert (
        views.message == "a seat's view hides something at branching 1; 75 branches a seat cannot tell apart followed"
    )


def test_a_game_with_simultaneous_steps_passes_with_its_fewest_and_most_seats():
    report = check_game(fixture_game("bidding"), **QUICK)
    assert failures(report) == []
    assert report.seat_counts == [2, 4]
    simultaneous = [(report.label(check), check.message) for check in report.checks if check.name == "simultaneous"]
    assert simultaneous == [
        ("simultaneous (2 seats)", "9 simultaneous steps"),
        ("simultaneous (4 seats)", "9 simultaneous steps"),
    ]


def test_a_game_of_many_seats_is_checked_with_six_at_most():
    from tests.fixtures.games.bidding import LowestUniqueBid

    class ManyBids(LowestUniqueBid):
        PLAYERS = (2, 9)

    report = check_game(ManyBids(), seeds=1, time_budget=0.01)
    assert report.seat_counts == [2, 6] and report.passed


def test_the_checks_leave_the_random_module_as_they_found_it():
    import random

    random.seed(5)
    before = random.getstate()
    check_game(fixture_game("unseeded"), **QUICK)
    assert random.getstate() == before


def test_random_game_gives_the_record_of_a_seed_a_message_names():
    # the endless game's seed 0, which the playouts check names: stopped after MAX_LENGTH + 1 records
    record = random_game(fixture_game("endless"), 0)
    assert record == ["1", "1", "0", "1", "1", "1", "1", "1", "1", "0", "0"]
    assert not fixture_game("endless").replay(record).is_terminal


# ---------------------------------------------------------------- games that fail

FAULTS = [
    (
        "endless",
        "playouts",
        "the random game with seed 0 did not end within MAX_LENGTH = 10 records "
        "(it began ['1', '1', '0', '1', '1', '1', '1', '1', '1', '0'])",
    ),
    (
        "unseeded",
        "determinism",
        "the random game with seed 0 went differently when played again: the first time it ended after 7 records, "
        f"the second it went on with '2': {UNSEEDED}",
    ),
    (
        "leaky",
        "views",
        "the views hide nothing, although the game declares HIDDEN: at each of 52 branchings of the random games "
        "(a chance outcome or move against another possible there), every seat's view(seat) told apart what any "
        "view told apart (e.g. each seat's view tells '5' from '4' at ply 0 of the random game with seed 0): "
        "view(seat) shows what the seat may not know, such as another seat's hand; leave that out of it (or set "
        "HIDDEN = False if every seat may know everything)",
    ),
    (
        "badchance",
        "chance",
        "the probabilities of the chance outcomes at ply 0 of the random game with seed 0 sum to 1.2000000000000002, "
        "not 1: '1': 0.2, '2': 0.2, '3': 0.2, '4': 0.2, '5': 0.2, '6': 0.2",
    ),
    (
        "unchecked",
        "legal-moves",
        "play(-1) at ply 0 of the random game with seed 0 was accepted, but -1 is not among the legal moves "
        "['1', '2', '3']: play must raise IllegalMoveError for it",
    ),
    (
        "badnotation",
        "notation",
        "format_move(0) is '1', but parse_move('1') is 1, not 0 (at ply 0 of the random game with seed 0): "
        "parse_move must read back what format_move writes",
    ),
]


@pytest.mark.parametrize(("name", "check", "message"), FAULTS, ids=[fault[0] for fault in FAULTS])
def test_a_game_with_one_fault_fails_that_check_alone_saying_what(name, check, message):
    report = check_game(fixture_game(name), **QUICK)
    assert failures(report) == [(check, message)]
    assert report.summary() == f"FAIL {check}: {message}"


def variant(tmp_path: Path, name: str, *changes: tuple[str, str]) -> Path:
    """A copy of the fixture game ``name`` with each (old, new) text of ``changes`` replaced."""
    code = (GAMES_DIR / f"{name}.py").read_text()
    for old, new in changes:
        assert old in code
        code = code.replace(old, new)
    path = tmp_path / f"{name}_variant.py"
    path.write_text(code)
    return path


def test_a_view_that_hides_what_the_seats_moves_depend_on_fails(tmp_path):
    # a seat holding the 9 may not swap it, and its view no longer shows its card
    path = variant(
        tmp_path,
        "swap_card",
        ("        return [KEEP, SWAP]\n", "        return [KEEP] if self.hands[self.to_move] == 9 else [KEEP, SWAP]\n"),
        ("        card = self.hands[seat] if seat < len(self.hands) else None\n", "        card = None\n"),
    )
    report = check_game(load_game({"module": str(path)}), **QUICK)
    assert failures(report) == [
        (
            "views",
            "seat 0 cannot tell ply 3 of the random game with seed 0 from the same game with '9' instead of '8' at "
            "ply 0 (its view(0) is equal), yet it is given different legal moves ['keep', 'swap'] and ['keep'], "
            "which tell it what its view hides: view(0) must show what seat 0's moves depend on",
        )
    ]


def test_an_exception_in_the_games_code_fails_the_check_with_its_line(tmp_path):
    # taking the whole heap now divides by zero
    path = variant(tmp_path, "unchecked", (", move)  # the fault: any move is taken", ", move // (self.heap - move))"))
    lines = path.read_text().splitlines()
    line = next(number for number, text in enumerate(lines, 1) if "move // (self.heap - move)" in text)
    report = check_game(load_game({"module": str(path)}), **QUICK)
    assert [check.name for check in report.checks] == list(CHECKS)  # every check ran
    playouts = next(check for check in report.checks if check.name == "playouts")
    assert playouts.message == (
        "playing ply 3 of the random game with seed 0 raised ZeroDivisionError: integer division or modulo by zero "
        f"(at {path}:{line}, in play: {lines[line - 1].strip()})"
    )


def test_a_game_whose_state_writes_neither_returns_nor_outcome_fails_its_contract(tmp_path):
    path = variant(tmp_path, "unchecked", ("    def returns(self)", "    def scores(self)"))
    report = check_game(load_game({"module": str(path)}), **QUICK)
    contract = next(check for check in report.checks if check.name == "contract")
    assert contract.message == (
        "NimState writes neither returns() nor outcome: write returns(), each seat's result at the end (higher is "
        "better), or outcome"
    )


# ---------------------------------------------------------------- arena game check


def test_arena_game_check_prints_the_checks_and_figures_and_exits_0_for_a_good_game(tmp_path):
    done = arena_here(
        "game", "check", str(GAMES_DIR / "swap_card.py"), "--seeds", "3", "--time-budget", "0", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "swap_card: 3 random games with 3 seats"
    rows = table_rows(done.stdout)
    assert [row[:2] for row in rows[: len(CHECKS)]] == [[name, "pass"] for name in CHECKS]
    assert [row[0] for row in rows[len(CHECKS) :]] == ["perft", "playouts per second", "mean length"]
    assert "FAIL" not in done.stdout and done.stderr == ""


def test_arena_game_check_names_each_failure_and_exits_1(tmp_path):
    done = arena_here(
        "game", "check", str(GAMES_DIR / "unchecked.py"), "--seeds", "3", "--time-budget", "0", cwd=tmp_path
    )
    assert done.returncode == 1
    rows = table_rows(done.stdout)
    assert [row[1] for row in rows[: len(CHECKS)]] == ["FAIL" if name == "legal-moves" else "pass" for name in CHECKS]
    message = {check: message for _, check, message in FAULTS}["legal-moves"]
    assert done.stdout.splitlines()[-1] == f"FAIL legal-moves: {message}"


def test_arena_game_check_labels_the_checks_of_each_seat_count(tmp_path):
    done = arena_here(
        "game", "check", str(GAMES_DIR / "bidding.py"), "--seeds", "2", "--time-budget", "0", cwd=tmp_path
    )
    assert done.returncode == 0
    assert done.stdout.splitlines()[0] == "lowest_unique_bid: 2 random games with 2, 4 seats"
    assert [row[:3] for row in table_rows(done.stdout)[:2]] == [["contract", "2", "pass"], ["playouts", "2", "pass"]]


def test_arena_game_check_json_with_a_parameter_read_as_yaml(tmp_path):
    done = arena_here(
        "game", "check", "othello", "--param", "size=6", "--seeds", "2", "--time-budget", "0", "--json", cwd=tmp_path
    )
    assert done.returncode == 0
    report = json.loads(done.stdout)
    assert (report["game"], report["passed"]) == ("othello (size 6)", True)
    assert report["checks"][0] == {
        "name": "contract",
        "players": 2,
        "passed": True,
        "message": "othello, 2 seats, max_length() = 72",
    }


def test_arena_game_check_with_players_checks_that_seat_count_only(tmp_path):
    args = ["--players", "3", "--seeds", "1", "--time-budget", "0", "--json"]
    done = arena_here("game", "check", str(GAMES_DIR / "bidding.py"), *args, cwd=tmp_path)
    assert done.returncode == 0
    assert {check["players"] for check in json.loads(done.stdout)["checks"]} == {3}


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["missing.py"], "game file 'missing.py' does not exist"),
        (
            ["nosuchgame"],
            "unknown game 'nosuchgame'; the games are: othello, tictactoe, uttt, xtreme, or a game of your own: a .py "
            "file (e.g. games/nim.py) or a dotted module",
        ),
        (["tictactoe", "--players", "3"], "--players 3: tictactoe is played by 2 seats"),
        (["othello", "--param", "size=7"], "game 'othello': parameter 'size' cannot be 7; choose one of 6, 8, 10"),
        (
            ["tictactoe", "--class", "TicTacToe"],
            "--class TicTacToe: 'tictactoe' is a game's name; --class picks the class of a game module (a .py file "
            "or a dotted module)",
        ),
    ],
)
def test_arena_game_check_of_a_game_it_cannot_load_says_why_and_exits_2(tmp_path, args, error):
    done = arena_here("game", "check", *args, cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", f"error: {error}\n")


# ---------------------------------------------------------------- arena game new


def test_arena_game_new_writes_a_game_that_passes_and_a_test_that_runs_green(tmp_path):
    done = arena_here("game", "new", "my_game", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        "wrote games/my_game.py and games/test_my_game.py: edit my_game.py into your game; check it with "
        "'arena game check games/my_game.py' or 'pytest games/test_my_game.py'\n"
    )
    code = (tmp_path / "games" / "my_game.py").read_text()
    assert "class MyGame(Game):" in code and 'name = "my_game"' in code and "emplate" not in code
    checked = arena_here("game", "check", "games/my_game.py", "--seeds", "5", "--time-budget", "0", cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout
    tested = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "games/test_my_game.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert tested.returncode == 0, tested.stdout
    assert "1 passed" in tested.stdout


def test_arena_game_new_never_writes_over_a_file(tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "test_nim.py").write_text("# mine\n")
    done = arena_here("game", "new", "nim", "--dir", "mine", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (
        2,
        "error: mine/test_nim.py already exists: 'arena game new' writes new files only; choose another name or "
        "--dir, or move the file away\n",
    )
    assert sorted(path.name for path in (tmp_path / "mine").iterdir()) == ["test_nim.py"]
    assert (tmp_path / "mine" / "test_nim.py").read_text() == "# mine\n"


def test_arena_game_new_takes_a_python_name_only(tmp_path):
    done = arena_here("game", "new", "my-game", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (
        2,
        "error: game name 'my-game': use letters, digits and _, starting with a letter (e.g. my_game); it names the "
        "game, its file and its test\n",
    )
    assert list(tmp_path.iterdir()) == []


def test_the_template_game_passes_every_check_both_ways():
    for params in ({}, {"misere": True}):
        report = check_game(load_game({"module": "arena.games.template"}, params), **QUICK)
        assert failures(report) == []
