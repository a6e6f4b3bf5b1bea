"""A bot's reply is hostile: one nested thousands of levels deep made Python's JSON parser
recurse past its stack, and the ``RecursionError`` killed the worker; a string with a lone
surrogate (the JSON escape ``"\\udcff"``) could not be stored or printed. A reply nested deeper
than ``protocol.MAX_DEPTH`` is a protocol error (its game forfeited, the worker goes on), and
the fields arena uses come back clean (``arena.core.text.clean``)."""

from __future__ import annotations

import json

import pytest

from arena.core import protocol
from arena.core.records import Termination
from tests.fixtures.harnesskit import command_bot, job, python_bot

# ---------------------------------------------------------------- text


def test_an_error_reply_with_a_lone_surrogate_and_a_nul_comes_back_clean():
    line = b'{"type":"error","kind":"\\udcffx","message":"\\udcff bad\\u0000 text"}'
    assert protocol.parse_reply(line, "move") == {"type": "error", "kind": "\ufffdx", "message": "\ufffd bad text"}


def test_a_move_reply_with_a_lone_surrogate_comes_back_clean():
    assert protocol.parse_reply(b'{"type":"move","move":"4\\ud800"}', "move")["move"] == "4\ufffd"


def test_a_description_reply_comes_back_clean():
    line = b'{"type":"description","description":"d\\udcff","games":["tictactoe\\udcff"],"parameters":["p\\u0000"]}'
    assert protocol.parse_reply(line, "description") == {
        "type": "description",
        "description": "d\ufffd",
        "games": ["tictactoe\ufffd"],
        "parameters": ["p"],
    }


def test_a_description_whose_games_are_not_a_list_of_strings_is_a_protocol_error():
    with pytest.raises(protocol.ProtocolError) as error:
        protocol.parse_reply(b'{"type":"description","description":"d","games":5}', "description")
    assert str(error.value) == (
        "a description's 'games' must be a list of strings, got "
        '\'{"type":"description","description":"d","games":5}\''
    )


def test_a_long_description_is_cut_with_a_mark():
    line = json.dumps({"type": "description", "description": "d" * 5000}).encode()
    assert protocol.parse_reply(line, "description")["description"] == "d" * (protocol.MAX_DESCRIPTION - 3) + "..."


# ---------------------------------------------------------------- nesting


def nested(depth: int, opening: str = "[", closing: str = "]") -> str:
    return opening * depth + closing * depth


def move_with(extra: str) -> bytes:
    return ('{"type":"move","move":"4","x":' + extra + "}").encode()


@pytest.mark.parametrize(
    "line",
    [nested(3000).encode(), ('{"a":' * 3000 + "1" + "}" * 3000).encode(), move_with(nested(protocol.MAX_DEPTH))],
    ids=["arrays", "objects", "one-too-deep"],
)
def test_a_reply_nested_deeper_than_the_limit_is_a_protocol_error(line):
    with pytest.raises(protocol.ProtocolError) as error:
        protocol.parse_reply(line, "move")
    assert str(error.value) == (f"reply nests arrays or objects deeper than 32 levels: {protocol.short(line)}")


def test_a_reply_nested_as_deep_as_the_limit_is_read():
    line = move_with(nested(protocol.MAX_DEPTH - 1))
    assert protocol.parse_reply(line, "move")["move"] == "4"


def test_brackets_inside_strings_do_not_count_as_nesting():
    assert protocol.parse_reply(move_with(json.dumps("[{" * 5000 + '\\"')), "move")["move"] == "4"


def test_a_recursion_error_of_the_json_parser_is_a_protocol_error(monkeypatch):
    monkeypatch.setattr(protocol, "too_deep", lambda line: False)
    with pytest.raises(protocol.ProtocolError) as error:
        protocol.parse_reply(nested(100_000).encode(), "move")
    assert str(error.value).startswith("reply is not JSON: '[[[[")


def test_a_bot_replying_thousands_deep_forfeits_its_game_and_the_worker_goes_on(pool):
    record = pool.play(job(command_bot("replies_deep.py"), python_bot("first_legal")))
    assert (record.termination, record.offender) == (Termination.PROTOCOL_ERROR, 0)
    assert record.detail.startswith("reply nests arrays or objects deeper than 32 levels: '[[[[")
    again = pool.play(job(python_bot("first_legal"), python_bot("first_legal"), game_id=2))
    assert again.termination is Termination.NORMAL
