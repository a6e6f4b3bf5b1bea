"""The HTML report in a real browser (headless Chromium driven by Playwright): the leaderboard
matches the database, replays step through the positions the engine gives for each of the four
games, the games list filters, and no page logs a console error.

Without Playwright or Chromium these tests skip, saying why; with the environment variable CI
set (CI=true) they fail instead, so CI cannot pass without the browser (tests/fixtures/browserkit.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.games import get_game
from arena.results.lookup import find_tournament
from arena.results.report import team_file, write_report
from arena.results.tournament_results import load_results
from arena.store.database import open_store
from tests.builders import create, league_config, play_league, play_stage, set_status, synthesize

pytestmark = pytest.mark.slow

STAGES = [{"name": "group", "pools": 2, "games_per_pair": 2, "advance": 2}, {"name": "final"}]


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    """A report of each game: name -> (site folder, results)."""
    root = tmp_path_factory.mktemp("sites")
    made = {}
    for game, teams in (("xtreme", 6), ("uttt", 4), ("othello", 4)):
        url = f"sqlite:///{root / game}.db"
        stages = STAGES if game == "xtreme" else [{"name": "league", "games_per_pair": 2}]
        synthesize(url, teams=teams, game=game, stages=stages, name=game, forfeit_every=5)
        made[game] = url
    url = f"sqlite:///{root / 'othello-10'}.db"
    synthesize(
        url,
        teams=4,
        game="othello",
        params={"size": 10},
        stages=[{"name": "league", "games_per_pair": 2}],
        name="othello-10",
        forfeit_every=5,
    )
    made["othello-10"] = url
    url = f"sqlite:///{root / 'tictactoe.db'}"
    sessions, tid = create(url, league_config("tictactoe"))
    play_stage(sessions, tid, 0, play_league)
    set_status(sessions, tid, "finished")
    made["tictactoe"] = url
    out = {}
    for game, url in made.items():
        write_report(open_store(url), game, root / f"site-{game}")
        with open_store(url).begin() as session:
            out[game] = (root / f"site-{game}", load_results(session, find_tournament(session)))
    return out


def url_of(path: Path) -> str:
    return path.resolve().as_uri()


def engine_marks(state) -> dict[str, str]:
    """What each cell holds in ``state``, keyed by the cell's move text, as the page marks it."""
    game = state.game.name
    if game == "tictactoe":
        return {str(i): c.strip(".") for i, c in enumerate(state.cells())}
    if game == "uttt":
        return {f"{i // 9} {i % 9}": c.strip(".") for i, c in enumerate(state.cells())}
    if game == "othello":
        return {state.game.format_move(i): c.strip(".") for i, c in enumerate(state.cells())}
    return {f"{k} {i // 9} {i % 9}": c.strip(".") for k in (0, 1) for i, c in enumerate(state.cells(k))}


def page_marks(tab) -> dict[str, str]:
    return dict(
        tab.eval_on_selector_all("#board rect.cell", "cells => cells.map(c => [c.dataset.move, c.dataset.mark])")
    )


def test_the_leaderboard_rows_match_the_database(page, sites):
    site, found = sites["xtreme"]
    page.goto(url_of(site / "index.html"))
    rows = page.eval_on_selector_all(
        "#leaderboard tbody tr",
        """rows => rows.map(r => [
        r.dataset.team, ...['rating', 'mu', 'sigma', 'games', 'wins', 'draws', 'losses', 'points']
            .map(c => r.querySelector(`[data-col=${c}]`).textContent.trim())])""",
    )
    assert rows == [
        [
            line.team,
            f"{line.conservative:.2f}",
            f"{line.mu:.2f}",
            f"{line.sigma:.2f}",
            str(line.games),
            str(line.wins),
            str(line.draws),
            str(line.losses),
            f"{line.points:g}",
        ]
        for line in found.leaderboard
    ]
    assert page.errors == []


@pytest.mark.parametrize("site_name", ["tictactoe", "uttt", "xtreme", "othello", "othello-10"])
def test_stepping_a_replay_changes_the_board_as_the_moves_say(page, sites, site_name):
    site, found = sites[site_name]
    played = max((g for g in found.games if g.termination == "normal"), key=lambda g: g.plies)
    page.goto(url_of(site / "games" / f"{played.id}.html"))
    engine = get_game(found.config.game.name, **found.config.game.params)
    moves = page.evaluate("JSON.parse(document.getElementById('game-data').textContent).moves")
    states = [engine.initial_state()]
    for _, text, _ in moves:
        states.append(states[-1].play(engine.parse_move(text)))
    assert len(states) == played.plies + 1 and states[-1].is_terminal

    def at(ply: int) -> None:
        assert page.input_value("#ply") == str(ply)
        assert page.text_content("#ply-label") == f"{ply}/{played.plies}"
        assert page_marks(page) == engine_marks(states[ply]), f"ply {ply}"
        highlighted = page.eval_on_selector_all("#board rect.cell.last", "cells => cells.map(c => c.dataset.move)")
        assert highlighted == ([moves[ply - 1][1]] if ply and moves[ply - 1][1] != "pass" else [])
        assert page.get_attribute("#moves li.current", "data-ply") == str(ply)

    at(played.plies)  # a game page opens at the game's end: what a person came to see
    page.keyboard.press("Home")
    at(0)
    page.keyboard.press("ArrowRight")
    at(1)
    page.click("#next")
    at(2)
    page.keyboard.press("ArrowLeft")
    at(1)
    page.keyboard.press("End")
    at(played.plies)
    assert "wins" in page.text_content("#status") or "draw" in page.text_content("#status")
    page.click("#back")
    at(played.plies - 1)
    middle = played.plies // 2
    page.eval_on_selector("#ply", "(el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }", middle)
    at(middle)
    page.click(f"#moves li[data-ply='{middle + 1}']")
    at(middle + 1)
    page.keyboard.press("Home")
    at(0)
    page.click("#last")
    at(played.plies)
    page.click("#first")
    at(0)
    assert page.errors == []


