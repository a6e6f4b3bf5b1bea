"""The HTML report of a tournament: a static, self-contained site (no CDN; it works from
``file://`` and offline), written from Jinja2 templates.

Pages: ``index.html`` (podium, leaderboard, stages and pools, totals, TrueSkill settings),
``crosstable.html``, ``games.html`` (every game, filtered in the page), ``teams/<team>.html``
(record, rating chart, think-time histogram, forfeits, games) and ``games/<id>.html`` (a replay).

A game page embeds its own positions, one per ply, computed by re-playing the stored moves
through the Python engine, so the board the browser draws is exactly the engine's; the re-play
also checks the record. Charts are hand-written SVG whose geometry is computed here and drawn
by the macros in ``templates/charts.html``. Game pages are written by a pool of processes when
there are many.
"""

from __future__ import annotations

import json
import math
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

from arena.games import Game, State, get_game_from_spec
from arena.rating import RatingHistory
from arena.replay import replay_record, result_sentence, seat_names
from arena.results import (
    GameSummary,
    Results,
    describe_status,
    find_tournament,
    load_moves,
    load_results,
    params_text,
    pool_name,
)

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
        kind=lambda k: k.replace("_", " "),
    )
    env.globals.update(team_file=team_file, pool_name=pool_name)
    return env


# ---------------------------------------------------------------- formatting


def number(value: float | None, digits: int = 2) -> str:
    """A number as people read it: ``86``, ``1.5``, ``25.31``; empty for ``None``."""
    if value is None:
        return ""
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.{digits}f}".rstrip("0").rstrip(".") if digits else f"{value:.0f}"


def milliseconds(value: float | None) -> str:
    """A time in ms with sensible precision (``0.04 ms``, ``12.3 ms``, ``1.25 s``)."""
    if value is None:
        return ""
    if value >= 1000:
        return f"{value / 1000:.2f} s"
    return f"{value:.2f} ms" if value < 1 else f"{value:.1f} ms"


def round_time(ms: float) -> str:
    """A round time for an axis: ``0.1 ms``, ``10 ms``, ``1 s``, ``200 ms``."""
    if ms >= 1000:
        return f"{number(ms / 1000, 3)} s"
    return f"{number(ms, 3)} ms"


def duration(seconds: float | None) -> str:
    """``2 h 05 min``, ``3 min 12 s``, ``42.0 s``."""
    if seconds is None:
        return ""
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    return f"{minutes // 60} h {minutes % 60:02d} min"


def when(stamp: float | None) -> str:
    return "" if stamp is None else time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))


def share_colour(share: float) -> str:
    """The background of a crosstable cell: red for none of the points, a neutral paper tone for
    half, green for all of them."""
    loss, even, win = (226, 110, 96), (243, 241, 236), (84, 168, 118)
    far, t = (loss, 1 - 2 * share) if share < 0.5 else (win, 2 * share - 1)
    return "#" + "".join(f"{round(e + (f - e) * t):02x}" for e, f in zip(even, far))


def team_file(team: Any) -> str:
    """The file name of a team's page, from its entry number and name."""
    slug = re.sub(r"[^A-Za-z0-9]+", "-", team.name).strip("-").lower() or "team"
    return f"{team.number:02d}-{slug}.html"


def embed_json(data: Any) -> Markup:
    """``data`` as JSON safe inside ``<script type="application/json">``."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


# ---------------------------------------------------------------- chart geometry (SVG in charts.html)


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values covering ``low``-``high``, about ``count`` of them (steps of 1, 2 or 5
    times a power of ten)."""
    if high <= low:
        high = low + 1
    power = 10 ** math.floor(math.log10((high - low) / count))
    step = min((m * power for m in (1, 2, 5, 10)), key=lambda s: abs((high - low) / s - count))
    first = math.ceil(low / step) * step
    return [round(first + i * step, 10) for i in range(int((high - first) / step + 1e-9) + 1)]


