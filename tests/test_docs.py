"""The project's documents say what the code does: every test that docs/security.md names as the
proof of a defence exists, and no document points to a file the project does not have."""

from __future__ import annotations

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
