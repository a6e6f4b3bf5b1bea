"""``arena standings``: the final standings as a table, JSON, and CSV for grading (to standard
output or a file), each place a tie-break decided saying which; names from the tournament file
shown as they are, never as markup, control characters or spreadsheet formulas."""

from __future__ import annotations

import csv
import io
import json
import sqlite3

import pytest

from tests.builders import FIRST_LEGAL, O_WINS, TTT, X_WINS, create, league_config, play_stage, scripted, set_status
from tests.fixtures.harnesskit import run_arena

#: the fixed league of tests/test_results.py: A and B score 2 with two wins each, A beating B;
#: C 1.5; D 0.5, with a timeout
LEAGUE_CSV = (
    "place,team,stage,pool,pool_rank,points,games,wins,draws,losses,forfeits,forfeit_kinds,rating,tie_break\n"
    "1,A,league,A,1,2,3,2,0,1,0,,12.3514,over B: head-to-head points 1 vs 0\n"
    "2,B,league,A,2,2,3,2,0,1,0,,9.2658,behind A: head-to-head points 0 vs 1\n"
    "3,C,league,A,3,1.5,3,1,1,1,0,,9.1802,\n"
    "4,D,league,A,4,0.5,3,0,1,2,1,timeout 1,6.2191,\n"
)
ESCAPES = "\x1b[2J\x1b]0;title\x07"
SHOWN = "\\x1b[2J\\x1b]0;title\\x07"


def rows_of(output: str) -> dict[str, list[str]]:
    """The cells of each row of a table printed by the command, by team."""
    rows = {}
    for line in output.splitlines():
        cells = [cell.strip() for cell in line.split("│")[1:-1]]
        if cells and cells[0].rstrip("*").isdigit():
            rows[cells[1]] = cells
    return rows


def test_the_table_gives_each_team_its_place_record_and_the_tie_break_that_decided_it(league_url):
    result = run_arena("standings", "league", "--db", league_url)
    assert result.exit_code == 0, result.output
    assert "league: tictactoe, final standings; 6/6 games, status finished" in result.output
    assert rows_of(result.output) == {
        "A": ["1*", "A", "league", "A 1", "2", "3", "2-0-1", "", "12.35"],
        "B": ["2*", "B", "league", "A 2", "2", "3", "2-0-1", "", "9.27"],
        "C": ["3", "C", "league", "A 3", "1.5", "3", "1-1-1", "", "9.18"],
        "D": ["4", "D", "league", "A 4", "0.5", "3", "0-1-2", "timeout 1", "6.22"],
    }
    below = result.output.split("┘\n", 1)[1].splitlines()
    assert below[:2] == ["* placed by a tie-break, points being level:", "  1. A over B: head-to-head points 1 vs 0"]


def test_a_course_sized_table_fits_a_terminal_of_100_columns(tmp_path):
    # its tie-break column once made it some 230 columns wide
    from tests.builders import synthesize

    url = f"sqlite:///{tmp_path / 'course.db'}"
    synthesize(url)
    result = run_arena("standings", "--db", url)
    table = [line for line in result.output.splitlines() if line[:1] in "┏┃┡│└"]
    assert len(table) > 72 and max(map(len, table)) <= 100
    assert "* placed by a tie-break, points being level:" in result.output


def test_the_csv_is_a_header_row_then_a_row_a_team(league_url):
    result = run_arena("standings", "--csv", "--db", league_url)
    assert result.exit_code == 0, result.output
    assert (result.stdout, result.stderr) == (LEAGUE_CSV, "")


def test_the_csv_goes_to_the_out_file_and_the_command_says_where(tmp_path, league_url):
    result = run_arena("standings", "--csv", "--out", str(tmp_path / "grades.csv"), "--db", league_url)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "grades.csv").read_text(encoding="utf-8") == LEAGUE_CSV
    assert result.stdout == f"Wrote the final standings of league (4 teams) to {tmp_path / 'grades.csv'}\n"


def test_the_json_gives_each_place_with_the_tie_breaks_that_decided_it(tmp_path, league_url):
    result = run_arena("standings", "--json", "--db", league_url)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert {key: data[key] for key in ("tournament", "complete", "note", "scoring")} == {
        "tournament": "league",
        "complete": True,
        "note": None,
        "scoring": "standard",
    }
    first, second, _, last = data["standings"]
    assert first == {
        "place": 1,
        "team": "A",
        "stage": "league",
        "pool": "A",
        "pool_rank": 1,
        "points": 2.0,
        "games": 3,
        "wins": 2,
        "draws": 0,
        "losses": 1,
        "forfeits": {},
        "rating": 12.3514,
        "tie_breaks": [
            {
                "rule": "head_to_head",
                "won": True,
                "against": "B",
                "values": [1.0, 0.0],
                "text": "over B: head-to-head points 1 vs 0",
            }
        ],
    }
    assert second["tie_breaks"] == [
        {
            "rule": "head_to_head",
            "won": False,
            "against": "A",
            "values": [0.0, 1.0],
            "text": "behind A: head-to-head points 0 vs 1",
        }
    ]
    assert (last["team"], last["forfeits"], last["tie_breaks"]) == ("D", {"timeout": 1}, [])
    written = run_arena("standings", "--json", "-o", str(tmp_path / "s.json"), "--db", league_url)
    assert written.exit_code == 0, written.output
    assert json.loads((tmp_path / "s.json").read_text(encoding="utf-8")) == data


