"""The house's rule, read from the code itself: arena's modules live in wings (its sub-packages),
each importing only the wings beneath it; no two files import each other, however indirectly;
the read side and the planning of a tournament never reach a bot process; what a cluster node
unpickles needs nothing of the local harness. The imports are read from the source (every
``import`` and ``from ... import``, at the top of a module or inside a function; those under
``if TYPE_CHECKING:`` are for the type checker alone and are left out), so a new file is held to
the rule the moment it exists. docs/architecture.md draws the same house."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

ARENA = Path(__file__).resolve().parent.parent / "arena"

#: the wings, from the bottom up: each may import the wings before it in this list, never after
WINGS = [
    "games",
    "stats",
    "core",
    "formats",
    "host",
    "entrants",
    "store",
    "learning",
    "sandbox",
    "runners",
    "contests",
    "results",
    "web",
    "commands",
]
#: modules beneath every wing (the package, its errors, the clock a bot is given), and above all
FLOOR = {"arena", "arena.errors", "arena.clock"}
TOP = {"arena.__main__"}
#: what may start or play a bot: the read side and the planning of a tournament never reach it
PLAYING = ("arena.sandbox", "arena.runners")
READ_SIDE = ["arena.results"]
PLANNING = ["arena.formats", "arena.contests.config", "arena.contests.stages", "arena.contests.rating"]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ARENA.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST, package: str, modules: set[str]) -> set[str]:
    """The arena modules ``tree`` imports (``package``: the package its relative imports start from)."""
    found: set[str] = set()
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _type_checking(node):
            found |= {name for child in node.orelse for name in _imports(child, package, modules)}
            continue
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            # "from arena.x import y" imports the module arena.x.y when there is one
            found |= {f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names}
        found |= _imports(node, package, modules)
    return {name for name in found if name == "arena" or name.startswith("arena.")}


@cache
def graph() -> dict[str, set[str]]:
    """Every arena module and the arena modules it imports."""
    files = {module_name(path): path for path in ARENA.rglob("*.py")}
    edges = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        imported = _imports(ast.parse(path.read_text(), str(path)), package, set(files))
        edges[name] = {module for module in imported if module != name}
    return edges


def wing(module: str) -> int:
    """The level of ``module``'s wing: -1 the floor, len(WINGS) the top."""
    if module in FLOOR:
        return -1
    if module in TOP:
        return len(WINGS)
    return WINGS.index(module.split(".")[1])


def reached(start: str) -> set[str]:
    """The modules that importing ``start`` may load, itself included."""
    seen, todo = {start}, [start]
    while todo:
        for name in graph()[todo.pop()] - seen:
            seen.add(name)
            todo.append(name)
    return seen


def under(prefixes: list[str]) -> list[str]:
    return sorted(name for name in graph() if any(name == p or name.startswith(p + ".") for p in prefixes))


def test_the_scan_sees_the_whole_package():
    modules = graph()
    assert len(modules) > 100
    assert {"arena.core.gameloop", "arena.commands.cli", "arena.sandbox.wrapper"} <= set(modules)
    assert "arena.core.records" in modules["arena.core.job"]  # an import at the top
    assert "arena.sandbox.scratch" in modules["arena.runners.local"]  # "from arena.sandbox import scratch"


def test_every_module_is_in_a_wing():
    strays = [name for name in graph() if name not in FLOOR | TOP and name.split(".")[1] not in WINGS]
    assert strays == [], "a module outside the wings: move it into one, or add its wing to WINGS and the docs"


def test_every_wing_imports_only_the_wings_beneath_it():
    upward = sorted(
        f"{name} -> {imported}"
        for name, imports in graph().items()
        for imported in imports
        if imported in graph() and wing(imported) > wing(name)
    )
    assert upward == []


def test_no_two_files_import_each_other_however_indirectly():
    circles = sorted(
        " -> ".join([name, *sorted(reached(name) & {m for m in graph() if name in reached(m)} - {name})])
        for name in graph()
        if any(name in reached(imported) for imported in graph()[name])
    )
    assert circles == []


@pytest.mark.parametrize("module", under(READ_SIDE + PLANNING))
def test_the_read_side_and_planning_never_reach_a_bot_process(module):
    assert [name for name in reached(module) if name.startswith(PLAYING)] == []


def test_a_job_and_its_record_need_nothing_of_the_local_harness():
    # a cluster node unpickles jobs and records with nothing else of arena loaded
    assert reached("arena.core.job") <= {"arena.core.job", "arena.core.records", "arena.core.timing", "arena.core"}


def test_the_games_import_nothing_of_the_harness():
    assert {name for module in under(["arena.games"]) for name in reached(module)} - set(under(["arena.games"])) <= {
        "arena.errors",
        "arena",
    }


@pytest.mark.parametrize("module", ["arena.sandbox.wrapper", "arena.host.course_host"])
def test_the_programs_run_by_path_import_almost_nothing(module):
    # the wrapper starts every bot in milliseconds; the course host runs under Python 2.7
    allowed = {"arena.sandbox.wrapper": {"arena.sandbox.landlock", "arena.sandbox.seccomp"}}.get(module, set())
    assert graph()[module] <= allowed


def test_tests_and_benchmarks_import_builders_and_fixtures_never_a_test_module():
    # read as text: some fixtures are Python 2 course bots
    root = ARENA.parent
    found = [
        f"{path.relative_to(root)}: {line.strip()}"
        for folder in ("tests", "benchmarks")
        for path in sorted((root / folder).rglob("*.py"))
        for line in path.read_text().splitlines()
        if re.match(r"\s*(from|import)\s+tests\.test_", line)
    ]
    assert found == []
