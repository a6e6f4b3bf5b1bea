/* Playing a bot in the browser (arena serve): the choice form keeps the bot list to the chosen
   game; the game page draws the position with ArenaBoard, marks the legal moves, sends a
   clicked move (or undo, resign, pass) and asks the server for the game again whenever it
   changes (a long poll). No library, no network beyond this server. */
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
    var keep = function () {
      var first = null;
      Array.prototype.forEach.call(bots.options, function (option) {
        option.hidden = option.disabled = option.dataset.games.split(" ").indexOf(chooser.value) < 0;
        if (!option.disabled && first === null) { first = option; }
      });
      if (bots.selectedOptions[0] && bots.selectedOptions[0].disabled && first) { first.selected = true; }
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
    var html = "";
    s.moves.forEach(function (mv, i) {
      html += '<li data-ply="' + (i + 1) + '"' + (mv[0] < 0 ? ' class="chance"' : "") + '><span class="n">' + (i + 1) +
        '</span><span class="seat ' + window.ArenaBoard.seatClass(mv[0]) + '">' + esc(mv[0] < 0 ? "chance" : s.names[mv[0]]) +
        '</span><span class="mv">' + esc(mv[1]) + "</span></li>";
    });
    list.innerHTML = html;
    if (s.over) {
      statusLine.innerHTML = s.failure ? '<span class="bad">' + esc(s.failure) + "</span>" : "<strong>" + esc(s.result || "game over") + "</strong>";
      document.getElementById("stored").href = s.game_url;
      over.hidden = false;
    } else if (s.waiting) {
      statusLine.innerHTML = "Your move: " + seatText(s, s.seat) + (s.legal.length === 1 && s.legal[0] === "pass" ? " — no placement, so you pass" : "");
    } else {
      statusLine.innerHTML = seatText(s, 1 - s.seat) + " is thinking…";
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
