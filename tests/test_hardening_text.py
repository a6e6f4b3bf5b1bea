"""Text from bots and files is hostile: a lone surrogate (``json.loads`` makes one of the escape
``"\\udcff"``) failed every write of it to SQLite, stopping a tournament for good, and terminal
escape sequences in names, docstrings and messages reached the terminal. Text is cleaned where it
enters (the protocol reader, the tournament file, the store as a last line of defence) and shown
escaped on every terminal output (``arena.core.text``)."""

from __future__ import annotations

import json
import sqlite3
import sys

import pytest

from arena.contests.config import parse_config
from arena.errors import ConfigError
from arena.store.database import open_store
from arena.store.models import Bot
from tests.fixtures.harnesskit import BOTS, COMMANDS, arena, without_root_warning

TWO_BOTS = "  a: {module: bots.randombot}\n  b: {module: bots.randombot}\n"
ESCAPES = "\x1b[2J\x1b]0;title\x07"
SHOWN = "\\x1b[2J\\x1b]0;title\\x07"

# ---------------------------------------------------------------- the store


def test_the_store_writes_any_text_cleaned(tmp_path):
    sessions = open_store(f"sqlite:///{tmp_path / 'a.db'}")
    with sessions.begin() as session:
        session.add(
            Bot(name="b\udcff", kind="python", target="t\0", description="\ud800 " + ESCAPES, games=["g\udcff"])
        )
    with sessions.begin() as session:
        bot = session.query(Bot).one()
        stored = (bot.name, bot.target, bot.description, bot.games)
    assert stored == ("b\ufffd", "t", "\ufffd " + ESCAPES, ["g\ufffd"])


def test_a_query_for_text_with_a_lone_surrogate_is_answered(tmp_path):
    sessions = open_store(f"sqlite:///{tmp_path / 'a.db'}")
    with sessions.begin() as session:
        session.add(Bot(name="x\ufffd", kind="python", target="t"))
    with sessions.begin() as session:
        assert [bot.name for bot in session.query(Bot).filter(Bot.name == "x\udcff")] == ["x\ufffd"]


# ---------------------------------------------------------------- a whole tournament


TOURNAMENT = f"""\
name: bad-text
game: tictactoe
time: {{move: 5.0}}
workers: 1
bots:
  good: {{path: {BOTS / "first_legal.py"}}}
  bad: {{command: {sys.executable} {COMMANDS / "errs_with_bad_text.py"}}}
stages:
  - {{games_per_pair: 1}}
"""


@pytest.fixture(scope="module")
def bad_text_run(tmp_path_factory):
    """``bad-text`` run, then run again (a resume with nothing left), in a folder of its own."""
    folder = tmp_path_factory.mktemp("bad-text")
    (folder / "t.yaml").write_text(TOURNAMENT)
    url = f"sqlite:///{folder / 'arena.sqlite3'}"
    first = arena("run", "t.yaml", "--db", url, "-q", cwd=folder)
    again = arena("run", "t.yaml", "--db", url, "-q", cwd=folder)
    games = arena("games", "--db", url, cwd=folder)
    return folder, first, again, games


def test_a_bot_error_message_with_a_lone_surrogate_is_stored_and_the_game_finished(bad_text_run):
    folder, first, _, _ = bad_text_run
    assert (first.returncode, without_root_warning(first.stderr)) == (0, "")
    with sqlite3.connect(folder / "arena.sqlite3") as connection:
        stored = connection.execute("SELECT status, termination, offender, detail FROM games").fetchall()
    assert stored == [("finished", "crash", 1, "\ufffd bad text " + ESCAPES)]


def test_a_tournament_with_such_a_message_resumes(bad_text_run):
    _, _, again, _ = bad_text_run
    assert (again.returncode, without_root_warning(again.stderr)) == (0, "")


