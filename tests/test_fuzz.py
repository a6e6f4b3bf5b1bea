"""Hostile input (issue 7), fuzzed with hypothesis: the tournament YAML loader, the command
line, every game's move notation and the bot protocol reader. Whatever they are given, they
answer with their one documented error (``ConfigError``, exit status 2, ``MoveSyntaxError`` /
``IllegalMoveError``, ``ProtocolError`` / ``BotFault``) or a result: never another exception,
never a traceback, never a hang. Besides random text, they get the shapes an attacker would
use: aliases that expand, nesting thousands deep, control characters, lone surrogates; the few
shapes that once took gigabytes or hung are also run as the real ``arena`` command, under a
memory limit and a timeout.

Bounded (examples, and the CPU time of the work where that is the point) so that the whole file
runs in well under a minute, on a quiet machine or a busy one.
"""

from __future__ import annotations

import json
import os
import random
import resource
import shutil
import string
import subprocess
import time
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.contests.config import TournamentDef, parse_config
from arena.contests.yamlfile import load_yaml
from arena.core import protocol
from arena.core.records import BotFault, Termination
from arena.errors import ArenaError, ConfigError
from arena.games import GAMES, IllegalMoveError, MoveSyntaxError, get_game
from arena.sandbox.process import BotProcess
from tests.fixtures.harnesskit import run_arena

#: no deadline: an example's wall time is the machine's load, not the code's (a test that
#: bounds the work bounds its CPU time, which only stretches by what the caches lose)
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ---------------------------------------------------------------- the tournament file

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True),
    st.text(max_size=20),
    st.sampled_from(
        ["tictactoe", "uttt", "xtreme", "othello", "chess", "", "bots.randombot", "random", "snake", "course2019"]
    ),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
SAFE_PYTHONS = st.sampled_from([None, "/nonexistent/python", "no-such-python-for-arena-tests"])
bot_defs = st.fixed_dictionaries(
    {},
    optional={
        "module": st.sampled_from(["bots.randombot", "bots.nosuch", "", "os"]) | st.text(max_size=10),
        "path": st.text(max_size=10),
        "command": st.text(max_size=10),
        "course": st.text(max_size=10),
        "params": values,
        "python": SAFE_PYTHONS,
        "extra": values,
    },
)
stages = st.fixed_dictionaries(
    {},
    optional={
        "name": values,
        "pools": values | st.integers(-3, 12),
        "seeding": values,
        "games_per_pair": values | st.integers(-1, 200),
        "advance": values | st.integers(-1, 5),
    },
)
configs = st.fixed_dictionaries(
    {},
    optional={
        "name": values | st.text(alphabet=string.ascii_letters + " ._+-", max_size=120),
        "game": values | st.fixed_dictionaries({"name": scalars}, optional={"params": values}),
        "seed": values,
        "scoring": values,
        "workers": values | st.integers(-2, 300),
        "time": st.dictionaries(st.sampled_from(["move", "grace", "startup", "other"]), values, max_size=4),
        "limits": st.dictionaries(st.sampled_from(["memory_mb", "file_size_mb", "cpu"]), values, max_size=3),
        "rating": st.dictionaries(st.sampled_from(["mu", "sigma", "beta", "tau", "draw_probability"]), values),
        "bots": st.dictionaries(st.text(max_size=6), bot_defs | values, max_size=5),
        "teams": values | st.dictionaries(st.text(max_size=6), st.text(max_size=6) | bot_defs, max_size=5),
        "stages": values | st.lists(stages, max_size=3),
        "roster": values,
        "unknown": values,
    },
)

#: nine anchors, each a list of nine aliases of the one before: 9**9 values once expanded
BILLION_LAUGHS = "a: &a [x,x,x,x,x,x,x,x,x]\n" + "".join(
    f"{name}: &{name} [{','.join(['*' + before] * 9)}]\n" for before, name in zip("abcdefgh", "bcdefghi")
)

VALID = """name: fuzz
game: tictactoe
seed: 3
time: {move: 0.5, grace: 0.05}
bots:
  a: {module: bots.randombot}
  b: {path: bot.py, params: {depth: 2}}
stages:
  - {pools: 1, games_per_pair: 2}
"""


def check_config(text: str, base: Path) -> None:
    """``parse_config`` gives a tournament or a ``ConfigError``, whose message is one text."""
    try:
        config = parse_config(text, "t.yaml", base)
    except ConfigError as error:
        assert str(error).strip()
        return
    assert isinstance(config, TournamentDef)


