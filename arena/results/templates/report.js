/* The games list's filters (team, stage, result; kept in the URL's #hash so links can preset
   them; served, in its query, the server choosing the games of every page) and the
   crosstable's row and column highlight. No library, and in the static report no network. */
(function () {
  "use strict";

  /* where the server filters every page of the games, its address (data-games on this script):
     a choice swaps in its answer, no reload; else the filters choose among the rows of the page */
  var served = document.currentScript && document.currentScript.dataset.games;
  var form = document.getElementById("filters");
  if (form) {
    var bot = document.getElementById("filter-bot");
    var stage = document.getElementById("filter-stage");
    var result = document.getElementById("filter-result");
    var asked = 0;  // the server's answers asked for: only the latest is swapped in

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

    var chosen = function () {
      var pairs = [];
      if (bot.value) { pairs.push("bot=" + encodeURIComponent(bot.value)); }
      if (stage.value) { pairs.push("stage=" + encodeURIComponent(stage.value)); }
      if (result.value) { pairs.push("result=" + encodeURIComponent(result.value)); }
      return pairs.join("&");
    };

    /* the rows of the page that match, shown (the others hidden); how many */
    var filterRows = function () {
      var b = bot.value, s = stage.value, r = result.value, count = 0;
      var table = document.getElementById("games-table");
      Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
        var ok = matches(row.dataset, b, s, r);
        row.hidden = !ok;
        if (ok) { count += 1; }
      });
      document.getElementById("no-games").hidden = count > 0;
      return count;
    };

    /* served: the server's first page of the games the filters choose, swapped in */
    var load = function () {
      var query = chosen(), mine = ++asked;
      fetch(served + (query ? "?" + query : ""), { cache: "no-store", credentials: "same-origin" })
        .then(function (response) {
          if (!response.ok) { throw new Error("status " + response.status); }
          return response.text();
        })
        .then(function (html) {
          if (mine !== asked) { return; }  // a later choice's answer is on its way
          var fresh = new DOMParser().parseFromString(html, "text/html");
          document.getElementById("games-list").innerHTML = fresh.getElementById("games-list").innerHTML;
          document.getElementById("shown").textContent = fresh.getElementById("shown").textContent;
          try { history.replaceState(null, "", location.pathname + (query ? "?" + query : "")); } catch (e) { /* no history */ }
        })
        .catch(function () { if (mine === asked) { location.search = query; } });  // a plain request then
    };

    /* won and lost by the team: only once a team is chosen */
    var allow = function () {
      result.querySelector('option[value="won"]').disabled = !bot.value;
      result.querySelector('option[value="lost"]').disabled = !bot.value;
    };

    var apply = function () {
      allow();
      var count = filterRows();
      if (served) { load(); return; }
      document.getElementById("shown").textContent = count;
      var hash = chosen();
      try { history.replaceState(null, "", hash ? "#" + hash : location.pathname); } catch (e) { /* file:// */ }
      /* the other pages of the list keep the filters */
      Array.prototype.forEach.call(document.querySelectorAll(".pages a"), function (link) {
        link.hash = hash;
      });
    };

    var preset = function () {
      var changed = false;
      location.hash.replace(/^#/, "").split("&").forEach(function (pair) {
        var kv = pair.split("="), value = decodeURIComponent(kv[1] || "");
        var select = { bot: bot, stage: stage, result: result }[kv[0]];
        if (select && select.value !== value && Array.prototype.some.call(select.options, function (o) { return o.value === value; })) {
          select.value = value;
          changed = true;
        }
      });
      return changed;
    };

    [bot, stage, result].forEach(function (select) { select.addEventListener("change", apply); });
    if (preset() || !served) { apply(); } else { allow(); }  // served, the page is the server's answer
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
