"""A tournament's stored games in the standard file of their game, for other programs to read:
PGN for chess, as cutechess and fastchess write it, and SGF for Go and othello, as gogui-twogtp
writes Go's (``arena export``).

The games and their moves are read as the other read commands read them (``load_games``,
``load_moves``), with each move's engine info beside them. The writers are pure functions of
those records (``Export``): each game is re-played through its rules for what the format
names, a chess move's SAN (OpenSpiel's own string of it), a point's letters, a board's stones.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena import __version__
from arena.contests.config import TimeDef
from arena.core.text import printable
from arena.errors import ArenaError
from arena.games import CHANCE, Game, State, from_outside
from arena.results.lookup import find_tournament, stage_name, tournament_config
from arena.results.replay import ReplayError, stored_game
from arena.results.tables import GameSummary
from arena.results.tournament_results import load_games, load_moves
from arena.store.models import GameRow, MoveRow

if TYPE_CHECKING:
    from arena.games.openspiel import OpenSpielGame, OpenSpielState


class ExportError(ArenaError):
    """A tournament whose game has no file of the format asked for, no such stage, or no game to
    write."""


#: the formats arena writes, and the games each is for (as ``game_kind`` names them)
FORMATS = {"pgn": ("chess",), "sgf": ("go", "othello")}
#: how a tournament file declares each game a format is for
DECLARED = {
    "chess": "game: {openspiel: chess}",
    "go": 'game: {openspiel: "go(board_size=9,komi=7.5)"}',
    "othello": "game: othello, or {openspiel: othello}",
}
#: the longest line written (the PGN standard's export format: under 80 characters)
LINE_WIDTH = 79
#: PGN's Termination of each of arena's (cutechess's words where it has them, else the standard's)
PGN_TERMINATIONS = {
    "normal": "normal",
    "resignation": "normal",
    "timeout": "time forfeit",
    "illegal_move": "illegal move",
    "crash": "abandoned",
    "protocol_error": "rules infraction",
    "resource_limit": "rules infraction",
    "aborted": "unterminated",
}
#: PGN's Result of a game won by white, by black, drawn, left unfinished
WHITE_WINS, BLACK_WINS, DRAWN, UNFINISHED = "1-0", "0-1", "1/2-1/2", "*"
#: the seat that plays white in OpenSpiel's chess (its player 0 plays black)
WHITE = 1
#: chess's start, the position a game needs no FEN tag for
START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
#: SGF's letters of a point's column and row (from the top), none skipped
SGF_LETTERS = "abcdefghijklmnopqrstuvwxyz"
#: the marks othello's board draws for a black disc: arena's ``b``, OpenSpiel's ``x`` (its first seat)
BLACK_DISCS, WHITE_DISCS = ("b", "x"), ("w", "o")


def game_kind(spec: Mapping[str, Any]) -> str | None:
    """Which game of those arena writes files of a stored game spec is (``chess``, ``go``,
    ``othello``), or ``None``."""
    name = spec.get("name")
    if spec.get("openspiel"):
        return name if name in ("chess", "go", "othello") else None
    return "othello" if name == "othello" and not from_outside(spec) else None


def check_format(tournament: str, spec: Mapping[str, Any], kind: str) -> None:
    """``ExportError`` unless the game of ``spec`` has a file of format ``kind`` (``pgn``,
    ``sgf``), naming the format it has, or the games that have either."""
    game = game_kind(spec)
    if game in FORMATS[kind]:
        return
    plays = f"tournament {tournament!r} plays {spec.get('name', '?')}"
    if game is not None:
        other = next(fmt for fmt, games in FORMATS.items() if game in games)
        declared = "; ".join(DECLARED[name] for name in FORMATS[kind])
        raise ExportError(
            f"{plays}, which has no {kind.upper()} file ({kind.upper()} is for {' and '.join(FORMATS[kind])}: "
            f"{declared}); write its games as {other.upper()}: --{other}"
        )
    formats = "; ".join(f"{fmt.upper()} for {' and '.join(games)}" for fmt, games in FORMATS.items())
    raise ExportError(
        f"{plays}, which has neither a PGN nor an SGF file: arena writes {formats} "
        "('arena replay ID --json' gives any game's moves)"
    )


@dataclass(frozen=True, slots=True)
class StoredMove:
    """A stored move: its seat (``CHANCE`` for a chance outcome), text, wall time and what an
    engine said of its search (``info``, docs/engines.md; ``{"book": true}`` an opening's move)."""

    seat: int
    text: str
    wall_ms: float
    info: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class ExportedGame:
    """A game that ended (normally, by a forfeit, or left unfinished) and its moves."""

    summary: GameSummary
    moves: tuple[StoredMove, ...]


@dataclass(frozen=True, slots=True)
class Export:
    """What a file holds: the tournament's name, game, time control (``None``: not known) and
    stage names, its games that ended in schedule order, and how many of the games asked for
    were left out, not played yet."""

    tournament: str
    game: Game
    time: TimeDef | None
    stages: tuple[str, ...]
    games: tuple[ExportedGame, ...]
    skipped: int = 0


def load_export(session: Session, name: str | None, kind: str, stage: str | None = None) -> Export:
    """The games of tournament ``name`` (the latest run if ``None``) that ended, of stage
    ``stage`` only if given (its name or number), for a file of format ``kind``."""
    tournament = find_tournament(session, name)
    check_format(tournament.name, tournament.game, kind)
    game = stored_game(tournament.game)
    config = tournament_config(tournament)
    stages = tuple(s.name for s in config.stages)
    of_stage = [] if stage is None else [GameRow.stage == stage_number(tournament.name, stages, stage)]
    ended = GameRow.status == "finished"
    games = load_games(session, tournament, config.scoring, None, *of_stage, ended)
    waiting = (GameRow.tournament_id == tournament.id, *of_stage, GameRow.status != "finished")
    skipped = session.scalar(select(func.count()).select_from(GameRow).where(*waiting)) or 0
    if not games:
        where = "" if stage is None else f" in stage {stage!r}"
        raise ExportError(f"tournament {tournament.name!r} has no game that ended{where} yet: nothing to write")
    ids = [g.id for g in games]
    moves, infos = load_moves(session, tournament, ids), move_infos(session, ids)
    exported = tuple(
        ExportedGame(
            g,
            tuple(
                StoredMove(seat, text, wall, infos.get((g.id, ply)))
                for ply, (seat, text, wall) in enumerate(moves.get(g.id, []), 1)
            ),
        )
        for g in games
    )
    return Export(tournament.name, game, config.time, stages, exported, skipped)


def stage_number(tournament: str, stages: Sequence[str], stage: str) -> int:
    """The number of the stage called ``stage`` (its name, or its number from 0)."""
    if stage in stages:
        return stages.index(stage)
    if stage.isascii() and stage.isdigit() and int(stage) < len(stages):
        return int(stage)
    listed = ", ".join(f"{number} {name}" for number, name in enumerate(stages))
    raise ExportError(f"tournament {tournament!r} has no stage {stage!r}; its stages: {listed}")


def move_infos(session: Session, game_ids: Collection[int]) -> dict[tuple[int, int], dict[str, Any]]:
    """What engines said of their moves in the games ``game_ids``: (game id, ply) -> the info,
    for the moves that have one."""
    found: dict[tuple[int, int], dict[str, Any]] = {}
    chosen = sorted(set(game_ids))
    for start in range(0, len(chosen), 500):  # some hundreds of ids a query, as load_moves reads them
        query = select(MoveRow.game_id, MoveRow.ply, MoveRow.info).where(
            MoveRow.game_id.in_(chosen[start : start + 500]), MoveRow.info.is_not(None)
        )
        for game_id, ply, text in session.execute(query):
            try:
                info = json.loads(text or "{}")
            except ValueError:
                continue
            if isinstance(info, dict):
                found[game_id, ply] = info
    return found


# ---------------------------------------------------------------- what both formats say


def replayed(game: Game, exported: ExportedGame) -> list[State]:
    """The state before each stored move of ``exported`` and the last one, re-played through
    ``game``'s rules; ``ReplayError`` for a record they refuse."""
    states = []
    try:
        for state, step in game.steps(game.initial_state(), [m.text for m in exported.moves]):
            states.append(state)
            if not step:
                break
    except ValueError as error:
        raise ReplayError(f"game {exported.summary.id} does not re-play: {error}") from None
    return states


def move_comment(move: StoredMove) -> str:
    """A move's comment as cutechess writes it: the engine's score from its own side in pawns
    (``+0.25``; ``+M3``, ``-M2``: a mate in so many moves) and depth, the move's time, and
    fastchess's nodes and selective depth (``+0.25/12 0.512s, n=105875, sd=16``); without engine
    info the time alone (``0.512s``); ``book`` for an opening's move."""
    info = move.info or {}
    if info.get("book"):
        return "book"
    said = [f"{move.wall_ms / 1000:.3f}s"]
    score, depth = _score(info.get("score")), info.get("depth")
    if score is not None:
        said.insert(0, f"{score}/{depth}" if type(depth) is int else score)
    text = " ".join(said)
    extras = [
        f"{key}={info[word]}" for word, key in (("nodes", "n"), ("seldepth", "sd")) if type(info.get(word)) is int
    ]
    return ", ".join([text, *extras])


def _score(text: object) -> str | None:
    """An engine's score (``cp 31``, ``mate -2``) as cutechess writes it (``+0.31``, ``-M2``)."""
    kind, _, value = str(text).partition(" ")
    try:
        number = int(value)
    except ValueError:
        return None
    if kind == "cp":
        return f"{number / 100:+.2f}" if number else "0.00"
    if kind == "mate":
        return f"{'+' if number > 0 else '-'}M{abs(number)}"
    return None


def ending(summary: GameSummary, colours: Sequence[str]) -> str | None:
    """How a game that did not end normally ended, in a sentence (``Black forfeits by timeout:
    ...``), the seats called ``colours``; ``None`` for a normal end."""
    kind = summary.termination or "normal"
    if kind == "normal":
        return None
    who = colours[summary.offender] if summary.offender is not None else None
    if kind == "resignation":
        text = f"{who} resigns" if who else "resigned"
    elif kind == "aborted":
        text = f"{who} abandoned the game" if who else "left unfinished"
    else:
        text = f"{who or 'a seat'} forfeits by {kind.replace('_', ' ')}"
    return printable(f"{text}: {summary.detail}" if summary.detail else text)


def _spiel(state: State) -> Any:
    """The OpenSpiel state of a state of an OpenSpiel game."""
    return cast("OpenSpielState", state).spiel


def _spiel_game(game: Game) -> Any:
    """The loaded OpenSpiel game of an OpenSpiel game."""
    return cast("OpenSpielGame", game).spiel


def _date(moment: float | None, form: str) -> str | None:
    """The day of ``moment`` (local time) written as ``form`` says; ``None`` if not known."""
    return None if not moment else time.strftime(form, time.localtime(moment))


def _stage(export: Export, summary: GameSummary) -> str | None:
    """The game's stage, where the tournament has several."""
    return stage_name(list(export.stages), summary.stage) if len(export.stages) > 1 else None


# ---------------------------------------------------------------- PGN


def time_control(time: TimeDef | None) -> str:
    """PGN's TimeControl of a time control: a bank of seconds and its increment (``60+0.5``,
    ``60``), seconds a move as cutechess writes them (``0.1/move``), ``-`` for none, ``?`` not known."""
    if time is None:
        return "?"
    if time.bank is not None:
        return f"{time.bank:g}" + (f"+{time.increment:g}" if time.increment else "")
    return "-" if time.move is None else f"{time.move:g}/move"


def write_pgn(export: Export) -> str:
    """Every game of ``export`` (OpenSpiel's chess) as PGN, a blank line between games."""
    return "\n".join(pgn_game(export, exported) for exported in export.games)


def pgn_game(export: Export, exported: ExportedGame) -> str:
    """One game as PGN: the seven tags, the start where it is not chess's own, how it ended
    and its time control; then its moves in SAN, each with its comment (``move_comment``),
    wrapped under 80 characters."""
    summary = exported.summary
    states = [_spiel(state) for state in replayed(export.game, exported)]
    played = [(state, move) for state, move in zip(states, exported.moves) if move.seat != CHANCE]
    start = next((state for state in states if not state.is_chance_node()), None)  # (chess960 draws its start)
    fen = START_FEN if start is None else str(start)
    colours = ("Black", "White")  # OpenSpiel's chess: player 0 plays black
    result, kind = pgn_result(summary), summary.termination or "normal"
    tags = [
        ("Event", export.tournament),
        ("Site", "?"),
        ("Date", _date(summary.started_at, "%Y.%m.%d") or "????.??.??"),
        ("Round", str(summary.round + 1)),
        ("White", summary.teams[WHITE]),
        ("Black", summary.teams[1 - WHITE]),
        ("Result", result),
    ]
    if _spiel_game(export.game).get_parameters().get("chess960"):
        tags.append(("Variant", "chess960"))
    if fen != START_FEN:
        tags += [("SetUp", "1"), ("FEN", fen)]
    tags += [
        ("PlyCount", str(len(played))),
        ("TimeControl", time_control(export.time)),
        ("Termination", PGN_TERMINATIONS.get(kind, kind.replace("_", " "))),
    ]
    stage = _stage(export, summary)
    if stage is not None:
        tags.append(("Stage", stage))
    words: list[str] = []
    for state, move in played:
        fields = str(state).split()  # the position's FEN: its side to move and move number
        if fields[1] == "w" or not words:
            words.append(f"{fields[5]}." if fields[1] == "w" else f"{fields[5]}...")
        words.append(state.action_to_string(state.current_player(), export.game.parse_move(move.text)))
        words += _pgn_comment(move_comment(move))
    said = ending(summary, colours)
    if said is not None:
        words += _pgn_comment(said)
    words.append(result)
    header = "".join(f'[{name} "{_pgn_text(value)}"]\n' for name, value in tags)
    return header + "\n" + "\n".join(wrapped(words, LINE_WIDTH)) + "\n"


def pgn_result(summary: GameSummary) -> str:
    """PGN's Result of a game: ``*`` for one left unfinished."""
    if summary.status != "finished":
        return UNFINISHED
    if summary.winner is None:
        return DRAWN
    return WHITE_WINS if summary.winner == WHITE else BLACK_WINS


def _pgn_text(value: str) -> str:
    """A tag's value: on one line, its backslashes and quotes escaped."""
    return printable(value).replace("\\", "\\\\").replace('"', '\\"')


def _pgn_comment(text: str) -> list[str]:
    """A comment's words, braced (a brace inside it, which would end it, made a parenthesis)."""
    inner = printable(text).replace("{", "(").replace("}", ")")
    return f"{{{inner}}}".split()


def wrapped(words: Sequence[str], width: int, between: str = " ") -> list[str]:
    """``words`` in lines of at most ``width`` characters, ``between`` between words on a line
    (a longer word alone on its line)."""
    lines: list[str] = []
    line = ""
    for word in words:
        if line and len(line) + len(between) + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line}{between}{word}" if line else word
    return [*lines, line] if line else lines


