"""What each page of a tournament shows, computed once for both places that render it: the
static report (``arena/results/report.py`` writes the pages to files) and the web app (``arena serve``
renders them on request). Both use the same Jinja2 templates (``arena/results/templates``) and the same
replay script, so a page looks the same written or served.

The pages keep the static site's layout relative to a ``root``: ``index.html``,
``crosstable.html``, ``games.html`` (a page of the games list: the static report writes the
others to ``games-2.html`` and on, the web app serves them at ``games.html?page=2``),
``teams/<file>.html``, ``games/<id>.html`` and ``assets/``; the web app serves a tournament's
pages under ``/t/<id>/``.
"""

from __future__ import annotations

import json
import re
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup

from arena.contests.rating import RatingHistory
from arena.core.text import clean
from arena.games import SIMULTANEOUS, Game, State
from arena.results.figures import (
    duration,
    elo_chart,
    milliseconds,
    number,
    percent,
    rating_chart,
    share_colour,
    signed_elo,
    think_histogram,
    when,
)
from arena.results.lookup import pool_name
from arena.results.replay import result_sentence, seat_names, walk_record
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
    env.globals.update(pool_name=pool_name, seat_key=seat_key)
    return env


def seat_key(seat: int) -> str:
    """A seat's key, as the pages' classes and the games list's result filter name it (and
    replay.js's ``ArenaBoard.seatClass``): ``x`` and ``o`` for the first two seats, ``p3``,
    ``p4``... for the others."""
    return "xo"[seat] if seat < 2 else f"p{seat + 1}"


def team_file(team: Any) -> str:
    """The file name of a team's page, from its entry number and name."""
    slug = re.sub(r"[^A-Za-z0-9]+", "-", team.name).strip("-").lower() or "team"
    return f"{team.number:02d}-{slug}.html"


def embed_json(data: Any) -> Markup:
    """``data`` as JSON safe inside ``<script type="application/json">``."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


#: arena's games, each drawn by code of its own (replay.js); any other game is drawn from its
#: ``boards`` (``State.board()``), or shown as its ``render()`` text
DRAWN = ("tictactoe", "uttt", "xtreme", "othello")
#: the most cells a generic board may have, and boards a position: more is shown as text
MOST_CELLS = 4096
MOST_BOARDS = 16
#: the longest text of a cell, a label and a note, and the most notes
CELL_TEXT, LABEL_TEXT, NOTE_TEXT, MOST_NOTES = 3, 80, 300, 20
#: the longest ``render()`` text a position shows
RENDER_TEXT = 20_000
#: the most dots a team's rating chart draws (``thin_dots``)
MOST_DOTS = 300
#: the most of a team's games its page lists (its latest): a team of a season of 100,000 games
#: plays some 2,000, which would weigh 900 KB a team page (the games list has every one)
TEAM_GAMES = 200


def board_kind(game: Game | None) -> str:
    """How a game's positions are drawn: by its own name for arena's games (``DRAWN``), else
    ``generic`` (its boards, or its text). A user's game is never drawn as one of arena's,
    whatever its name."""
    if game is not None and game.source is None and game.name in DRAWN:
        return game.name
    return "generic"


def frames(game: Game, states: list[State]) -> list[dict[str, Any]]:
    """Each position as the page draws it: whose turn, then the engine's ``board_data()`` (and,
    where they are few, the legal moves); a game not of arena's own, its ``generic_frame``."""
    if board_kind(game) == "generic":
        return [generic_frame(state, clickable=False) for state in states]
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


def generic_frame(state: State, seat: int | None = None, clickable: bool = True) -> dict[str, Any]:
    """A position of a game drawn without code of its own, from what ``seat`` may know of it
    (``State.view``; ``None``: a spectator's, everything): who acts, its ``boards`` and
    ``notes`` where it gives them (checked and cut to the format's bounds; the moves of their
    cells only where they are ``clickable``), else its ``render()`` text (a spectator's only)."""
    frame: dict[str, Any] = {"to_move": state.to_move}
    try:
        if state.is_terminal:
            frame["terminal"] = True
        if state.to_move == SIMULTANEOUS:
            frame["actors"] = list(state.actors())
        view = state.view(seat)
        boards = checked_boards(view)
        if boards is not None and not clickable:
            for board in boards["boards"]:
                board.pop("moves", None)
        if boards is not None:
            frame.update(boards)
        elif seat is None:
            frame["text"] = clean(state.render(), RENDER_TEXT)
        else:  # (render() is a spectator's: everything) what the seat may know, as its view's data
            shown = {key: value for key, value in view.items() if key not in ("game", "legal")}
            frame["text"] = clean("\n".join(f"{key}: {json.dumps(value)}" for key, value in shown.items()), RENDER_TEXT)
    except Exception as error:  # a user's game whose code fails to show a position
        frame["text"] = clean(f"(the game cannot show this position: {type(error).__name__}: {error})", 500)
    return frame


