"""What each page of a tournament shows, computed once for both places that render it: the
static report (``arena/results/report.py`` writes the pages to files) and the web app (``arena serve``
renders them on request). Both use the same Jinja2 templates (``arena/results/templates``) and the same
replay script, so a page looks the same written or served.

The pages keep the static site's layout relative to a ``root``: ``index.html``,
``crosstable.html``, ``games.html``, ``teams/<file>.html``, ``games/<id>.html`` and
``assets/``; the web app serves a tournament's pages under ``/t/<id>/``.
"""

from __future__ import annotations

import json
import re
import time
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup

from arena.games import Game, State
from arena.results.figures import (
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
from arena.results.lookup import pool_name
from arena.results.replay import replay_record, result_sentence, seat_names
from arena.results.tables import GameSummary, Team
from arena.results.tournament_results import Results, describe_status, final_los, params_text

TEMPLATES = Path(__file__).parent / "templates"
#: the shared static files: written beside the report's pages, served by the web app
ASSETS = ("style.css", "report.js", "replay.js")
#: the web app's own scripts beside them: live updates, and playing a bot
SERVED_ASSETS = (*ASSETS, "live.js", "play.js")

#: a game's moves as the pages read them: (seat, move text, wall milliseconds) by ply
Moves = list[tuple[int, str, float]]


def environment() -> Environment:
    """The Jinja2 environment of the pages' templates, with their filters."""
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


# ---------------------------------------------------------------- the pages' values


def site_context(found: Results, served: bool = False) -> dict[str, Any]:
    """What every page of a tournament shows (its header, its teams and their lines)."""
    config = found.config
    return {
        "t": found.tournament,
        "config": config,
        "note": describe_status(found),
        "teams": {team.name: team for team in found.teams},
        "lines": {line.team: line for line in found.leaderboard},
        "stage_names": [s.name for s in config.stages],
        "names": seat_names(config.game.name),
        "generated": when(time.time()),
        "problems": {},
        "served": served,
    }


def index_values(found: Results) -> dict[str, Any]:
    """The overview's own values: the Elo chart and the likelihoods of superiority."""
    los_teams, los_matrix, los_total = final_los(found)
    return {
        "show_course": found.has_course_points and found.config.scoring != "course2019",
        "elo_chart": elo_chart(found.elo.lines),
        "los_teams": los_teams,
        "los_matrix": los_matrix,
        "los_total": los_total,
    }


def crosstable_values(found: Results) -> dict[str, Any]:
    """The crosstable's own values: the teams in leaderboard order."""
    return {"order": [line.team for line in found.leaderboard]}


def think_times(found: Results, moves: Mapping[int, Moves]) -> dict[str, list[float]]:
    """Each team's think times (wall milliseconds), over its games' ``moves``."""
    times: dict[str, list[float]] = defaultdict(list)
    for g in found.games:
        for seat, _, wall in moves.get(g.id, ()):
            times[g.seats[seat]].append(wall)
    return times


def team_values(found: Results, team: Team, times: list[float]) -> dict[str, Any]:
    """A team page's values; ``times``: the team's think times (wall milliseconds)."""
    config = found.config
    start = (config.rating.mu, config.rating.sigma)
    span = rating_span(found.ratings, start)
    limit = None if config.time.move is None else config.time.move * 1000
    own = found.games_of(team.name)
    labels = {g.id: f"game {g.id} vs {g.seats[1 - g.seats.index(team.name)]} ({g.score_of(team.name)})" for g in own}
    stage_marks, seen = {}, {0}
    for g in own:  # a mark where each later stage starts for this team
        if g.finished and g.stage not in seen:
            seen.add(g.stage)
            stage_marks[g.id] = config.stages[g.stage].name
    places = {p.team: p for p in found.standings}
    lines = {line.team: line for line in found.leaderboard}
    return {
        "team": team,
        "line": lines[team.name],
        "place": places.get(team.name),
        "games": own,
        "params": params_text(team.params),
        "rating_chart": rating_chart(found.ratings[team.name], start, labels, stage_marks, span),
        "think_chart": think_histogram(times, limit),
        "forfeits": [g for g in own if g.forfeit and g.offender is not None and g.seats[g.offender] == team.name],
    }


def game_data(game: Game, summary: GameSummary, moves: Moves) -> dict[str, Any]:
    """What a game page embeds for its replay: the seats, the moves and every position, found
    by re-playing the moves through the engine (``problem``: where the record stops re-playing)."""
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
    return {
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


def game_values(
    data: dict[str, Any], summary: GameSummary, neighbours: tuple[int | None, int | None]
) -> dict[str, Any]:
    """A game page's values, from its ``game_data``."""
    return {
        "g": summary,
        "data": embed_json(data),
        "problem": data["problem"],
        "neighbours": neighbours,
        "result": data["result"],
    }