# ---------------------------------------------------------------- SGF


def write_sgf(export: Export) -> str:
    """Every game of ``export`` (Go, othello) as an SGF game tree, one after another (an SGF
    collection)."""
    return "".join(sgf_game(export, exported) for exported in export.games)


def sgf_game(export: Export, exported: ExportedGame) -> str:
    """One game as SGF (FF[4]): the root's game, board, players, event, round, date and result,
    the start's stones where the game has them, then a node a move (``B[ee]``, ``W[]`` a pass)
    with the engine's info where it gave some (``C[+0.25/12 0.512s]``)."""
    summary = exported.summary
    board = sgf_board(export.game)
    states = replayed(export.game, exported)
    black, white = board.stones(states[0])
    root: list[tuple[str, str | list[str]]] = [
        ("FF", "4"),
        ("CA", "UTF-8"),
        ("AP", f"arena:{__version__}"),
        ("GM", str(board.number)),
        ("SZ", str(board.size)),
        *board.rules,
        ("EV", export.tournament),
        ("RO", " ".join(filter(None, [str(summary.round + 1), _stage(export, summary)]))),
        ("DT", _date(summary.started_at, "%Y-%m-%d") or ""),
        ("PB", summary.teams[0]),
        ("PW", summary.teams[1]),
        ("RE", sgf_result(summary, board.margin(states[-1]))),
        ("AB", black),
        ("AW", white),
    ]
    if states[0].to_move == 1:
        root.append(("PL", "W"))
    said = ending(summary, ("black", "white"))
    if said is not None:
        root.append(("C", said))
    words = [_sgf_property(name, value) for name, value in root if value not in ("", [])]
    words[0] = "(;" + words[0]
    for move in exported.moves:
        if move.seat == CHANCE:
            continue
        node = f";{'BW'[move.seat]}[{board.point(export.game.parse_move(move.text))}]"
        words.append(node + _sgf_property("C", move_comment(move)) if move.info else node)
    return "\n".join(wrapped(words, LINE_WIDTH, "")) + ")\n"


