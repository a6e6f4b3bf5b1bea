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
