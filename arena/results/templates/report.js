/* The games list's filters (team, stage, result; kept in the URL's #hash so links can preset
   them) and the crosstable's row and column highlight. No library, no network. */
(function () {
  "use strict";

  var table = document.getElementById("games-table");
  if (table) {
    var bot = document.getElementById("filter-bot");
    var stage = document.getElementById("filter-stage");
    var result = document.getElementById("filter-result");
    var shown = document.getElementById("shown");
    var none = document.getElementById("no-games");
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);

    /* every seat's team (data-teams, a JSON list), or the two of data-first and data-second */
    var teams = function (d) {
      try { return JSON.parse(d.teams); } catch (e) { return [d.first, d.second]; }
    };

    var matches = function (d, b, s, r) {
      if (b && teams(d).indexOf(b) < 0) { return false; }
      if (s && d.stage !== s) { return false; }
      if (!r) { return true; }
      if (r === "forfeit") { return d.forfeit !== ""; }
      if (r === "won") { return b !== "" && d.winner === b; }
      if (r === "lost") { return b !== "" && d.winner !== "" && d.winner !== b; }
      return d.result === r;
    };

    var apply = function () {
      var b = bot.value, s = stage.value, r = result.value, count = 0;
      result.querySelector('option[value="won"]').disabled = !b;
      result.querySelector('option[value="lost"]').disabled = !b;
      rows.forEach(function (row) {
        var ok = matches(row.dataset, b, s, r);
        row.hidden = !ok;
        if (ok) { count += 1; }
      });
      shown.textContent = count;
      none.hidden = count > 0;
      var hash = [];
      if (b) { hash.push("bot=" + encodeURIComponent(b)); }
      if (s) { hash.push("stage=" + encodeURIComponent(s)); }
      if (r) { hash.push("result=" + encodeURIComponent(r)); }
      try { history.replaceState(null, "", hash.length ? "#" + hash.join("&") : location.pathname); } catch (e) { /* file:// */ }
    };

    var preset = function () {
      location.hash.replace(/^#/, "").split("&").forEach(function (pair) {
        var kv = pair.split("="), value = decodeURIComponent(kv[1] || "");
        var select = { bot: bot, stage: stage, result: result }[kv[0]];
        if (select && Array.prototype.some.call(select.options, function (o) { return o.value === value; })) {
          select.value = value;
        }
      });
    };

    [bot, stage, result].forEach(function (select) { select.addEventListener("change", apply); });
    preset();
    apply();
  }

  var cross = document.getElementById("crosstable");
  if (cross) {
    cross.addEventListener("mouseover", function (event) {
      var td = event.target.closest("td");
      Array.prototype.forEach.call(cross.querySelectorAll(".hl"), function (el) { el.classList.remove("hl"); });
      if (!td) { return; }
      td.parentElement.classList.add("hl");
      var column = td.cellIndex;
      var head = cross.tHead.rows[0].cells[column];
      if (head) { head.classList.add("hl"); }
    });
  }
})();
