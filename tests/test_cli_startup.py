"""The command line answers at once: ``arena --help`` and each command's ``--help`` import only
what the help needs (Typer, rich, arena's command modules), never the database, the web server,
the games, the sandbox or the cluster: each command imports those when it runs. The import set
is checked, not the time (the machines are shared); ``benchmarks/cli.py`` gives the times."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

#: what a command pays for only when it uses it (pydantic: Typer's own, for a command's options)
HEAVY = [
    "sqlalchemy", "pydantic", "yaml", "jinja2", "starlette", "uvicorn", "distributed", "numpy", "trueskill",
    "openskill", "httpx", "urllib.request", "http.client", "ssl", "multiprocessing", "arena.store",
    "arena.results", "arena.contests", "arena.games", "arena.runners", "arena.sandbox", "arena.web",
    "arena.stats", "arena.learning",
]  # fmt: skip


def imported(*argv: str) -> list[str]:
    """The modules a fresh ``arena ARGV`` has imported when it ends."""
    code = (
        f"import sys\nsys.argv = ['arena', *{list(argv)!r}]\nfrom arena.commands.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "import json\nprint(json.dumps(sorted(sys.modules)), file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    return json.loads(done.stderr.strip().splitlines()[-1])


def test_arena_help_imports_nothing_a_command_pays_for_when_it_runs():
    # importing arena.cli once took 1.05 s, and a busy server's `arena --help` 9.4 s
    modules = imported("--help")
    assert [name for name in HEAVY if name in modules] == []


@pytest.mark.parametrize("command", ["run", "standings", "leaderboard", "games", "export", "serve", "season", "report"])
def test_a_commands_help_imports_none_of_arenas_heavy_parts(command):
    modules = imported(command, "--help")
    assert [name for name in HEAVY if name in modules and name != "pydantic"] == []
