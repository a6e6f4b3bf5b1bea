"""The HTML report of a tournament: a static, self-contained site (no CDN; it works from
``file://`` and offline), written from Jinja2 templates.

Pages: ``index.html`` (podium, final standings, ratings, Elo with error bars and the last
stage's likelihoods of superiority, stages and pools, totals, rating settings),
``crosstable.html``, ``games.html`` (every game, filtered in the page), ``teams/<team>.html``
(final place, record, rating chart, think-time histogram, forfeits, games) and
``games/<id>.html`` (a replay).

A game page embeds its own positions, one per ply, computed by re-playing the stored moves
through the Python engine, so the board the browser draws is exactly the engine's; the re-play
also checks the record. Charts are hand-written SVG (arena/figures.py computes their geometry).
Game pages are written by a pool of processes when
there are many.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import shutil
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup
from sqlalchemy.orm import Session, sessionmaker

from arena.figures import (
    duration,
    elo_chart,
    milliseconds,
    number,
    percent,
    rating_chart,
    rating_span,
    share_colour,
    signed_elo,
    think_histogram,
    when,
)
from arena.games import Game, State, get_game_from_spec
from arena.lookup import find_tournament, pool_name
from arena.nodestats import node_lines
from arena.replay import replay_record, result_sentence, seat_names
from arena.results import Results, describe_status, final_los, load_moves, load_results, params_text
from arena.tables import GameSummary

TEMPLATES = Path(__file__).parent / "templates"
#: the shared static files, copied beside the pages
ASSETS = ("style.css", "report.js", "replay.js")
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


def environment() -> Environment:
    """The Jinja2 environment of the report's templates, with its filters."""
    env = Environment(
        loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html"]), trim_blocks=True, lstrip_blocks=True
    )
    env.filters.update(
        num=number,
        ms=milliseconds,
        duration=duration,
        when=when,
        share=share_colour,
        elo=signed_elo,
        percent=percent,
        kind=lambda k: k.replace("_", " "),
    )
    env.globals.update(team_file=team_file, pool_name=pool_name)
    return env


def team_file(team: Any) -> str:
    """The file name of a team's page, from its entry number and name."""
    slug = re.sub(r"[^A-Za-z0-9]+", "-", team.name).strip("-").lower() or "team"
    return f"{team.number:02d}-{slug}.html"