@FAST
@given(text=st.text(max_size=300))
def test_any_text_is_a_tournament_or_a_config_error(tmp_path_factory, text):
    check_config(text, tmp_path_factory.getbasetemp())


@FAST
@given(data=configs)
def test_any_mapping_around_the_schema_is_a_tournament_or_a_config_error(tmp_path_factory, data):
    check_config(yaml.safe_dump(data, allow_unicode=True), tmp_path_factory.getbasetemp())


@FAST
@given(position=st.integers(0, len(VALID)), cut=st.integers(0, 20), insert=st.text(max_size=8))
def test_a_broken_valid_file_is_a_tournament_or_a_config_error(tmp_path_factory, position, cut, insert):
    check_config(VALID[:position] + insert + VALID[position + cut :], tmp_path_factory.getbasetemp())


#: characters an attacker slips into text: controls, terminal escapes, separators, bidirectional
#: overrides, and (as YAML escapes) a lone surrogate and a NUL
HOSTILE = ["\x1b[2J", "\x1b]0;t\x07", "\x00", "\x7f", "\x85", "\x9b", "\u2028", "\u202e", "\t", "\r", "\ufeff"]
ESCAPED = ["\\udcff", "\\ud800", "\\0", "\\e[2J", "\\x9b", "\\a", "\\u202e"]


@st.composite
def laughs(draw) -> str:
    """Anchors each a list of aliases of the one before: ``fan ** levels`` values once expanded."""
    levels, fan = draw(st.integers(1, 12)), draw(st.integers(1, 12))
    flow = draw(st.booleans())
    lines = [f"l0: &l0 [{', '.join(['x'] * fan)}]"]
    for level in range(1, levels):
        aliases = [f"*l{level - 1}"] * fan
        lines.append(
            f"l{level}: &l{level} [{', '.join(aliases)}]"
            if flow
            else f"l{level}: &l{level}\n" + "".join(f"  - {alias}\n" for alias in aliases).rstrip("\n")
        )
    return "\n".join(lines) + "\n"


@st.composite
def deep_yaml(draw) -> str:
    """A value nested up to thousands of levels, in flow or block style, closed or not."""
    depth = draw(st.integers(1, 3000))
    style = draw(st.sampled_from(["[", "{a: ", "block-list", "block-map"]))
    if style == "block-list":
        body = "".join("  " * level + "-\n" for level in range(min(depth, 400)))
    elif style == "block-map":
        body = "".join("  " * level + "a:\n" for level in range(min(depth, 400)))
    else:
        closing = {"[": "]", "{a: ": "}"}[style] * depth if draw(st.booleans()) else ""
        body = style * depth + closing
    return draw(st.sampled_from(["", "name: ", "bots: "])) + body


@st.composite
def hostile_text(draw) -> str:
    """YAML with hostile characters: raw in the text, or as escapes in double-quoted strings."""
    parts = draw(st.lists(st.sampled_from(HOSTILE) | st.text(max_size=4), max_size=6))
    escaped = draw(st.lists(st.sampled_from(ESCAPED) | st.text(string.ascii_letters, max_size=4), max_size=6))
    where = draw(st.sampled_from(["name", "team", "bot", "stage", "module", "param", "command", "roster"]))
    quoted = '"' + "".join(escaped) + '"'
    raw = "".join(parts)
    field = {
        "name": f"name: {quoted}\n",
        "team": f"teams:\n  {quoted}: a\n  b: b\n",
        "bot": f"bots:\n  {quoted}: {{module: bots.randombot}}\n",
        "stage": f"stages:\n  - {{name: {quoted}}}\n",
        "module": f"bots:\n  c: {{module: {quoted}}}\n",
        "param": f"bots:\n  c: {{module: bots.randombot, params: {{k: {quoted}}}}}\n",
        "command": f"bots:\n  c: {{command: {quoted}}}\n",
        "roster": f"roster: {quoted}\n",
    }[where]
    return draw(st.sampled_from([VALID + field, field + raw, VALID + raw, raw + VALID]))


@FAST
@given(text=laughs() | deep_yaml() | hostile_text())
def test_yaml_shaped_to_hurt_is_a_tournament_or_a_config_error_quickly(tmp_path_factory, text):
    start = time.process_time()  # the work done, which a busy machine stretches little
    check_config(text, tmp_path_factory.getbasetemp())
    assert time.process_time() - start < 2.0


