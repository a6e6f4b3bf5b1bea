"""The read side of ``arena serve``: a tournament's pages rendered on request from the same
templates and values as the static report (``arena/results/pages.py``), with each tournament's results
kept until its games change.

A tournament's ``stamp`` (its status, its games finished and scheduled, the last finish) is one
small query; the results (ratings replayed over every game) are loaded again only when the
stamp moves, so a page is cheap to serve while ``arena run`` writes the database from another
process, and the live updates are the stamp seen to move.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from arena.errors import ArenaError
from arena.games import Game
from arena.results.listings import tournament_rows
from arena.results.nodestats import NodeLine, node_lines
from arena.results.pages import (
    crosstable_values,
    environment,
    game_data,
    game_values,
    hidden_data,
    index_values,
    site_context,
    team_file,
    team_values,
    think_times,
)
from arena.results.replay import tournament_game
from arena.results.tables import GameSummary
from arena.results.tournament_results import Results, load_moves, load_results
from arena.store.models import Entry, GameRow, MoveRow, Tournament
from arena.store.seasons import submitted_bots

#: what a tournament's pages depend on: status, games scheduled, finished, last finish, voids
Stamp = tuple[Any, ...]
#: the moves of a game in progress, from the run's live files: game id -> moves, or ``None``
LiveMoves = Callable[[int], list[tuple[int, str, float]] | None]


def stamp_token(stamp: Stamp) -> str:
    """A short text that changes with ``stamp`` (a page says with it what it shows)."""
    return hashlib.sha256(repr(stamp).encode()).hexdigest()[:16]


class NotFound(ArenaError):
    """What a request names is not in the database (a tournament, a team, a game)."""


@dataclass(frozen=True, slots=True)
class Cached:
    """A tournament's results as of ``stamp``."""

    stamp: Stamp
    found: Results
    context: dict[str, Any]
    nodes: list[NodeLine]
    #: the tournament's game, or ``None`` and why it cannot be loaded (its module gone or changed)
    game: Game | None = None
    unavailable: str | None = None


def season_teams(session: Session, tournament_id: int) -> set[str]:
    """The teams of tournament ``tournament_id`` whose bot is a season's submission."""
    query = select(Entry.team).where(Entry.tournament_id == tournament_id, Entry.bot_id.in_(submitted_bots()))
    return set(session.scalars(query))


def _keep_to_their_teams(found: Results, teams: set[str]) -> None:
    """Take what the bots of ``teams`` wrote off ``found``'s games: a season's bot's output
    (its stderr, what its exception said) is its own team's, shown on the team's page of the
    season only; the served pages say how its games ended, not what it printed."""
    for summary in found.games:
        stderr = list(summary.stderr)
        for seat, team in enumerate(summary.seats):
            if team in teams:
                stderr[seat] = None
                if summary.offender == seat and summary.termination == "crash":
                    summary.detail = "the bot failed (its team sees why on its season page)"
        summary.stderr = tuple(stderr)