def checked_boards(data: Any) -> dict[str, Any] | None:
    """The ``boards`` and ``notes`` of a position's data (``to_dict()`` or a ``view``) in the
    board format (docs/games.md, "Boards"), every text a string cut to its bound; ``None``
    where the data holds none, or not in that format."""
    if not isinstance(data, dict) or not isinstance(data.get("boards"), list):
        return None
    boards = []
    for board in data["boards"][:MOST_BOARDS]:
        if not isinstance(board, dict):
            return None
        rows, cols, cells = board.get("rows"), board.get("cols"), board.get("cells")
        if not (type(rows) is int and type(cols) is int and rows > 0 and cols > 0 and rows * cols <= MOST_CELLS):
            return None
        if not isinstance(cells, list) or len(cells) != rows * cols:
            return None
        size = rows * cols
        shown: dict[str, Any] = {
            "rows": rows,
            "cols": cols,
            "cells": ["" if cell is None else clean(cell)[:CELL_TEXT] for cell in cells],
        }
        if board.get("label") is not None:
            shown["label"] = clean(board["label"], LABEL_TEXT)
        for key in ("highlight", "last"):
            marked = board.get(key)
            if isinstance(marked, list):
                shown[key] = sorted({i for i in marked if type(i) is int and 0 <= i < size})
        moves = board.get("moves")
        if isinstance(moves, list) and len(moves) == size:
            shown["moves"] = [None if move is None else clean(move, 40) for move in moves]
        boards.append(shown)
    notes = data.get("notes")
    lines = [clean(note, NOTE_TEXT) for note in notes[:MOST_NOTES]] if isinstance(notes, list) else []
    return {"boards": boards, "notes": lines}


def step_counts(steps: list[tuple[int, int]]) -> list[int]:
    """The entries of each step of a replay (a simultaneous step has one a seat, any other one)."""
    return [end - first for first, end in steps]


# ---------------------------------------------------------------- the pages' values


def site_context(found: Results, served: bool = False, game: Game | None = None) -> dict[str, Any]:
    """What every page of a tournament shows (its header, its teams and their lines); ``game``:
    the tournament's game, where it could be loaded (``tournament_game``)."""
    config = found.config
    return {
        "t": found.tournament,
        "config": config,
        "note": describe_status(found),
        "teams": {team.name: team for team in found.teams},
        "team_files": {team.name: team_file(team) for team in found.teams},
        "lines": {line.team: line for line in found.leaderboard},
        "stage_names": [s.name for s in config.stages],
        "names": seat_names(game, found.seat_count),
        "board_kind": board_kind(game),
        "generated": when(time.time()),
        "problems": {},
        #: the games with a replay page (``None``: every game; the static report may write fewer)
        "replayed": None,
        "served": served,
    }


def index_values(found: Results) -> dict[str, Any]:
    """The overview's own values: the Elo chart and the likelihoods of superiority."""
    los_teams, los_matrix, los_total = final_los(found)
    return {
        "show_course": found.shows_game_points,
        "elo_chart": elo_chart(found.elo.lines),
        "los_teams": los_teams,
        "los_matrix": los_matrix,
        "los_total": los_total,
    }


def crosstable_values(found: Results) -> dict[str, Any]:
    """The crosstable's own values: the teams in leaderboard order."""
    return {"order": [line.team for line in found.leaderboard]}


def think_times(
    games: Sequence[GameSummary], moves: Mapping[int, Moves], team: str | None = None
) -> dict[str, list[float]]:
    """Each team's think times (wall milliseconds), over the ``moves`` of ``games`` (a chance
    outcome is nobody's); with ``team``, over that team's games only (its opponents' times in
    them are there too)."""
    times: dict[str, list[float]] = defaultdict(list)
    for g in games if team is None else [g for g in games if team in g.seats]:
        for seat, _, wall in moves.get(g.id, ()):
            if 0 <= seat < len(g.seats):
                times[g.seats[seat]].append(wall)
    return times


def think_chart(found: Results, times: list[float]) -> dict[str, Any]:
    """The histogram of a team's think ``times`` (wall milliseconds), the move's time limit
    marked."""
    move = found.config.time.move
    return think_histogram(times, None if move is None else move * 1000)


def team_values(
    found: Results,
    team: Team,
    own: list[GameSummary],
    think: dict[str, Any],
    history: RatingHistory,
    span: tuple[float, float],
) -> dict[str, Any]:
    """A team page's values: ``own``, its games in schedule order (the page lists the latest
    ``TEAM_GAMES``); ``think``, its ``think_chart``; ``history``, its rating after each game;
    ``span``, the range every team's rating chart shares (``history_span``)."""
    config = found.config
    start = (config.rating.mu, config.rating.sigma)
    labels = {
        g.id: f"game {g.id} vs {', '.join(t for t in g.seats if t != team.name)} ({g.score_of(team.name)})" for g in own
    }
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
        "games": own[-TEAM_GAMES:],
        "all_games": len(own),
        "params": params_text(team.params),
        "rating_chart": thin_dots(rating_chart(history, start, labels, stage_marks, span)),
        "think_chart": think,
        "forfeits": [g for g in own if g.forfeit and g.offender is not None and g.seats[g.offender] == team.name],
    }