@FAST
@given(text=laughs() | deep_yaml() | hostile_text())
def test_the_yaml_loader_gives_plain_data_or_a_config_error(text):
    try:
        data = load_yaml(text, "t.yaml")
    except ConfigError as error:
        assert str(error).startswith("t.yaml")
        return
    json.dumps(data, default=str)  # a tree, neither cyclic nor too deep to walk


# ---------------------------------------------------------------- the command line

COMMANDS = [
    "run",
    "register",
    "bots",
    "tournaments",
    "leaderboard",
    "games",
    "replay",
    "report",
    "play",
    "--help",
    "--version",
    "nosuch",
]
#: option -> values worth trying besides random text (only harmless programs and interpreters)
OPTIONS = {
    "--db": [
        "OWN",
        "sqlite:///",
        "sqlite:///FOLDER/bad.yaml/x.db",
        "postgresql://nobody@localhost/x",
        "foo://x",
        "not a url",
        "",
    ],
    "--name": ["x", "", "a/b", "[bold]x[/]", "fuzz"],
    "--workers": ["0", "1", "-1", "99999999999999999999"],
    "--json": None,
    "-q": None,
    "--help": None,
    "--tournament": ["fuzz", "nosuch", ""],
    "-t": ["fuzz"],
    "--bot": ["bots.randombot", "first", "nosuch", "x.py", ""],
    "-b": ["first"],
    "--limit": ["0", "1", "-5", "99999999999999999999"],
    "--stage": ["0", "9", "group", "-1", ""],
    "--pool": ["A", "z", "0", "99999999999999999999"],
    "--param": ["x=1", "=", "depth=", "a=[1", "c=1.5"],
    "-p": ["k=v"],
    "--game": ["tictactoe", "chess", ""],
    "-g": ["uttt"],
    "--command": ["false", "true", "/nonexistent/bot", "sh -c 'exit 3'"],
    "--interface": ["python", "course2019", "cobol"],
    "--python": ["/nonexistent/python", "no-such-python-for-arena-tests"],
    "--move-time": ["0", "0.01", "-1", "nan", "inf", "1e308"],
    "--as": ["x", "o", "second", "nobody"],
    "--out": ["out", "bad.yaml", "FOLDER/bad.yaml/x"],
}
POSITIONALS = [
    "missing.yaml",
    "bad.yaml",
    "empty.yaml",
    "fuzz",
    "nosuch",
    "1",
    "0",
    "-1",
    "99999999999999999999",
    "tictactoe",
    "chess",
    "nosuch.py",
    "bots.nosuch",
    "",
    "--",
    "é",
    "[bold]x[/]",
    "show",
]
#: words an attacker would try, for any option or position
HOSTILE_WORDS = [
    "laughs.yaml",
    "deep.yaml",
    "hostile.yaml",
    "/dev/zero",
    "FOLDER",
    "١٢",
    "-0",
    "1e999",
    "nan",
    "x\udcff",
    "\x1b[2J\x1b]0;t\x07",
    "\x00",
    "n" * 10_000,
    "x=" + "[" * 3000,
    "x={a: &a [1,1], b: [*a,*a]}",
    "python3 'unterminated",
    "sqlite:///FOLDER",
    "FOLDER/bad.yaml",
]


@st.composite
def command_lines(draw) -> list[str]:
    """A command, some positional words and some options with values, in any order."""
    anything = st.sampled_from(HOSTILE_WORDS) | st.text(max_size=10)
    words = [[word] for word in draw(st.lists(st.sampled_from(POSITIONALS) | anything, max_size=2))]
    for option in draw(st.lists(st.sampled_from(sorted(OPTIONS)), max_size=4)):
        pool = OPTIONS[option]
        words.append([option] if pool is None else [option, draw(st.sampled_from(pool) | anything)])
    order = draw(st.permutations(words))
    return [draw(st.sampled_from(COMMANDS))] + [word for group in order for word in group]


