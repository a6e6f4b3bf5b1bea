/* Boards and the replay of one game. ArenaBoard.draw(game, frame, before, lastMove, marks) draws
   a position as SVG (the replay and the play page use it): arena's four games by code of their
   own, any other game ("generic") from the boards of its position (the board format of
   docs/games.md: grids of cells side by side, with notes under them), or as its text where it
   has none. The replay draws the position of each step from the positions embedded in the page
   (computed by the Python engine; a step is one move, a chance outcome, or the moves of a
   simultaneous step together), with buttons, a slider, keys and the move list, and
   arenaReplay.update(data) takes a game's newer data (a game in progress, served live). Every
   cell is an SVG rect with data-mark (its content: x, o, b, w or empty, a generic board's text)
   and data-move (its move in the game's notation, where it has one). Every text from a game is
   escaped. No library, no network. */
(function () {
  "use strict";
  /* what the drawing functions are drawing: the game's name and its last move */
  var board = { game: null, last: null };

  function esc(text) {
    return String(text).replace(/[&<>"]/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c];
    });
  }

  function mark(kind, cx, cy, r, cls) {
    cls = cls || "";
    if (kind === "x") {
      return '<path class="mark x ' + cls + '" d="M' + (cx - r) + "," + (cy - r) + "L" + (cx + r) + "," + (cy + r) +
        "M" + (cx + r) + "," + (cy - r) + "L" + (cx - r) + "," + (cy + r) + '"/>';
    }
    if (kind === "o") {
      return '<circle class="mark o ' + cls + '" cx="' + cx + '" cy="' + cy + '" r="' + r + '"/>';
    }
    return "";
  }

  function cell(x, y, size, move, content, extra) {
    var cls = "cell" + (extra ? " " + extra : "");
    return '<rect class="' + cls + '" x="' + x + '" y="' + y + '" width="' + size + '" height="' + size + '" rx="' + (board.game === "tictactoe" ? 8 : 0) +
      '" data-move="' + esc(move) + '" data-mark="' + (content === "." ? "" : content) + '"/>';
  }

  function svg(width, height, body) {
    return '<svg viewBox="0 0 ' + width + " " + height + '" xmlns="http://www.w3.org/2000/svg" ">' +
      "<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">" +
      '<line x1="0" y1="0" x2="0" y2="6" class="hatch-line"/></pattern></defs>' + body + "</svg>";
  }

  /* A 3x3 grid of small boards (uttt, and each big board of xtreme). place(b, c) gives the move
     text and the cell's content of cell c of small board b; status[b] is x, o, d or -. */
  function bigBoard(ox, oy, place, status, allowed, lastMove) {
    var cs = 32, gap = 10, side = 3 * cs, out = "", b, c, bx, by, st, here;
    for (b = 0; b < 9; b++) {
      bx = ox + (b % 3) * (side + gap);
      by = oy + Math.floor(b / 3) * (side + gap);
      st = status[b];
      out += '<rect class="small' + (allowed[b] ? " allowed" : "") + (st !== "-" ? " closed" : "") +
        '" x="' + (bx - 3) + '" y="' + (by - 3) + '" width="' + (side + 6) + '" height="' + (side + 6) + '" rx="4"/>';
      out += '<g class="smallboard' + (st !== "-" ? " closed" : "") + '">';
      for (c = 0; c < 9; c++) {
        here = place(b, c);
        out += cell(bx + (c % 3) * cs, by + Math.floor(c / 3) * cs, cs, here[0], here[1], here[0] === lastMove ? "last" : "");
        out += mark(here[1], bx + (c % 3) * cs + cs / 2, by + Math.floor(c / 3) * cs + cs / 2, 9, here[0] === lastMove ? "just" : "");
      }
      for (c = 1; c < 3; c++) {
        out += '<line class="grid" x1="' + (bx + c * cs) + '" y1="' + (by + 3) + '" x2="' + (bx + c * cs) + '" y2="' + (by + side - 3) + '"/>';
        out += '<line class="grid" x1="' + (bx + 3) + '" y1="' + (by + c * cs) + '" x2="' + (bx + side - 3) + '" y2="' + (by + c * cs) + '"/>';
      }
      out += "</g>";
      for (c = 0; c < 9; c++) {
        if (place(b, c)[0] === lastMove) {
          out += '<rect class="last-ring" x="' + (bx + (c % 3) * cs + 1.5) + '" y="' + (by + Math.floor(c / 3) * cs + 1.5) +
            '" width="' + (cs - 3) + '" height="' + (cs - 3) + '" rx="2"/>';
        }
      }
      if (st === "x" || st === "o") {
        out += mark(st, bx + side / 2, by + side / 2, 34, "big");
      } else if (st === "d") {
        out += '<rect class="drawn" x="' + bx + '" y="' + by + '" width="' + side + '" height="' + side + '"/>';
      }
    }
    return out;
  }

  function openBoards(status) {
    return status.split("").map(function (s) { return s === "-"; });
  }

  var draw = {
    tictactoe: function (f) {
      var size = 96, m = 12, out = "", i, x, y, move = board.last;
      for (i = 0; i < 9; i++) {
        x = m + (i % 3) * size; y = m + Math.floor(i / 3) * size;
        out += cell(x + 6, y + 6, size - 12, String(i), f.cells[i], String(i) === move ? "last" : "");
        out += mark(f.cells[i], x + size / 2, y + size / 2, 28, String(i) === move ? "just" : "");
      }
      for (i = 1; i < 3; i++) {
        out += '<line class="grid thick" x1="' + (m + i * size) + '" y1="' + (m + 6) + '" x2="' + (m + i * size) + '" y2="' + (m + 3 * size - 6) + '"/>';
        out += '<line class="grid thick" x1="' + (m + 6) + '" y1="' + (m + i * size) + '" x2="' + (m + 3 * size - 6) + '" y2="' + (m + i * size) + '"/>';
      }
      return svg(3 * size + 2 * m, 3 * size + 2 * m, out);
    },
    uttt: function (f) {
      var allowed = [];
      if (!f.terminal) {
        if (f.forced === null) { allowed = openBoards(f.small); } else { allowed[f.forced] = true; }
      }
      var body = bigBoard(12, 12, function (b, c) { return [b + " " + c, f.cells[b * 9 + c]]; }, f.small, allowed, board.last);
      return svg(332, 332, body);
    },
    xtreme: function (f) {
      var body = "", k, lastMove = board.last, allowed;
      for (k = 0; k < 2; k++) {
        allowed = [];
        f.allowed.forEach(function (a) { if (Math.floor(a / 9) === k) { allowed[a % 9] = true; } });
        body += '<text class="board-label" x="' + (12 + k * 344 + 154) + '" y="16" text-anchor="middle">big board ' + k + "</text>";
        body += bigBoard(12 + k * 344, 30, (function (kk) {
          return function (b, c) {
            var row = Math.floor(b / 3) * 3 + Math.floor(c / 3), col = (b % 3) * 3 + (c % 3);
            return [kk + " " + row + " " + col, f.cells[kk][row * 9 + col]];
          };
        })(k), f.small.slice(k * 9, k * 9 + 9), allowed, lastMove);
      }
      return svg(676, 350, body);
    },
    /* Any board size: the cells are the board row by row, so there are n * n of them. */
    othello: function (f, before) {
      var n = Math.round(Math.sqrt(f.cells.length)), columns = "abcdefghij";
      var size = 44, m = 26, out = "", i, r, c, x, y, name, content, lastMove = board.last, legal = {};
      (f.legal || []).forEach(function (t) { legal[t] = true; });
      out += '<rect class="felt" x="' + m + '" y="' + m + '" width="' + n * size + '" height="' + n * size + '" rx="3"/>';
      for (i = 0; i < n; i++) {
        out += '<text class="coord" x="' + (m + i * size + size / 2) + '" y="' + (m - 9) + '" text-anchor="middle">' + columns[i] + "</text>";
        out += '<text class="coord" x="' + (m - 10) + '" y="' + (m + i * size + size / 2 + 4) + '" text-anchor="middle">' + (i + 1) + "</text>";
      }
      for (i = 0; i < n * n; i++) {
        r = Math.floor(i / n); c = i % n; x = m + c * size; y = m + r * size;
        name = columns[c] + (r + 1);
        content = f.cells[i];
        out += cell(x, y, size, name, content, "square" + (name === lastMove ? " last" : ""));
        if (content !== ".") {
          var flipped = before && before.cells[i] !== "." && before.cells[i] !== content;
          out += '<circle class="disc ' + content + (flipped ? " flipped" : "") + (name === lastMove ? " just" : "") +
            '" cx="' + (x + size / 2) + '" cy="' + (y + size / 2) + '" r="' + (size / 2 - 5) + '"/>';
          if (name === lastMove) {
            out += '<circle class="last-dot" cx="' + (x + size / 2) + '" cy="' + (y + size / 2) + '" r="4"/>';
          }
        } else if (legal[name] && !f.terminal) {
          out += '<circle class="hint ' + (f.to_move === 0 ? "b" : "w") + '" cx="' + (x + size / 2) + '" cy="' + (y + size / 2) + '" r="5"/>';
        }
      }
      [[2, 2], [2, n - 2], [n - 2, 2], [n - 2, n - 2]].forEach(function (p) {
        out += '<circle class="star" cx="' + (m + p[1] * size) + '" cy="' + (m + p[0] * size) + '" r="3"/>';
      });
      return svg(n * size + m + 10, n * size + m + 10, out);
    }
  };

  /* ---- any other game: its boards (rows x cols of cells), or its text ---- */

  /* The seat whose piece a cell shows, or -1 (its content is drawn as text). A cell equal to a
     seat's mark is that seat's piece where the mark is a letter; digits (cards, dice, and the
     marks 1..N of games with many seats) are pieces only on a board that holds nothing else. */
  function pieceSeat(content, marks, onlyMarks) {
    var seat = marks.indexOf(content);
    if (content === "" || seat < 0) { return -1; }
    return /^[0-9]+$/.test(content) && !onlyMarks ? -1 : seat;
  }

  function gridBoard(b, marks) {
    var cs = b.cols > 10 || b.rows > 10 ? 34 : 44, m = 6, top = b.label ? 24 : 0;
    var width = b.cols * cs + 2 * m, height = b.rows * cs + 2 * m + top;
    var highlight = {}, last = {}, out = "", i, x, y, content, move, seat, cls, size;
    (b.highlight || []).forEach(function (k) { highlight[k] = true; });
    (b.last || []).forEach(function (k) { last[k] = true; });
    var onlyMarks = b.cells.every(function (c) { return c === "" || marks.indexOf(c) >= 0; });
    if (b.label) {
      out += '<text class="board-label" x="' + width / 2 + '" y="16" text-anchor="middle">' + esc(b.label) + "</text>";
    }
    for (i = 0; i < b.rows * b.cols; i++) {
      x = m + (i % b.cols) * cs; y = top + m + Math.floor(i / b.cols) * cs;
      content = String(b.cells[i]);
      move = b.moves ? b.moves[i] : null;
      cls = "cell" + (highlight[i] ? " highlight" : "") + (last[i] ? " last" : "");
      out += '<rect class="' + cls + '" x="' + x + '" y="' + y + '" width="' + cs + '" height="' + cs + '"' +
        (move === null || move === undefined ? "" : ' data-move="' + esc(move) + '"') + ' data-mark="' + esc(content) + '"/>';
      seat = pieceSeat(content, marks, onlyMarks);
      if (seat >= 0) {
        out += '<circle class="piece s' + seat + (last[i] ? " just" : "") + '" cx="' + (x + cs / 2) + '" cy="' + (y + cs / 2) +
          '" r="' + (cs / 2 - 5) + '"/>';
        cls = "piece-text";
      } else {
        cls = "cell-text" + (highlight[i] ? " strong" : "");
      }
      if (content !== "") {
        size = Math.round(cs * (content.length > 2 ? 0.3 : content.length > 1 ? 0.38 : 0.46));
        out += '<text class="' + cls + '" x="' + (x + cs / 2) + '" y="' + (y + cs / 2) + '" font-size="' + size +
          '" text-anchor="middle" dominant-baseline="central">' + esc(content) + "</text>";
      }
    }
    return '<svg class="grid-board" viewBox="0 0 ' + width + " " + height + '" style="max-width:' + width +
      'px" xmlns="http://www.w3.org/2000/svg">' + out + "</svg>";
  }

  function generic(f, marks) {
    var out = '<div class="generic">';
    if (f.boards && f.boards.length) {
      out += '<div class="boards">' + f.boards.map(function (b) { return gridBoard(b, marks || []); }).join("") + "</div>";
    } else {
      out += '<pre class="board-text">' + esc(f.text || "") + "</pre>";
    }
    if (f.notes && f.notes.length) {
      out += '<ul class="board-notes">' + f.notes.map(function (n) { return "<li>" + esc(n) + "</li>"; }).join("") + "</ul>";
    }
    return out + "</div>";
  }

  window.ArenaBoard = {
    /* game: arena's game by name, or "generic"; marks: a generic game's seats' marks */
    draw: function (game, frame, before, lastMove, marks) {
      board.game = game;
      board.last = lastMove;
      return draw.hasOwnProperty(game) ? draw[game](frame, before) : generic(frame, marks);
    },
    seatClass: function (seat) {
      return seat < 0 ? "seat-chance" : seat < 2 ? "seat-" + "xo"[seat] : "seat-p" + (seat + 1);
    }
  };

  var dataBlock = document.getElementById("game-data");
  if (!dataBlock || !document.getElementById("replay")) { return; }
  var data = JSON.parse(dataBlock.textContent);
  var frames = data.frames, moves = data.moves, last = frames.length - 1;
  var ends = [0], stepOf = [];  /* the record's entries through each step, and each entry's step */
  var boardBox = document.getElementById("board");
  var slider = document.getElementById("ply");
  var label = document.getElementById("ply-label");
  var statusLine = document.getElementById("status");
  var list = document.getElementById("moves");
  var playButton = document.getElementById("play");
  var ply = 0, timer = null;
  var PLAY = '<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M4 2v12l10-6z"/></svg>';
  var PAUSE = '<svg viewBox="0 0 16 16" aria-hidden="true"><rect x="3" y="2" width="3.5" height="12"/><rect x="9.5" y="2" width="3.5" height="12"/></svg>';

  /* a step is one entry of the record, but a simultaneous step's (data.steps: each step's count) */
  function countSteps() {
    var counts = data.steps || [], k, i;
    ends = [0];
    stepOf = [];
    for (k = 0; ends[k] < moves.length; k++) {
      ends.push(Math.min(moves.length, ends[k] + (k < counts.length ? Math.max(1, counts[k]) : 1)));
      for (i = ends[k]; i < ends[k + 1]; i++) { stepOf[i] = k + 1; }
    }
  }

  function kind() {
    return data.board || data.game;
  }

  function lastMoveText() {
    return ply > 0 && ends[ply] > 0 ? moves[ends[ply] - 1][1] : null;
  }

  /* words in a sentence: "a", "a and b", "a, b and c" */
  function joined(words) {
    return words.length > 1 ? words.slice(0, -1).join(", ") + " and " + words[words.length - 1] : words.join("");
  }

  function seatText(seat) {
    return '<span class="seat ' + window.ArenaBoard.seatClass(seat) + '">' + esc(data.names[seat]) + "</span> " + esc(data.seats[seat]);
  }

  function entryText(mv) {
    if (mv[0] < 0) { return '<span class="seat seat-chance">chance</span> drew <strong class="mv">' + esc(mv[1]) + "</strong>"; }
    return seatText(mv[0]) + ' played <strong class="mv">' + esc(mv[1]) + "</strong> in " + esc(formatMs(mv[2]));
  }

  function boardName(b) {
    return "small board (" + Math.floor((b % 9) / 3) + ", " + (b % 3) + ") of big board " + Math.floor(b / 9);
  }

  function describe(f) {
    var parts = [], i;
    if (ply > 0) {
      var first = ends[ply - 1], end = ends[ply], said = [];
      for (i = first; i < end; i++) { said.push(entryText(moves[i])); }
      parts.push((end - first === 1 ? "Ply " + end : "Plies " + (first + 1) + "–" + end) + "/" + moves.length + ": " + said.join(", "));
    } else {
      parts.push("Start position");
    }
    if (kind() === "othello") {
      parts.push("black " + f.black + " · white " + f.white);
    }
    if (ply === last) {
      if (data.problem) {
        parts.push('<span class="bad">record stops re-playing here: ' + esc(data.problem) + "</span>");
      } else {
        parts.push("<strong>" + esc(data.result) + "</strong>");
      }
    } else if (f.to_move === -1) {
      parts.push("a chance outcome is drawn next");
    } else if (f.to_move === -2) {
      parts.push(joined((f.actors || []).map(seatText)) + " move at once");
    } else {
      var next = seatText(f.to_move) + " to move";
      if (kind() === "xtreme") {
        if (f.bonus) { next += " (bonus move)"; }
        if (ply > 0 && f.allowed.length <= 2) {
          next += " in " + f.allowed.map(boardName).join(" or ");
        } else {
          next += " in any open small board";
        }
      } else if (kind() === "uttt") {
        next += f.forced === null ? " in any open small board" : " in small board " + f.forced;
      }
      parts.push(next);
    }
    return parts.join(" · ");
  }

  function formatMs(ms) {
    if (ms >= 1000) { return (ms / 1000).toFixed(2) + " s"; }
    return ms < 1 ? ms.toFixed(2) + " ms" : ms.toFixed(1) + " ms";
  }

  function buildList() {
    var html = '<li data-ply="0" class="start"><span class="n"></span><span class="who">start</span></li>';
    countSteps();
    moves.forEach(function (mv, i) {
      var bonus = i > 0 && moves[i - 1][0] === mv[0] && kind() === "xtreme", step = stepOf[i];
      var chance = mv[0] < 0, cls = step > last ? "unreached" : "";
      if (chance) { cls += (cls ? " " : "") + "chance"; }
      html += '<li data-ply="' + step + '"' + (cls ? ' class="' + cls + '"' : "") + '><span class="n">' + (i + 1) +
        '</span><span class="seat ' + window.ArenaBoard.seatClass(mv[0]) + '">' + esc(chance ? "chance" : data.names[mv[0]]) +
        '</span><span class="mv">' + esc(mv[1]) + (bonus ? ' <span class="bonus" title="bonus move">+</span>' : "") +
        '</span><span class="t">' + (chance ? "" : esc(formatMs(mv[2]))) + "</span></li>";
    });
    list.innerHTML = html;
  }

  function go(target) {
    ply = Math.max(0, Math.min(last, target));
    var f = frames[ply];
    boardBox.innerHTML = window.ArenaBoard.draw(kind(), f, ply > 0 ? frames[ply - 1] : null, lastMoveText(), data.marks);
    boardBox.firstChild.setAttribute("data-ply", String(ply));
    slider.value = ply;
    label.textContent = ends[ply] + "/" + moves.length;
    statusLine.innerHTML = describe(f);
    Array.prototype.forEach.call(list.querySelectorAll("li.current"), function (li) { li.classList.remove("current"); });
    var items = list.querySelectorAll('li[data-ply="' + ply + '"]'), item = items[0];
    Array.prototype.forEach.call(items, function (li) { li.classList.add("current"); });
    if (item) {
      var top = item.offsetTop, bottom = top + item.offsetHeight;
      if (top < list.scrollTop) { list.scrollTop = top; }
      else if (bottom > list.scrollTop + list.clientHeight) { list.scrollTop = bottom - list.clientHeight; }
    }
    try { history.replaceState(null, "", "#ply=" + ply); } catch (e) { /* file:// may refuse */ }
  }

  function stop() {
    if (timer !== null) { clearInterval(timer); timer = null; }
    playButton.innerHTML = PLAY;
    playButton.classList.remove("on");
  }

  function play() {
    if (timer !== null) { stop(); return; }
    if (ply >= last) { go(0); }
    playButton.innerHTML = PAUSE;
    playButton.classList.add("on");
    timer = setInterval(function () {
      if (ply >= last) { stop(); return; }
      go(ply + 1);
    }, 700);
  }

  document.getElementById("first").addEventListener("click", function () { stop(); go(0); });
  document.getElementById("back").addEventListener("click", function () { stop(); go(ply - 1); });
  document.getElementById("next").addEventListener("click", function () { stop(); go(ply + 1); });
  document.getElementById("last").addEventListener("click", function () { stop(); go(last); });
  playButton.addEventListener("click", play);
  slider.addEventListener("input", function () { stop(); go(Number(slider.value)); });
  document.addEventListener("keydown", function (event) {
    if (event.target === slider || event.altKey || event.ctrlKey || event.metaKey) { return; }
    var actions = {
      ArrowRight: function () { stop(); go(ply + 1); }, ArrowLeft: function () { stop(); go(ply - 1); },
      Home: function () { stop(); go(0); }, End: function () { stop(); go(last); }, " ": play
    };
    if (actions[event.key]) { event.preventDefault(); actions[event.key](); }
  });

  list.addEventListener("click", function (event) {
    var item = event.target.closest("li");
    if (item && !item.classList.contains("unreached")) { stop(); go(Number(item.dataset.ply)); }
  });

  /* a game in progress: its newer data; a viewer at its last position follows the new moves */
  window.arenaReplay = {
    update: function (fresh) {
      var following = ply === last;
      data = fresh;
      frames = fresh.frames;
      moves = fresh.moves;
      last = frames.length - 1;
      slider.max = last;
      buildList();
      go(following ? last : ply);
    }
  };

  slider.max = last;
  buildList();
  var wanted = /ply=(\d+)/.exec(location.hash);
  go(wanted ? Number(wanted[1]) : last);  /* the game as it ended (or stands, in progress); #ply=N another */
})();
