"""The README's two commands are the ones CI and users run."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    block = text.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip()]


def test_readme_opens_with_the_main_job_and_the_test_command():
    main, tests = readme_commands()
    assert "arena run" in main and "arena report" in main
    assert "pytest" in tests
    for gate in ("ruff check .", "ruff format --check .", "mypy"):
        assert f"&& {gate} &&" in tests  # the gates run before the tests, and stop them when they fail


def test_ci_runs_exactly_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert readme_commands()[1] in ci