@pytest.fixture(scope="module")
def cli_folder(tmp_path_factory) -> Path:
    """A working folder (without tournament.yaml) with a broken and an empty tournament file,
    and a database holding one small finished tournament, ``fuzz``."""
    from arena.contests.run import run_tournament
    from tests.fixtures.harnesskit import BOTS

    folder = tmp_path_factory.mktemp("cli")
    (folder / "bad.yaml").write_text("name: [unclosed\n")
    (folder / "empty.yaml").write_text("")
    (folder / "laughs.yaml").write_text(BILLION_LAUGHS)
    (folder / "deep.yaml").write_text("name: " + "[" * 5000)
    (folder / "hostile.yaml").write_text('name: fuzz\ngame: tictactoe\nbots:\n  "\\e[2J": {module: "\\udcff"}\n')
    text = (
        f"name: fuzz\ngame: tictactoe\nbots:\n  first: {{path: {BOTS / 'first_legal.py'}}}\n"
        f"  second: {{path: {BOTS / 'seeded_random.py'}}}\n"
    )
    run_tournament(parse_config(text), text, f"sqlite:///{folder / 'arena.sqlite3'}", folder, workers=1)
    return folder


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(words=command_lines())
def test_any_command_line_ends_with_exit_0_or_2_and_no_traceback(cli_folder, monkeypatch, words):
    from arena.commands import cli

    monkeypatch.chdir(cli_folder)
    monkeypatch.delenv("ARENA_DB", raising=False)
    words = [word.replace("FOLDER", str(cli_folder)) for word in words]
    words = [f"sqlite:///{cli_folder / 'arena.sqlite3'}" if word == "OWN" else word for word in words]
    if "--db" not in words and words[0] not in ("--help", "--version", "nosuch"):
        words += ["--db", f"sqlite:///{cli_folder / 'arena.sqlite3'}"]  # never the default ./db
    # what arena.commands.cli.main does: words that are not UTF-8 are refused first, and an ArenaError
    # is its message and exit status 2
    try:
        cli.check_arguments(words)
    except ArenaError:
        return
    result = run_arena(*words)
    if isinstance(result.exception, ArenaError):
        assert str(result.exception).strip()
        return
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code in (0, 2), (result.exit_code, result.output)
    assert "Traceback" not in result.output


# ---------------------------------------------------------------- moves

NAMES = sorted(GAMES)
move_texts = (
    st.text(max_size=12)
    | st.from_regex(r"\s*[\(\[]?-?\d{1,3}([ ,]+-?\d{1,3}){0,3}[\)\]]?\s*", fullmatch=True)
    | st.from_regex(r"[a-jA-J][0-9]{1,2}|pass|PASS|Pass", fullmatch=True)
)


def some_state(game, seed: int, plies: int):
    """A state reached by ``plies`` random legal moves from ``seed`` (fewer if the game ends)."""
    rng = random.Random(seed)
    state = game.initial_state()
    for _ in range(plies):
        if state.is_terminal:
            break
        state = state.play(rng.choice(state.legal_moves()))
    return state


@FAST
@given(name=st.sampled_from(NAMES), text=move_texts, seed=st.integers(0, 2**32), plies=st.integers(0, 90))
def test_any_move_text_is_a_move_or_a_syntax_error_and_any_move_is_played_or_illegal(name, text, seed, plies):
    game = get_game(name)
    try:
        move = game.parse_move(text)
    except MoveSyntaxError as error:
        assert str(error).startswith(repr(text))
        return
    assert isinstance(move, int)
    state = some_state(game, seed, plies)
    try:
        after = state.play(move)
    except IllegalMoveError as error:
        assert str(error)
        assert move not in state.legal_moves()
        return
    assert move in state.legal_moves()
    assert after.ply == state.ply + 1


# ---------------------------------------------------------------- the protocol reader

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
replies = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(["move", "ready", "error", "description", "MOVE", ""]) | json_values,
        "move": json_values,
        "kind": json_values,
        "message": json_values,
    },
)
lines = st.one_of(
    st.binary(max_size=300),
    replies.map(lambda r: json.dumps(r).encode()),
    json_values.map(lambda v: json.dumps(v).encode()),
    st.text(max_size=50).map(lambda t: t.encode("utf-16")),
    st.integers(65530, 65540).map(lambda n: b'{"type":"move","move":"4","pad":"' + b"x" * n + b'"}'),
    st.integers(0, 30000).map(lambda n: b"[" * n + b"]" * n),
    st.integers(0, 10000).map(lambda n: b'{"type":"move","move":"4","x":' + b'{"a":' * n + b"1" + b"}" * n + b"}"),
    st.lists(st.sampled_from(ESCAPED + ["\\u0000", "\\u001b[2J", "x"]), max_size=8).map(
        lambda parts: (
            json.dumps({"type": "error", "kind": "".join(parts[:2]), "message": "".join(parts)})
            .encode()
            .replace(b"\\\\", b"\\")
        )
    ),
)


