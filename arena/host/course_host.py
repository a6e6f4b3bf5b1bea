"""The host program that runs a 2019 course bot file (``teamN.py``, class ``TeamN``) as a bot.

    INTERPRETER course_host.py [--class NAME] BOT_FILE

It speaks arena's line protocol (docs/protocol.md) for the game ``xtreme`` on its stdin/stdout,
and calls the bot the way the course simulator did: ``move(board, old_move, flag)`` with a copy
of a ``BigBoard``. The course's rules of fair play are applied here, since only here is the
board object seen: a bot that changes the board it was given, or returns anything but a tuple of
three plain ints, forfeits (``error`` reply of kind ``illegal_move``). A returned move that is
well formed but not a valid cell is passed on as it is: the harness's own engine rejects it.

This file is standalone on purpose: it imports nothing from arena and runs unchanged under
Python 2.7 and 3.x, because course bots were written for Python 2.7 and run under the
interpreter they are registered with. Like every bot, it is started through
arena/sandbox/wrapper.py, which confines the process before executing this script. It is also
why it is one file of more than the house's 500 lines: it is run by its path under whatever
interpreter a bot names, whose import path holds none of arena, so its protocol loop, its
rebuilt ``BigBoard`` and its checks of fair play cannot be split into modules it imports.

Python 2 note: a move field of type ``long`` is rejected like any other non-``int``, as the
course simulator's ``type(...) is int`` check did.
"""

from __future__ import division, print_function

import argparse
import copy
import inspect
import json
import numbers
import os
import random
import re
import sys
import traceback

EMPTY = "-"
DRAWN = "d"
SYMBOLS = ("x", "o")
#: the 8 lines of a 3x3 grid, as (row, col) cells
LINES = tuple(
    [tuple((r, c) for c in range(3)) for r in range(3)]
    + [tuple((r, c) for r in range(3)) for c in range(3)]
    + [((0, 0), (1, 1), (2, 2)), ((0, 2), (1, 1), (2, 0))]
)
NO_MOVE = (-1, -1, -1)
GAMES = ["xtreme"]
_PR_SET_PDEATHSIG = 1
_THIS_FILE = os.path.abspath(__file__.replace(".pyc", ".py"))
_STRINGS = (str, type(""))  # Python 2: a cell set to u"x" holds the same text as "x"


def _plain_ints(values):
    """Whether ``values`` is a sequence of exactly three plain ints (bools and longs are not)."""
    try:
        if len(values) != 3:
            return False
        return all(type(value) is int for value in values)
    except TypeError:
        return False


