"""The read side of ``arena serve``: a tournament's pages rendered on request from the same
templates and values as the static report (``arena/results/pages.py``), with each tournament's results
kept until its games change.

A tournament's ``stamp`` (its status, its games finished and scheduled, the last finish) is one
query over its games, made only when the database was committed to since the last (SQLite
counts its commits: with none, a page asked again reads nothing of the tournament's games);
the results are loaded again only when the stamp moves, and then only the games after the
settled ones are summed, so a page is cheap to serve while ``arena run`` writes the database
from another process, and the live updates are the stamp seen to move. A request checks the
stamp once. What a page reads beyond the results (the overview's machines, a team's page,
which reads all its games) is made the first time it is asked for and kept with them; the
games list is a page at a time, its filters applied by the database.
"""

from __future__ import annotations

import hashlib
import importlib
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import Session, sessionmaker

from arena.contests.rating import RatingHistory
from arena.errors import ArenaError
from arena.games import Game
from arena.results.listings import RESULTS, GameFilter, game_page, tournament_rows
from arena.results.pages import (
    crosstable_values,
    environment,
    game_data,
    game_values,
    games_values,
    hidden_data,
    index_values,
    pager,
    seat_key,
    site_context,
    team_values,
    think_chart,
    think_times,
)
from arena.results.replay import tournament_game
from arena.results.tables import GameSummary, Team
from arena.results.tournament_results import (
    Results,
    history_span,
    load_games,
    load_moves,
    load_results,
    team_history,
)
from arena.store.database import commits_counter
from arena.store.models import Entry, GameRow, GameSeat, MoveRow, Tournament
from arena.store.seasons import submitted_bots

#: what a tournament's pages depend on: status, games scheduled, finished, last finish, voids
Stamp = tuple[Any, ...]
#: the moves of a game in progress, from the run's live files: game id -> moves, or ``None``
LiveMoves = Callable[[int], list[tuple[int, str, float]] | None]
#: the games a page of the games list shows
GAMES_A_PAGE = 200
#: the team pages kept rendered (each some 100 KB at 2,000 games a team)
TEAM_PAGES = 32
#: a stage's or a page's number in an address
NUMBER = re.compile(r"[0-9]{1,9}")


def stamp_token(stamp: Stamp) -> str:
    """A short text that changes with ``stamp`` (a page says with it what it shows)."""
    return hashlib.sha256(repr(stamp).encode()).hexdigest()[:16]


class NotFound(ArenaError):
    """What a request names is not in the database (a tournament, a team, a game)."""


@dataclass(slots=True)
class Cached:
    """A tournament's results as of ``stamp``, and what its pages work out from them the first
    time one asks (kept as long as the results: until the stamp moves)."""

    stamp: Stamp
    #: read without its games one by one (a page reads those it shows: ``Site.summaries``)
    found: Results
    context: dict[str, Any]
    #: the teams whose bots are a season's submissions (what they wrote is not served)
    season: set[str]
    #: the tournament's game, or ``None`` and why it cannot be loaded (its module gone or changed)
    game: Game | None = None
    unavailable: str | None = None
    #: the team pages rendered, by file and root (the latest ``TEAM_PAGES``): a page reads all of
    #: its team's games and their moves, so it is made once a stamp
    team_pages: dict[tuple[str, str], str] = field(default_factory=dict)
    #: the range the teams' rating charts share (``history_span``), once asked for
    span: tuple[float, float] | None = None


def season_teams(session: Session, tournament_id: int) -> set[str]:
    """The teams of tournament ``tournament_id`` whose bot is a season's submission."""
    query = select(Entry.team).where(Entry.tournament_id == tournament_id, Entry.bot_id.in_(submitted_bots()))
    return set(session.scalars(query))