def _sgf_property(name: str, value: str | list[str]) -> str:
    """A property and its values, each escaped (``]`` and ``\\`` behind a backslash)."""
    values = [value] if isinstance(value, str) else value
    return name + "".join("[" + printable(v).replace("\\", "\\\\").replace("]", "\\]") + "]" for v in values)


def sgf_result(summary: GameSummary, margin: float) -> str:
    """SGF's RE: ``B+3.5`` (by the board's count, ``margin`` for black), ``W+R`` by resignation,
    ``B+T`` on time, ``W+F`` by another forfeit, ``B+`` without a count, ``0`` a draw,
    ``Void`` for a game left unfinished."""
    if summary.status != "finished":
        return "Void"
    if summary.winner is None:
        return "0"
    colour = "BW"[summary.winner]
    kind = summary.termination or "normal"
    if kind != "normal":
        return f"{colour}+{'R' if kind == 'resignation' else 'T' if kind == 'timeout' else 'F'}"
    if margin and (margin > 0) == (summary.winner == 0):
        return f"{colour}+{abs(margin):g}"
    return f"{colour}+"


@dataclass(frozen=True, slots=True)
class SgfBoard:
    """What SGF says of a game's board: its game number (``GM``), size and rules' properties;
    the point of a move (``""`` a pass), the stones of a position (black's, white's), and
    black's margin in a finished position, counted as its rules count it."""

    number: int
    size: int
    rules: tuple[tuple[str, str], ...]
    point: Callable[[int], str]
    stones: Callable[[State], tuple[list[str], list[str]]]
    margin: Callable[[State], float]


