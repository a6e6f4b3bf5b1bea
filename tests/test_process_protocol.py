"""The line protocol: what the harness accepts as a reply, that docs/protocol.md shows the
messages as the harness really writes and reads them, and that a bot written in another
language (examples/node/random_bot.js) plays whole games through it."""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter

import pytest

from arena.core import protocol
from arena.core.botspec import BotSpec
from arena.core.records import Termination
from arena.core.timing import TimeControl
from arena.sandbox.confinement import confined_argv
from arena.sandbox.process import STDERR_TAIL, BotProcess
from tests.fixtures.harnesskit import NODE_BOT, REPO, job, needs_node, python_bot

DOC = (REPO / "docs" / "protocol.md").read_text()
NODE = BotSpec("node-random", "command", f"node {NODE_BOT}")
RANDOM = BotSpec("random", "python", "bots.randombot")


# ---------------------------------------------------------------- replies


def test_a_move_reply_is_accepted_with_extra_keys():
    assert protocol.parse_reply(b'{"type":"move","move":"4","note":"hi"}', "move") == {
        "type": "move",
        "move": "4",
        "note": "hi",
        "cut": False,
    }


def test_a_move_reply_says_it_was_cut_only_with_a_literal_true():
    def cut(value: str) -> object:
        return protocol.parse_reply(b'{"type":"move","move":"4","cut":' + value.encode() + b"}", "move")["cut"]

    assert cut("true") is True
    assert [cut(value) for value in ("false", "1", '"true"', "null", "[true]")] == [False] * 5


@pytest.mark.parametrize("text", ["44", "e7e8q", 'a"b\\c', "é\n", "\ud800", ""])
@pytest.mark.parametrize("cut", [False, True])
def test_the_python_hosts_move_reply_is_the_line_the_encoder_writes_and_reads_back(text, cut):
    line = protocol.move_reply(text, cut)
    assert line == protocol.encode({"type": "move", "move": text, **({"cut": True} if cut else {})})
    assert protocol.parse_reply(line.rstrip(b"\n"), "move")["cut"] is cut


@pytest.mark.parametrize("moves", [[], ["4 4"], ["e2e4", 'a"b\\c', "é\n\u2028", "\ud800", ""]])
@pytest.mark.parametrize(
    ("time", "bank"), [(1.0, None), (0.1, 2.5), (3, 0), (1e-7, 1e20), (None, None), (float("inf"), float("nan"))]
)
def test_a_move_request_is_the_line_the_encoder_writes(moves, time, bank):
    for clock in ("wall", "cpu"):
        expected = {"type": "move", "ply": 12, "moves": moves, "time": time, "clock": clock, "bank": bank}
        assert protocol.move_request(12, moves, time, clock, bank) == protocol.encode(expected)


def test_an_error_reply_answers_any_request_with_kind_and_message():
    line = b'{"type":"error","kind":"resource_limit","message":"MemoryError: ","traceback":"..."}'
    assert protocol.parse_reply(line, "ready") == {
        "type": "error",
        "kind": "resource_limit",
        "message": "MemoryError: ",
    }


def test_an_error_message_is_cut_to_2000_characters():
    line = json.dumps({"type": "error", "message": "m" * 5000}).encode()
    assert protocol.parse_reply(line, "move")["message"] == "m" * 2000


@pytest.mark.parametrize(
    ("line", "expected", "message"),
    [
        (b"4", "move", "reply is not a JSON object: '4'"),
        (b"[1, 2]", "move", "reply is not a JSON object: '[1, 2]'"),
        (b'{"type":"ready"}', "move", "expected a 'move' reply, got '{\"type\":\"ready\"}'"),
        (b'{"move":"4"}', "move", "expected a 'move' reply, got '{\"move\":\"4\"}'"),
        (
            b'{"type":"move","move":null}',
            "move",
            'a move reply needs a \'move\' string, got \'{"type":"move","move":null}\'',
        ),
        (b"\xff\xfe", "ready", "reply is not JSON: '\ufffd\ufffd'"),
        (
            b'{"type":"checked","problem":3}',
            "checked",
            'a checked reply\'s \'problem\' must be a string or null, got \'{"type":"checked","problem":3}\'',
        ),
    ],
    ids=["a-number", "a-list", "wrong-type", "no-type", "move-null", "not-utf8", "checked-problem-number"],
)
def test_a_malformed_reply_is_a_protocol_error_quoting_it(line, expected, message):
    with pytest.raises(protocol.ProtocolError) as error:
        protocol.parse_reply(line, expected)
    assert str(error.value) == message