class BigBoard(object):
    """The course simulator's board: two big 9x9 boards of cells and their 3x3 small boards.

    ``big_boards_status[k][row][col]`` is ``'-'``, ``'x'`` or ``'o'``;
    ``small_boards_status[k][row][col]`` is ``'-'`` (open), ``'x'`` or ``'o'`` (won by) or
    ``'d'`` (full without a line). Bots may call every method, ``update`` included, on copies.
    """

    def __init__(self):
        self.big_boards_status = tuple([[EMPTY] * 9 for _ in range(9)] for _ in range(2))
        self.small_boards_status = tuple([[EMPTY] * 3 for _ in range(3)] for _ in range(2))

    def print_board(self):
        """Print both big boards side by side, then their small boards."""
        gap = "    "
        for row in range(9):
            if row and row % 3 == 0:
                print(gap.join(["------+-------+------"] * 2))
            halves = []
            for k in range(2):
                cells = self.big_boards_status[k][row]
                halves.append(" | ".join(" ".join(cells[i : i + 3]) for i in (0, 3, 6)))
            print(gap.join(halves))
        print()
        for row in range(3):
            small = [" ".join(self.small_boards_status[k][row]) for k in range(2)]
            print(small[0].ljust(21) + gap + small[1])
        print()

    def _empty_cells(self, k, board_row, board_col):
        """The empty cells of small board (board_row, board_col) of big board k."""
        grid = self.big_boards_status[k]
        return [
            (k, row, col)
            for row in range(3 * board_row, 3 * board_row + 3)
            for col in range(3 * board_col, 3 * board_col + 3)
            if grid[row][col] == EMPTY
        ]

    def _free_cells(self):
        """Every empty cell of every open small board, on both big boards."""
        cells = []
        for k in range(2):
            for board_row in range(3):
                for board_col in range(3):
                    if self.small_boards_status[k][board_row][board_col] == EMPTY:
                        cells.extend(self._empty_cells(k, board_row, board_col))
        cells.sort()
        return cells

    def find_valid_move_cells(self, old_move):
        """The cells the move after ``old_move`` may take, as (k, row, col) tuples.

        After (-1, -1, -1) (no move yet) the move is free. Otherwise it goes to the small
        board at (row % 3, col % 3) of either big board, those of the two that are still open;
        when both are closed, it is free: any empty cell of any open small board.
        """
        if tuple(old_move) == NO_MOVE:
            return self._free_cells()
        board_row, board_col = old_move[1] % 3, old_move[2] % 3
        cells = []
        for k in range(2):
            if self.small_boards_status[k][board_row][board_col] == EMPTY:
                cells.extend(self._empty_cells(k, board_row, board_col))
        return cells if cells else self._free_cells()

    def find_terminal_state(self):
        """('x' or 'o', 'WON') for three small boards in a line on either big board, else
        ('CONTINUE', '-') while a small board is open, else ('NONE', 'DRAW')."""
        for k in range(2):
            small = self.small_boards_status[k]
            for line in LINES:
                first = small[line[0][0]][line[0][1]]
                if first in SYMBOLS and all(small[r][c] == first for r, c in line[1:]):
                    return (first, "WON")
        for k in range(2):
            for row in self.small_boards_status[k]:
                if EMPTY in row:
                    return ("CONTINUE", "-")
        return ("NONE", "DRAW")

    def check_valid_move(self, old_move, new_move):
        """Whether ``new_move`` may follow ``old_move``: both three plain ints, and
        ``new_move`` one of ``find_valid_move_cells(old_move)``."""
        if not (_plain_ints(old_move) and _plain_ints(new_move)):
            return False
        return tuple(new_move) in self.find_valid_move_cells(old_move)

    def _has_line(self, k, board_row, board_col, symbol):
        grid = self.big_boards_status[k]
        top, left = 3 * board_row, 3 * board_col
        return any(all(grid[top + r][left + c] == symbol for r, c in line) for line in LINES)

    def update(self, old_move, new_move, symbol):
        """Play ``new_move`` for ``symbol`` after ``old_move``, changing this board.

        ('UNSUCCESSFUL', False) if the move is not valid; else ('SUCCESSFUL', won), ``won``
        whether the move won its small board (which is then marked with ``symbol``; a small
        board filled without a line is marked 'd')."""
        if not self.check_valid_move(old_move, new_move):
            return ("UNSUCCESSFUL", False)
        k, row, col = new_move
        self.big_boards_status[k][row][col] = symbol
        board_row, board_col = row // 3, col // 3
        small = self.small_boards_status[k]
        if self._has_line(k, board_row, board_col, symbol):
            small[board_row][board_col] = symbol
            return ("SUCCESSFUL", True)
        if not self._empty_cells(k, board_row, board_col):
            small[board_row][board_col] = DRAWN
        return ("SUCCESSFUL", False)


class CourseGame(object):
    """One xtreme game as the course simulator ran it: the board, whose turn, the bonus move."""

    def __init__(self):
        self.board = BigBoard()
        self.last_move = NO_MOVE
        self.to_move = 0
        self.bonus = False  # whether the move to make is a bonus move
        self.ply = 0
        self.over = False

    def play(self, move):
        """Play ``move`` (k, row, col) for the player to move; ``OutOfStep`` if it cannot be."""
        if self.over:
            raise OutOfStep("move %s after the end of the game" % (move,))
        status, won = self.board.update(self.last_move, move, SYMBOLS[self.to_move])
        if status != "SUCCESSFUL":
            raise OutOfStep("move %s is not valid after %s" % (move, self.last_move))
        self.ply += 1
        self.last_move = move
        self.over = self.board.find_terminal_state()[0] != "CONTINUE"
        if won and not self.bonus:  # a bonus move, and a bonus move never earns another
            self.bonus = True
        else:
            self.bonus = False
            self.to_move = 1 - self.to_move


