"""Input shaped to hurt: YAML that expands to gigabytes or nests past the stack, files that never
end or never open, numbers too large to mean anything, quotes that never close, names ten
thousand characters long. Each is a one-line error (exit status 2, no traceback) within bounded
time and memory. (Bot replies shaped to hurt: tests/test_hardening_replies.py.)"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
from pathlib import Path

import pytest

from arena.contests.config import load_config, parse_config
from arena.contests.rating import RatingError, replay_ratings
from arena.contests.yamlfile import MAX_FILE, load_yaml
from arena.errors import ConfigError
from tests.fixtures.harnesskit import WIDE, arena, arena_here

TWO_BOTS = "bots:\n  a: {module: bots.randombot}\n  b: {module: bots.randombot}\n"
HEADER = "name: t\ngame: tictactoe\n"
#: nine anchors, each a list of nine aliases of the one before: 9**9 values once expanded
BILLION_LAUGHS = "a: &a [x,x,x,x,x,x,x,x,x]\n" + "".join(
    f"{name}: &{name} [{','.join(['*' + before] * 9)}]\n" for before, name in zip("abcdefgh", "bcdefghi")
)
MEMORY = 1 << 30


def bounded_arena(*args: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess:
    """The real ``arena`` command with at most 1 GiB of address space and ``timeout`` seconds."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))

    return subprocess.run(
        [shutil.which("arena") or "arena", *args, "--db", f"sqlite:///{cwd / 'a.db'}"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=limit,
        env={**os.environ, **WIDE},
    )


# ---------------------------------------------------------------- numbers in the tournament file


NUMBER_ERRORS = {
    "infinite-move-time": ("time: {move: .inf}", "time.move: Input should be a finite number"),
    "huge-move-time": (
        "time: {move: 1.0e+300}",
        "time.move: at most 86400 seconds (a day); null for no limit; got 1e+300",
    ),
    "nan-grace": ("time: {grace: .nan}", "time.grace: Input should be a finite number"),
    "negative-grace": ("time: {grace: -1}", "time.grace: Input should be greater than or equal to 0"),
    "long-grace": ("time: {grace: 61}", "time.grace: at most 60 seconds; got 61"),
    "long-startup": ("time: {startup: 3601}", "time.startup: at most 3600 seconds (an hour); got 3601"),
    "huge-memory": (
        "limits: {memory_mb: 1.0e+20}",
        "limits.memory_mb: at most 1048576 MB (1 TiB); null for no limit; got 1e+20",
    ),
    "huge-file-size": (
        "limits: {file_size_mb: 2000000}",
        "limits.file_size_mb: at most 1048576 MB (1 TiB); null for no limit; got 2000000",
    ),
    "huge-seed": ("seed: 99999999999999999999", "seed: Input should be less than 9223372036854775808"),
    "huge-sigma": ("rating: {sigma: 1.0e+300}", "rating.sigma: Input should be less than or equal to 1000000"),
}


@pytest.mark.parametrize("case", NUMBER_ERRORS)
def test_a_number_out_of_bounds_is_refused_naming_its_field(case):
    line, message = NUMBER_ERRORS[case]
    with pytest.raises(ConfigError) as error:
        parse_config(HEADER + line + "\n" + TWO_BOTS, "t.yaml")
    assert str(error.value) == "t.yaml is not a valid tournament:\n  " + message


def test_a_stage_of_more_games_than_the_limit_is_refused():
    bots = "".join(f"  b{number}: {{module: bots.randombot}}\n" for number in range(1000))
    with pytest.raises(ConfigError) as error:
        parse_config(HEADER + "bots:\n" + bots + "stages:\n  - {name: all, games_per_pair: 3}\n", "t.yaml")
    assert str(error.value) == (
        "t.yaml is not a valid tournament:\n  stages.0: stage 'all' would play 1,498,500 "
        "games; a stage plays at most 1,000,000 (fewer teams a pool, or fewer games a pair)"
    )


def test_rating_settings_that_make_trueskill_fail_are_an_error_naming_them():
    from arena.contests.config import RatingDef

    settings = RatingDef(mu=1e4, sigma=1e-3, beta=1e4, tau=0, draw_probability=0)
    places = {0: (0, 1), 1: (1, 0), None: (0, 0)}
    games = [(number, ("a", "b"), places[[0, 0, 1, None, 0][number % 5]]) for number in range(500)]
    with pytest.raises(RatingError) as error:
        replay_ratings(["a", "b"], games, settings)
    assert str(error.value).startswith("TrueSkill cannot rate game ")
    assert "(mu 10000, sigma 0.001, beta 10000, tau 0, draw_probability 0): " in str(error.value)


@pytest.mark.parametrize("command", [["register", "bots.randombot"], ["play", "tictactoe", "--bot", "bots.randombot"]])
@pytest.mark.parametrize("value", ["1e300", "inf", "nan", "-1"])
def test_a_move_time_out_of_bounds_on_the_command_line_is_refused_naming_the_option(cli, command, value):
    result = cli(*command, "--move-time", value)
    assert result.exit_code == 2
    assert "Invalid value for '--move-time'" in result.output


def test_a_replay_delay_too_long_to_sleep_is_refused_naming_the_option(cli):
    result = cli("replay", "1", "--delay", "1e300")
    assert result.exit_code == 2
    assert "Invalid value for '--delay'" in result.output


#: command lines the parser refuses -> the usage line's start, the help hint and the error line
COMMAND_LINE_MISTAKES = {
    "missing-argument": (
        ["games", "show"],
        ("Usage: arena games show ", "Try 'arena games show --help' for help.", "error: missing argument 'game_id'."),
    ),
    "missing-option": (
        ["play", "tictactoe"],
        ("Usage: arena play ", "Try 'arena play --help' for help.", "error: missing option '--bot' / '-b'."),
    ),
    "value-out-of-range": (
        ["games", "--limit", "0"],
        (
            "Usage: arena games ",
            "Try 'arena games --help' for help.",
            "error: invalid value for '--limit': Input should be greater than or equal to 1",
        ),
    ),
    "unknown-command": (
        ["nosuch"],
        ("Usage: arena ", "Try 'arena --help' for help.", "error: no such command 'nosuch'."),
    ),
}


@pytest.mark.parametrize("case", COMMAND_LINE_MISTAKES)
def test_a_command_line_mistake_says_error_as_arena_does_after_the_usage_and_exits_2(tmp_path, case):
    words, (usage, hint, message) = COMMAND_LINE_MISTAKES[case]
    result = arena_here(*words, cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.splitlines()[0].startswith(usage)
    assert result.stderr.splitlines()[1:] == [hint, message]


def test_the_installed_command_says_error_for_a_bad_option_value_as_for_its_own_errors(tmp_path):
    bad_value = arena("replay", "1", "--delay", "1e300", "--db", f"sqlite:///{tmp_path / 'a.db'}", cwd=tmp_path)
    no_game = arena("replay", "1", "--db", f"sqlite:///{tmp_path / 'a.db'}", cwd=tmp_path)
    assert (bad_value.returncode, no_game.returncode) == (2, 2)
    assert bad_value.stderr.splitlines()[1:] == [
        "Try 'arena replay --help' for help.",
        "error: invalid value for '--delay' / '-d': Input should be less than or equal to 60",
    ]
    assert no_game.stderr.startswith("error: no game 1 in this database")
    assert "Error" not in bad_value.stderr + no_game.stderr


# ---------------------------------------------------------------- YAML


def test_a_billion_laughs_file_is_refused_quickly_and_in_bounded_memory(tmp_path):
    (tmp_path / "t.yaml").write_text(BILLION_LAUGHS)
    result = bounded_arena("run", "t.yaml", cwd=tmp_path, timeout=30)
    assert (result.returncode, result.stderr) == (
        2,
        "error: t.yaml is refused: it holds more than 100,000 values once its aliases are expanded\n",
    )


def test_aliases_that_expand_moderately_are_read():
    text = "a: &a [1, 2, 3]\nb: [*a, *a, *a]\n"
    assert load_yaml(text, "t.yaml") == {"a": [1, 2, 3], "b": [[1, 2, 3]] * 3}


def test_a_file_nested_thousands_deep_is_refused_in_bounded_memory(tmp_path):
    (tmp_path / "t.yaml").write_text("name: " + "[" * 100_000)
    result = bounded_arena("run", "t.yaml", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (
        2,
        "error: t.yaml is refused: it nests deeper than 32 levels at line 1, column 38\n",
    )


def test_a_chain_of_aliases_nesting_deeper_than_the_limit_is_refused():
    text = "a0: &a0 [1]\n" + "".join(f"a{n}: &a{n} [*a{n - 1}]\n" for n in range(1, 40))
    with pytest.raises(ConfigError) as error:
        load_yaml(text, "t.yaml")
    assert str(error.value) == "t.yaml is refused: it nests deeper than 32 levels once its aliases are expanded"


def test_an_alias_inside_its_own_anchor_is_refused():
    with pytest.raises(ConfigError) as error:
        load_yaml("a: &a [1, *a]\n", "t.yaml")
    assert str(error.value) == "t.yaml is refused: an alias refers to a node that contains it"


def test_a_value_python_cannot_make_is_a_config_error():
    with pytest.raises(ConfigError) as error:
        load_yaml("when: 2019-13-45\n", "t.yaml")
    assert str(error.value) == "t.yaml: a value cannot be read: month must be in 1..12"


def test_parameters_yaml_cannot_store_as_json_are_refused():
    with pytest.raises(ConfigError) as error:
        parse_config(
            HEADER + "bots:\n  a: {module: bots.randombot, params: {day: 2019-12-25}}\n  b: {module: bots.randombot}\n",
            "t.yaml",
        )
    assert str(error.value) == (
        "t.yaml is not a valid tournament:\n  bots.a.params: parameters are text, numbers, "
        "true/false, null, lists and mappings; not datetime.date(2019, 12, 25) (a date)"
    )


# ---------------------------------------------------------------- files


def test_the_tournament_file_dev_zero_is_refused(tmp_path):
    result = bounded_arena("run", "/dev/zero", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (
        2,
        "error: the tournament file '/dev/zero' is not a regular file; give a YAML file\n",
    )


def test_a_fifo_as_the_tournament_file_is_refused_without_waiting_for_a_writer(tmp_path):
    os.mkfifo(tmp_path / "t.yaml")
    result = bounded_arena("run", "t.yaml", cwd=tmp_path, timeout=30)
    assert (result.returncode, result.stderr) == (
        2,
        "error: the tournament file 't.yaml' is not a regular file; give a YAML file\n",
    )


def test_a_roster_that_is_dev_zero_is_refused(tmp_path):
    (tmp_path / "t.yaml").write_text(HEADER + "roster: /dev/zero\n")
    result = bounded_arena("run", "t.yaml", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (
        2,
        "error: the roster '/dev/zero' is not a regular file; give a YAML file\n",
    )


def test_a_folder_as_the_tournament_file_is_refused(tmp_path):
    with pytest.raises(ConfigError) as error:
        load_config(tmp_path)
    assert str(error.value) == f"the tournament file {str(tmp_path)!r} is a folder; give a YAML file"


def test_a_tournament_file_larger_than_the_limit_is_refused(tmp_path):
    (tmp_path / "t.yaml").write_text("#" * MAX_FILE + "\n")
    with pytest.raises(ConfigError) as error:
        load_config(tmp_path / "t.yaml")
    assert str(error.value) == (
        f"the tournament file {str(tmp_path / 't.yaml')!r} is larger than 1024 KiB; a "
        "tournament file is a few lines of YAML"
    )


def test_a_binary_roster_is_refused(tmp_path):
    (tmp_path / "t.yaml").write_text(HEADER + "roster: r.yaml\n")
    (tmp_path / "r.yaml").write_bytes(b"bots:\n  a: {module: bots.randombot}\n\xff\xfe\x00")
    with pytest.raises(ConfigError) as error:
        load_config(tmp_path / "t.yaml")
    assert str(error.value) == (
        f"the roster {str(tmp_path / 'r.yaml')!r} is not UTF-8 text (byte 37, line 3); save it as UTF-8"
    )


def test_a_roster_nested_thousands_deep_is_refused(tmp_path):
    (tmp_path / "t.yaml").write_text(HEADER + "roster: r.yaml\n")
    (tmp_path / "r.yaml").write_text("bots: " + "{a: " * 5000)
    with pytest.raises(ConfigError) as error:
        load_config(tmp_path / "t.yaml")
    assert str(error.value) == "roster 'r.yaml' is refused: it nests deeper than 32 levels at line 1, column 128"


def test_a_file_name_that_is_not_utf8_is_refused(tmp_path):
    name = os.fsdecode(b"t\xff.yaml")
    (tmp_path / name).write_text(HEADER + TWO_BOTS)
    result = subprocess.run(
        [shutil.which("arena") or "arena", "run", os.fsencode(name)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **WIDE},
    )
    assert (result.returncode, result.stderr) == (
        2,
        "error: argument 2 (t\\xff.yaml) is not valid UTF-8: arena keeps "
        "names and paths as UTF-8 text; rename the file (or folder) or "
        "give the word in UTF-8\n",
    )


def test_a_tournament_in_a_folder_whose_name_is_not_utf8_is_refused(tmp_path):
    folder = tmp_path / os.fsdecode(b"d\xff")
    folder.mkdir()
    (folder / "t.yaml").write_text(HEADER + TWO_BOTS)
    result = subprocess.run(
        [shutil.which("arena") or "arena", "run", "t.yaml"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **WIDE},
    )
    assert (result.returncode, result.stderr) == (
        2,
        f"error: the tournament file's folder ({tmp_path}/d\\xff) is not "
        "valid UTF-8: arena keeps names and paths as UTF-8 text; rename "
        "the file (or folder) or give the word in UTF-8\n",
    )


# ---------------------------------------------------------------- commands


def test_a_command_with_an_unclosed_quote_in_the_tournament_file_is_refused_naming_the_bot():
    with pytest.raises(ConfigError) as error:
        parse_config(
            HEADER + 'bots:\n  a: {command: "python3 \'unterminated"}\n  b: {module: bots.randombot}\n', "t.yaml"
        )
    assert str(error.value) == (
        't.yaml is not a valid tournament:\n  bots.a: the command line "python3 '
        "'unterminated\" cannot be split into words (No closing quotation); check its "
        "quotes"
    )


def test_a_command_word_longer_than_a_file_name_may_be_is_refused_naming_it():
    with pytest.raises(ConfigError) as error:
        parse_config(
            HEADER + f"bots:\n  a: {{command: python3 bot.py {'x' * 300}}}\n  b: {{module: bots.randombot}}\n", "t.yaml"
        )
    assert str(error.value) == (
        "t.yaml is not a valid tournament:\n  bots.a: word 3 of the command line is longer "
        "than a file name or path may be (255 and 4095 bytes); pass long data in a file"
    )


def test_a_command_with_an_unclosed_quote_is_not_registered(cli):
    result = cli("register", "--command", "python3 'unterminated", "--name", "q")
    assert str(result.exception) == (
        '--command: the command line "python3 \'unterminated" cannot be split into '
        "words (No closing quotation); check its quotes"
    )


def test_a_parameter_nested_thousands_deep_is_refused(cli):
    result = cli("register", "bots.randombot", "--param", "x=" + "[" * 5000)
    assert str(result.exception) == "--param 'x' is refused: it nests deeper than 32 levels at line 1, column 33"


def test_a_parameter_of_a_billion_laughs_is_refused(cli):
    laughs = (
        "{a: &a [x,x,x,x,x,x,x,x,x], "
        + ", ".join(f"{name}: &{name} [{','.join(['*' + before] * 9)}]" for before, name in zip("abcdefgh", "bcdefghi"))
        + "}"
    )
    result = cli("register", "bots.randombot", "--param", "x=" + laughs)
    assert (
        str(result.exception) == "--param 'x' is refused: it holds more than 100,000 values once its aliases are "
        "expanded"
    )


def test_a_parameter_json_cannot_store_is_refused(cli):
    result = cli("register", "bots.randombot", "--param", "day=2019-12-25")
    assert str(result.exception) == (
        "--param 'day=2019-12-25': a value is text, a number, true/false, null, a list "
        "or a mapping; not datetime.date(2019, 12, 25) (a date)"
    )


def test_a_bot_name_of_ten_thousand_characters_is_not_registered(cli):
    result = cli("register", "bots.randombot", "--name", "n" * 10_000)
    assert str(result.exception) == (
        "the bot name " + repr("n" * 10_000) + " will not do: a name has at most 100 "
        "characters; this one has 10000; choose another with --name"
    )


def test_an_empty_command_is_not_registered(cli):
    result = cli("register", "--command", " ")
    assert str(result.exception) == "--command: the command line is empty"


def test_a_run_name_that_is_not_a_name_is_refused(cli, tmp_path):
    (tmp_path / "t.yaml").write_text(HEADER + TWO_BOTS)
    result = cli("run", str(tmp_path / "t.yaml"), "--name", "x\udcff")
    assert str(result.exception) == "--name 'x\\udcff': use letters, digits, spaces and . _ + - (at most 100)"


def test_a_report_into_an_existing_file_is_refused(cli, tmp_path):
    (tmp_path / "t.yaml").write_text(HEADER + TWO_BOTS + "stages:\n  - {games_per_pair: 1}\n")
    assert cli("run", str(tmp_path / "t.yaml"), "-q").exit_code == 0
    (tmp_path / "out").write_text("mine")
    result = cli("report", "--out", str(tmp_path / "out"))
    assert str(result.exception) == (
        f"cannot write the report to {str(tmp_path / 'out')!r}: it is a file, not a "
        "folder; give --out a folder (it is created if need be)"
    )
    assert (tmp_path / "out").read_text() == "mine"


def test_a_report_under_a_file_is_refused(cli, tmp_path):
    (tmp_path / "t.yaml").write_text(HEADER + TWO_BOTS + "stages:\n  - {games_per_pair: 1}\n")
    assert cli("run", str(tmp_path / "t.yaml"), "-q").exit_code == 0
    result = cli("report", "--out", str(tmp_path / "t.yaml" / "out"))
    assert str(result.exception).startswith(
        f"cannot write the report to {str(tmp_path / 't.yaml' / 'out')!r}: Not a directory ("
    )


@pytest.mark.parametrize("command", [["run", "t.yaml"], ["tournaments"], ["register", "bots.randombot"]])
def test_a_database_that_is_a_folder_is_refused_naming_it(tmp_path, monkeypatch, command):
    from tests.fixtures.harnesskit import run_arena

    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.yaml").write_text(HEADER + TWO_BOTS)
    (tmp_path / "db").mkdir()
    result = run_arena(*command, "--db", f"sqlite:///{tmp_path / 'db'}")
    assert str(result.exception) == (
        f"the database {str(tmp_path / 'db')!r} is a folder, not a file; choose another path with --db"
    )


def test_parameters_for_a_registered_command_bot_in_play_are_refused(cli, tmp_path):
    from arena.store.database import open_store
    from arena.store.models import Bot

    with open_store(cli.db).begin() as session:
        session.add(Bot(name="cmd", kind="command", target="python3 bot.py", path=str(tmp_path), registered=True))
    result = cli("play", "tictactoe", "--bot", "cmd", "--param", "depth=3")
    assert str(result.exception) == (
        "bot 'python3 bot.py': a command bot takes its parameters on its command line, not params"
    )


@pytest.mark.parametrize("command", [["tournaments"], ["run", "t.yaml", "-q"]])
def test_a_database_that_is_a_fifo_is_refused_without_waiting(tmp_path, command):
    os.mkfifo(tmp_path / "a.db")
    (tmp_path / "t.yaml").write_text(HEADER + TWO_BOTS)
    result = subprocess.run(
        [shutil.which("arena") or "arena", *command, "--db", f"sqlite:///{tmp_path / 'a.db'}"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, **WIDE},
    )
    assert (result.returncode, result.stderr) == (
        2,
        f"error: the database {str(tmp_path / 'a.db')!r} is not a "
        "regular file (a device, FIFO or socket); choose another path "
        "with --db\n",
    )