def thin_dots(chart: dict[str, Any]) -> dict[str, Any]:
    """A rating chart with at most ``MOST_DOTS`` of its dots (one a game, each with its
    tooltip): evenly spread, the last kept. Some hundreds fill the chart's width; a team of
    2,000 games would otherwise weigh 200 KB of dots on top of each other."""
    dots = chart.get("dots", [])
    if len(dots) > MOST_DOTS:
        step = -(-len(dots) // MOST_DOTS)
        chart["dots"] = dots[len(dots) - 1 :: -step][::-1]
    return chart


def game_data(game: Game | None, summary: GameSummary, moves: Moves, unavailable: str | None = None) -> dict[str, Any]:
    """What a game page embeds for its replay: the seats, the moves (a chance outcome's of seat
    ``CHANCE``, with no time), the entries of each step and every position, found by re-playing
    the moves through the engine (``problem``: where the record stops re-playing). Without the
    ``game`` (it cannot be loaded: ``unavailable`` says why) the moves alone, and no position."""
    shown_moves = [[s, t, 0 if s < 0 else round(w, 2)] for s, t, w in moves]
    names = seat_names(game, len(summary.seats))
    result = result_sentence(
        names,
        summary.seats,
        summary.winner,
        summary.termination,
        summary.offender,
        summary.raw_points,
        summary.status,
    )
    if game is None:
        return {
            "game": "",
            "board": "generic",
            "seats": list(summary.seats),
            "names": list(names),
            "moves": shown_moves,
            "steps": [],
            "frames": [{"to_move": 0, "text": "(no position: the game cannot be loaded)"}],
            "result": result,
            "problem": unavailable or "the game cannot be loaded",
            "unavailable": True,
        }
    walk = walk_record(
        game,
        [(s, t) for s, t, _ in moves],
        status=summary.status,
        winner=summary.winner,
        points=summary.raw_points,
        termination=summary.termination,
        offender=summary.offender,
        plies=summary.plies,
    )
    data: dict[str, Any] = {
        "game": game.name,
        "board": board_kind(game),
        "seats": list(summary.seats),
        "names": list(names),
        "moves": shown_moves,
        "frames": frames(game, walk.states),
        "result": result,
        "problem": walk.problem,
    }
    if any(end - first != 1 for first, end in walk.steps):
        data["steps"] = step_counts(walk.steps)
    if data["board"] == "generic":
        data["marks"] = [clean(mark) for mark in game.MARKS[: game.players]]
    return data


def hidden_data(game: Game, summary: GameSummary, moves: Moves) -> dict[str, Any]:
    """What the page of a game of hidden information (``Game.HIDDEN``) shows while it goes on:
    how many moves it has, and no move or position (a seat may not know them: they are shown
    once it is over)."""
    data = game_data(game, summary, [])
    text = f"(a game of hidden information: its {len(moves)} moves so far are shown when it is over)"
    data.update(moves=[], frames=[{"to_move": 0, "text": text}], hidden=len(moves), problem=None)
    data.pop("steps", None)
    return data


def game_values(
    data: dict[str, Any], summary: GameSummary, neighbours: tuple[int | None, int | None], listed_at: str
) -> dict[str, Any]:
    """A game page's values, from its ``game_data``; ``listed_at``: the address of the page of
    the games list that lists it (from the site's root)."""
    return {
        "g": summary,
        "listed_at": listed_at,
        "data": embed_json(data),
        "problem": data["problem"],
        "unavailable": data.get("unavailable", False),
        "neighbours": neighbours,
        "result": data["result"],
    }


# ---------------------------------------------------------------- the games list, a page at a time


@dataclass(frozen=True, slots=True)
class Pager:
    """Which page of a list a page is, of how many, and the addresses of its first, previous,
    next and last pages (``None``: the page itself is the first, or the last)."""

    page: int
    pages: int
    first: str | None
    previous: str | None
    next: str | None
    last: str | None


def pager(page: int, pages: int, address: Callable[[int], str]) -> Pager | None:
    """Page ``page`` of ``pages`` (from 1), each at ``address(number)``; ``None`` when there is
    one page only (the list shows no page links)."""
    if pages <= 1:
        return None
    before, after = page > 1, page < pages
    return Pager(
        page,
        pages,
        address(1) if before else None,
        address(page - 1) if before else None,
        address(page + 1) if after else None,
        address(pages) if after else None,
    )


def games_values(
    games: list[GameSummary],
    matching: int,
    pages: Pager | None = None,
    chosen: Mapping[str, str] | None = None,
    by_server: bool = False,
) -> dict[str, Any]:
    """The games list's values: the ``games`` of this page, how many games its filters let
    through (on every page), where it is among the pages, and the filters ``chosen`` (``bot``,
    ``stage``, ``result``), which either the server applied (``by_server``: the list pages of
    ``arena serve`` longer than a page), or the page applies to its rows."""
    return {
        "listed": games,
        "matching": matching,
        "pager": pages,
        "chosen": dict(chosen or {}),
        "by_server": by_server,
    }