class OutOfStep(Exception):
    """The harness's moves do not fit this host's game: a bug, reported as a crash."""


class NoBotClass(Exception):
    """The bot file has no class to play with, or several and no choice was given."""


class Forfeit(Exception):
    """The bot broke a course rule: the harness forfeits it with ``kind`` (illegal_move)."""

    def __init__(self, kind, message):
        Exception.__init__(self, message)
        self.kind = kind
        self.message = message


def parse_move(text):
    """The move (k, row, col) of the text notation 'k row col'."""
    fields = text.split()
    if len(fields) != 3:
        raise OutOfStep("not an xtreme move: %r" % (text,))
    return tuple(int(field) for field in fields)


def format_move(move):
    """The text notation 'k row col' of the move (k, row, col)."""
    return "%d %d %d" % move


def _short_repr(value, limit=200):
    try:
        text = repr(value)
    except Exception:  # a bot's object whose repr fails still needs naming
        text = "<%s object>" % type(value).__name__
    return text if len(text) <= limit else text[:limit] + "..."


def _describe_value(value):
    """``value`` and its type(s), for a message about a bad return value."""
    kind = type(value).__name__
    if isinstance(value, (tuple, list)) and 0 < len(value) <= 5:
        kind += " of " + ", ".join(type(item).__name__ for item in value)
    return "%s (%s)" % (_short_repr(value), kind)


def check_reply(value):
    """The move ``value`` as a tuple of three ints; ``Forfeit`` unless it is exactly that."""
    if type(value) is not tuple or not _plain_ints(value):
        raise Forfeit(
            "illegal_move", "move() returned %s, not a tuple of three plain ints (k, row, col)" % _describe_value(value)
        )
    return value


def snapshot(board):
    """The board's cells and small boards as one string, to compare before and after a call;
    ``None`` when the bot left them in a shape no BigBoard has."""
    parts = []
    try:
        for grid, size in ((board.big_boards_status, 9), (board.small_boards_status, 3)):
            if not isinstance(grid, (tuple, list)) or len(grid) != 2:
                return None
            for rows in grid:
                if not isinstance(rows, (tuple, list)) or len(rows) != size:
                    return None
                for row in rows:
                    if not isinstance(row, (tuple, list)) or len(row) != size:
                        return None
                    if not all(isinstance(cell, _STRINGS) and len(cell) == 1 for cell in row):
                        return None
                    parts.append("".join(row))
    except Exception:  # whatever the bot put there, it is not the board it was given
        return None
    return "|".join(parts)


def _error_reply(error, what):
    """The ``error`` reply for an exception the bot raised while doing ``what``, with the
    last lines of its traceback (the bot's frames, not this host's or the import machinery's)."""
    kind = "resource_limit" if isinstance(error, MemoryError) else "exception"
    frames = [
        frame
        for frame in traceback.extract_tb(sys.exc_info()[2])
        if os.path.abspath(frame[0]) != _THIS_FILE and not frame[0].startswith("<frozen")
    ]
    detail = _text(error)
    message = "%s raised %s%s" % (what, type(error).__name__, ": " + detail if detail else "")
    if frames:
        message += "\n" + "".join(traceback.format_list(frames[-4:])).rstrip()[-1500:]
    return {"type": "error", "kind": kind, "message": message}


def _text(value):
    """``value`` as text (Python 2: unicode), whatever bytes it holds."""
    try:
        text = value if isinstance(value, type("")) else str(value)
    except Exception:
        return _short_repr(value)
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return text


def load_bot_file(path):
    """Import the bot file at ``path`` as a module named after it."""
    name = os.path.splitext(os.path.basename(path))[0]
    if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", name) or name in sys.modules:
        name = "course_bot_" + re.sub(r"\W", "_", name)
    sys.dont_write_bytecode = True  # leave the bot's folder as it is
    if sys.version_info[0] >= 3:
        import importlib.util

        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
        return module
    import imp

    return imp.load_source(name, path)


def _classes(module):
    """The classes defined in ``module`` (old-style Python 2 classes included), by name."""
    return sorted(
        name
        for name, value in vars(module).items()
        if inspect.isclass(value) and getattr(value, "__module__", None) == module.__name__
    )


