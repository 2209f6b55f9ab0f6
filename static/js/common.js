/* Qalisball Live: what every live page shares.
 *
 * - the page's data (JSON rendered by the server: state, roster, translated words);
 * - a clock that follows the server's: every state carries server_time_ms, the server's clock when it
 *   was made; the page keeps the best estimate of (server time - this device's monotonic time) and
 *   extrapolates the game clock from the last state, so it ticks smoothly and never drifts;
 * - the Socket.IO connection: join the match's room, get `state` and `event`, re-join on reconnect
 *   and every 30 s (a fresh state re-anchors the clock).
 */
(function () {
  "use strict";
  var Q = (window.Q = {});
  var el = document.getElementById("page-data");
  Q.data = el ? JSON.parse(el.textContent) : {};
  Q.T = Q.data.strings || {};
  // Tokens kept in localStorage before they moved into HttpOnly cookies (D53): scripts must not hold them.
  try {
    Object.keys(localStorage).forEach(function (k) {
      if (k === "qalisball.organiser" || k.indexOf("qalisball.token.") === 0) localStorage.removeItem(k);
    });
  } catch (e) { /* no storage (private mode): nothing kept */ }
  Q.V = Q.data.vocab || {};

  Q.$ = function (id) { return document.getElementById(id); };
  /* Headers of a request to our API from a page opened with a token: the token itself is in an
   * HttpOnly cookie the browser sends (D53); the page holds only that cookie's CSRF token (D54). */
  Q.authHeaders = function (extra) {
    var h = {};
    if (Q.data.csrf) h["X-CSRF-Token"] = Q.data.csrf;
    Object.keys(extra || {}).forEach(function (k) { h[k] = extra[k]; });
    return h;
  };
  Q.fmt = function (s, params) {
    return String(s).replace(/\{(\w+)\}/g, function (m, k) {
      return params && params[k] !== undefined && params[k] !== null ? params[k] : m;
    });
  };
  Q.mmss = function (ms) {
    if (ms === null || ms === undefined) return "--:--";
    var s = Math.max(0, Math.floor(ms / 1000));
    var m = Math.floor(s / 60);
    s = s % 60;
    return (m < 10 ? "0" : "") + m + ":" + (s < 10 ? "0" : "") + s;
  };
  Q.esc = function (s) {
    return String(s === null || s === undefined ? "" : s).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  };
  Q.setText = function (id, text) {
    var n = typeof id === "string" ? Q.$(id) : id;
    if (n && n.textContent !== String(text)) n.textContent = text;
  };
  Q.show = function (id, on) {
    var n = typeof id === "string" ? Q.$(id) : id;
    if (n) n.hidden = !on;
  };
  Q.playerName = function (team, n) {
    var r = (Q.data.roster || {})[team] || {};
    return r[String(n)] || "";
  };
  /* The rosters as they are now (SPEC M2: late players, renames, renumbers), from a state's `players`;
     a renumbered player's first number still names him, for the events logged before. */
  Q.setRoster = function (state) {
    if (!state || !state.teams) return;
    var roster = {};
    ["home", "away"].forEach(function (t) {
      var ts = state.teams[t];
      if (!ts || !ts.players) { roster[t] = (Q.data.roster || {})[t] || {}; return; }
      var r = {};
      Object.keys(ts.players).forEach(function (n) { r[n] = ts.players[n]; });
      Object.keys(ts.renumbered || {}).forEach(function (n) {
        var first = String(ts.renumbered[n]);
        if (!(first in r)) r[first] = ts.players[n];
      });
      roster[t] = r;
    });
    Q.data.roster = roster;
  };
  Q.setRoster(Q.data.state);
  Q.player = function (team, n) {
    if (n === null || n === undefined) return "";
    var name = Q.playerName(team, n);
    return "#" + n + (name ? " " + name : "");
  };

  /* ---- the server's clock ---------------------------------------------------------------- */
  var samples = []; // [{at: local ms, offset: server - local}]
  function localNow() { return performance.timeOrigin + performance.now(); }
  Q.localNow = localNow;
  Q.sample = function (serverMs, receivedAt) {
    var at = receivedAt || localNow();
    samples.push({ at: at, offset: serverMs - at });
    // Keep ten minutes: the best (largest) offset is the one with the least network delay; old
    // samples go, so a device clock that runs a little fast cannot hold a stale offset.
    while (samples.length > 1 && at - samples[0].at > 600000) samples.shift();
    if (samples.length > 200) samples.shift();
  };
  /* A stream overlay may run behind the server by `delay` (its stream's latency): every clock it
     shows is the server's clock that long ago (scoreboard.js holds the states back as long). */
  Q.delayMs = 0;
  Q.serverNow = function () {
    if (!samples.length) return Date.now() - Q.delayMs;
    var best = -Infinity;
    for (var i = 0; i < samples.length; i++) best = Math.max(best, samples[i].offset);
    return localNow() + best - Q.delayMs;
  };
  /* The game clock of `state` now: elapsed ms, clamped to the period's length. */
  Q.elapsed = function (state) {
    var c = state.clock;
    if (!c) return 0;
    if (!c.running) return c.elapsed_ms;
    var e = c.elapsed_ms + Math.max(0, Q.serverNow() - state.server_time_ms);
    return Math.min(e, c.length_ms);
  };
  Q.isHalf = function (state) { return state.phase === "first_half" || state.phase === "second_half"; };
  Q.timeUp = function (state) {
    return state.time_up || (Q.isHalf(state) && state.clock.running && Q.elapsed(state) >= state.clock.length_ms);
  };
  /* The clock as the screens show it: a half counts up; half-time counts down. */
  Q.clockText = function (state) {
    if (state.phase === "halftime") return Q.mmss(state.clock.length_ms - Q.elapsed(state));
    if (Q.isHalf(state)) return Q.mmss(Q.elapsed(state));
    return state.clock.elapsed_ms ? Q.mmss(state.clock.elapsed_ms) : "00:00";
  };
  /* 7.2: 30 s to return to their halves after a goal, while the kickoff it gave is pending. */
  Q.returnLeft = function (state) {
    if (!state.return_countdown_ms || !state.restart || state.restart.type !== "kickoff") return 0;
    return Math.max(0, state.return_countdown_ms - Math.max(0, Q.serverNow() - state.server_time_ms));
  };
  /* The first state came with the page: it was made when the response's first byte left the server. */
  (function () {
    var st = Q.data.state;
    if (!st) return;
    var nav = performance.getEntriesByType && performance.getEntriesByType("navigation")[0];
    var at = nav && nav.responseStart ? performance.timeOrigin + nav.responseStart : localNow();
    Q.sample(st.server_time_ms, at);
  })();

  /* ---- words ---------------------------------------------------------------------------- */
  Q.restartText = function (state) {
    // The console's offline forecast leaves the restart to the engine (console/forecast.js).
    if (state.ruling) return Q.T.to_be_ruled;
    if (Q.timeUp(state) && Q.isHalf(state)) return Q.T.time_up;
    if (state.restart) {
      return Q.fmt(Q.T.restart_pending, {
        restart: Q.V.restart[state.restart.type],
        team: state.teams[state.restart.team].name,
      });
    }
    if (Q.isHalf(state) && state.ball === "live") return Q.T.ball_live;
    return "";
  };
  Q.multiAttackText = function (state) {
    var t = state.possession;
    if (!t) return "";
    var ma = state.teams[t].multi_attack;
    if (ma.team !== null && ma.team !== undefined) return Q.T.multi_attack + Q.T.colon + ma.team;
    var keys = Object.keys(ma.players || {});
    if (!keys.length) return "";
    return Q.T.multi_attack + Q.T.colon + keys.map(function (n) { return "#" + n + " " + ma.players[n]; }).join(" ");
  };
  Q.cardsHtml = function (ts) {
    var out = "";
    var seen = {};
    ts.yellow.forEach(function (n) {
      if (ts.sent_off.indexOf(n) < 0 && !seen[n]) {
        seen[n] = 1;
        out += '<span class="card yellow" title="' + Q.esc(Q.V.card.yellow) + '">' + n + "</span>";
      }
    });
    ts.sent_off.forEach(function (n) {
      // SPEC M8: a second yellow is shown as what it is, a sending-off.
      var second = (ts.second_yellow || []).indexOf(n) >= 0;
      var title = second ? Q.T.second_yellow : Q.V.card.red;
      out += '<span class="card red' + (second ? " second" : "") + '" title="' + Q.esc(title) + '" aria-label="' + Q.esc(title + " #" + n) + '">' + n + "</span>";
    });
    return out;
  };
  /* The score sheet (SPEC M6): provisional until the referee signs, then final and locked. */
  Q.sheetText = function (state) {
    if (state.locked) return Q.T.sheet_final;
    if (state.phase === "finished" || state.phase === "abandoned") return Q.T.sheet_provisional;
    return "";
  };
  Q.drawSheet = function (state) {
    var n = Q.$("sheet");
    if (!n) return;
    var text = Q.sheetText(state);
    Q.setText(n, text);
    n.hidden = !text;
    n.className = "sheet " + (state.locked ? "locked" : "provisional");
  };
  /* The part of the scoreboard and the phone page that is the same: phase class, names, scores,
     who has the ball, cards, phase, pending restart, multi-attack counters, shootout, result. */
  Q.drawHeader = function (s) {
    document.body.className = document.body.className.replace(/\bphase-\w+/, "phase-" + s.phase);
    document.body.classList.toggle("has-shootout", !!s.shootout);
    ["home", "away"].forEach(function (t) {
      Q.setText(t + "-name", s.teams[t].name);
      Q.setText(t + "-score", s.score[t]);
      Q.$("team-" + t).classList.toggle("has-ball", s.possession === t && !Q.timeUp(s));
      Q.setHtml(t + "-cards", Q.cardsHtml(s.teams[t]));
      var second = Q.$(t + "-second"); // the scoreboard says it in words too (SPEC M8)
      if (second) {
        var sy = s.teams[t].second_yellow || [];
        Q.setText(second, sy.map(function (n) { return "#" + n + " " + Q.T.second_yellow; }).join(" · "));
        second.hidden = !sy.length;
      }
    });
    Q.setText("phase", Q.V.phase[s.phase]);
    Q.setText("restart", Q.restartText(s));
    var why = Q.whyText(s);
    Q.setText("why", why);
    Q.show("why", !!why);
    Q.drawStarts(s);
    Q.setText("ma", Q.timeUp(s) ? "" : Q.multiAttackText(s));
    Q.show("shootout", !!s.shootout);
    if (s.shootout) {
      Q.setText("so-score", s.shootout.score.home + "–" + s.shootout.score.away);
      Q.setHtml("so-board", Q.shootoutHtml(s));
      Q.setText("so-next", Q.nextKickText(s));
    }
    Q.drawSheet(s);
    Q.show("result", !!s.winner);
    // The report (provisional during the match, reports/__init__.py) once the match has begun.
    Q.show("report-link", s.phase !== "scheduled");
    if (s.winner) Q.setText("result", Q.fmt(Q.T.winner, { team: s.teams[s.winner].name }));
  };
  Q.setHtml = function (id, html) {
    var n = typeof id === "string" ? Q.$(id) : id;
    if (n && n.innerHTML !== html) n.innerHTML = html;
  };
  Q.shootoutHtml = function (state) {
    var so = state.shootout;
    if (!so) return "";
    var rounds = Math.max(so.rounds || 4, so.round || 1);
    var order = [so.first, so.first === "home" ? "away" : "home"];
    var h = '<table class="so-board"><colgroup><col class="c-name">';
    for (var c = 0; c < rounds * 2; c++) h += '<col class="c-kick">';
    h += '<col class="c-total"></colgroup><thead><tr><th></th>';
    for (var r = 1; r <= rounds; r++) h += '<th colspan="2">' + r + "</th>";
    h += "<th>Σ</th></tr><tr class=\"pts\"><th></th>";
    for (r = 1; r <= rounds; r++) h += "<th>1</th><th>2</th>";
    h += "<th></th></tr></thead><tbody>";
    order.forEach(function (t) {
      h += '<tr class="' + t + '"><th class="so-name"><span>' + Q.esc(state.teams[t].name) + "</span></th>";
      for (var r = 1; r <= rounds; r++) {
        [1, 2].forEach(function (p) {
          var k = null;
          so.kicks.forEach(function (x) { if (x.round === r && x.team === t && x.points === p) k = x; });
          var next = so.next && so.round === r && so.next.team === t && so.next.points === p;
          var cls = "kick" + (k ? (k.scored ? " scored" : " missed") : "") + (next ? " next" : "");
          h += '<td class="' + cls + '">' + (k ? (k.scored ? "●" : "✕") : next ? "◎" : "·") + "</td>";
        });
      }
      h += '<td class="total">' + so.score[t] + "</td></tr>";
    });
    return h + "</tbody></table>";
  };
  Q.nextKickText = function (state) {
    var so = state.shootout;
    if (!so || !so.next) return "";
    var n = so.next;
    return Q.fmt(Q.T.next_kick, {
      team: state.teams[n.team].name, player: n.player, name: Q.playerName(n.team, n.player), points: n.points,
    });
  };

  /* ---- the organiser's forms (competitions, a competition's page, venue screens) ------------ */
  /* A form's message line: what the server said, in red when it refused. */
  Q.formSay = function (form, text, bad) {
    var p = form.querySelector(".form-msg");
    if (!p) return;
    p.textContent = text;
    p.classList.toggle("bad", !!bad);
  };
  /* A refusal in words: the rule cited and its title (page data `rules`), the message, each field's complaint. */
  Q.explainAnswer = function (status, answer) {
    var T = Q.T;
    if (!answer) return T.failed + " (" + status + ")";
    if (answer.error === "unauthorized" || answer.error === "forbidden") return T.token_rejected;
    var text = answer.message || T.failed;
    if (answer.error === "rule") {
      var title = (Q.data.rules || {})[answer.rule];
      text = Q.fmt(T.refused_rule, { rule: answer.rule }) + (title ? " · " + title : "") + T.colon + answer.message;
    }
    if (answer.fields) {
      text += "\n" + Object.keys(answer.fields).map(function (k) {
        var v = answer.fields[k];
        return k + T.colon + (Array.isArray(v) ? v.join(" ") : JSON.stringify(v));
      }).join("\n");
    }
    return text;
  };
  /* A write with the organiser's cookie and its CSRF token (D53, D54): resolves to {status, answer};
   * a token the server no longer accepts brings the sign-in form back. */
  Q.organiserCall = function (method, url, body, contentType) {
    var headers = Q.authHeaders(contentType ? { "Content-Type": contentType } : {});
    return fetch(url, { method: method, headers: headers, body: body }).then(function (r) {
      return r.json().catch(function () { return null; }).then(function (answer) {
        if (r.status === 401 || r.status === 403) { Q.show("login-error", true); Q.show("login", true); }
        return { status: r.status, answer: answer };
      });
    });
  };

  /* ---- live connection ------------------------------------------------------------------ */
  /* Calls handlers.state(state), handlers.event(entry), handlers.status(connected); an official's
   * console adds handlers.join() (what its join carries besides: device label, queue size) and
   * handlers.revoked(role) (its token no longer works: API.md "Match day", Devices).
   * Joins with `updates`: one `update` message per change, the entry and the whole state or a patch of
   * the one before (docs/api-extras.md "One message per change"); an official's console joins with its
   * CSRF token (handlers.join: the server finds the cookie it unlocks; the state then carries `legal`)
   * and says so in the connection's URL, which a cluster's proxy
   * uses to send officials to the writer process (docs/deploy.md). */
  Q.connect = function (matchId, handlers) {
    if (typeof io !== "function") return null;
    var official = Q.data && Q.data.role && Q.data.csrf;
    var socket = io(official ? { reconnectionDelayMax: 4000, query: { official: 1 } } : { reconnectionDelayMax: 4000 });
    var last = null; // the last whole state received, kept apart from what the page may change
    // The last log entry handed to handlers.event (each one once, in order): the page was rendered with
    // every entry up to its own state's.
    var eventSeq = (Q.data && Q.data.state && Q.data.state.seq) || 0;
    function gotEvent(e) {
      if (!e || !handlers.event || (e.seq !== undefined && e.seq <= eventSeq)) return;
      if (e.seq !== undefined) eventSeq = e.seq;
      handlers.event(e);
    }
    var heard = localNow(); // when the server last said anything
    function join() {
      var extra = handlers.join ? handlers.join() : {};
      var data = { match: matchId, updates: true };
      Object.keys(extra || {}).forEach(function (k) { data[k] = extra[k]; });
      socket.emit("join", data);
    }
    function gotState(s) {
      heard = localNow();
      last = Q.clone(s);
      Q.sample(s.server_time_ms);
      Q.lastUpdate = s.server_time_ms;
      Q.markStale(false);
      Q.setRoster(s);
      if (handlers.state) handlers.state(s);
    }
    socket.on("connect", function () { join(); if (handlers.status) handlers.status(true); });
    socket.on("disconnect", function () {
      Q.markStale(true);
      if (handlers.status) handlers.status(false);
    });
    socket.on("connect_error", function () { Q.markStale(true); });
    socket.on("state", gotState);
    socket.on("event", function (e) { heard = localNow(); gotEvent(e); });
    socket.on("update", function (u) {
      heard = localNow();
      // A join's answer can overtake the update: its state is already shown, but its event (a goal's
      // pop-up) is still news.
      gotEvent(u.event);
      if (last && u.seq <= last.seq) return;
      var s = u.state || (last && last.seq === u.base ? Q.patched(last, u.patch) : null);
      if (s) gotState(s);
      else if (!last || u.seq > last.seq) join(); // a change was missed: joining again answers the whole state
    });
    socket.on("token_revoked", function (d) { if (handlers.revoked) handlers.revoked(d && d.role); });
    socket.on("logos", function (d) { if (handlers.logos) handlers.logos(d); }); // a team's logo changed
    socket.on("error", function (d) {
      if (d && d.error === "unauthorized" && handlers.revoked) handlers.revoked(null);
    });
    setInterval(function () { if (socket.connected) join(); }, 30000);
    // A connection that stays open while the server says nothing (a hung server, a half-open link):
    // the re-join above is answered every 30 s, so 45 s of silence means the data is stale.
    setInterval(function () { if (localNow() - heard > 45000) Q.markStale(true); }, 1000);
    Q.socket = socket;
    Q.rejoin = join;
    return socket;
  };
  Q.clone = function (x) {
    return typeof structuredClone === "function" ? structuredClone(x) : JSON.parse(JSON.stringify(x));
  };
  /* The state `base` with `patch` ([[path, value], ...]: each value replaces what is at its path), as a new object. */
  Q.patched = function (base, patch) {
    var s = Q.clone(base);
    for (var i = 0; i < patch.length; i++) {
      var path = patch[i][0], value = patch[i][1];
      if (!path.length) { s = value; continue; }
      var node = s;
      for (var k = 0; k < path.length - 1; k++) node = node[path[k]];
      node[path[path.length - 1]] = value;
    }
    return s;
  };

  /* ---- a stale screen says so ------------------------------------------------------------ */
  /* Every public screen has a #conn line: "connection lost — last update hh:mm:ss" (the server's
     clock of the last state, in this device's time zone). While stale, body.stale stops the screens'
     clocks (they must not tick as if live); the next state clears it. */
  Q.stale = false;
  Q.lastUpdate = Q.data.state ? Q.data.state.server_time_ms : Q.data.server_time_ms || Date.now();
  function pad(n) { return (n < 10 ? "0" : "") + n; }
  Q.hhmmss = function (ms) {
    var d = new Date(ms);
    return pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds());
  };
  Q.markStale = function (on) {
    on = !!on;
    var n = Q.$("conn");
    if (!n) return; // a page without the line (the console) shows its connection its own way
    if (n && on) Q.setText(n, Q.fmt(Q.T.connection_lost || "connection lost \u2014 last update {time}", { time: Q.hhmmss(Q.lastUpdate) }));
    if (on === Q.stale) return;
    Q.stale = on;
    if (document.body) document.body.classList.toggle("stale", on);
    if (n) n.hidden = !on;
    if (Q.onStale) Q.onStale(on);
  };

  /* ---- fitting text into the boxes of a screen's grid ------------------------------------ */
  function fits(el) { return el.scrollWidth <= el.clientWidth && el.scrollHeight <= el.clientHeight; }
  /* Shrink el's font (from its stylesheet size down to minPx) until its content fits its box: the
     grid fixes the box, so a long name gets smaller instead of pushing or covering its neighbours. */
  Q.fit = function (el, minPx) {
    if (!el || !el.getClientRects().length) return;
    el.style.fontSize = "";
    el.style.removeProperty("--fit"); // the server's first guess (pages.fit_vw)
    if (fits(el)) return;
    var lo = minPx || 6;
    var hi = parseFloat(getComputedStyle(el).fontSize);
    for (var i = 0; i < 14 && hi - lo > 0.25; i++) {
      var mid = (lo + hi) / 2;
      el.style.fontSize = mid + "px";
      if (fits(el)) lo = mid; else hi = mid;
    }
    el.style.fontSize = lo + "px";
  };

  /* ---- the horn: synthesized (Web Audio), no sound file; muted per device ---------------- */
  Q.horn = (function () {
    var KEY = "qalisball.horn.muted";
    var ctx = null;
    function context() {
      var AC = window.AudioContext || window.webkitAudioContext;
      if (!AC) return null;
      if (!ctx) ctx = new AC();
      if (ctx.state === "suspended" && ctx.resume) ctx.resume().catch(function () {});
      return ctx;
    }
    function stored() {
      try { return localStorage.getItem(KEY); } catch (e) { return null; }
    }
    return {
      muted: function () { return stored() === "1"; },
      setMuted: function (m) {
        try { localStorage.setItem(KEY, m ? "1" : "0"); } catch (e) { /* private mode: this page only */ }
        if (!m) context(); // a click is the gesture that lets the browser play sound
      },
      blocked: function () { return !!ctx && ctx.state === "suspended"; },
      /* Three detuned sawtooth reeds through a low-pass filter, like an air horn; `seconds` long. */
      play: function (seconds) {
        if (this.muted()) return false;
        var c = context();
        if (!c) return false;
        var t = c.currentTime;
        var len = seconds || 1.6;
        var gain = c.createGain();
        gain.gain.setValueAtTime(0.0001, t);
        gain.gain.exponentialRampToValueAtTime(0.45, t + 0.05);
        gain.gain.setValueAtTime(0.45, t + len - 0.2);
        gain.gain.exponentialRampToValueAtTime(0.0001, t + len);
        var filter = c.createBiquadFilter();
        filter.type = "lowpass";
        filter.frequency.value = 1800;
        filter.connect(gain);
        gain.connect(c.destination);
        [233, 294, 349].forEach(function (f) {
          var o = c.createOscillator();
          o.type = "sawtooth";
          o.frequency.value = f;
          o.connect(filter);
          o.start(t);
          o.stop(t + len);
        });
        return true;
      },
    };
  })();

  /* ---- decisions explained ----------------------------------------------------------------- */
  /* A reason of the engine ({rule, message, template, params}) in the page's language, from the
     engine's own templates (page data `rule_templates`), as the console renders `legal`'s reasons:
     params naming a team show its name, an event type its label, an N_ phrase its translation. */
  var TEAM_PARAMS = { team: 1, restarting: 1, winner: 1, due: 1 };
  var EVENT_PARAMS = { event: 1, event_type: 1, type: 1 };
  var PHRASE_PARAMS = { phase: 1, what: 1, restart: 1 };
  Q.reasonText = function (r, state) {
    if (!r) return "";
    if (!r.template) return r.message || "";
    var RT = Q.data.rule_templates || {};
    var params = {};
    Object.keys(r.params || {}).forEach(function (k) {
      var v = r.params[k];
      if (TEAM_PARAMS[k] && (v === "home" || v === "away")) v = state.teams[v].name;
      else if (EVENT_PARAMS[k] && typeof v === "string" && Q.V.event[v]) v = Q.V.event[v];
      else if (PHRASE_PARAMS[k] && typeof v === "string" && v) v = RT[v] || v;
      params[k] = v;
    });
    return Q.fmt(RT[r.template] || r.template, params);
  };
  /* Why the pending restart was given: "foul by Renmin #4 (10.7); moved 3 m out of the area (10.8)". */
  Q.whyText = function (state) {
    var r = state.restart;
    if (!r || !r.why || state.ruling || (Q.timeUp(state) && Q.isHalf(state))) return "";
    var text = Q.fmt(Q.T.why_rule, { reason: Q.reasonText(r.why, state), rule: r.why.rule });
    if (r.origin) text += Q.T.why_sep + Q.T.moved_3m;
    return text;
  };
  /* Before kickoff: when the match starts (page data `starts`, rendered by the server). */
  Q.drawStarts = function (state) {
    Q.show("starts", state.phase === "scheduled" && !!Q.data.starts);
  };
  /* Accept a state only if it is not older than the one shown. */
  Q.newer = function (cur, s) {
    if (!cur) return true;
    if (s.seq !== cur.seq) return s.seq > cur.seq;
    return s.server_time_ms >= cur.server_time_ms;
  };
  /* Call fn ten times a second; fn draws only what changed. */
  Q.tick = function (fn) {
    fn();
    setInterval(fn, 100);
  };

  /* The offline shell (issue 13): every match page registers the service worker (static/js/sw.js) that
     keeps its last copy, so a console reloaded without network opens with its queue. */
  if (typeof navigator !== "undefined" && "serviceWorker" in navigator && location.pathname.indexOf("/matches/") === 0) {
    // A page the worker did not serve (the first visit, or a hard reload) is unknown to it: once the page has
    // loaded (its modules too), hand the worker its address and everything it fetched, to keep (D171).
    var unseen = !navigator.serviceWorker.controller;
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).then(function () {
      if (!unseen) return;
      var send = function () {
        navigator.serviceWorker.ready.then(function (reg) {
          var assets = performance.getEntriesByType("resource").map(function (e) { return e.name; });
          if (reg.active) reg.active.postMessage({ type: "keep", assets: assets });
        });
      };
      if (document.readyState === "complete") send(); else window.addEventListener("load", send);
    }).catch(function () {});
  }
})();
