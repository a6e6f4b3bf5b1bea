/* Boards and the replay of one game. ArenaBoard.draw(game, frame, before, lastMove) draws a
   position as SVG (the replay and the play page use it); the replay draws the position of each
   ply from the positions embedded in the page (computed by the Python engine), with buttons, a
   slider, keys and the move list, and arenaReplay.update(data) takes a game's newer data (a game
   in progress, served live). Every cell is an SVG rect with data-move (its move in the game's
   notation) and data-mark (its content: x, o, b, w or empty). No library, no network. */
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

  window.ArenaBoard = {
    draw: function (game, frame, before, lastMove) {
      board.game = game;
      board.last = lastMove;
      return draw[game](frame, before);
    }
  };

  var dataBlock = document.getElementById("game-data");
  if (!dataBlock || !document.getElementById("replay")) { return; }
  var data = JSON.parse(dataBlock.textContent);
  var frames = data.frames, moves = data.moves, last = frames.length - 1;
  var boardBox = document.getElementById("board");
  var slider = document.getElementById("ply");
  var label = document.getElementById("ply-label");
  var statusLine = document.getElementById("status");
  var list = document.getElementById("moves");
  var playButton = document.getElementById("play");
  var ply = 0, timer = null;
  var PLAY = '<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M4 2v12l10-6z"/></svg>';
  var PAUSE = '<svg viewBox="0 0 16 16" aria-hidden="true"><rect x="3" y="2" width="3.5" height="12"/><rect x="9.5" y="2" width="3.5" height="12"/></svg>';

  function lastMoveText() {
    return ply > 0 ? moves[ply - 1][1] : null;
  }

  function seatText(seat) {
    return '<span class="seat seat-' + "xo"[seat] + '">' + esc(data.names[seat]) + "</span> " + esc(data.seats[seat]);
  }

  function boardName(b) {
    return "small board (" + Math.floor((b % 9) / 3) + ", " + (b % 3) + ") of big board " + Math.floor(b / 9);
  }

  function describe(f) {
    var parts = [];
    if (ply > 0) {
      var mv = moves[ply - 1];
      parts.push("Ply " + ply + "/" + (moves.length) + ": " + seatText(mv[0]) + " played <strong class=\"mv\">" + esc(mv[1]) +
        "</strong> in " + esc(formatMs(mv[2])));
    } else {
      parts.push("Start position");
    }
    if (data.game === "othello") {
      parts.push("black " + f.black + " · white " + f.white);
    }
    if (ply === last) {
      if (data.problem) {
        parts.push('<span class="bad">record stops re-playing here: ' + esc(data.problem) + "</span>");
      } else {
        parts.push("<strong>" + esc(data.result) + "</strong>");
      }
    } else {
      var next = seatText(f.to_move) + " to move";
      if (data.game === "xtreme") {
        if (f.bonus) { next += " (bonus move)"; }
        if (ply > 0 && f.allowed.length <= 2) {
          next += " in " + f.allowed.map(boardName).join(" or ");
        } else {
          next += " in any open small board";
        }
      } else if (data.game === "uttt") {
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
    moves.forEach(function (mv, i) {
      var bonus = i > 0 && moves[i - 1][0] === mv[0] && data.game === "xtreme";
      html += '<li data-ply="' + (i + 1) + '"' + (i + 1 > last ? ' class="unreached"' : "") + '><span class="n">' + (i + 1) +
        '</span><span class="seat seat-' + "xo"[mv[0]] + '">' + esc(data.names[mv[0]]) + '</span><span class="mv">' +
        esc(mv[1]) + (bonus ? ' <span class="bonus" title="bonus move">+</span>' : "") + '</span><span class="t">' + esc(formatMs(mv[2])) + "</span></li>";
    });
    list.innerHTML = html;
  }

  function go(target) {
    ply = Math.max(0, Math.min(last, target));
    var f = frames[ply];
    boardBox.innerHTML = window.ArenaBoard.draw(data.game, f, ply > 0 ? frames[ply - 1] : null, lastMoveText());
    boardBox.firstChild.setAttribute("data-ply", String(ply));
    slider.value = ply;
    label.textContent = ply + "/" + moves.length;
    statusLine.innerHTML = describe(f);
    var previous = list.querySelector("li.current");
    if (previous) { previous.classList.remove("current"); }
    var item = list.querySelector('li[data-ply="' + ply + '"]');
    if (item) {
      item.classList.add("current");
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