def test_the_games_listing_of_such_a_tournament_works(bad_text_run):
    _, _, _, games = bad_text_run
    assert games.returncode == 0, games.stderr
    assert "crash (bad)" in games.stdout


def test_a_forfeit_detail_with_terminal_escapes_is_replayed_escaped(bad_text_run):
    folder, _, _, _ = bad_text_run
    replay = arena("replay", "1", "--db", f"sqlite:///{folder / 'arena.sqlite3'}", cwd=folder)
    assert replay.returncode == 0, replay.stderr
    assert f"(\ufffd bad text {SHOWN})" in replay.stdout
    assert "\x1b" not in replay.stdout + replay.stderr


# ---------------------------------------------------------------- names in the tournament file


@pytest.mark.parametrize(
    ("yaml_name", "shown"),
    [('"a\\udcff"', "'a\\udcff'"), ('"a\\e[2J"', "'a\\x1b[2J'"), ('"a\\tb"', "'a\\tb'")],
    ids=["surrogate", "escape", "tab"],
)
def test_a_team_name_with_a_surrogate_or_a_control_character_is_refused_naming_it(yaml_name, shown):
    with pytest.raises(ConfigError) as error:
        parse_config(f"name: t\ngame: tictactoe\nbots:\n{TWO_BOTS}teams:\n  {yaml_name}: a\n  y: b\n", "t.yaml")
    assert str(error.value) == (
        "t.yaml is not a valid tournament:\n"
        f"  teams: team {shown}: a name cannot hold control characters or invalid text (a "
        "lone surrogate)"
    )


def test_a_bot_name_with_a_terminal_escape_is_refused_naming_it():
    with pytest.raises(ConfigError) as error:
        parse_config(
            'name: t\ngame: tictactoe\nbots:\n  "x\\e]0;title\\a": {module: bots.randombot}\n' + TWO_BOTS, "t.yaml"
        )
    assert str(error.value) == (
        "t.yaml is not a valid tournament:\n  bots: bot 'x\\x1b]0;title\\x07': a name cannot "
        "hold control characters or invalid text (a lone surrogate)"
    )


def test_a_stage_name_with_a_control_character_is_refused_naming_it():
    with pytest.raises(ConfigError) as error:
        parse_config("name: t\ngame: tictactoe\nbots:\n" + TWO_BOTS + 'stages:\n  - {name: "x\\ry"}\n', "t.yaml")
    assert str(error.value) == (
        "t.yaml is not a valid tournament:\n  stages.0.name: 'x\\ry': a name cannot hold "
        "control characters or invalid text (a lone surrogate)"
    )


def test_other_text_of_the_tournament_file_is_cleaned():
    config = parse_config(
        'name: t\ngame: tictactoe\nbots:\n  a: {module: "bots.x\\udcff", params: {k: "v\\0"}}\n'
        "  b: {module: bots.randombot}\n"
    )
    assert (config.bots["a"].module, config.bots["a"].params) == ("bots.x\ufffd", {"k": "v"})


def test_a_name_of_ten_thousand_characters_is_refused():
    with pytest.raises(ConfigError) as error:
        parse_config(
            f"name: t\ngame: tictactoe\nbots:\n  ? {'n' * 10_000}\n  : {{module: bots.randombot}}\n" + TWO_BOTS,
            "t.yaml",
        )
    assert str(error.value).endswith(": a name has at most 100 characters; this one has 10000")


def test_an_empty_team_name_is_refused():
    with pytest.raises(ConfigError) as error:
        parse_config(f"name: t\ngame: tictactoe\nbots:\n{TWO_BOTS}teams:\n  '': a\n  ' ': b\n", "t.yaml")
    assert str(error.value) == (
        "t.yaml is not a valid tournament:\n  teams: team '': a name cannot be empty\n"
        "  teams: team ' ': a name cannot be empty"
    )


