/* Live pages of `arena serve`: the overview follows the tournament (on each "changed" event
   the page's main part is fetched again and swapped in, no reload), and a game in progress
   follows its moves (each "moves" event hands the replay its new data). */
(function () {
  "use strict";
  var body = document.body, state = document.getElementById("live-state");
  if (!window.EventSource) { return; }

  function say(text) { if (state) { state.textContent = text; } }

  var pageEvents = body.dataset.live;
  if (pageEvents) {
    var busy = false, again = false;
    var refresh = function () {
      if (busy) { again = true; return; }
      busy = true;
      fetch(location.pathname, { cache: "no-store", credentials: "same-origin" })
        .then(function (response) {
          if (!response.ok) { throw new Error("status " + response.status); }
          return response.text();
        })
        .then(function (html) {
          var fresh = new DOMParser().parseFromString(html, "text/html");
          ["main", "header.site .meta"].forEach(function (selector) {
            var old = document.querySelector(selector), now = fresh.querySelector(selector);
            if (old && now) { old.innerHTML = now.innerHTML; }
          });
          body.dataset.updates = String(Number(body.dataset.updates || 0) + 1);
          say("live · updated " + new Date().toLocaleTimeString());
        })
        .catch(function () { say("live · update failed, retrying"); again = true; })
        .then(function () {
          busy = false;
          if (again) { again = false; setTimeout(refresh, 500); }
        });
    };
    var listen = function () {
      var source = new EventSource(pageEvents);
      source.addEventListener("changed", refresh);
      source.onerror = function () {
        if (source.readyState === EventSource.CLOSED) {  // refused (a busy server's 503): again later
          say("live · the server is busy, retrying soon");
          setTimeout(listen, 30000);
        } else {
          say("live · reconnecting");
        }
      };
    };
    listen();
  }

  var gameEvents = body.dataset.liveGame;
  if (gameEvents && window.arenaReplay) {
    var stream = new EventSource(gameEvents);
    stream.addEventListener("moves", function (event) {
      var data = JSON.parse(event.data);
      window.arenaReplay.update(data);
      body.dataset.updates = String(Number(body.dataset.updates || 0) + 1);
      if (data.over) {
        stream.close();
        var result = document.getElementById("result");
        if (result) { result.textContent = data.result; }
      }
    });
  }
})();
