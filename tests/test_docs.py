"""The project's documents say what the code does: every test that docs/security.md names as the
proof of a defence exists, no document points to a file the project does not have (every
relative link resolves, to a heading too), docs/games.md covers every game and parameter, and
its examples of ``to_dict()`` are what the engines give."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]


def named_tests() -> list[tuple[str, str]]:
    """(test file, test function) for every test docs/security.md names: ``tests/x.py::name``,
    and bare ``test_...`` names after it in the same paragraph or table cell."""
    found = []
    for chunk in re.split(r"\n\n|\|", (ROOT / "docs" / "security.md").read_text()):
        current = None
        for token in re.findall(r"`([^`]+)`", chunk):
            if token.startswith("tests/"):
                current, _, name = token.partition("::")
                if name:
                    found.append((current, re.sub(r"\[.*\]$", "", name)))
            elif token.startswith("test_") and current is not None:
                found.append((current, token))
    return found


def test_security_md_names_tests():
    assert len(named_tests()) > 30


@pytest.mark.parametrize(("file", "name"), named_tests())
def test_each_test_security_md_names_exists(file, name):
    assert (ROOT / file).is_file(), file
    assert f"def {name}(" in (ROOT / file).read_text(), f"{file} has no {name}"


@pytest.mark.parametrize("document", DOCS, ids=lambda path: path.name)
def test_no_document_points_outside_the_project(document):
    text = document.read_text()
    for name in ("DESIGN.md", "GAMES.md", "COURSE2019.md", "STYLE.md", "../shared"):
        assert name not in text, f"{document.name} mentions {name}, which the project does not have"


# ---------------------------------------------------------------- links

#: a Markdown link or image, inline: [text](target) or [text](target "title")
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
#: a reference definition: [label]: target
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$", re.MULTILINE)


def prose(text: str) -> str:
    """``text`` without its fenced code blocks and code spans, which hold no links."""
    text = re.sub(r"^(```|~~~).*?^\1", "", text, flags=re.MULTILINE | re.DOTALL)
    return re.sub(r"`[^`\n]*`", "", text)


def anchors(document: Path) -> set[str]:
    """The anchors of ``document``'s headings, as GitHub makes them: lower case, punctuation
    dropped, spaces made hyphens."""
    text = re.sub(r"^```.*?^```", "", document.read_text(), flags=re.MULTILINE | re.DOTALL)
    headings = re.findall(r"^#{1,6}\s+(.+?)\s*#*\s*$", text, flags=re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}


def relative_links(document: Path) -> list[str]:
    """The targets of ``document``'s links that point into the project (not a URL)."""
    text = prose(document.read_text())
    targets = LINK.findall(text) + REFERENCE.findall(text)
    return [target for target in targets if not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", target)]


def link_problem(document: Path, target: str) -> str | None:
    """What is wrong with the relative link ``target`` of ``document`` (``None``: it resolves to
    a file of the project, and its anchor, if any, to a heading of that file)."""
    path, _, anchor = target.partition("#")
    file = (document.parent / path).resolve() if path else document
    if not file.is_relative_to(ROOT) or not file.is_file():
        return f"{document.name} links to {target!r}, which is not a file of the project"
    if anchor and file.suffix == ".md" and anchor not in anchors(file):
        return f"{document.name} links to {target!r}, but {file.name} has no heading {anchor!r}"
    return None


LINKS = [(document, target) for document in DOCS for target in relative_links(document)]


def test_the_documents_link_to_each_other():
    assert len(LINKS) > 20
    assert {document.name for document, _ in LINKS} >= {"README.md", "bots.md", "games.md", "protocol.md"}


@pytest.mark.parametrize(("document", "target"), LINKS, ids=lambda value: getattr(value, "name", value))
def test_each_relative_link_resolves_to_a_file_of_the_project(document, target):
    assert link_problem(document, target) is None


def test_a_link_to_a_missing_file_or_heading_is_found():
    readme = ROOT / "README.md"
    assert link_problem(readme, "docs/nothing.md") == (
        "README.md links to 'docs/nothing.md', which is not a file of the project"
    )
    assert link_problem(readme, "../outside.md").endswith("which is not a file of the project")
    assert link_problem(readme, "docs/games.md#no-such-heading") == (
        "README.md links to 'docs/games.md#no-such-heading', but games.md has no heading 'no-such-heading'"
    )
    assert link_problem(readme, "docs/games.md#a-position-as-data-to_dict") is None


def test_links_are_found_outside_code_and_urls_are_left_alone(tmp_path):
    document = tmp_path / "doc.md"
    document.write_text(
        'See [a](https://example.org), [b](other.md#part) and ![c](pictures/c.png "C"), not `[d](code.md)`:\n'
        "```\n[e](block.md)\n```\n[f]: reference.md\n"
    )
    assert relative_links(document) == ["other.md#part", "pictures/c.png", "reference.md"]


# ---------------------------------------------------------------- the games' rules


def games_md_sections() -> dict[str, str]:
    """docs/games.md's sections: heading -> text."""
    text = (ROOT / "docs" / "games.md").read_text()
    parts = re.split(r"^## (.+)$", text, flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


@pytest.mark.parametrize("name", ["tictactoe", "uttt", "xtreme", "othello"])
def test_games_md_has_each_games_rules_with_every_parameter_and_value(name):
    from arena.games import GAMES, game_class

    assert name in GAMES
    [section] = [text for heading, text in games_md_sections().items() if heading.split(":")[0] == name]
    for key, (_default, allowed) in game_class(name).PARAMETERS.items():
        assert f"`{key}: {' | '.join(map(str, allowed))}`" in section, f"{name}'s parameter {key}"


def to_dict_examples() -> list[tuple[str, list[str], str]]:
    """docs/games.md's examples: (game, the moves replayed, the ``to_dict()`` shown)."""
    text = (ROOT / "docs" / "games.md").read_text()
    pattern = r'`get_game\("(\w+)"\)\.replay\((\[[^`]*\])\)\.to_dict\(\)` is\s*```json\n(.*?)```'
    return [(game, json.loads(moves), shown) for game, moves, shown in re.findall(pattern, text, flags=re.DOTALL)]


def test_games_md_shows_to_dict_for_every_game():
    from arena.games import GAMES

    assert sorted(game for game, _, _ in to_dict_examples()) == sorted(GAMES)


@pytest.mark.parametrize(("game", "moves", "shown"), to_dict_examples(), ids=lambda value: str(value)[:20])
def test_each_to_dict_example_of_games_md_is_what_the_engine_gives(game, moves, shown):
    from arena.games import get_game

    assert json.loads(shown) == get_game(game).replay(moves).to_dict()


def undocumented() -> list[str]:
    """The public modules, classes, functions, methods and properties of arena without a
    docstring; a method that overrides a documented one of a base class has its docstring."""
    import importlib
    import inspect
    import pkgutil

    import arena

    missing = []
    for info in pkgutil.walk_packages(arena.__path__, "arena."):
        if info.name == "arena.__main__":
            continue
        module = importlib.import_module(info.name)
        if not inspect.getdoc(module):
            missing.append(info.name)
        for name, value in vars(module).items():
            if name.startswith("_") or getattr(value, "__module__", None) != info.name:
                continue
            if (inspect.isfunction(value) or inspect.isclass(value)) and not inspect.getdoc(value):
                missing.append(f"{info.name}.{name}")
            if inspect.isclass(value):
                missing += [f"{info.name}.{name}.{member}" for member in undocumented_members(value)]
    return missing


def undocumented_members(cls: type) -> list[str]:
    """The public methods and properties ``cls`` defines without a docstring of its own or of
    the base class member it overrides."""
    missing = []
    for name, member in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(member, property):
            inherited = (getattr(vars(base).get(name), "__doc__", None) for base in cls.__mro__[1:])
            if not (member.__doc__ or any(inherited)):
                missing.append(name)
        elif isinstance(member, (staticmethod, classmethod)) or callable(member):
            import inspect

            if inspect.isroutine(getattr(cls, name)) and not inspect.getdoc(getattr(cls, name)):
                missing.append(name)
    return missing


def test_every_public_definition_of_arena_has_a_docstring():
    assert undocumented() == []


def test_the_example_bot_of_bots_md_keeps_the_contract_and_plays_a_game(tmp_path):
    import random

    from arena.games import get_game
    from arena.host.loader import check_contract, load_module, make_player

    text = (ROOT / "docs" / "bots.md").read_text()
    (tmp_path / "greedy.py").write_text(text.split("```python\n", 1)[1].split("```", 1)[0])
    module = load_module(str(tmp_path / "greedy.py"))
    check_contract(module, "greedy.py", "tictactoe")
    game = get_game("tictactoe")
    bots = [make_player(module, game, seat, random.Random(seat), {}) for seat in (0, 1)]
    state, moves = game.initial_state(), []
    while not state.is_terminal:
        moves.append(bots[state.to_move].move(state, None))
        state = state.play(moves[-1])  # an illegal move would raise
    assert moves[0] == 4 and len(moves) >= 5  # x takes the centre first


def test_a_command_bots_relative_paths_are_made_absolute_as_protocol_md_says(tmp_path):
    # docs/protocol.md once said both that they are and that only the first word is
    from arena.entrants.kinds import command_line

    (tmp_path / "data").mkdir()
    for name in ("bot.js", "data/book.txt", "mybot"):
        (tmp_path / name).write_text("")
    words = command_line("node bot.js --book data/book.txt -v missing.txt", str(tmp_path))
    assert words == ["node", str(tmp_path / "bot.js"), "--book", str(tmp_path / "data/book.txt"), "-v", "missing.txt"]
    assert command_line("./mybot bot.js", str(tmp_path)) == [str(tmp_path / "mybot"), str(tmp_path / "bot.js")]
    text = (ROOT / "docs" / "protocol.md").read_text()
    assert "every word after the first that names a file or folder there" in text
    assert "as absolute paths**" not in text