def find_class(module, path, name=None):
    """The bot class of ``module``: ``name`` if given, else ``TeamN`` for ``teamN.py``, else the
    only class with a ``move`` method. ``NoBotClass`` with a message saying how to choose."""
    found = _classes(module)
    movers = [c for c in found if callable(getattr(getattr(module, c), "move", None))]
    file_name = os.path.basename(path)
    how = (
        "choose one with the bot parameter class (arena register ... --param class=NAME, or "
        "params: {class: NAME} in the tournament file)"
    )
    if name is not None:
        value = getattr(module, name, None)
        if inspect.isclass(value) and callable(getattr(value, "move", None)):
            return value
        raise NoBotClass(
            "%s has no class %r with a move method; its classes with one: %s; %s"
            % (file_name, name, ", ".join(movers) or "none", how)
        )
    stem = os.path.splitext(file_name)[0].lower()
    named = [c for c in movers if c.lower() == stem]
    if len(named) == 1:
        return getattr(module, named[0])
    if len(movers) == 1:
        return getattr(module, movers[0])
    if not movers:
        raise NoBotClass(
            "%s defines no class with a move(board, old_move, flag) method "
            "(classes found: %s)" % (file_name, ", ".join(found) or "none")
        )
    raise NoBotClass(
        "%s defines several classes with a move method (%s) and none is named "
        "after the file; %s" % (file_name, ", ".join(movers), how)
    )


def _first_paragraph(doc):
    """The first paragraph of docstring ``doc`` (up to its first blank line) on one line."""
    paragraph = []
    for line in _text(doc).strip().splitlines():
        if not line.strip():
            break
        paragraph.append(line.strip())
    return " ".join(paragraph)


def description(cls, module):
    """What the bot says of itself: the first paragraph of its file's docstring, else of its
    class's, on one line; ``""`` without either (a comment is not a description: a file's first
    comment is as often a name, a licence or code put aside)."""
    for doc in (getattr(module, "__doc__", None), getattr(cls, "__doc__", None)):
        if doc and _text(doc).strip():
            return _first_paragraph(doc)
    return ""


class Host(object):
    """One course bot file, one game at a time, kept in step with the harness's moves."""

    def __init__(self, path, class_name=None):
        self.path = path
        self.class_name = class_name
        self.module = None
        self.cls = None
        self.bot = None
        self.ended = None  # the last game's bot and board, freed when the next game starts
        self.game = None
        self.flag = None
        self.doing = "loading " + os.path.basename(path)  # what an error is reported as

    def load(self):
        """Import the bot file and make its bot (the class chosen, or the file's only one)."""
        if self.module is None:
            self.doing = "loading " + os.path.basename(self.path)
            self.module = load_bot_file(self.path)
        if self.cls is None:
            self.cls = find_class(self.module, self.path, self.class_name)

    def describe(self):
        """The ``description`` reply: what the bot file says of itself, and its one game."""
        self.load()
        return {
            "type": "description",
            "description": description(self.cls, self.module),
            "games": GAMES,
            "parameters": None,
        }

    def new_game(self, message):
        """Start a game of xtreme: a new bot of the class, and a fresh board."""
        self.bot = self.game = self.ended = None
        spec = message.get("game") or {}
        name = spec.get("name") if isinstance(spec, dict) else spec
        if name != "xtreme":
            return {"type": "error", "kind": "exception", "message": "course bots play xtreme only, not %r" % (name,)}
        self.load()
        seed = message.get("seed")
        if isinstance(seed, numbers.Integral):  # the bots' random module, seeded per game
            random.seed(seed)
            numpy = sys.modules.get("numpy")
            if numpy is not None:
                numpy.random.seed(seed % (2**32))
        self.flag = SYMBOLS[message.get("seat", 0)]
        self.doing = "%s()" % self.cls.__name__
        self.bot = self.cls()
        self.game = CourseGame()
        return {"type": "ready", "description": description(self.cls, self.module), "games": GAMES}

    def move(self, message):
        """Play the moves the request brings, then ask the bot for its move on a copy of the board."""
        game = self.game
        if game is None:
            raise OutOfStep("a move request outside a game")
        for text in message.get("moves", []):
            game.play(parse_move(text))
        ply = message.get("ply", game.ply)
        if ply != game.ply or game.over or SYMBOLS[game.to_move] != self.flag:
            raise OutOfStep(
                "out of step: harness at ply %s, host at ply %d with %s to move"
                % (ply, game.ply, SYMBOLS[game.to_move])
            )
        given = copy.deepcopy(game.board)
        before = snapshot(game.board)
        try:
            value = self.bot.move(given, game.last_move, self.flag)
        except (Exception, SystemExit) as error:  # sys.exit() in a bot is its crash, not ours
            self.game = None
            return _error_reply(error, "move()")
        if snapshot(given) != before:
            raise Forfeit("illegal_move", "the bot changed the board it was given in move() (the course forfeits that)")
        move = check_reply(value)
        if move in game.board.find_valid_move_cells(game.last_move):
            game.play(move)
        else:  # not a valid cell: the harness's engine says why and forfeits the game
            self.game = None
        return {"type": "move", "move": format_move(move)}

    def game_over(self):
        """The game ended: forget it (the next ``new_game`` starts another, and frees this
        one's bot: freeing a search tree takes CPU, which between games counts against it)."""
        self.ended = (self.bot, self.game)
        self.bot = self.game = None


