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


def test_a_test_run_says_loudly_which_tests_a_missing_program_kept_from_running():
    # a newcomer without Chromium or PostgreSQL once ran "every test" and saw only a few skips
    from tests.fixtures.missing import missing_lines

    reasons = ["no Chromium at /usr/bin/chromium (apt-get install chromium)"] * 3
    reasons += ["this system gives arena no control groups", "no PostgreSQL server (initdb, pg_ctl) in ..."]
    lines = missing_lines(reasons)
    assert lines[:2] == [
        "   3 tests did not run: no Chromium at /usr/bin/chromium (apt-get install chromium)",
        "   1 tests did not run: no PostgreSQL server (initdb, pg_ctl) in ...",
    ]
    assert "sudo apt-get install chromium postgresql" in lines[-1] and len(lines) == 3
    assert missing_lines(["this system gives arena no control groups"]) == []
    assert "sudo apt-get install chromium postgresql" in (ROOT / "README.md").read_text()


def test_the_quick_tournament_the_readme_offers_plays_in_seconds(tmp_path):
    from tests.fixtures.harnesskit import arena

    assert "arena run examples/quick.yaml" in (ROOT / "README.md").read_text()
    done = arena("run", str(ROOT / "examples" / "quick.yaml"), "--db", f"sqlite:///{tmp_path / 'q.db'}", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Finished: 30 games, 0 forfeits" in done.stdout