def test_a_protocol_error_quotes_at_most_120_characters_of_the_reply():
    with pytest.raises(protocol.ProtocolError) as error:
        protocol.parse_reply(b"z" * 1000, "move")
    assert str(error.value) == "reply is not JSON: '" + "z" * 120 + "...'"


# ---------------------------------------------------------------- the documentation

SENT = {
    "new_game": protocol.new_game({"name": "tictactoe", "params": {}}, 0, 1, TimeControl(move=1.0)),
    "move": protocol.move_request(0, [], 1.0),
    "game_over": protocol.game_over([], None, "normal"),
    "describe": protocol.DESCRIBE,
    "check": protocol.check({"name": "uttt", "params": {}}, {"iteration": 100}),
    "pace": protocol.pace({"name": "uttt", "params": {}}, 0.1, 8, 4),
    "quit": protocol.QUIT,
}
#: what version 2 (any game but arena's four) sends instead, in a game with hidden information
SENT_2 = {
    "new_game": protocol.new_game({"name": "kuhn_poker", "params": {}}, 0, 1, TimeControl(move=1.0), players=2),
    "move": protocol.move_request_2(3, None, {"card": "K"}, [1], ["pass", "bet"], 1.0),
    "game_over": protocol.game_over(None, 1, "normal", [-2.0, 2.0]),
}


def version_2(message: dict) -> bool:
    """Whether a documented harness message is one of version 2 (a game other than arena's four)."""
    return message.get("protocol") == 2 or "view" in message or "returns" in message


def doc_lines(mark: str) -> list[str]:
    """The example lines of docs/protocol.md that start with ``mark`` (``>`` or ``<``)."""
    return [line[2:] for line in DOC.splitlines() if line.startswith(mark + " {")]


def test_the_doc_shows_every_message_the_harness_sends_with_its_exact_fields():
    examples = [json.loads(line) for line in doc_lines(">")]
    assert {m["type"] for m in examples if not version_2(m)} == set(SENT)
    assert {m["type"] for m in examples if version_2(m)} == set(SENT_2)
    for message in examples:
        sent = (SENT_2 if version_2(message) else SENT)[message["type"]]
        assert message.keys() == json.loads(sent).keys(), message


def test_the_doc_writes_harness_messages_as_the_harness_encodes_them():
    for line in doc_lines(">"):
        assert protocol.encode(json.loads(line)) == line.encode() + b"\n"


def test_the_doc_shows_every_reply_and_each_is_accepted():
    replies = [json.loads(line) for line in doc_lines("<")]
    assert {m["type"] for m in replies} == {"ready", "move", "description", "checked", "pace", "error"}
    for line, message in zip(doc_lines("<"), replies):
        expected = message["type"] if message["type"] != "error" else "move"
        assert protocol.parse_reply(line.encode(), expected)["type"] == message["type"]


def test_the_doc_example_games_are_one_legal_game_seen_from_both_seats():
    from arena.games import get_game

    blocks = re.findall(r"```\n(> \{\"type\":\"new_game\".*?)```", DOC, re.S)
    transcripts = [
        [(line[0], json.loads(line[2:])) for line in block.splitlines()]
        for block in blocks
        if "\n< " in block and '"protocol":1' in block
    ]
    assert [t[0][1]["seat"] for t in transcripts] == [0, 1]
    plies: dict[int, str] = {}  # ply -> move, as both seats must agree on it
    for transcript in transcripts:
        seen = 0
        for (mark, message), (_, reply) in itertools.pairwise(transcript):
            if mark == ">" and message["type"] == "move":
                for text in message["moves"]:
                    assert plies.setdefault(seen, text) == text
                    seen += 1
                assert message["ply"] == seen
                assert plies.setdefault(seen, reply["move"]) == reply["move"]
                seen += 1
    played = [plies[ply] for ply in range(len(plies))]
    state = get_game("tictactoe").replay(played)
    assert state.is_terminal
    assert [t[-1][1] for t in transcripts] == [
        {"type": "game_over", "moves": [], "winner": state.outcome.winner, "termination": "normal"},
        {"type": "game_over", "moves": [played[-1]], "winner": state.outcome.winner, "termination": "normal"},
    ]


def test_the_doc_states_the_limits_the_code_has():
    text = " ".join(DOC.split())
    assert f"A reply line may be at most {protocol.MAX_LINE} bytes" in text
    assert f"stores the last {STDERR_TAIL} bytes of each game's output" in text
    defaults = {
        line.split("|")[1].strip(): line.split("|")[3].strip() for line in DOC.splitlines() if line.startswith("| `")
    }  # the time control's table: setting -> default
    assert (defaults["`grace`"], defaults["`startup`"]) == (f"{TimeControl().grace:g}", f"{TimeControl().startup:g}")
    assert (defaults["`backstop`"], defaults["`max_replays`"]) == (
        f"{TimeControl().backstop:g}",
        f"{TimeControl().max_replays}",
    )