def _keep_to_their_teams(games: list[GameSummary], teams: set[str]) -> None:
    """Take what the bots of ``teams`` wrote off ``games``: a season's bot's output (its
    stderr, what its exception said) is its own team's, shown on the team's page of the season
    only; the served pages say how its games ended, not what it printed."""
    for summary in games:
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
        # the database's count of commits (SQLite's), and each tournament's stamp at a count
        self._commits = commits_counter(sessions)
        self._stamps: dict[int, tuple[int | None, Stamp]] = {}

    def prepare(self) -> None:
        """Make now what the first pages would make on their first request: every page's
        template compiled (Jinja2 keeps them) and numpy, which the Elo fit uses, imported."""
        for name in self.env.list_templates(extensions=["html"]):
            self.env.get_template(name)
        importlib.import_module("numpy")

    # -- reading ---------------------------------------------------------------------------

    def stamp(self, tournament_id: int) -> Stamp:
        """What changes whenever the tournament's pages do; ``NotFound`` if there is none. Where
        the database can tell that nothing was committed since the last stamp (SQLite), that
        stamp, without a query."""
        commits = None if self._commits is None else self._commits()
        known = self._stamps.get(tournament_id)
        if known is not None and commits is not None and known[0] == commits:
            return known[1]
        stamp = self._stamp(tournament_id)
        self._stamps[tournament_id] = (commits, stamp)
        return stamp

    def _stamp(self, tournament_id: int) -> Stamp:
        """The stamp as the database gives it (one query over the tournament's games)."""
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
        """The tournament's results, loaded again if its games changed since they were last
        (one query, the stamp's, when they did not): the games settled when they were last
        loaded are not summed again, only those after them (``sum_games``)."""
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
                kept = known.found.sums if known is not None else None  # (the settled games' sums go on)
                found = load_results(session, tournament, games=False, kept=kept, keep=True)
                season = season_teams(session, tournament_id)
            game, unavailable = tournament_game(found.tournament)
            context = site_context(found, served=True, game=game)
            known = Cached(stamp, found, context, season, game, unavailable)
            self._cache[tournament_id] = known
            return known

    def summaries(self, cached: Cached, *where: ColumnElement[bool]) -> list[GameSummary]:
        """The games of ``cached``'s tournament that match every condition of ``where``, in
        schedule order, read for the page that shows them (a season's bots' output taken off)."""
        with self.sessions() as session:
            games = load_games(session, cached.found.tournament, cached.found.config.scoring, None, *where)
        _keep_to_their_teams(games, cached.season)
        return games

    def charts(
        self, cached: Cached, team: Team, own: list[GameSummary]
    ) -> tuple[dict[str, Any], RatingHistory, tuple[float, float]]:
        """``team``'s think-time histogram, its rating history and the rating charts' span as
        of ``cached`` (the histogram reads the moves of the team's games ``own`` only; the
        history and span, the ratings kept with their seats; the span once for every team)."""
        found = cached.found
        with self.sessions() as session:
            moves = load_moves(session, found.tournament, [g.id for g in own])
            chart = think_chart(found, think_times(own, moves, team.name)[team.name])
            history = team_history(session, found, team.name)
            with self._lock:
                if cached.span is None:
                    cached.span = history_span(session, found)
        return chart, history, cached.span

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
        return self.page(tournament_id, "index.html", root, cached, live=live, nodes=cached.found.nodes, **values)

    def crosstable(self, tournament_id: int, root: str) -> str:
        """The crosstable."""
        cached = self.cached(tournament_id)
        return self.page(tournament_id, "crosstable.html", root, cached, **crosstable_values(cached.found))

    def games(self, tournament_id: int, root: str, query: Mapping[str, str]) -> str:
        """A page of the games list (``GAMES_A_PAGE`` games in schedule order), filtered by the
        database: the ``query``'s ``bot`` (a team), ``stage`` (its number), ``result`` (a seat's
        key, for its wins, or one of ``listings.RESULTS``) and ``page`` (from 1; past the last,
        the last). A tournament of a page of games or fewer has them all on it, filtered in the
        page as the static report's list is (the filters chosen, at once)."""
        cached = self.cached(tournament_id)
        chosen, shown = self._filter(cached, query)
        number = _page_number(query)
        if cached.found.totals.planned <= GAMES_A_PAGE:  # every game on one page, filtered in the page, at once
            every = self.summaries(cached)
            values = games_values(every, len(every), None, shown)
        else:
            with self.sessions() as session:
                ids, matching, number = game_page(session, tournament_id, chosen, number, GAMES_A_PAGE)
            listed = self.summaries(cached, GameRow.id.in_(ids)) if ids else []
            pages = pager(number, -(-matching // GAMES_A_PAGE), lambda n: games_address(shown, n))
            values = games_values(listed, matching, pages, shown, by_server=True)
        return self.page(tournament_id, "games.html", root, cached, **values)

    def _filter(self, cached: Cached, query: Mapping[str, str]) -> tuple[GameFilter, dict[str, str]]:
        """The games list's filter that ``query`` asks for, and its values as the page shows
        them (those given); ``NotFound`` for a team that is not the tournament's, an
        ``ArenaError`` for another value the page does not offer."""
        found = cached.found
        shown = {key: query[key] for key in ("bot", "stage", "result") if query.get(key)}
        bot, stage, result = (shown.get(key) for key in ("bot", "stage", "result"))
        entry_id = winner = number = None
        if bot is not None:
            team = next((t for t in found.teams if t.name == bot), None)
            if team is None:
                raise NotFound(f"there is no team {bot!r} in tournament {found.tournament.name!r}")
            entry_id = team.entry_id
        if stage is not None:
            if not (NUMBER.fullmatch(stage) and int(stage) < len(found.stages)):
                raise ArenaError(f"stage {stage!r}: a stage's number, from 0 to {len(found.stages) - 1}")
            number = int(stage)
        seats = {seat_key(seat): seat for seat in range(len(cached.context["names"]))}
        if result in seats:
            winner, result = seats[result], None
        elif result is not None and result not in RESULTS:
            raise ArenaError(f"result {result!r}: a seat's key ({', '.join(seats)}) or one of {', '.join(RESULTS)}")
        return GameFilter(entry_id, number, winner, result), shown

    def team(self, tournament_id: int, file: str, root: str) -> str:
        """A team's page, by its file name (``teams/<file>``)."""
        cached = self.cached(tournament_id)
        found = cached.found
        files = cached.context["team_files"]
        team = next((t for t in found.teams if files[t.name] == file), None)
        if team is None:
            raise NotFound(f"there is no team page {file!r} in tournament {found.tournament.name!r}")
        made = cached.team_pages.get((file, root))
        if made is None:
            seated = select(GameSeat.game_id).where(GameSeat.entry_id == team.entry_id)
            own = self.summaries(cached, GameRow.id.in_(seated))
            values = team_values(found, team, own, *self.charts(cached, team, own))
            made = self.page(tournament_id, "team.html", root, cached, **values)
            with self._lock:
                cached.team_pages[file, root] = made
                while len(cached.team_pages) > TEAM_PAGES:
                    del cached.team_pages[next(iter(cached.team_pages))]
        return made

    def summary(self, tournament_id: int, game_id: int) -> tuple[GameSummary, tuple[int | None, int | None]]:
        """A game of the tournament, and the games before and after it."""
        return self._summary(self.cached(tournament_id), game_id)

    def _summary(self, cached: Cached, game_id: int) -> tuple[GameSummary, tuple[int | None, int | None]]:
        """Game ``game_id`` of the results ``cached``, found by its id, and its neighbours."""
        found = self.summaries(cached, GameRow.id == game_id)
        if not found:
            raise NotFound(f"there is no game {game_id} in tournament {cached.found.tournament.name!r}")
        games = GameRow.tournament_id == cached.found.tournament.id
        with self.sessions() as session:
            before = session.scalar(select(func.max(GameRow.id)).where(games, GameRow.id < game_id))
            after = session.scalar(select(func.min(GameRow.id)).where(games, GameRow.id > game_id))
        return found[0], (before, after)

    def _listed_at(self, cached: Cached, game_id: int) -> int:
        """The page of the games list that lists game ``game_id`` (from 1)."""
        games = GameRow.tournament_id == cached.found.tournament.id
        with self.sessions() as session:
            earlier = session.scalar(select(func.count()).where(games, GameRow.id < game_id)) or 0
        return earlier // GAMES_A_PAGE + 1

    def game_data(self, tournament_id: int, game_id: int) -> tuple[dict[str, Any], GameSummary, bool]:
        """A game's replay data (``pages.game_data``), its summary, and whether it is over."""
        cached = self.cached(tournament_id)
        summary, _ = self._summary(cached, game_id)
        data, over = self._game_data(cached, summary)
        return data, summary, over

    def _game_data(self, cached: Cached, summary: GameSummary) -> tuple[dict[str, Any], bool]:
        """A game's replay data and whether it is over. A game of hidden information shows its
        moves once it is over (``pages.hidden_data``)."""
        moves, over = self.game_moves(summary)
        if cached.game is not None and cached.game.HIDDEN and not over:
            return hidden_data(cached.game, summary, moves), over
        return game_data(cached.game, summary, moves, cached.unavailable), over

    def game(self, tournament_id: int, game_id: int, root: str, events: str) -> str:
        """A game's page with its replay; one in progress follows its moves from ``events``."""
        cached = self.cached(tournament_id)
        summary, neighbours = self._summary(cached, game_id)
        data, over = self._game_data(cached, summary)
        listed_at = games_address({}, self._listed_at(cached, game_id))
        values = game_values(data, summary, neighbours, listed_at)
        return self.page(tournament_id, "game.html", root, cached, live_game=None if over else events, **values)


def _page_number(query: Mapping[str, str]) -> int:
    """The page of a list that ``query`` asks for (``page``, from 1; the first if none)."""
    given = query.get("page") or "1"
    if not (NUMBER.fullmatch(given) and int(given) >= 1):
        raise ArenaError(f"page {given!r}: a page's number, from 1")
    return int(given)


def games_address(shown: Mapping[str, str], page: int) -> str:
    """The address of page ``page`` of the served games list filtered by ``shown``, from the
    tournament's root."""
    params = {**shown, **({"page": str(page)} if page > 1 else {})}
    return "games.html" + (f"?{urlencode(params)}" if params else "")