def sgf_board(game: Game) -> SgfBoard:
    """The SGF board of OpenSpiel's Go or of othello (arena's or OpenSpiel's)."""
    if game_kind(game.spec()) == "go":
        return _go_board(game)
    return _othello_board(game)


def _sgf_point(col: int, row: int) -> str:
    """SGF's letters of the point at ``col`` from the left and ``row`` from the top."""
    return SGF_LETTERS[col] + SGF_LETTERS[row]


def _go_board(game: Game) -> SgfBoard:
    """OpenSpiel's Go: point ``row * size + col`` from the bottom-left, ``size * size`` the pass;
    its observation's first two planes are black's and white's stones; Tromp-Taylor's count."""
    params = _spiel_game(game).get_parameters()
    size, komi = int(params["board_size"]), float(params["komi"])
    rules = [("KM", f"{komi:g}"), ("RU", "Tromp-Taylor")]
    if params.get("handicap", 0) > 1:
        rules.append(("HA", str(params["handicap"])))

    def point(move: int) -> str:
        return "" if move == size * size else _sgf_point(move % size, size - 1 - move // size)

    def planes(state: State) -> tuple[set[int], set[int]]:
        tensor = _spiel(state).observation_tensor(0)
        area = size * size
        return {p for p in range(area) if tensor[p] > 0.5}, {p for p in range(area) if tensor[area + p] > 0.5}

    def stones(state: State) -> tuple[list[str], list[str]]:
        black, white = planes(state)
        return [point(p) for p in sorted(black)], [point(p) for p in sorted(white)]

    def margin(state: State) -> float:
        return area_count(*planes(state), size) - komi

    return SgfBoard(1, size, tuple(rules), point, stones, margin)


def area_count(black: set[int], white: set[int], size: int) -> int:
    """Black's points less white's by Tromp-Taylor's count: each side's stones, and each empty
    region that reaches that side's stones alone."""
    score = len(black) - len(white)
    seen: set[int] = set()
    for first in range(size * size):
        if first in seen or first in black or first in white:
            continue
        region, reaches, todo = 0, set(), [first]
        seen.add(first)
        while todo:
            here = todo.pop()
            region += 1
            row, col = divmod(here, size)
            for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)):
                if not (0 <= r < size and 0 <= c < size):
                    continue
                near = r * size + c
                if near in black or near in white:
                    reaches.add(near in black)
                elif near not in seen:
                    seen.add(near)
                    todo.append(near)
        if reaches == {True}:
            score += region
        elif reaches == {False}:
            score -= region
    return score


def _othello_board(game: Game) -> SgfBoard:
    """Othello, arena's or OpenSpiel's: square ``row * size + col`` from the top-left (``a1``),
    ``size * size`` the pass; the discs as its board draws them; the margin, discs counted."""
    drawn = game.initial_state().board()
    assert drawn is not None
    size = int(drawn["boards"][0]["cols"])

    def point(move: int) -> str:
        return "" if move == size * size else _sgf_point(move % size, move // size)

    def discs(state: State) -> tuple[list[int], list[int]]:
        board = state.board()
        cells = board["boards"][0]["cells"] if board else []
        black = [square for square, mark in enumerate(cells) if mark in BLACK_DISCS]
        return black, [square for square, mark in enumerate(cells) if mark in WHITE_DISCS]

    def stones(state: State) -> tuple[list[str], list[str]]:
        black, white = discs(state)
        return [point(square) for square in black], [point(square) for square in white]

    def margin(state: State) -> float:
        black, white = discs(state)
        return len(black) - len(white)

    return SgfBoard(2, size, (), point, stones, margin)


#: each format's writer
WRITERS: dict[str, Callable[[Export], str]] = {"pgn": write_pgn, "sgf": write_sgf}