def _reply(fd, message):
    data = json.dumps(message, separators=(",", ":"))
    if not isinstance(data, bytes):
        data = data.encode("utf-8")
    os.write(fd, data + b"\n")


def read_lines(fd):
    """The lines of ``fd`` as they come, without Python 2's read-ahead buffering."""
    buffer = b""
    while True:
        end = buffer.find(b"\n")
        if end >= 0:
            line, buffer = buffer[:end], buffer[end + 1 :]
            yield line
            continue
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            if buffer:
                yield buffer
            return
        buffer += chunk


def serve(host, fd_in, fd_out):
    """Answer protocol messages from ``fd_in`` on ``fd_out`` until ``quit`` or end of input."""
    for line in read_lines(fd_in):
        try:
            message = json.loads(line.decode("utf-8"))
        except ValueError:
            continue
        if not isinstance(message, dict):
            continue
        kind = message.get("type")
        try:
            if kind == "move":
                _reply(fd_out, host.move(message))
            elif kind == "new_game":
                _reply(fd_out, host.new_game(message))
            elif kind == "describe":
                _reply(fd_out, host.describe())
            elif kind == "game_over":
                host.game_over()
            elif kind == "quit":
                break
        except Forfeit as forfeit:
            host.game_over()
            _reply(fd_out, {"type": "error", "kind": forfeit.kind, "message": forfeit.message})
        except OutOfStep as error:
            host.game_over()
            _reply(fd_out, {"type": "error", "kind": "exception", "message": "course host: %s" % error})
        except NoBotClass as error:
            _reply(fd_out, {"type": "error", "kind": "exception", "message": _text(error)})
        except (Exception, SystemExit) as error:  # loading the file, __init__, sys.exit()
            host.game_over()
            reply = _error_reply(error, host.doing)
            if isinstance(error, SyntaxError) and sys.version_info[0] >= 3:
                reply["message"] += (
                    "\n(a Python 2 file? run it with a Python 2.7 interpreter: arena register ... --python python2.7)"
                )
            _reply(fd_out, reply)


def main(argv=None):
    """Run the course bot file named on the command line as an arena bot on stdin and stdout."""
    parser = argparse.ArgumentParser(prog="course_host.py", description="Run a 2019 course bot file as an arena bot.")
    parser.add_argument(
        "--class", dest="class_name", default=None, help="the bot class (default: TeamN for teamN.py, or the only one)"
    )
    parser.add_argument("bot_file")
    options = parser.parse_args(argv)
    path = os.path.abspath(options.bot_file)
    # the bot imports from its own folder, never from arena's (this script's)
    sys.path[0] = os.path.dirname(path)
    protocol_out = os.dup(1)
    os.dup2(2, 1)  # prints, even from C code, go to stderr
    sys.stdout = sys.stderr
    serve(Host(path, options.class_name), 0, protocol_out)


if __name__ == "__main__":
    main()