def test_xtreme_highlights_the_small_boards_the_next_move_may_use(page, sites):
    site, found = sites["xtreme"]
    played = max((g for g in found.games if g.termination == "normal"), key=lambda g: g.plies)
    page.goto(url_of(site / "games" / f"{played.id}.html") + "#ply=7")
    engine = get_game("xtreme")
    moves = page.evaluate("JSON.parse(document.getElementById('game-data').textContent).moves")
    state = engine.replay(text for _, text, _ in moves[:7])
    assert page.input_value("#ply") == "7"
    assert page.eval_on_selector_all("#board rect.small.allowed", "r => r.length") == len(state.allowed_boards())
    closed = state.small_status()
    drawn = page.eval_on_selector_all("#board rect.drawn", "r => r.length")
    assert drawn == closed.count("d")
    assert page.eval_on_selector_all("#board path.mark.big, #board circle.mark.big", "r => r.length") == sum(
        closed.count(c) for c in "xo"
    )


def test_play_steps_on_by_itself_and_pauses(page, sites):
    site, found = sites["uttt"]
    played = found.games[0]
    page.goto(url_of(site / "games" / f"{played.id}.html"))
    page.click("#play")
    page.wait_for_function("document.getElementById('ply').value >= 2", timeout=5000)
    page.keyboard.press(" ")
    stopped = page.input_value("#ply")
    page.wait_for_timeout(900)
    assert page.input_value("#ply") == stopped and int(stopped) >= 2
    assert page.errors == []


def test_the_games_list_filters_by_team_stage_and_result(page, sites):
    site, found = sites["xtreme"]
    page.goto(url_of(site / "games.html"))

    def visible() -> list[dict]:
        return page.eval_on_selector_all(
            "#games-table tbody tr:not([hidden])", "rows => rows.map(r => ({...r.dataset}))"
        )

    assert len(visible()) == len(found.games) and page.text_content("#shown") == str(len(found.games))
    team = found.leaderboard[0].team
    page.select_option("#filter-bot", team)
    assert {int(row["stage"]) for row in visible()} == {g.stage for g in found.games_of(team)}
    assert len(visible()) == len(found.games_of(team)) and all(team in (r["first"], r["second"]) for r in visible())
    page.select_option("#filter-result", "won")
    line = next(line for line in found.leaderboard if line.team == team)
    assert len(visible()) == line.wins and page.text_content("#shown") == str(line.wins)
    page.select_option("#filter-stage", "1")
    assert len(visible()) == sum(1 for g in found.games_of(team) if g.stage == 1 and g.score_of(team) == "W")
    page.select_option("#filter-bot", "")
    page.select_option("#filter-stage", "")
    page.select_option("#filter-result", "forfeit")
    assert len(visible()) == sum(found.totals.forfeits.values()) > 0
    page.select_option("#filter-result", "draw")
    assert len(visible()) == found.totals.draws
    assert page.is_visible("#no-games") == (found.totals.draws == 0)
    assert page.errors == []


def test_a_link_can_preset_the_filters(page, sites):
    site, found = sites["xtreme"]
    team = found.teams[1]
    page.goto(url_of(site / "teams" / team_file(team)))
    page.click("text=filter in the games list")
    page.wait_for_selector("#games-table")
    assert page.input_value("#filter-bot") == team.name
    rows = page.eval_on_selector_all("#games-table tbody tr:not([hidden])", "rows => rows.length")
    assert rows == len(found.games_of(team.name))


def test_no_page_logs_a_console_error(page, sites):
    for game, (site, found) in sites.items():
        pages = ["index.html", "crosstable.html", "games.html"]
        pages += [f"teams/{team_file(t)}" for t in found.teams]
        pages += [f"games/{g.id}.html" for g in found.games[:3]]
        pages += [f"games/{g.id}.html" for g in found.games if g.forfeit][:2]
        for path in pages:
            page.goto(url_of(site / path))
            if path.startswith("games/"):
                for key in ("ArrowRight", "ArrowRight", "End", "ArrowLeft", "Home"):
                    page.keyboard.press(key)
            elif path == "crosstable.html":
                page.hover("#crosstable tbody tr:first-child td:not(.self)")
        assert page.errors == [], game