def test_places_a_tie_the_games_between_them_left_open_name_the_ratings(tmp_path):
    # P beats Q beats R beats P, and all beat S: three teams level on everything but the rating
    url = f"sqlite:///{tmp_path / 'cycle.db'}"
    config = {
        "name": "cycle",
        "game": "tictactoe",
        "bots": {t: {"path": FIRST_LEGAL} for t in "PQRS"},
        "stages": [{"name": "league", "seeding": "order", "games_per_pair": 1}],
    }
    sessions, tid = create(url, config)
    winners = "PQRQPR"  # schedule: P-S R-Q R-P Q-S P-Q S-R
    play_stage(
        sessions, tid, 0, lambda row, a, b: scripted(TTT, row.id, X_WINS if winners[row.id - 1] == a else O_WINS)
    )
    data = json.loads(run_arena("standings", "--json", "--db", url).stdout)
    leaderboard = json.loads(run_arena("leaderboard", "--json", "--db", url).stdout)["leaderboard"]
    rating = {line["team"]: line["rating"] for line in leaderboard}
    top = [p["team"] for p in data["standings"][:3]]
    assert top == sorted("PQR", key=lambda t: -rating[t])
    first, second, third = top
    assert [p["tie_breaks"][-1]["text"] for p in data["standings"][:2]] == [
        f"over {second}: TrueSkill μ−3σ {rating[first]:.2f} vs {rating[second]:.2f}",
        f"over {third}: TrueSkill μ−3σ {rating[second]:.2f} vs {rating[third]:.2f}",
    ]
    assert [[t["rule"] for t in p["tie_breaks"]] for p in data["standings"]] == [
        ["rating"],
        ["rating", "rating"],
        ["rating"],
        [],
    ]


def test_without_a_name_the_latest_tournament_is_placed_and_an_unfinished_one_says_so(league_url):
    create(league_url, league_config("league-2"))
    data = json.loads(run_arena("standings", "--json", "--db", league_url).stdout)
    assert (data["tournament"], data["complete"]) == ("league-2", False)
    assert data["note"] == "This tournament has not started yet: 0 of 6 games played."
    result = run_arena("standings", "--csv", "--db", league_url)
    assert result.stdout.splitlines()[0].startswith("place,team,")
    assert result.stderr == "This tournament has not started yet: 0 of 6 games played.\n"


def test_csv_and_json_at_once_are_refused(league_url):
    result = run_arena("standings", "--csv", "--json", "--db", league_url)
    assert result.exit_code != 0
    assert str(result.exception) == "--csv and --json are two formats: give one of them"


def test_out_without_a_format_is_refused(tmp_path, league_url):
    result = run_arena("standings", "--out", str(tmp_path / "s.csv"), "--db", league_url)
    assert str(result.exception) == "--out writes the --csv or --json output: add --csv or --json"
    assert not (tmp_path / "s.csv").exists()


def test_an_out_file_that_cannot_be_written_is_an_error_saying_so(tmp_path, league_url):
    result = run_arena("standings", "--csv", "--out", str(tmp_path), "--db", league_url)
    assert str(result.exception) == (
        f"cannot write {str(tmp_path)!r}: Is a directory; give --out a file that can be written"
    )


# ---------------------------------------------------------------- hostile names

HOSTILE = ("[red]Red[/]", "<b>Bold</b>", "=1+2", "@SUM(A1)")


@pytest.fixture
def hostile_url(tmp_path):
    """A finished league of teams whose names are markup and formulas, the first with terminal
    escapes added by hand (as a database written before names were checked could hold them);
    the first seat wins every game."""
    url = f"sqlite:///{tmp_path / 'hostile.db'}"
    config = {
        "name": "hostile",
        "game": "tictactoe",
        "bots": {"a": {"path": FIRST_LEGAL}},
        "teams": dict.fromkeys(HOSTILE, "a"),
        "stages": [{"name": "league", "seeding": "order", "games_per_pair": 1}],
    }
    sessions, tid = create(url, config)
    play_stage(sessions, tid, 0, lambda row, a, b: scripted(TTT, row.id, X_WINS))
    set_status(sessions, tid, "finished")
    with sqlite3.connect(tmp_path / "hostile.db") as connection:
        connection.execute("UPDATE entries SET team = team || ? WHERE team = ?", (ESCAPES, HOSTILE[0]))
    return url


def test_names_in_the_table_are_shown_as_they_are_with_control_characters_escaped(hostile_url):
    result = run_arena("standings", "--db", hostile_url)
    assert result.exit_code == 0, result.output
    assert set(rows_of(result.output)) == {"[red]Red[/]" + SHOWN, "<b>Bold</b>", "=1+2", "@SUM(A1)"}
    assert "\x1b" not in result.output


def test_names_in_the_csv_cannot_start_a_formula_or_hold_control_characters(hostile_url):
    result = run_arena("standings", "--csv", "--db", hostile_url)
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert sorted(row["team"] for row in rows) == sorted(["'=1+2", "'@SUM(A1)", "<b>Bold</b>", "[red]Red[/]" + SHOWN])
    assert "\x1b" not in result.stdout


def test_names_in_the_json_are_as_stored(hostile_url):
    data = json.loads(run_arena("standings", "--json", "--db", hostile_url).stdout)
    assert sorted(p["team"] for p in data["standings"]) == sorted(
        ["=1+2", "@SUM(A1)", "<b>Bold</b>", "[red]Red[/]" + ESCAPES]
    )


def test_names_in_the_reports_standings_are_escaped(tmp_path, hostile_url):
    from arena.results.report import write_report
    from arena.store.database import open_store

    write_report(open_store(hostile_url), "hostile", tmp_path / "site")
    index = (tmp_path / "site/index.html").read_text()
    section = index.split('<section id="final-standings">', 1)[1].split("</section>", 1)[0]
    assert "&lt;b&gt;Bold&lt;/b&gt;" in section and "<b>" not in section
    assert '<tr data-team="=1+2">' in section and "[red]Red[/]" in section