# ---------------------------------------------------------------- a bot in JavaScript


@needs_node
def test_the_node_bot_answers_describe():
    process = BotProcess(confined_argv(NODE), NODE.name)
    try:
        process.send(protocol.DESCRIBE)
        reply = protocol.parse_reply(process.receive(10), "description")
    finally:
        process.close()
    assert reply == {
        "type": "description",
        "description": "Random legal moves, in JavaScript: tic-tac-toe and ultimate tic-tac-toe.",
        "games": ["tictactoe", "uttt"],
        "parameters": None,
    }


@needs_node
@pytest.mark.parametrize("game", ["tictactoe", "uttt"])
def test_the_node_bot_plays_whole_games_from_either_seat(pool, game):
    endings = Counter()
    for number in range(12):
        seats = (NODE, RANDOM) if number % 2 == 0 else (RANDOM, NODE)
        record = pool.play(job(*seats, move=1.0, seed=number, game_id=number, game={"name": game, "params": {}}))
        endings[record.termination] += 1
    assert endings == {Termination.NORMAL: 12}
    assert len(pool.pids("node-random")) == 1  # one warm process for all twelve games


@needs_node
def test_the_node_bot_plays_the_same_game_from_the_same_seed(pool):
    games = [pool.play(job(NODE, RANDOM, seed=42, game_id=n, game={"name": "uttt", "params": {}})) for n in (1, 2)]
    assert [m.move for m in games[0].moves] == [m.move for m in games[1].moves]


@needs_node
def test_the_node_bot_refuses_a_game_it_does_not_play_with_an_error_reply(pool):
    record = pool.play(job(NODE, RANDOM, game={"name": "othello", "params": {}}))
    assert (record.termination, record.offender, record.winner) == (Termination.CRASH, 0, 1)
    assert record.detail == "this bot plays tictactoe, uttt, not othello"


def test_a_python_bot_plays_through_the_host_in_every_game(pool):
    for number, game in enumerate(["tictactoe", "uttt", "othello", "xtreme"]):
        record = pool.play(
            job(python_bot("seeded_random"), RANDOM, move=2.0, game_id=number, game={"name": game, "params": {}})
        )
        assert (game, record.termination) == (game, Termination.NORMAL)


# ---------------------------------------------------------------- the host's check


def checked(spec: BotSpec, *requests: tuple[str, dict]) -> list[dict]:
    """The host's replies to ``check`` requests (game, parameters) of one process of ``spec``."""
    process = BotProcess(confined_argv(spec), spec.name)
    try:
        return [
            protocol.parse_reply(
                process.exchange(protocol.check({"name": game, "params": {}}, params), None)[0], "checked"
            )
            for game, params in requests
        ]
    finally:
        process.close()


def test_the_host_checks_each_set_of_parameters_as_make_bot_does():
    from arena.errors import BotParameterError
    from bots import uct
    from bots.common import resolve_parameters

    with pytest.raises(BotParameterError) as refused:
        resolve_parameters("uct", uct.PARAMETERS, {"c": -1})
    assert checked(BotSpec("uct", "python", "bots.uct"), ("uttt", {"iterations": 5}), ("uttt", {"c": -1})) == [
        {"type": "checked", "problem": None},
        {"type": "checked", "problem": str(refused.value)},
    ]


def test_the_host_says_a_bot_does_not_play_the_game():
    assert checked(python_bot("takes_params"), ("xtreme", {})) == [
        {
            "type": "checked",
            "problem": f"bot '{python_bot('takes_params').target}' does not play 'xtreme'; it plays tictactoe, uttt",
        }
    ]


def test_the_host_names_the_parameters_make_bot_takes():
    assert checked(python_bot("takes_params"), ("tictactoe", {"ofset": 1})) == [
        {
            "type": "checked",
            "problem": f"bot '{python_bot('takes_params').target}' has no parameter 'ofset'; its parameters: offset=0",
        }
    ]


def test_a_bot_that_cannot_be_loaded_answers_check_with_an_error():
    [reply] = checked(python_bot("fails_to_import"), ("tictactoe", {}))
    assert (reply["type"], reply["kind"]) == ("error", "exception")
    assert reply["message"].startswith("BotLoadError: bot file ")