class Site:
    """Renders the pages of the tournaments in one database (thread-safe)."""

    def __init__(self, sessions: sessionmaker[Session], live_moves: LiveMoves | None = None) -> None:
        self.sessions = sessions
        self.live_moves = live_moves
        self.env = environment()
        self._cache: dict[int, Cached] = {}
        self._lock = threading.Lock()

    # -- reading ---------------------------------------------------------------------------

    def stamp(self, tournament_id: int) -> Stamp:
        """What changes whenever the tournament's pages do; ``NotFound`` if there is none."""
        with self.sessions() as session:
            status = session.scalar(select(Tournament.status).where(Tournament.id == tournament_id))
            if status is None:
                raise NotFound(f"there is no tournament {tournament_id} in this database")
            row = session.execute(
                select(
                    func.count(),
                    func.count().filter(GameRow.status == "finished"),
                    func.max(GameRow.finished_at),
                    func.sum(GameRow.replays),
                ).where(GameRow.tournament_id == tournament_id)
            ).one()
        return (status, *row)

    def cached(self, tournament_id: int) -> Cached:
        """The tournament's results, loaded again if its games changed since they were last."""
        stamp = self.stamp(tournament_id)
        known = self._cache.get(tournament_id)
        if known is not None and known.stamp == stamp:
            return known
        with self._lock:  # one load at a time: a burst of requests after a change waits for it
            known = self._cache.get(tournament_id)
            if known is not None and known.stamp == stamp:
                return known
            with self.sessions() as session:
                tournament = session.get(Tournament, tournament_id)
                if tournament is None:
                    raise NotFound(f"there is no tournament {tournament_id} in this database")
                found = load_results(session, tournament)
                _keep_to_their_teams(found, season_teams(session, tournament_id))
                nodes = node_lines(session, tournament_id)
            game, unavailable = tournament_game(found.tournament)
            known = Cached(stamp, found, site_context(found, served=True, game=game), nodes, game, unavailable)
            self._cache[tournament_id] = known
            return known

    def tournaments(self) -> list[dict[str, Any]]:
        """Every tournament, newest first, with its id."""
        with self.sessions() as session:
            rows = tournament_rows(session)
            ids = dict(session.execute(select(Tournament.name, Tournament.id)).all())
        for row in rows:
            row["id"] = ids[row["name"]]
        return rows[::-1]

    def game_moves(self, summary: GameSummary) -> tuple[list[tuple[int, str, float]], bool]:
        """A game's moves and whether they are all it will have: a finished game's stored
        moves, or those a game in progress has played so far (from the run's live files)."""
        if summary.status != "finished" and self.live_moves is not None:
            live = self.live_moves(summary.id)
            if live is not None:
                return live, False
        with self.sessions() as session:
            status = session.scalar(select(GameRow.status).where(GameRow.id == summary.id))
            rows = session.execute(
                select(MoveRow.seat, MoveRow.move, MoveRow.wall_ms)
                .where(MoveRow.game_id == summary.id)
                .order_by(MoveRow.ply)
            ).all()
        return [(seat, text, wall) for seat, text, wall in rows], status == "finished"

    # -- pages -----------------------------------------------------------------------------

    def render(self, template: str, **values: Any) -> str:
        """A template rendered with ``values``."""
        return self.env.get_template(template).render(**values)

    def page(self, tournament_id: int, template: str, root: str, cached: Cached | None = None, **values: Any) -> str:
        """One of a tournament's pages (from its results as of ``cached``, else the latest)."""
        cached = cached or self.cached(tournament_id)
        return self.render(template, root=root, found=cached.found, **cached.context, **values)

    def index(self, tournament_id: int, root: str, events: str) -> str:
        """The overview, which follows the tournament's progress from ``events``: the address
        says what the page shows (``?seen=``), so a change before the page listens is not lost."""
        cached = self.cached(tournament_id)
        live = f"{events}?seen={stamp_token(cached.stamp)}"
        values = index_values(cached.found)
        return self.page(tournament_id, "index.html", root, cached, live=live, nodes=cached.nodes, **values)

    def crosstable(self, tournament_id: int, root: str) -> str:
        """The crosstable."""
        return self.page(tournament_id, "crosstable.html", root, **crosstable_values(self.cached(tournament_id).found))

    def games(self, tournament_id: int, root: str) -> str:
        """The games list (filtered in the page)."""
        return self.page(tournament_id, "games.html", root)

    def team(self, tournament_id: int, file: str, root: str) -> str:
        """A team's page, by its file name (``teams/<file>``)."""
        found = self.cached(tournament_id).found
        team = next((t for t in found.teams if team_file(t) == file), None)
        if team is None:
            raise NotFound(f"there is no team page {file!r} in tournament {found.tournament.name!r}")
        with self.sessions() as session:
            moves = load_moves(session, found.tournament)
        times = think_times(found, moves)
        return self.page(tournament_id, "team.html", root, **team_values(found, team, times[team.name]))

    def summary(self, tournament_id: int, game_id: int) -> tuple[GameSummary, tuple[int | None, int | None]]:
        """A game of the tournament, and the games before and after it."""
        found = self.cached(tournament_id).found
        ids = [g.id for g in found.games]
        if game_id not in ids:
            raise NotFound(f"there is no game {game_id} in tournament {found.tournament.name!r}")
        at = ids.index(game_id)
        neighbours = (ids[at - 1] if at else None, ids[at + 1] if at + 1 < len(ids) else None)
        return found.games[at], neighbours

    def game_data(self, tournament_id: int, game_id: int) -> tuple[dict[str, Any], GameSummary, bool]:
        """A game's replay data (``pages.game_data``), its summary, and whether it is over. A
        game of hidden information shows its moves once it is over (``pages.hidden_data``)."""
        summary, _ = self.summary(tournament_id, game_id)
        cached = self.cached(tournament_id)
        moves, over = self.game_moves(summary)
        if cached.game is not None and cached.game.HIDDEN and not over:
            return hidden_data(cached.game, summary, moves), summary, over
        return game_data(cached.game, summary, moves, cached.unavailable), summary, over

    def game(self, tournament_id: int, game_id: int, root: str, events: str) -> str:
        """A game's page with its replay; one in progress follows its moves from ``events``."""
        summary, neighbours = self.summary(tournament_id, game_id)
        data, summary, over = self.game_data(tournament_id, game_id)
        values = game_values(data, summary, neighbours)
        return self.page(tournament_id, "game.html", root, live_game=None if over else events, **values)
