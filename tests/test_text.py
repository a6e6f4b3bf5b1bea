"""``arena.core.text``: text from bots and files made safe to store (``clean``) and to show on a
terminal (``printable``)."""

from __future__ import annotations

import json
import sqlite3

from arena.core.text import clean, clean_data, is_plain, printable


def test_clean_replaces_a_lone_surrogate_with_the_replacement_character():
    assert clean("a\udcffb") == "a\ufffdb"


def test_clean_replaces_a_surrogate_that_json_loads_makes_of_an_escape():
    assert clean(json.loads('"\\ud800 and \\udfff"')) == "\ufffd and \ufffd"


def test_clean_removes_nul():
    assert clean("a\0b\0") == "ab"


def test_clean_keeps_other_text_as_it_is():
    assert clean("é ✓ \U0001f600 \x1b[2J\n") == "é ✓ \U0001f600 \x1b[2J\n"


def test_clean_cuts_to_the_limit_with_a_mark():
    assert clean("abcdefghij", 6) == "abc..."
    assert clean("abcdef", 6) == "abcdef"


def test_clean_makes_any_value_a_string():
    assert (clean(None), clean(12), clean(b"\xffa"), clean(["x"])) == ("None", "12", "\ufffda", "['x']")


def test_clean_of_an_int_too_long_to_print_names_its_type():
    assert clean(10**5000) == "<int>"


def test_cleaned_text_can_be_stored_in_sqlite_and_encoded_as_utf8():
    text = clean("\udcff\0\ud83d")
    with sqlite3.connect(":memory:") as connection:
        assert connection.execute("SELECT ?", (text,)).fetchone() == ("\ufffd\ufffd",)
    assert text.encode() == "\ufffd\ufffd".encode()


def test_clean_data_cleans_every_string_keys_included():
    assert clean_data({"a\udcff": ["b\0", {"c": "\udcff"}, 1, None]}) == {"a\ufffd": ["b", {"c": "\ufffd"}, 1, None]}


def test_printable_escapes_terminal_escape_sequences():
    assert printable("\x1b[2Jx\x1b]0;title\x07") == "\\x1b[2Jx\\x1b]0;title\\x07"


def test_printable_escapes_del_c1_and_bidirectional_overrides():
    assert printable("a\x7fb\x9bc\u202ed\u2066") == "a\\x7fb\\x9bc\\u202ed\\u2066"


def test_printable_escapes_newlines_tabs_and_carriage_returns_in_one_line_text():
    assert printable("a\nb\tc\rd") == "a\\nb\\tc\\rd"


def test_printable_keeps_newlines_and_tabs_of_text_of_several_lines_but_not_carriage_returns():
    assert printable("a\nb\tc\rd\x1b", lines=True) == "a\nb\tc\\rd\\x1b"


def test_printable_cleans_first():
    assert printable("\udcff\0x", 2) == "\ufffdx"


def test_printable_keeps_printable_unicode():
    assert printable("équipe ✓ 队") == "équipe ✓ 队"


def test_a_name_with_a_control_character_or_a_surrogate_is_not_plain():
    names = ("team 7", "é", "a\x1b", "a\n", "a\udcff", "a\0")
    assert [is_plain(name) for name in names] == [True, True, False, False, False, False]
