"""The HTML report of a tournament: a static, self-contained site (no CDN; it works from
``file://`` and offline), written from Jinja2 templates.

Pages: ``index.html`` (podium, final standings, ratings, Elo with error bars and the last
stage's likelihoods of superiority, stages and pools, totals, rating settings),
``crosstable.html``, ``games.html`` (the games, ``GAMES_A_PAGE`` a page, the later pages in
``games-2.html`` and on; filtered in the page), ``teams/<team>.html`` (final place, record, rating
chart, think-time histogram, forfeits, its latest games: ``pages.TEAM_GAMES``) and ``games/<id>.html``
(a replay), for the games ``--games`` chooses (``choose_replays``: every game of a tournament
of up to ``AUTO_GAMES``); a game without one is listed without a link.

A game page embeds its own positions, one per ply, computed by re-playing the stored moves
through the Python engine, so the board the browser draws is exactly the engine's; the re-play
also checks the record. Charts are hand-written SVG (arena/results/figures.py computes their geometry).
Game pages are written by a pool of processes when there are many. Only the moves of the games
with a page are read for them, and a team's page reads its own games' moves (its think times).
What each page shows comes from ``arena/results/pages.py``, which ``arena serve`` renders from
too.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from jinja2 import Environment
from sqlalchemy.orm import Session, sessionmaker

from arena.games import Game
from arena.results.lookup import find_tournament
from arena.results.pages import (
    ASSETS,
    TEMPLATES,
    crosstable_values,
    environment,
    game_data,
    game_values,
    games_values,
    index_values,
    pager,
    site_context,
    team_file,
    team_values,
    think_chart,
    think_times,
)
from arena.results.replay import tournament_game
from arena.results.tables import GameSummary
from arena.results.tournament_results import Results, history_span, load_moves, load_results, team_history

__all__ = ["GamePages", "Written", "team_file", "write_report"]

#: games below this many are written in this process (a pool would cost more than it saves)
PARALLEL_FROM = 120
#: which games get a replay page (``arena report --games``): every game, the last stage's, none,
#: or ``auto`` (``choose_replays``)
GamePages = Literal["auto", "all", "final", "none"]
#: the most replay pages ``--games auto`` writes
AUTO_GAMES = 5_000
#: the games a page of the games list holds
GAMES_A_PAGE = 1_000
#: what a report says of the ways to see a game that has no replay page in it
OTHER_WAYS = (
    "the others are listed without a link: 'arena report --games all' writes a page for every game, "
    "'arena replay ID' replays one in the terminal, and 'arena serve' serves every game's page"
)


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
    #: which games have a replay page, when not every game has one (``Replays.note``)
    replays: str | None = None


@dataclass(frozen=True, slots=True)
class Replays:
    """The games that get a replay page (their ids, in schedule order) and, when not every game
    does, which they are and how to see the others, in a sentence."""

    ids: list[int]
    note: str | None = None


def choose_replays(found: Results, games: GamePages) -> Replays:
    """The games ``--games`` gives a replay page: ``all``, ``none``, ``final`` (the last
    stage's), or ``auto``: every game when there are at most ``AUTO_GAMES``, else the last
    stage's if they are at most that many, else the latest ``AUTO_GAMES`` finished games."""
    every = [g.id for g in found.games]
    last = len(found.config.stages) - 1
    final = [g.id for g in found.games if g.stage == last]
    stage = found.config.stages[last].name
    if games == "all" or (games == "auto" and len(every) <= AUTO_GAMES) or (games == "final" and final == every):
        return Replays(every)
    of = f"of {len(every):,}"
    if games == "none":
        return Replays([], f"No game has a replay page (--games none); {OTHER_WAYS}.")
    if games == "final":
        return Replays(final, f"Replay pages for the last stage's {len(final):,} games {of} ({stage}); {OTHER_WAYS}.")
    auto = "--games auto chose them, there being more than"
    if len(final) <= AUTO_GAMES:
        said = f"the last stage's {len(final):,} games {of} ({stage}): {auto} {AUTO_GAMES:,} games in all"
        return Replays(final, f"Replay pages for {said}; {OTHER_WAYS}.")
    latest = [g.id for g in found.games if g.finished][-AUTO_GAMES:]  # (the last in schedule order)
    said = f"the latest {len(latest):,} finished games {of}: {auto} {AUTO_GAMES:,} games in all and in the last stage"
    return Replays(latest, f"Replay pages for {said}; {OTHER_WAYS}.")


def games_file(page: int) -> str:
    """The file of page ``page`` (from 1) of the games list: ``games.html``, ``games-2.html``..."""
    return "games.html" if page == 1 else f"games-{page}.html"


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
        values = game_values(data, summary, shared["neighbours"][game_id], shared["listed_at"][game_id])
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
    ids: list[int],
    game: Game | None = None,
    unavailable: str | None = None,
) -> dict[int, tuple[str | None, int]]:
    """The pages of the games ``ids`` (in schedule order), each linked to the ones before and
    after it of them; game id -> (what is wrong with its record, page bytes). Without the
    ``game`` (``unavailable`` says why it cannot be loaded) each page shows the moves alone."""
    neighbours = {
        game_id: (ids[i - 1] if i else None, ids[i + 1] if i + 1 < len(ids) else None) for i, game_id in enumerate(ids)
    }
    at = {g.id: i for i, g in enumerate(found.games)}
    _SHARED.update(
        game=game,
        unavailable=unavailable,
        env=env,
        games={g.id: g for g in found.games},
        moves=moves,
        folder=folder,
        context=context,
        neighbours=neighbours,
        listed_at={game_id: games_file(at[game_id] // GAMES_A_PAGE + 1) for game_id in ids},
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


def _remove_stale(folder: Path, keep: set[str], pattern: str = "*.html") -> None:
    """Remove pages (``pattern``) an earlier report left in ``folder`` that this one did not
    write."""
    for page in folder.glob(pattern):
        if page.name not in keep:
            page.unlink()


def write_report(sessions: sessionmaker[Session], name: str | None, folder: Path, games: GamePages = "auto") -> Written:
    """Write the report of tournament ``name`` (the latest if ``None``) into ``folder``, with a
    replay page for the games ``games`` chooses (``choose_replays``)."""
    with sessions.begin() as session:
        found = load_results(session, find_tournament(session, name))
    replays = choose_replays(found, games)
    every = replays.note is None
    folder = Path(folder)
    for sub in ("games", "teams", "assets"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    for asset in ASSETS:
        shutil.copyfile(TEMPLATES / asset, folder / "assets" / asset)
    env = environment()
    game, unavailable = tournament_game(found.tournament)
    context = site_context(found, game=game)
    note = context["note"]
    with sessions.begin() as session:
        moves = load_moves(session, found.tournament, None if every else replays.ids)
    checked = write_game_pages(env, found, moves, folder, context, replays.ids, game, unavailable)
    del moves  # (a team's page reads its own games' moves)
    problems = {game_id: p for game_id, (p, _) in checked.items() if p}
    context.update(problems=problems, replayed=None if every else set(replays.ids))

    def page(template: str, path: str, **values: Any) -> None:
        root = "../" if "/" in path else ""
        html = env.get_template(template).render(root=root, found=found, **context, **values)
        (folder / path).write_text(html, encoding="utf-8")

    page("index.html", "index.html", nodes=found.nodes, **index_values(found))
    page("crosstable.html", "crosstable.html", **crosstable_values(found))
    lists = max(1, -(-len(found.games) // GAMES_A_PAGE))
    for number in range(1, lists + 1):
        listed = found.games[(number - 1) * GAMES_A_PAGE : number * GAMES_A_PAGE]
        values = games_values(listed, len(listed), pager(number, lists, games_file))
        page("games.html", games_file(number), replay_note=replays.note, **values)
    with sessions.begin() as session:  # (the rating charts from the seats' kept ratings, as served)
        span = history_span(session, found)
        for team in found.teams:
            own = load_moves(session, found.tournament, [g.id for g in found.games_of(team.name)])
            played = found.games_of(team.name)
            think = think_chart(found, think_times(played, own, team.name)[team.name])
            values = team_values(found, team, played, think, team_history(session, found, team.name), span)
            page("team.html", f"teams/{team_file(team)}", **values)
    _remove_stale(folder / "games", {f"{game_id}.html" for game_id in checked})
    _remove_stale(folder / "teams", {team_file(team) for team in found.teams})
    _remove_stale(folder, {games_file(number) for number in range(1, lists + 1)}, "games-[0-9]*.html")
    sizes = [size for _, size in checked.values()]
    return Written(
        folder,
        pages=2 + lists + len(found.teams) + len(checked),
        games=len(checked),
        largest_game_page=max(sizes, default=0),
        problems=[f"game {gid} does not re-play: {p}" for gid, p in sorted(problems.items())],
        note=note,
        unavailable=unavailable,
        replays=replays.note,
    )
