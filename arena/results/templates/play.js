/* Playing a bot in the browser (arena serve): the choice form keeps the bot list and the seats
   to the chosen game (its option's data-seats: each seat's label); the game page draws the
   position with ArenaBoard, marks the legal moves, sends a clicked move (or undo, resign, pass)
   and asks the server for the game again whenever it changes (a long poll). A chance outcome is
   listed as chance's, and the moves of a simultaneous step as one step. No library, no network
   beyond this server. */
(function () {
  "use strict";

  function esc(text) {
    return String(text).replace(/[&<>"]/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c];
    });
  }

  var chooser = document.getElementById("game");
  if (chooser) {
    var bots = document.getElementById("bot");
    var seatLabels = document.querySelectorAll("#seats label[data-seat]");
    var botNote = document.getElementById("bot-note");
    var keepSeats = function () {
      var option = chooser.selectedOptions[0], labels = null;
      try { labels = JSON.parse(option.dataset.seats); } catch (e) { labels = null; }
      if (!labels || !labels.length) { return; }  /* a game the page did not offer: its seats as they are */
      var checkFirst = false;
      Array.prototype.forEach.call(seatLabels, function (label) {
        var seat = Number(label.dataset.seat), radio = label.querySelector("input");
        label.hidden = seat >= labels.length;
        radio.disabled = label.hidden;
        if (!label.hidden) { label.querySelector(".seat-label").textContent = labels[seat]; }
        if (label.hidden && radio.checked) { checkFirst = true; }
      });
      if (checkFirst) { seatLabels[0].querySelector("input").checked = true; }
      if (botNote) { botNote.hidden = labels.length <= 2; }
    };
    var keep = function () {
      var first = null;
      Array.prototype.forEach.call(bots.options, function (option) {
        option.hidden = option.disabled = option.dataset.games.split(" ").indexOf(chooser.value) < 0;
        if (!option.disabled && first === null) { first = option; }
      });
      if (bots.selectedOptions[0] && bots.selectedOptions[0].disabled && first) { first.selected = true; }
      keepSeats();
    };
    chooser.addEventListener("change", keep);
    keep();
    return;
  }

  var table = document.body.dataset.table;
  if (!table) { return; }
  var base = "/play/" + encodeURIComponent(table);
  var box = document.getElementById("board"), statusLine = document.getElementById("status");
  var notice = document.getElementById("notice"), list = document.getElementById("moves");
  var undo = document.getElementById("undo"), resign = document.getElementById("resign");
  var pass = document.getElementById("pass"), over = document.getElementById("over");
  var current = null, version = -1, sending = false;

  var choices = document.getElementById("choices");

  /* a simultaneous step, in words: its seats move at once, their moves shown once all have moved */
  function atOnce(s) {
    var f = s.frame || {};
    if (f.to_move !== -2 || !f.actors) { return ""; }
    var words = f.actors.map(function (seat) { return seatText(s, seat); });
    return (words.length > 1 ? words.slice(0, -1).join(", ") + " and " + words[words.length - 1] : words.join("")) +
      " move at once: the moves are shown once all have chosen";
  }

  function seatText(s, seat) {
    return '<span class="seat ' + window.ArenaBoard.seatClass(seat) + '">' + esc(s.names[seat]) + "</span> " + esc(s.seats[seat]);
  }

  /* the legal moves no cell of the board plays (a generic game's bids, cards...), as buttons */
  function showChoices(s, clickable) {
    var rest = s.waiting && !s.over ? s.legal.filter(function (m) { return !clickable[m] && m !== "pass"; }) : [];
    choices.hidden = !rest.length;
    choices.innerHTML = rest.map(function (m) {
      return '<button type="button" data-move="' + esc(m) + '">' + esc(m) + "</button>";
    }).join("");
  }

  function show(s) {
    current = s;
    box.innerHTML = window.ArenaBoard.draw(s.board || s.game, s.frame, s.before, s.last, s.marks);
    var legal = {}, clickable = {};
    s.legal.forEach(function (m) { legal[m] = true; });
    Array.prototype.forEach.call(box.querySelectorAll("rect.cell"), function (cell) {
      if (legal[cell.dataset.move]) { cell.classList.add("legal"); clickable[cell.dataset.move] = true; }
    });
    if (choices) { showChoices(s, clickable); }
    box.dataset.waiting = s.waiting ? "yes" : "no";
    box.dataset.plies = String(s.moves.length);
    var html = "", counts = s.steps || [], step = 0, left = 0;
    s.moves.forEach(function (mv, i) {
      if (left <= 0) { step += 1; left = step <= counts.length ? Math.max(1, counts[step - 1]) : 1; }
      var joint = step <= counts.length && counts[step - 1] > 1, cls = [];
      left -= 1;
      if (mv[0] < 0) { cls.push("chance"); }
      if (joint) { cls.push("joint"); }
      html += '<li data-ply="' + (i + 1) + '" data-step="' + step + '"' + (cls.length ? ' class="' + cls.join(" ") + '"' : "") +
        (joint ? ' title="played at once with the other moves of its step"' : "") + '><span class="n">' + (i + 1) +
        '</span><span class="seat ' + window.ArenaBoard.seatClass(mv[0]) + '">' + esc(mv[0] < 0 ? "chance" : s.names[mv[0]]) +
        '</span><span class="mv">' + esc(mv[1]) + "</span></li>";
    });
    list.innerHTML = html;
    if (s.over) {
      statusLine.innerHTML = s.failure ? '<span class="bad">' + esc(s.failure) + "</span>" : "<strong>" + esc(s.result || "game over") + "</strong>";
      document.getElementById("stored").href = s.game_url;
      over.hidden = false;
    } else if (s.waiting) {
      statusLine.innerHTML = "Your move: " + seatText(s, s.seat) + (s.legal.length === 1 && s.legal[0] === "pass" ? " — no placement, so you pass" : "") +
        (atOnce(s) ? " · " + atOnce(s) : "");
    } else if (s.thinking !== null && s.thinking !== undefined) {
      statusLine.innerHTML = seatText(s, s.thinking) + " is thinking…" + (atOnce(s) ? " · " + atOnce(s) : "");
    } else if (s.frame && s.frame.to_move === -1) {
      statusLine.innerHTML = "a chance outcome is drawn…";
    } else {
      statusLine.innerHTML = (s.seats.length > 2 ? "the bots are thinking…" : seatText(s, 1 - s.seat) + " is thinking…");
    }
    notice.hidden = !s.notice;
    notice.textContent = s.notice || "";
    undo.disabled = !s.can_undo || sending;
    resign.disabled = s.over || !s.waiting || sending;
    pass.hidden = !legal.pass;
  }

  function send(action, move) {
    if (sending || !current || current.over) { return; }
    sending = true;
    undo.disabled = resign.disabled = true;
    if (choices) { Array.prototype.forEach.call(choices.querySelectorAll("button"), function (b) { b.disabled = true; }); }
    fetch(base + "/act", {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ action: action, move: move === undefined ? null : move })
    }).then(function (response) {
      return response.json().then(function (body) {
        if (!response.ok) { notice.hidden = false; notice.textContent = body.error || "refused"; }
      });
    }).catch(function () {
      notice.hidden = false; notice.textContent = "the server could not be reached";
    }).then(function () { sending = false; if (current) { show(current); } });
  }

  function poll() {
    fetch(base + "/state?after=" + version, { cache: "no-store", credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) { throw new Error("status " + response.status); }
        return response.json();
      })
      .then(function (s) {
        version = s.version;
        show(s);
        if (!s.over) { poll(); }
      })
      .catch(function () { setTimeout(poll, 1000); });
  }

  function clicked(event) {
    var cell = event.target.closest("[data-move]");
    if (!cell || !current || !current.waiting) { return; }
    if (current.legal.indexOf(cell.dataset.move) >= 0) { send("move", cell.dataset.move); }
  }
  box.addEventListener("click", clicked);
  if (choices) { choices.addEventListener("click", clicked); }
  undo.addEventListener("click", function () { send("undo"); });
  resign.addEventListener("click", function () { send("resign"); });
  pass.addEventListener("click", function () { send("move", "pass"); });
  poll();
})();