def embed_json(data: Any) -> Markup:
    """``data`` as JSON safe inside ``<script type="application/json">``."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


# ---------------------------------------------------------------- game pages


def frames(game: Game, states: list[State]) -> list[dict[str, Any]]:
    """Each position as the page draws it: whose turn, then the engine's ``board_data()`` (and,
    where they are few, the legal moves)."""
    small = game.name in ("othello", "tictactoe")
    out = []
    for state in states:
        frame = {"to_move": state.to_move, **state.board_data()}
        if state.is_terminal:
            frame["terminal"] = True
        if small:
            frame["legal"] = [game.format_move(m) for m in state.legal_moves()]
        out.append(frame)
    return out


#: what the processes writing game pages share (set before they fork)
_SHARED: dict[str, Any] = {}


def _write_games(ids: list[int]) -> list[tuple[int, str | None, int]]:
    """Write the pages of games ``ids``: (id, what is wrong with its record, page bytes) each."""
    shared = _SHARED
    game: Game = shared["game"]
    template = shared["env"].get_template("game.html")
    out = []
    for game_id in ids:
        summary: GameSummary = shared["games"][game_id]
        moves = shared["moves"].get(game_id, [])
        states, problem = replay_record(
            game,
            [(s, t) for s, t, _ in moves],
            status=summary.status,
            winner=summary.winner,
            points=summary.raw_points,
            termination=summary.termination,
            offender=summary.offender,
            plies=summary.plies,
        )
        data = {
            "game": game.name,
            "seats": list(summary.seats),
            "names": list(seat_names(game.name)),
            "moves": [[s, t, round(w, 2)] for s, t, w in moves],
            "frames": frames(game, states),
            "result": result_sentence(
                game.name,
                summary.seats,
                summary.winner,
                summary.termination,
                summary.offender,
                summary.raw_points,
                summary.status,
            ),
            "problem": problem,
        }
        html = template.render(
            root="../",
            g=summary,
            data=embed_json(data),
            problem=problem,
            **shared["context"],
            neighbours=shared["neighbours"][game_id],
            result=data["result"],
        )
        path = shared["folder"] / "games" / f"{game_id}.html"
        path.write_text(html, encoding="utf-8")
        out.append((game_id, problem, len(html.encode())))
    return out


def write_game_pages(
    env: Environment,
    found: Results,
    moves: dict[int, list[tuple[int, str, float]]],
    folder: Path,
    context: dict[str, Any],
) -> dict[int, tuple[str | None, int]]:
    """Every game page; game id -> (what is wrong with its record, page bytes)."""
    ids = [g.id for g in found.games]
    neighbours = {
        game_id: (ids[i - 1] if i else None, ids[i + 1] if i + 1 < len(ids) else None) for i, game_id in enumerate(ids)
    }
    _SHARED.update(
        game=get_game_from_spec(found.tournament.game),
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
    t, config = found.tournament, found.config
    note = describe_status(found)
    teams = {team.name: team for team in found.teams}
    lines = {line.team: line for line in found.leaderboard}
    places = {p.team: p for p in found.standings}
    context = {
        "t": t,
        "config": config,
        "note": note,
        "teams": teams,
        "lines": lines,
        "stage_names": [s.name for s in config.stages],
        "names": seat_names(config.game.name),
        "generated": when(time.time()),
    }
    checked = write_game_pages(env, found, moves, folder, context)
    problems = {game_id: p for game_id, (p, _) in checked.items() if p}
    context["problems"] = problems

    def page(template: str, path: str, **values: Any) -> None:
        root = "../" if "/" in path else ""
        html = env.get_template(template).render(root=root, found=found, **context, **values)
        (folder / path).write_text(html, encoding="utf-8")

    los_teams, los_matrix, los_total = final_los(found)
    page(
        "index.html",
        "index.html",
        show_course=found.has_course_points and config.scoring != "course2019",
        elo_chart=elo_chart(found.elo.lines),
        los_teams=los_teams,
        los_matrix=los_matrix,
        los_total=los_total,
        nodes=nodes,
    )
    page("crosstable.html", "crosstable.html", order=[line.team for line in found.leaderboard])
    page("games.html", "games.html")
    start = (config.rating.mu, config.rating.sigma)
    span = rating_span(found.ratings, start)
    limit = None if config.time.move is None else config.time.move * 1000
    times: dict[str, list[float]] = defaultdict(list)
    for g in found.games:
        for seat, _, wall in moves.get(g.id, ()):
            times[g.seats[seat]].append(wall)
    for team in found.teams:
        own = found.games_of(team.name)
        labels = {
            g.id: f"game {g.id} vs {g.seats[1 - g.seats.index(team.name)]} ({g.score_of(team.name)})" for g in own
        }
        stage_marks, seen = {}, {0}
        for g in own:  # a mark where each later stage starts for this team
            if g.finished and g.stage not in seen:
                seen.add(g.stage)
                stage_marks[g.id] = config.stages[g.stage].name
        page(
            "team.html",
            f"teams/{team_file(team)}",
            team=team,
            line=lines[team.name],
            place=places.get(team.name),
            games=own,
            params=params_text(team.params),
            rating_chart=rating_chart(found.ratings[team.name], start, labels, stage_marks, span),
            think_chart=think_histogram(times[team.name], limit),
            forfeits=[g for g in own if g.forfeit and g.offender is not None and g.seats[g.offender] == team.name],
        )
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
    )