def test_a_tournament_name_ending_in_a_newline_is_refused():
    with pytest.raises(ConfigError) as error:
        parse_config('name: "t\\n"\ngame: tictactoe\nbots:\n' + TWO_BOTS, "t.yaml")
    assert str(error.value) == (
        "t.yaml is not a valid tournament:\n  name: use letters, digits, spaces and . _ + - (at most 100)"
    )


# ---------------------------------------------------------------- the terminal


def test_a_docstring_with_a_surrogate_and_escapes_is_stored_and_listed_escaped(cli):
    assert cli("register", str(BOTS / "bad_text_docstring.py"), "--name", "docs").exit_code == 0
    listing = cli("bots")
    assert listing.exit_code == 0, listing.output
    assert f"Plays the first legal move \ufffd {SHOWN} (a lone surrogate" in listing.output
    assert "\x1b" not in listing.output
    (bot,) = [row for row in json.loads(cli("bots", "--json").stdout) if not row["built_in"]]
    assert bot["description"] == f"Plays the first legal move \ufffd {ESCAPES} (a lone surrogate, terminal escapes)."


def test_an_error_message_quoting_a_bot_shows_its_escapes_escaped(tmp_path):
    result = arena(
        "register",
        str(BOTS / "fails_to_import_with_escapes.py"),
        "--db",
        f"sqlite:///{tmp_path / 'a.db'}",
        cwd=tmp_path,
    )
    assert result.returncode == 2
    assert f"RuntimeError: cannot start {SHOWN}" in result.stderr
    assert "\x1b" not in result.stderr


def test_a_command_line_word_with_terminal_escapes_is_refused_shown_escaped(tmp_path):
    result = arena("run", "\x1b]0;title\x07.yaml", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (
        2,
        "error: argument 2 (\\x1b]0;title\\x07.yaml) holds control "
        "characters; rename the file (or folder) or leave them out\n",
    )


@pytest.fixture
def hostile_names(cli, tmp_path):
    """A finished tournament whose team, bot and stage names were then given terminal escapes by
    hand (as a database written before names were checked could hold them)."""
    (tmp_path / "t.yaml").write_text(
        f"name: t\ngame: tictactoe\nbots:\n  a: {{path: {BOTS / 'first_legal.py'}}}\n"
        f"  b: {{path: {BOTS / 'first_legal.py'}}}\nstages:\n  - {{games_per_pair: 1}}\n"
    )
    assert cli("run", str(tmp_path / "t.yaml"), "-q").exit_code == 0
    with sqlite3.connect(tmp_path / "arena.sqlite3") as connection:
        connection.execute("UPDATE entries SET team = team || ?", (ESCAPES,))
        connection.execute("UPDATE bots SET name = name || ?, description = ?", (ESCAPES, ESCAPES))
        connection.execute("UPDATE tournaments SET status = status || ?", (ESCAPES,))
    return cli


@pytest.mark.parametrize(
    "command", [["games"], ["bots"], ["tournaments"], ["leaderboard", "t"], ["leaderboard", "t", "--rating", "elo"]]
)
def test_listings_show_terminal_escapes_in_stored_names_escaped(hostile_names, command):
    result = hostile_names(*command)
    assert result.exit_code == 0, result.output
    assert SHOWN in result.output
    assert "\x1b" not in result.output


JSON_FIELDS = {"games": ("first", "second"), "bots": ("name",), "tournaments": ("status",)}


@pytest.mark.parametrize("command", sorted(JSON_FIELDS))
def test_json_listings_give_stored_names_as_they_are_in_valid_json(hostile_names, command):
    result = hostile_names(command, "--json")
    assert result.exit_code == 0, result.output
    rows = [row for row in json.loads(result.output) if not row.get("built_in")]
    texts = sorted(row[field] for row in rows for field in JSON_FIELDS[command])
    expected = {"games": ["a", "b"], "bots": ["a", "b"], "tournaments": ["finished"]}[command]
    assert texts == [text + ESCAPES for text in expected]