@FAST
@given(line=lines, expected=st.sampled_from(["move", "ready", "description"]))
def test_any_reply_line_is_a_message_or_a_protocol_error(line, expected):
    try:
        message = protocol.parse_reply(line, expected)
    except protocol.ProtocolError as error:
        assert str(error)
        return
    assert message["type"] in (expected, "error")
    if message["type"] == "move":
        assert isinstance(message["move"], str)
    for field in ("move", "message", "kind", "description"):
        if isinstance(message.get(field), str):
            assert "\0" not in message[field]
            message[field].encode("utf-8")  # no lone surrogate: it can be stored and printed


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(
    chunks=st.lists(lines, min_size=1, max_size=4),
    newlines=st.lists(st.booleans(), min_size=4, max_size=4),
    stays=st.booleans(),
)
def test_a_bot_writing_anything_gives_lines_then_a_fault_never_a_hang(tmp_path, chunks, newlines, stays):
    data = b"".join(chunk + (b"\n" if newline else b"") for chunk, newline in zip(chunks, newlines))
    path = tmp_path / "output.bin"
    path.write_bytes(data)
    # a fake bot: writes the bytes, then ends, or stays without writing more
    argv = ["sh", "-c", f"cat '{path}'; sleep 30"] if stays else ["cat", str(path)]
    process = BotProcess(argv, "fake")
    start = time.monotonic()
    received = []
    try:
        with pytest.raises(BotFault) as fault:
            for _ in range(data.count(b"\n") + 2):  # a chunk may hold newlines of its own
                line = process.receive(0.3)
                assert len(line) <= protocol.MAX_LINE
                received.append(line)
                try:
                    protocol.parse_reply(line, "move")
                except protocol.ProtocolError:
                    pass
    finally:
        process.close()
    assert time.monotonic() - start < 0.3 * (len(received) + 1) + 2
    assert fault.value.termination in (Termination.TIMEOUT, Termination.CRASH, Termination.PROTOCOL_ERROR)
    assert b"\n".join(received) == data[: len(b"\n".join(received))]


# ---------------------------------------------------------------- the dangerous shapes, for real

MEMORY = 1 << 30
DANGEROUS = {
    "billion-laughs-file": (
        ["run", "laughs.yaml"],
        "error: laughs.yaml is refused: it holds more than 100,000 values once its aliases are expanded",
    ),
    "deep-file": (
        ["run", "deep.yaml"],
        "error: deep.yaml is refused: it nests deeper than 32 levels at line 1, column 38",
    ),
    "dev-zero": (
        ["run", "/dev/zero"],
        "error: the tournament file '/dev/zero' is not a regular file; give a YAML file",
    ),
    "fifo": (["run", "fifo.yaml"], "error: the tournament file 'fifo.yaml' is not a regular file; give a YAML file"),
    "roster-dev-zero": (
        ["run", "roster.yaml"],
        "error: the roster '/dev/zero' is not a regular file; give a YAML file",
    ),
    "billion-laughs-param": (
        ["register", "bots.randombot", "--param", "x={" + BILLION_LAUGHS.strip().replace("\n", ", ") + "}"],
        "error: --param 'x' is refused: it holds more than 100,000 values once its aliases are expanded",
    ),
    "deep-param": (
        ["register", "bots.randombot", "--param", "x=" + "[" * 100_000],
        "error: --param 'x' is refused: it nests deeper than 32 levels at line 1, column 33",
    ),
}


@pytest.fixture(scope="module")
def dangerous_folder(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("dangerous")
    (folder / "laughs.yaml").write_text(BILLION_LAUGHS)
    (folder / "deep.yaml").write_text("name: " + "[" * 1_000_000)
    (folder / "roster.yaml").write_text("name: t\ngame: tictactoe\nroster: /dev/zero\n")
    os.mkfifo(folder / "fifo.yaml")
    return folder


@pytest.mark.parametrize("case", DANGEROUS)
def test_input_that_once_took_gigabytes_or_hung_is_refused_in_bounded_time_and_memory(dangerous_folder, case):
    args, message = DANGEROUS[case]

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))

    result = subprocess.run(
        [shutil.which("arena") or "arena", *args, "--db", f"sqlite:///{dangerous_folder / 'a.db'}"],
        cwd=dangerous_folder,
        capture_output=True,
        text=True,
        timeout=30,
        preexec_fn=limit,
        env={**os.environ, "COLUMNS": "5000"},
    )
    assert (result.returncode, result.stderr) == (2, message + "\n")