def rating_chart(
    history: RatingHistory,
    start: tuple[float, float],
    labels: dict[int, str],
    stages: dict[int, str],
    span: tuple[float, float],
) -> dict[str, Any]:
    """The geometry of a team's rating after each of its games: μ as a line over a ±σ band.
    ``labels``: game id -> tooltip; ``stages``: game id -> stage name (a mark where one starts);
    ``span``: the y range (shared by every team, so charts compare)."""
    width, height, left, right, top, bottom = 720, 260, 46, 14, 14, 34
    points = [(0, start[0], start[1], "start")] + [
        (i, mu, sigma, labels.get(game_id, "")) for i, (game_id, mu, sigma) in enumerate(history.after, 1)
    ]
    n = max(len(points) - 1, 1)
    low, high = span

    def x(i: float) -> float:
        return round(left + (width - left - right) * i / n, 1)

    def y(v: float) -> float:
        return round(top + (height - top - bottom) * (high - v) / (high - low), 1)

    upper = [f"{x(i)},{y(mu + s)}" for i, mu, s, _ in points]
    lower = [f"{x(i)},{y(mu - s)}" for i, mu, s, _ in reversed(points)]
    step = max(1, n // 10)
    marks = []
    for i, (game_id, _, _) in enumerate(history.after, 1):
        if game_id in stages:
            marks.append({"x": x(i - 0.5), "label": stages[game_id]})
    return {
        "width": width,
        "height": height,
        "left": left,
        "right": width - right,
        "top": top,
        "bottom": height - bottom,
        "band": " ".join(upper + lower),
        "line": " ".join(f"{x(i)},{y(mu)}" for i, mu, _, _ in points),
        "dots": [{"x": x(i), "y": y(mu), "title": f"{label}: μ {mu:.2f}, σ {s:.2f}"} for i, mu, s, label in points[1:]],
        "yticks": [{"y": y(v), "label": number(v, 1)} for v in nice_ticks(low, high) if low <= v <= high],
        "xticks": [{"x": x(i), "label": str(i)} for i in range(0, n + 1, step)],
        "stages": marks,
        "empty": not history.after,
    }


def rating_span(ratings: dict[str, RatingHistory], start: tuple[float, float]) -> tuple[float, float]:
    """The μ ± σ range every team's chart shares."""
    values = [start[0] - start[1], start[0] + start[1]]
    for history in ratings.values():
        for _, mu, sigma in history.after:
            values += [mu - sigma, mu + sigma]
    low, high = min(values), max(values)
    pad = (high - low) * 0.04 or 1
    return (low - pad, high + pad)


def think_histogram(times_ms: list[float], limit_ms: float | None) -> dict[str, Any]:
    """The geometry of a histogram of move times on a log scale (quarter-decade bins), with
    the move time limit marked."""
    width, height, left, right, top, bottom = 720, 220, 46, 14, 14, 34
    if not times_ms:
        return {"empty": True, "width": width, "height": height}
    floor = 0.01  # ms: faster moves share the first bin
    logs = [math.log10(max(t, floor)) * 4 for t in times_ms]
    first = math.floor(min(logs))
    last = max(math.floor(max(logs)) + 1, first + 4)
    if limit_ms:
        last = max(last, math.ceil(math.log10(limit_ms) * 4) + 1)
    counts = [0] * (last - first)
    for value in logs:
        counts[min(math.floor(value) - first, len(counts) - 1)] += 1
    top_count = max(counts)

    def x(quarter: float) -> float:
        return round(left + (width - left - right) * (quarter - first) / (last - first), 1)

    def y(count: float) -> float:
        return round(top + (height - top - bottom) * (1 - count / top_count), 1)

    bars = []
    for i, count in enumerate(counts):
        if count:
            lo, hi = 10 ** ((first + i) / 4), 10 ** ((first + i + 1) / 4)
            bars.append(
                {
                    "x": x(first + i) + 0.5,
                    "y": y(count),
                    "w": max(x(first + i + 1) - x(first + i) - 1, 1),
                    "h": round(y(0) - y(count), 1),
                    "count": count,
                    "title": f"{count} moves of {milliseconds(lo)} to {milliseconds(hi)}",
                }
            )
    xticks = [
        {"x": x(d * 4), "label": round_time(10.0**d)} for d in range(math.ceil(first / 4), math.floor(last / 4) + 1)
    ]
    yticks = [{"y": y(v), "label": number(v)} for v in nice_ticks(0, top_count, 4) if v == int(v)]
    limit = None
    if limit_ms:
        limit = {"x": x(math.log10(limit_ms) * 4), "label": f"limit {round_time(limit_ms)}"}
    return {
        "empty": False,
        "width": width,
        "height": height,
        "left": left,
        "right": width - right,
        "top": top,
        "bottom": height - bottom,
        "bars": bars,
        "xticks": xticks,
        "yticks": yticks,
        "limit": limit,
    }


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

    page("index.html", "index.html", show_course=found.has_course_points and config.scoring != "course2019")
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
