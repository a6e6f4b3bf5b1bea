"""The HTML report of a tournament: a static, self-contained site (no CDN; it works from
``file://`` and offline), written from Jinja2 templates.

Pages: ``index.html`` (podium, final standings, ratings, Elo with error bars and the last
stage's likelihoods of superiority, stages and pools, totals, rating settings),
``crosstable.html``, ``games.html`` (every game, filtered in the page), ``teams/<team>.html``
(final place, record, rating chart, think-time histogram, forfeits, games) and
``games/<id>.html`` (a replay).

A game page embeds its own positions, one per ply, computed by re-playing the stored moves
through the Python engine, so the board the browser draws is exactly the engine's; the re-play
also checks the record. Charts are hand-written SVG (arena/results/figures.py computes their geometry).
Game pages are written by a pool of processes when
there are many. What each page shows comes from ``arena/results/pages.py``, which ``arena serve``
renders from too.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import Environment
from sqlalchemy.orm import Session, sessionmaker

from arena.games import Game
from arena.results.lookup import find_tournament
from arena.results.nodestats import node_lines
from arena.results.pages import (
    ASSETS,
    TEMPLATES,
    crosstable_values,
    environment,
    game_data,
    game_values,
    index_values,
    site_context,
    team_file,
    team_values,
    think_times,
)
from arena.results.replay import tournament_game
from arena.results.tables import GameSummary
from arena.results.tournament_results import Results, load_moves, load_results

__all__ = ["Written", "team_file", "write_report"]

#: games below this many are written in this process (a pool would cost more than it saves)
PARALLEL_FROM = 120


@dataclass(slots=True)
class Written:
    """What ``write_report`` wrote."""

    folder: Path
    pages: int
    games: int
    largest_game_page: int
    problems: list[str] = field(default_factory=list)
    note: str | None = None
    #: why the tournament's game cannot be loaded (its game pages then show no replay)
    unavailable: str | None = None


# ---------------------------------------------------------------- game pages


#: what the processes writing game pages share (set before they fork)
_SHARED: dict[str, Any] = {}


def _write_games(ids: list[int]) -> list[tuple[int, str | None, int]]:
    """Write the pages of games ``ids``: (id, what is wrong with its record, page bytes) each."""
    shared = _SHARED
    game: Game | None = shared["game"]
    template = shared["env"].get_template("game.html")
    out = []
    for game_id in ids:
        summary: GameSummary = shared["games"][game_id]
        data = game_data(game, summary, shared["moves"].get(game_id, []), shared["unavailable"])
        values = game_values(data, summary, shared["neighbours"][game_id])
        html = template.render(root="../", **shared["context"], **values)
        path = shared["folder"] / "games" / f"{game_id}.html"
        path.write_text(html, encoding="utf-8")
        out.append((game_id, None if game is None else data["problem"], len(html.encode())))
    return out


def write_game_pages(
    env: Environment,
    found: Results,
    moves: dict[int, list[tuple[int, str, float]]],
    folder: Path,
    context: dict[str, Any],
    game: Game | None = None,
    unavailable: str | None = None,
) -> dict[int, tuple[str | None, int]]:
    """Every game page; game id -> (what is wrong with its record, page bytes). Without the
    ``game`` (``unavailable`` says why it cannot be loaded) each page shows the moves alone."""
    ids = [g.id for g in found.games]
    neighbours = {
        game_id: (ids[i - 1] if i else None, ids[i + 1] if i + 1 < len(ids) else None) for i, game_id in enumerate(ids)
    }
    _SHARED.update(
        game=game,
        unavailable=unavailable,
        env=env,
        games={g.id: g for g in found.games},
        moves=moves,
        folder=folder,
        context=context,
        neighbours=neighbours,
    )
    try:
        workers = min(os.cpu_count() or 1, 8)
        if len(ids) < PARALLEL_FROM or workers < 2:
            written = _write_games(ids)
        else:
            size = max(8, len(ids) // (workers * 6))
            chunks = [ids[i : i + size] for i in range(0, len(ids), size)]
            with multiprocessing.get_context("fork").Pool(workers) as pool:
                written = [row for part in pool.imap_unordered(_write_games, chunks) for row in part]
    finally:
        _SHARED.clear()
    return {game_id: (problem, size) for game_id, problem, size in written}


# ---------------------------------------------------------------- the site


def _remove_stale(folder: Path, keep: set[str]) -> None:
    """Remove pages an earlier report left in ``folder`` that this one did not write."""
    for page in folder.glob("*.html"):
        if page.name not in keep:
            page.unlink()


def write_report(sessions: sessionmaker[Session], name: str | None, folder: Path) -> Written:
    """Write the report of tournament ``name`` (the latest if ``None``) into ``folder``."""
    with sessions.begin() as session:
        found = load_results(session, find_tournament(session, name))
        moves = load_moves(session, found.tournament)
        nodes = node_lines(session, found.tournament.id)
    folder = Path(folder)
    for sub in ("games", "teams", "assets"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    for asset in ASSETS:
        shutil.copyfile(TEMPLATES / asset, folder / "assets" / asset)
    env = environment()
    game, unavailable = tournament_game(found.tournament)
    context = site_context(found, game=game)
    note = context["note"]
    checked = write_game_pages(env, found, moves, folder, context, game, unavailable)
    problems = {game_id: p for game_id, (p, _) in checked.items() if p}
    context["problems"] = problems

    def page(template: str, path: str, **values: Any) -> None:
        root = "../" if "/" in path else ""
        html = env.get_template(template).render(root=root, found=found, **context, **values)
        (folder / path).write_text(html, encoding="utf-8")

    page("index.html", "index.html", nodes=nodes, **index_values(found))
    page("crosstable.html", "crosstable.html", **crosstable_values(found))
    page("games.html", "games.html")
    times = think_times(found, moves)
    for team in found.teams:
        page("team.html", f"teams/{team_file(team)}", **team_values(found, team, times[team.name]))
    _remove_stale(folder / "games", {f"{game_id}.html" for game_id in checked})
    _remove_stale(folder / "teams", {team_file(team) for team in found.teams})
    sizes = [size for _, size in checked.values()]
    return Written(
        folder,
        pages=3 + len(found.teams) + len(checked),
        games=len(checked),
        largest_game_page=max(sizes, default=0),
        problems=[f"game {gid} does not re-play: {p}" for gid, p in sorted(problems.items())],
        note=note,
        unavailable=unavailable,
    )
