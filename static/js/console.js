/* The officials' console: calls in at most three taps plus one tap on the field, an offline queue,
 * keyboard shortcuts, undo.
 *
 * The server is the referee of the rules: this page only enables what the public state says is
 * possible now (ball live or dead, phase, pending restart, who may substitute, possession) and shows the
 * engine's refusal with its rule number and the rule's title in the official's language.
 *
 * Every call gets an idempotency key (`id`) when it is made and goes through a queue kept in
 * localStorage: sent in order, one at a time; a call whose answer never came is sent again with the same
 * key, and the server stores it once. While calls wait (offline), the page predicts their effect so the
 * official can go on calling; the server's state replaces the prediction when the queue is empty.
 */
(function () {
  "use strict";
  var D = Q.data, T = Q.T, V = Q.V;
  var role = D.role, token = D.token, matchId = D.match;
  var allowed = {};
  D.allowed.forEach(function (a) { allowed[a] = true; });
  var QUEUE_KEY = "qalisball.queue." + matchId;
  var TEAMS = ["home", "away"];
  var server = D.state; // the last state the server sent
  var view = server; // what the page shows: the server's state, or a prediction while calls wait
  var log = D.log.slice();
  var call = null; // the call being built
  var online = navigator.onLine !== false;
  var pumping = false;
  var armed = null; // a void waiting for its confirming second tap
  localStorage.setItem("qalisball.token." + matchId, token);

  function other(t) { return t === "home" ? "away" : "home"; }
  function teamName(t) { return t ? view.teams[t].name : ""; }

  /* ---- what each call needs ------------------------------------------------------------------
   * team: "choose" | "possession" (default: the team with the ball) | "other" (the one without it) |
   *       "restart" (the pending restart's team); player: "required" | "optional" | "none";
   * spot: "required" | "optional" | "live" (required while the ball is live) | "none";
   * player2: a second pick (catch: the caught player; substitution: the player coming on). */
  var CALLS = {
    restart_taken: { type: "restart_taken", team: "restart", player: "required", spot: "none" },
    goal: { type: "goal", team: "possession", player: "optional", spot: "none", options: ["direct"] },
    ball_out_side: { type: "violation", kind: "ball_out_side", team: "possession", player: "optional", spot: "required", prompt: "tap_field_out" },
    ball_out_end: { type: "violation", kind: "ball_out_end", team: "possession", player: "optional", spot: "required", prompt: "tap_field_out" },
    ball_grounded: { type: "violation", kind: "ball_grounded", team: "possession", player: "optional", spot: "required", prompt: "tap_field_landed" },
    ball_in_area: { type: "violation", kind: "ball_in_area", team: "possession", player: "optional", spot: "required", prompt: "tap_field_landed" },
    player_in_area: { type: "violation", kind: "player_in_area", team: "choose", player: "optional", spot: "required", prompt: "tap_field_entered" },
    caught: { type: "violation", kind: "caught", team: "possession", player: "optional", spot: "required", prompt: "tap_field_caught" },
    restart: { type: "violation", kind: "restart", team: "restart", player: "optional", spot: "none", options: ["side"] },
    foul: { type: "foul", team: "choose", player: "optional", spot: "live", prompt: "tap_field_foul", options: ["card", "on_official"] },
    yellow: { type: "card", color: "yellow", team: "choose", player: "required", spot: "none", from: "roster" },
    red: { type: "card", color: "red", team: "choose", player: "required", spot: "none", from: "roster" },
    steal: { type: "steal", team: "other", player: "optional", spot: "none" },
    "catch": { type: "catch", team: "other", player: "optional", spot: "none", player2: { field: "caught", team: "possession", label: "caught" } },
    attack: { type: "attack", team: "possession", player: "none", spot: "none" },
    shot_missed: { type: "shot_missed", team: "possession", player: "optional", spot: "optional", prompt: "tap_field_shot" },
    injury: { type: "injury", team: "choose", player: "required", spot: "live", prompt: "tap_field_last_touch" },
    substitution: { type: "substitution", team: "choose", player: "required", spot: "none", nobody: true, label: "player_out", player2: { field: "in", team: "same", from: "bench", label: "player_in" } },
    coin_toss: { type: "coin_toss", custom: "toss" },
    abandon: { type: "abandon", custom: "abandon" },
  };

  /* ---- which actions the state allows ------------------------------------------------------ */
  /* Whether `t` may make any substitution now: an ordinary one (`may_substitute`, SPEC §5.6), or the
   * replacement owed for a sent-off player (11.2). A team that is short may bring someone on exactly
   * when it may substitute, so `short` alone grants nothing. */
  function mayBringOn(s, t) {
    var ts = s.teams[t];
    return ts.may_substitute || (ts.replacements_due > 0 && ts.bench.length > 0);
  }
  /* Why `t` may not substitute now (shown on its greyed button). */
  function noSubReason(s, t) {
    var r = s.restart;
    if (r && r.team !== t && s.teams[r.team].may_substitute) return Q.fmt(T.sub_wait, { team: teamName(r.team) });
    return T.sub_not_now;
  }

  /* 11.2: a player who came on at this stoppage may not take its restart. The stoppage began after the
   * last restart taken, or half started or ended (substitutions happen only while the ball is dead);
   * the substitutions since then, in the log (not voided) and still in the queue, brought them on. */
  var BALL_MOVED = { restart_taken: 1, period_start: 1, period_end: 1 };
  function cameOn(team) {
    var q = loadQueue();
    var undone = {};
    q.forEach(function (b) { if (b.type === "void") undone[b.target] = 1; });
    var seen = log.filter(function (e) { return e.voided_by === null && e.type !== "void" && !undone[e.seq]; })
      .concat(q.filter(function (b) { return b.type !== "void"; }));
    var out = [];
    for (var i = seen.length - 1; i >= 0; i--) {
      var e = seen[i];
      if (BALL_MOVED[e.type]) break;
      if (e.type === "substitution" && e.team === team && out.indexOf(e["in"]) < 0) out.push(e["in"]);
    }
    return out;
  }
  function legal(s) {
    var half = Q.isHalf(s);
    var up = half && Q.timeUp(s);
    var live = half && !up && s.ball === "live";
    var pending = half && !up && s.ball === "dead" && !!s.restart;
    var active = ["scheduled", "first_half", "halftime", "second_half"].indexOf(s.phase) >= 0;
    var subs = active && !live && TEAMS.some(function (t) { return mayBringOn(s, t); });
    return {
      coin_toss: s.phase === "scheduled" && !s.kickoff_team,
      period_start: (s.phase === "scheduled" && !!s.kickoff_team) || s.phase === "halftime",
      period_end: up,
      pause: half && s.clock.running && !up,
      resume: half && !s.clock.running && s.clock.elapsed_ms < s.clock.length_ms,
      set: half,
      restart_taken: pending,
      goal: live,
      ball_out_side: live && s.field.side_lines,
      ball_out_end: live,
      ball_grounded: live,
      ball_in_area: live,
      player_in_area: live,
      caught: live,
      restart: pending || live,
      foul: live || pending,
      yellow: s.phase !== "abandoned",
      red: s.phase !== "abandoned",
      steal: live,
      "catch": live,
      attack: live && !s.attacking,
      shot_missed: live,
      injury: active,
      substitution: subs,
      shootout_start: s.phase === "shootout" && !s.shootout,
      shootout_kick: s.phase === "shootout" && !!s.shootout && !!s.shootout.next,
      abandon: s.phase !== "finished" && s.phase !== "abandoned",
    };
  }

  /* ---- the queue ----------------------------------------------------------------------------- */
  function loadQueue() {
    try { return JSON.parse(localStorage.getItem(QUEUE_KEY)) || []; } catch (e) { return []; }
  }
  function saveQueue(q) { localStorage.setItem(QUEUE_KEY, JSON.stringify(q)); }
  function newId() {
    var b = new Uint8Array(9);
    crypto.getRandomValues(b); // crypto.randomUUID needs https; tablets on the field's LAN use http
    return role + "-" + Date.now().toString(36) + "-" + Array.prototype.map.call(b, function (x) { return ("0" + x.toString(16)).slice(-2); }).join("");
  }

  function submit(body) {
    body.id = newId();
    if (Q.isHalf(view) && body.at_ms === undefined) body.at_ms = Math.round(Q.elapsed(view)); // SPEC D8
    var q = loadQueue();
    q.push(body);
    saveQueue(q);
    hideNotice();
    recompute();
    pump();
  }

  function api(method, path, body) {
    return fetch("/api/matches/" + encodeURIComponent(matchId) + path, {
      method: method,
      headers: { "Content-Type": "application/json", Authorization: "Bearer " + token },
      body: body ? JSON.stringify(body) : undefined,
      cache: "no-store",
    });
  }

  /* Send the queue's first call, then the next: one at a time, in order, each exactly once. */
  var inflight = null; // {id, seq: the server's seq when it was sent}
  function pump() {
    if (pumping) return;
    var q = loadQueue();
    if (!q.length) { netStatus(); return; }
    pumping = true;
    var body = q[0];
    inflight = { id: body.id, seq: server.seq };
    netStatus();
    api("POST", "/events", body)
      .then(function (r) {
        if (r.status >= 500) throw new Error("server " + r.status);
        return r.json().catch(function () { return {}; }).then(function (data) { return { status: r.status, data: data }; });
      })
      .then(function (res) {
        online = true;
        pumping = false;
        inflight = null;
        saveQueue(loadQueue().filter(function (b) { return b.id !== body.id; }));
        try {
          if (res.status === 200 || res.status === 201) {
            acceptState(res.data.state);
            decided(body, res.data.state);
          } else {
            refused(res.data, body, sentAfterOutage);
          }
          if (!loadQueue().length && sentAfterOutage) { sentAfterOutage = false; resync(); }
          recompute();
        } catch (err) {
          if (window.console) console.error(err);
        }
        pump();
      }, function () {
        // No answer: the call may or may not have arrived. It stays first in the queue and goes again
        // with the same key; the server stores it once.
        pumping = false;
        inflight = null;
        online = false;
        sentAfterOutage = true;
        netStatus();
        recompute();
      });
  }
  var sentAfterOutage = false;
  setInterval(function () { if (loadQueue().length) pump(); }, 2000);
  window.addEventListener("online", function () { online = true; pump(); });
  window.addEventListener("offline", function () { online = false; netStatus(); });

  function netStatus() {
    var n = loadQueue().length;
    var net = Q.$("net");
    var text, cls;
    if (!online) {
      text = n ? Q.fmt(T.offline_queued, { n: n }) : T.offline;
      cls = "offline";
    } else if (n) {
      text = Q.fmt(T.sending, { n: n });
      cls = "sending";
    } else if (Q.socket && !Q.socket.connected) {
      text = T.reconnecting;
      cls = "sending";
    } else {
      text = T.online;
      cls = "online";
    }
    Q.setText(net, text);
    net.className = "net " + cls;
  }

  /* After an outage: fetch what others logged meanwhile. */
  function resync() {
    api("GET", "").then(function (r) { return r.json(); }).then(acceptState).catch(function () {});
    api("GET", "/events").then(function (r) { return r.json(); }).then(function (l) { log = l; drawLog(); }).catch(function () {});
  }

  /* ---- state -------------------------------------------------------------------------------- */
  function acceptState(s) {
    if (!s || !Q.newer(server, s)) return;
    Q.sample(s.server_time_ms);
    server = s;
    recompute();
  }

  function recompute() {
    var q = loadQueue();
    view = server;
    q.forEach(function (b) {
      // The call being sent is already in a newer server state: do not count it twice.
      if (inflight && inflight.id === b.id && server.seq > inflight.seq) return;
      view = predict(view, b);
    });
    document.body.classList.toggle("predicted", q.length > 0 && !online);
    draw();
    drawLog();
  }

  /* A rough forecast of a waiting call's effect, so the official can go on while offline. */
  function predict(s0, b) {
    var s = JSON.parse(JSON.stringify(s0));
    var now = Q.serverNow();
    s.clock.elapsed_ms = Q.elapsed(s0);
    s.return_countdown_ms = Q.returnLeft(s0) || null;
    s.server_time_ms = now;
    var L = s.field.length, W = s.field.width;
    var centre = { x: L / 2, y: W / 2 };
    function give(type, team, spot) {
      s.ball = "dead";
      s.restart = { type: type, team: team, spot: spot || centre };
      s.possession = team;
      s.attacking = true;
    }
    function clamp(p) { return { x: Math.min(Math.max(p.x, 0), L), y: Math.min(Math.max(p.y, 0), W) }; }
    function bench(t) {
      var ts = s.teams[t];
      ts.bench = Object.keys(D.roster[t]).map(Number).filter(function (n) {
        return ts.on_field.indexOf(n) < 0 && ts.sent_off.indexOf(n) < 0;
      });
    }
    function card(t, n, color) {
      var ts = s.teams[t];
      if (color === "yellow" && ts.yellow.indexOf(n) < 0) { ts.yellow.push(n); return; }
      if (ts.sent_off.indexOf(n) < 0) ts.sent_off.push(n);
      ts.on_field = ts.on_field.filter(function (x) { return x !== n; });
      bench(t);
    }
    switch (b.type) {
      case "coin_toss":
        s.kickoff_team = b.kickoff;
        s.ends = { home: b.home_end, away: b.home_end === "x0" ? "xL" : "x0" };
        break;
      case "period_start":
        var second = s.phase === "halftime";
        s.phase = second ? "second_half" : "first_half";
        s.period = second ? 2 : 1;
        s.clock = { running: true, elapsed_ms: 0, length_ms: s.clock.length_ms };
        if (second && s.ends) s.ends = { home: s.ends.away, away: s.ends.home };
        give("kickoff", second ? other(s.kickoff_team) : s.kickoff_team, centre);
        s.time_up = false;
        break;
      case "period_end":
        s.phase = s.phase === "first_half" ? "halftime" : s.score.home === s.score.away ? "shootout" : "finished";
        s.restart = null; s.possession = null; s.ball = "dead";
        s.clock.running = s.phase === "halftime";
        if (s.phase === "halftime") s.clock.elapsed_ms = 0;
        break;
      case "clock":
        if (b.action === "pause") s.clock.running = false;
        if (b.action === "resume") s.clock.running = true;
        if (b.action === "set") { s.clock.elapsed_ms = b.elapsed_ms; s.time_up = false; }
        break;
      case "restart_taken":
        s.ball = "live"; s.restart = null;
        break;
      case "goal":
        s.score[b.team] += 1;
        give("kickoff", other(b.team), centre);
        s.return_countdown_ms = 30000;
        break;
      case "violation":
        if (b.kind === "restart") {
          if (s.restart) give(s.restart.type === "penalty" ? "end_line" : s.restart.type, other(b.team), s.restart.spot);
          break;
        }
        var type = { ball_out_side: "side_line", ball_out_end: "end_line", ball_in_area: "end_line" }[b.kind] || "free_kick";
        if (b.kind === "player_in_area" && s.ends) {
          // His own area: a penalty (8.5, D9); the opponents' area: an end-line ball (D1).
          var areaEnd = b.spot.x <= L / 2 ? "x0" : "xL";
          type = areaEnd === s.ends[b.team] ? "penalty" : "end_line";
        }
        give(type, other(b.team), clamp(b.spot));
        break;
      case "foul":
        if (s.ball === "live" && b.spot) give("free_kick", other(b.team), clamp(b.spot));
        if (b.card) card(b.team, b.player, b.card);
        break;
      case "card":
        card(b.team, b.player, b.color);
        break;
      case "substitution":
        var ts = s.teams[b.team];
        if (b.out === null) ts.on_field.push(b["in"]);
        else ts.on_field = ts.on_field.map(function (n) { return n === b.out ? b["in"] : n; });
        bench(b.team);
        break;
      case "injury":
        if (s.ball === "live" && b.spot) give("free_kick", s.possession, clamp(b.spot));
        s.teams[b.team].on_field = s.teams[b.team].on_field.filter(function (n) { return n !== b.player; });
        bench(b.team);
        break;
      case "steal":
        s.possession = b.team; s.attacking = false;
        break;
      case "attack":
        s.attacking = true;
        break;
      case "abandon":
        s.phase = "abandoned"; s.restart = null; s.ball = "dead";
        break;
      case "shootout_start":
        s.shootout = { first: b.first, round: 1, score: { home: 0, away: 0 }, kicks: [], takers: b.takers, rounds: D.rounds || 4 };
        s.shootout.next = { team: b.first, points: 1, player: b.takers[b.first][0] };
        break;
      case "shootout_kick":
        var so = s.shootout;
        if (!so || !so.next) break;
        so.kicks.push({ round: so.round, team: so.next.team, points: so.next.points, player: so.next.player, scored: b.scored });
        if (b.scored) so.score[so.next.team] += so.next.points;
        var i = so.kicks.length, pos = i % 4;
        so.round = Math.floor(i / 4) + 1;
        var nt = pos % 2 === 0 ? so.first : other(so.first);
        so.next = { team: nt, points: pos < 2 ? 1 : 2, player: so.takers[nt][(so.round - 1) % 4] };
        break;
    }
    s.predicted = true;
    return s;
  }

  /* ---- drawing ------------------------------------------------------------------------------ */
  var svg = document.querySelector("#field-wrap svg");
  var overlay = svg ? svg.querySelector(".overlay") : null;
  var SVGNS = "http://www.w3.org/2000/svg";
  if (svg) svg.querySelectorAll(".end-tint").forEach(function (n) { n.remove(); });

  function draw() {
    var s = view;
    TEAMS.forEach(function (t) {
      Q.setText(t + "-name", s.teams[t].name);
      Q.setText(t + "-score", s.score[t]);
      Q.$("team-" + t).classList.toggle("has-ball", s.possession === t && !Q.timeUp(s));
    });
    Q.setText("phase", V.phase[s.phase]);
    Q.show("report-link", s.phase === "finished" || s.phase === "abandoned");
    Q.setText("restart", Q.restartText(s));
    Q.setText("possession", s.possession && !Q.timeUp(s) ? Q.fmt(T.possession_of, { team: teamName(s.possession) }) + (s.attacking ? T.attacking_paren : "") : "");
    Q.setText("ma", Q.timeUp(s) ? "" : Q.multiAttackText(s));
    drawEnds(s);
    drawField(s);
    drawButtons(s);
    drawShootout(s);
    drawRosters(s);
    drawUndo();
    if (call) drawBuilder();
    tick();
  }

  var wasUp = false;
  function tick() {
    var s = view;
    Q.setText("clock", Q.clockText(s));
    var up = Q.isHalf(s) && Q.timeUp(s);
    Q.$("clock").classList.toggle("up", up);
    Q.$("clock").classList.toggle("paused", Q.isHalf(s) && !s.clock.running && !up);
    if (up !== wasUp) {
      wasUp = up;
      if (up && Q.rejoin) Q.rejoin(); // time is up: the server's state now has no restart (10.2)
      draw();
    }
    var left = Q.returnLeft(s);
    Q.show("return", left > 0);
    if (left > 0) Q.setText("return", T.return_countdown + " 0:" + ("0" + Math.ceil(left / 1000)).slice(-2));
  }

  function drawEnds(s) {
    var el = Q.$("ends");
    if (!s.ends) { Q.setHtml(el, ""); return; }
    var left = s.ends.home === "x0" ? "home" : "away";
    var html = '<span class="end left" style="--c:' + s.teams[left].color + '">◀ ' + Q.esc(teamName(left)) + "</span>" +
      '<span class="end right" style="--c:' + s.teams[other(left)].color + '">' + Q.esc(teamName(other(left))) + " ▶</span>";
    Q.setHtml(el, html);
  }

  function svgEl(name, attrs, text) {
    var n = document.createElementNS(SVGNS, name);
    Object.keys(attrs).forEach(function (k) { n.setAttribute(k, attrs[k]); });
    if (text !== undefined) n.textContent = text;
    return n;
  }

  function drawField(s) {
    if (!overlay) return;
    while (overlay.firstChild) overlay.removeChild(overlay.firstChild);
    var L = s.field.length, W = s.field.width;
    if (s.ends) {
      TEAMS.forEach(function (t) {
        overlay.appendChild(svgEl("rect", { x: s.ends[t] === "x0" ? -0.9 : L + 0.1, y: 0, width: 0.8, height: W, fill: s.teams[t].color }));
      });
    }
    var r = Q.timeUp(s) ? null : s.restart;
    if (r) {
      var c = s.teams[r.team].color;
      overlay.appendChild(svgEl("circle", { cx: r.spot.x, cy: r.spot.y, r: 1.4, fill: "none", stroke: "#fff", "stroke-width": 0.25, "class": "pulse" }));
      overlay.appendChild(svgEl("circle", { cx: r.spot.x, cy: r.spot.y, r: 0.8, fill: c, stroke: "#fff", "stroke-width": 0.2, "class": "restart-spot" }));
      var tx = Math.min(Math.max(r.spot.x, 4), L - 4);
      var ty = r.spot.y > W - 3 ? r.spot.y - 1.6 : r.spot.y + 2.4;
      overlay.appendChild(svgEl("text", { x: tx, y: ty, "text-anchor": "middle", "font-size": 1.5, fill: "#fff", stroke: "#000", "stroke-width": 0.25, "paint-order": "stroke", "class": "restart-label" }, V.restart[r.type] + " · " + teamName(r.team)));
    }
    if (call && call.spot) {
      overlay.appendChild(svgEl("circle", { cx: call.spot.x, cy: call.spot.y, r: 0.6, fill: "#ffeb3b", stroke: "#000", "stroke-width": 0.1 }));
    }
    svg.classList.toggle("awaiting", !!(call && needsSpot()));
  }

  function drawButtons(s) {
    var ok = legal(s);
    document.querySelectorAll("[data-action]").forEach(function (b) {
      var a = b.getAttribute("data-action");
      b.disabled = !ok[a];
      b.classList.toggle("chosen", !!(call && call.action === a));
    });
    var pr = Q.$("controls").querySelector('[data-action="pause"]');
    var re = Q.$("controls").querySelector('[data-action="resume"]');
    if (pr && re) { pr.hidden = !ok.pause && ok.resume; re.hidden = !pr.hidden; }
  }

  function drawShootout(s) {
    var panel = Q.$("shootout-panel");
    var ok = legal(s);
    var show = s.phase === "shootout" || !!s.shootout;
    Q.show(panel, show);
    Q.$("actions").classList.toggle("dimmed", show);
    if (!show) return;
    Q.show("so-start", ok.shootout_start && allowed.shootout_start);
    Q.show("so-live", !!s.shootout);
    if (ok.shootout_start) fillTakers(s);
    if (s.shootout) {
      Q.setHtml("so-board", Q.shootoutHtml(s));
      Q.setText("so-next", s.shootout.next ? Q.nextKickText(s) : T.shootout_decided + (s.winner ? " · " + Q.fmt(T.winner, { team: teamName(s.winner) }) : ""));
      Q.setText("so-score", s.shootout.score.home + "–" + s.shootout.score.away);
      Q.show("so-kick", !!s.shootout.next);
      document.querySelectorAll("[data-kick]").forEach(function (b) { b.disabled = !(ok.shootout_kick && allowed.shootout_kick); });
    }
  }

  var soFirst = null;
  function fillTakers(s) {
    document.querySelectorAll("#so-start select").forEach(function (sel) {
      if (sel.options.length) return;
      var t = sel.getAttribute("data-team"), slot = Number(sel.getAttribute("data-slot"));
      var ts = s.teams[t];
      var eligible = ts.on_field.concat(ts.bench.filter(function (n) { return ts.on_field.indexOf(n) < 0; }));
      eligible.forEach(function (n) { sel.add(new Option(Q.player(t, n), n)); });
      if (eligible[slot] !== undefined) sel.value = eligible[slot];
    });
    document.querySelectorAll("[data-first]").forEach(function (b) { b.classList.toggle("chosen", b.getAttribute("data-first") === soFirst); });
  }
  document.querySelectorAll("[data-first]").forEach(function (b) {
    b.addEventListener("click", function () { soFirst = b.getAttribute("data-first"); fillTakers(view); });
  });
  var soSend = Q.$("so-start-send");
  if (soSend) soSend.addEventListener("click", function () {
    if (!soFirst) { notice({ kind: "hint", msg: T.choose_team }); return; }
    var takers = { home: [], away: [] };
    document.querySelectorAll("#so-start select").forEach(function (sel) { takers[sel.getAttribute("data-team")].push(Number(sel.value)); });
    var distinct = TEAMS.every(function (t) { return new Set(takers[t]).size === 4; });
    if (!distinct) { notice({ kind: "hint", msg: T.takers_distinct }); return; }
    submit({ type: "shootout_start", first: soFirst, takers: takers });
  });
  document.querySelectorAll("[data-kick]").forEach(function (b) {
    b.addEventListener("click", function () {
      var n = view.shootout && view.shootout.next;
      if (n) submit({ type: "shootout_kick", team: n.team, scored: b.getAttribute("data-kick") === "1" });
    });
  });

  function drawRosters(s) {
    TEAMS.forEach(function (t) {
      var ts = s.teams[t];
      var chips = function (list, cls) {
        return list.map(function (n) {
          var c = cls;
          if (ts.yellow.indexOf(n) >= 0) c += " yc";
          if (ts.sent_off.indexOf(n) >= 0) c += " rc";
          if ((ts.injured || []).indexOf(n) >= 0) c += " inj";
          return '<span class="pl' + c + '">#' + n + " " + Q.esc(Q.playerName(t, n)) + "</span>";
        }).join("");
      };
      var ma = ts.multi_attack || {};
      var maText = "";
      if (ma.team !== null && ma.team !== undefined) maText = T.multi_attack + " " + ma.team;
      Object.keys(ma.players || {}).forEach(function (n) { maText += " #" + n + ":" + ma.players[n]; });
      var flags = [ts.may_substitute ? T.may_substitute : T.may_not_substitute];
      if (ts.replacements_due) flags.push(T.replacement_due + " ×" + ts.replacements_due);
      if (ts.short) flags.push(Q.fmt(T.short, { n: ts.short }));
      var html = "<h3>" + Q.esc(ts.name) + (s.possession === t ? ' <span class="ball">●</span>' : "") + ' <small class="' + (ts.may_substitute ? "yes" : "no") + '">' + Q.esc(flags.join(" · ")) + "</small>" +
        (maText ? ' <small class="ma">' + Q.esc(maText) + "</small>" : "") + "</h3>" +
        '<div class="r-line"><span class="r-label">' + Q.esc(T.on_field) + "</span>" + chips(ts.on_field, "") + "</div>" +
        '<div class="r-line"><span class="r-label">' + Q.esc(T.bench) + "</span>" + chips(ts.bench, " bench") + "</div>" +
        (ts.sent_off.length ? '<div class="r-line"><span class="r-label">' + Q.esc(T.sent_off) + "</span>" + chips(ts.sent_off, " off") + "</div>" : "");
      Q.setHtml("roster-" + t, html);
    });
  }

  /* ---- the event log and undo ----------------------------------------------------------------- */
  function describe(e) {
    var t = e.team, S = T.sep, C = T.colon;
    var who = t ? teamName(t) + (e.player !== null && e.player !== undefined ? " " + Q.player(t, e.player) : "") : "";
    switch (e.type) {
      case "violation": return V.violation[e.kind] + S + who;
      case "foul":
        return V.event.foul + S + who + (e.where && e.where !== "field" ? S + V.where[e.where] : "") +
          (e.on_official ? S + T.on_official : "") + (e.card ? " + " + V.card[e.card] : "");
      case "card": return V.card[e.color] + S + who;
      case "substitution":
        return V.event.substitution + S + teamName(t) + C + (e.out === null || e.out === undefined
          ? Q.fmt(T.sub_line_nobody, { "in": e["in"] }) : Q.fmt(T.sub_line, { out: e.out, "in": e["in"] }));
      case "clock": return V.event.clock + C + V.clock[e.action] + (e.action === "set" ? " " + Q.mmss(e.elapsed_ms) : "");
      case "coin_toss": return V.event.coin_toss + C + Q.fmt(T.kicks_off, { team: teamName(e.kickoff) }) + S + Q.fmt(T.defends, { team: teamName("home"), end: T["end_" + e.home_end] });
      case "catch": return V.event["catch"] + S + who + (e.caught !== null && e.caught !== undefined ? " → " + Q.player(other(t), e.caught) : "");
      case "shootout_kick": return V.event.shootout_kick + S + teamName(t) + C + (e.scored ? T.scored : T.missed);
      case "shootout_start": return V.event.shootout_start + C + teamName(e.first);
      case "void": return Q.fmt(T.undone, { what: voidedWhat(e.target) });
      case "abandon": return V.event.abandon + C + e.reason;
      default: return V.event[e.type] + (who ? S + who : "");
    }
  }
  function entryTime(e) { return e.at_ms !== null && e.at_ms !== undefined ? Q.mmss(e.at_ms) : ""; }
  /* A log entry in the Undo button's words: "Goal, home #7 Li, 12:31". */
  function undoWhat(e) { return describe(e) + (entryTime(e) ? T.sep + entryTime(e) : ""); }
  function voidedWhat(seq) {
    for (var i = 0; i < log.length; i++) if (log[i].seq === seq) return undoWhat(log[i]);
    return "#" + seq;
  }

  function lastVoidable() {
    for (var i = log.length - 1; i >= 0; i--) {
      if (log[i].type !== "void" && log[i].voided_by === null) return log[i];
    }
    return null;
  }

  /* The last call still waiting in the queue (not the one being sent): it can be taken back unsent. */
  function cancellable() {
    var q = loadQueue();
    var last = q[q.length - 1];
    return last && !(inflight && inflight.id === last.id) ? last : null;
  }
  function cancelQueued(id) {
    if (inflight && inflight.id === id) return;
    saveQueue(loadQueue().filter(function (b) { return b.id !== id; }));
    recompute();
    netStatus();
  }

  function drawUndo() {
    var b = Q.$("undo");
    if (!b) return;
    var queued = cancellable();
    if (queued) {
      Q.setText(b, Q.fmt(T.cancel_queued, { what: describe(queued) }));
      b.disabled = false;
      b.setAttribute("data-target", "");
      b.setAttribute("data-queued", queued.id);
      return;
    }
    b.removeAttribute("data-queued");
    var e = lastVoidable();
    var isArmed = !!(e && armed && armed.button === b && armed.seq === e.seq);
    var label = !e ? T.undo_nothing : isArmed ? T.tap_again_undo + T.colon + undoWhat(e) : Q.fmt(T.undo_label, { what: undoWhat(e) });
    Q.setText(b, label);
    b.classList.toggle("armed", isArmed);
    b.disabled = !e;
    b.setAttribute("data-target", e ? e.seq : "");
  }

  function drawLog() {
    var html = "";
    var q = loadQueue();
    for (var j = q.length - 1; j >= 0; j--) {
      var b = q[j];
      var sending = inflight && inflight.id === b.id;
      html += '<li class="queued" data-id="' + Q.esc(b.id) + '"><span class="t">' + (b.at_ms !== undefined ? Q.mmss(b.at_ms) : "") + "</span> " +
        '<span class="d">' + Q.esc(describe(b)) + "</span> " +
        '<span class="vd">' + Q.esc(sending ? T.sending_one : T.queued) + "</span>" +
        (sending ? "" : ' <button type="button" class="void-btn" data-cancel="' + Q.esc(b.id) + '">' + Q.esc(T.cancel) + "</button>") + "</li>";
    }
    for (var i = log.length - 1; i >= 0; i--) {
      var e = log[i];
      var voided = e.voided_by !== null;
      var canVoid = allowed["void"] && !voided && e.type !== "void";
      var isArmed = armed && armed.seq === e.seq && armed.button !== Q.$("undo");
      html += '<li class="' + (voided ? "voided" : "") + '" value="' + e.seq + '" data-seq="' + e.seq + '">' +
        '<span class="t">' + entryTime(e) + "</span> " +
        '<span class="d">' + Q.esc(describe(e)) + "</span> " +
        '<span class="by">' + Q.esc(Q.fmt(T.by_role, { role: V.role[e.by] || e.by })) + "</span>" +
        (voided ? ' <span class="vd">' + Q.esc(T.voided) + "</span>" : "") +
        (canVoid ? ' <button type="button" class="void-btn' + (isArmed ? " armed" : "") + '" data-void="' + e.seq + '">' + Q.esc(isArmed ? T.tap_again_undo : T["void"]) + "</button>" : "") +
        "</li>";
    }
    Q.setHtml("log", html);
    drawUndo();
  }

  function addEntry(e) {
    for (var i = 0; i < log.length; i++) if (log[i].seq === e.seq) return;
    if (log.length && e.seq > log[log.length - 1].seq + 1) { resync(); return; }
    log.push(e);
    if (e.type === "void") {
      log.forEach(function (x) { if (x.seq === e.target) x.voided_by = e.seq; });
    }
    drawLog();
    if (call) drawBuilder();
  }

  /* A void takes two taps: the first arms it for 6 s (the label turns to "Tap again to undo"), the
   * second sends it. */
  var ARMED_MS = 6000;
  function armOrVoid(seq, button) {
    if (armed && armed.seq === seq && armed.button === button) {
      clearTimeout(armed.timer);
      armed = null;
      submit({ type: "void", target: seq, reason: "undo" });
      drawLog();
      return;
    }
    if (armed) clearTimeout(armed.timer);
    armed = { seq: seq, button: button, timer: setTimeout(function () { armed = null; drawLog(); }, ARMED_MS) };
    drawLog();
  }
  var undoBtn = Q.$("undo");
  if (undoBtn) undoBtn.addEventListener("click", function () {
    var queued = undoBtn.getAttribute("data-queued");
    if (queued) { cancelQueued(queued); return; }
    var seq = Number(undoBtn.getAttribute("data-target"));
    if (seq) armOrVoid(seq, undoBtn);
  });
  Q.$("log").addEventListener("click", function (ev) {
    var b = ev.target.closest("[data-void]");
    if (b) armOrVoid(Number(b.getAttribute("data-void")), "log");
    var c = ev.target.closest("[data-cancel]");
    if (c) cancelQueued(c.getAttribute("data-cancel"));
  });

  /* ---- notices: refusals and decisions -------------------------------------------------------- */
  function notice(n) {
    var box = Q.$("notice");
    box.className = "notice " + (n.kind || "refusal");
    Q.setText("notice-rule", n.rule || "");
    Q.setText("notice-title", n.title || "");
    Q.setText("notice-msg", n.msg || "");
    Q.show(box, true);
  }
  function hideNotice() { Q.show("notice", false); }
  Q.$("notice-close").addEventListener("click", hideNotice);

  function refused(data, body, queued) {
    var rule = data && data.rule;
    var head;
    if (data && data.error === "rule") head = Q.fmt(T.refused_rule, { rule: rule });
    else head = T[data && data.error] || T.refused;
    var title = rule ? D.rules[rule] || D.rules[String(rule).split(".")[0]] || "" : "";
    var what = body.type === "void" ? Q.fmt(T.undo_label, { what: voidedWhat(body.target) }) : describe(body);
    var msg = (queued ? T.queued_refused + T.colon : "") + what + " — " + ((data && data.message) || "");
    var fields = flattenFields(data && data.fields, "", []);
    if (fields.length) msg += T.colon + fields.join("; ");
    notice({ kind: "refusal", rule: head, title: title, msg: msg });
  }

  /* A 400's `fields` map as "elapsed_ms: must be at most …" lines. */
  function flattenFields(fields, prefix, out) {
    Object.keys(fields || {}).forEach(function (k) {
      var v = fields[k], path = prefix ? prefix + "." + k : k;
      if (Array.isArray(v)) out.push(path + T.colon + v.join(" "));
      else if (v && typeof v === "object") flattenFields(v, path, out);
    });
    return out;
  }

  function decided(body, s) {
    if (!s) return;
    var after = s.restart ? Q.fmt(T.restart_pending, { restart: V.restart[s.restart.type], team: s.teams[s.restart.team].name }) : "";
    notice({ kind: "decision", rule: "✓", title: describe(body), msg: after ? "→ " + after : "" });
  }

  /* ---- building a call ------------------------------------------------------------------------ */
  function needsSpot() {
    if (!call || !call.def) return false;
    var sp = call.def.spot;
    return sp === "required" || sp === "optional" || (sp === "live" && view.ball === "live" && Q.isHalf(view));
  }
  function spotRequired() {
    var sp = call.def.spot;
    return sp === "required" || (sp === "live" && view.ball === "live" && Q.isHalf(view));
  }
  function fixedTeam(def) {
    var s = view;
    if (def.team === "restart") return s.restart ? s.restart.team : null;
    if (def.team === "other") return s.possession ? other(s.possession) : null;
    if (def.team === "possession" && def.player === "none") return s.possession;
    return null;
  }

  function start(action) {
    var ok = legal(view);
    if (!ok[action]) return;
    if (action === "period_start" || action === "period_end") { submit({ type: action }); return; }
    if (action === "pause" || action === "resume") { submit({ type: "clock", action: action }); return; }
    if (action === "set") { setClock(); return; }
    var def = CALLS[action];
    if (!def) return;
    call = { action: action, def: def, team: null, player: undefined, player2: undefined, spot: null, options: {}, stage: 1, digits: "" };
    call.fixed = fixedTeam(def);
    call.team = call.fixed || (def.team === "possession" ? view.possession : null);
    if (def.type === "substitution") {
      var may = TEAMS.filter(function (t) { return mayBringOn(view, t); });
      if (may.length === 1) call.team = may[0];
    }
    if (def.options && def.options.indexOf("side") >= 0) call.options.side = "low";
    if (def.type === "attack") { send(); return; }
    Q.show("actions", false);
    Q.show("builder", true);
    draw();
    tryComplete("start");
  }

  function cancel() {
    call = null;
    Q.show("builder", false);
    Q.show("actions", true);
    Q.show("prompt", false);
    draw();
  }

  function setClock() {
    var input = Q.$("clock-input");
    var m = (input.value || "").trim().match(/^(\d{1,3})(?:[:.\s]?(\d{2}))?$/);
    if (!m) { notice({ kind: "hint", msg: T.clock_set_invalid }); input.focus(); return; }
    var ms = (Number(m[1]) * 60 + Number(m[2] || 0)) * 1000;
    if (ms > view.clock.length_ms) {
      // Refused here, never shortened silently: the official sees what was typed and why (3.1).
      notice({ kind: "hint", msg: Q.fmt(T.clock_set_too_long, { typed: Q.mmss(ms), length: Q.mmss(view.clock.length_ms) }) });
      input.focus();
      return;
    }
    submit({ type: "clock", action: "set", elapsed_ms: ms });
    input.value = "";
    input.blur();
  }

  function candidates(team, from) {
    if (!team) return [];
    var ts = view.teams[team];
    if (from === "bench") return ts.bench.slice();
    if (from === "roster") return ts.on_field.concat(ts.bench);
    return ts.on_field.slice();
  }

  function player2Team() {
    var p2 = call.def.player2;
    if (!p2) return null;
    if (p2.team === "same") return call.team;
    return view.possession;
  }

  function btn(label, attrs, cls) {
    var a = Object.keys(attrs).map(function (k) { return k + '="' + Q.esc(attrs[k]) + '"'; }).join(" ");
    return '<button type="button" class="' + (cls || "pick") + '" ' + a + ">" + label + "</button>";
  }

  function playerButtons(team, list, chosen, stageAttr, blockedList) {
    return list.map(function (n) {
      var attrs = { "data-player": n, "data-stage": stageAttr };
      var off = (blockedList || []).indexOf(n) >= 0;
      if (off) attrs.disabled = "disabled";
      return btn("<b>" + n + "</b><small>" + Q.esc(Q.playerName(team, n)) + "</small>", attrs,
        "pick player" + (chosen === n ? " chosen" : "") + (off ? " blocked" : ""));
    }).join("");
  }

  /* The players the call may not name at this stage: at a restart, those who came on at this stoppage
   * (11.2); for a team that may not substitute but owes a replacement, everyone on the field (only
   * "nobody" goes off, 11.2). */
  function blocked(stage) {
    if (stage !== 1 || !call || !call.team) return [];
    if (call.def.type === "restart_taken") return cameOn(call.team);
    if (call.def.type === "substitution" && !view.teams[call.team].may_substitute) return candidates(call.team, call.def.from);
    return [];
  }
  function teamBlocked(t) {
    return !!call && call.def.type === "substitution" && !mayBringOn(view, t);
  }

  function drawBuilder() {
    var def = call.def;
    var title = call.action === "coin_toss" ? V.event.coin_toss : V.violation[call.action] || V.card[call.action] || V.event[def.type];
    Q.setText("b-title", title);
    var teams = "", options = "", label = "", players = "", extra = "";
    if (def.custom === "toss") {
      teams = '<span class="b-sub">' + Q.esc(Q.fmt(T.kicks_off, { team: "…" })) + "</span>" + TEAMS.map(function (t) {
        return btn(Q.esc(teamName(t)), { "data-toss": t }, "pick team-btn " + t + (call.options.kickoff === t ? " chosen" : ""));
      }).join("");
      options = '<span class="b-sub">' + Q.esc(Q.fmt(T.defends, { team: teamName("home"), end: "…" })) + "</span>" +
        ["x0", "xL"].map(function (e) { return btn(Q.esc(T["end_" + e]), { "data-end": e }, "pick" + (call.options.home_end === e ? " chosen" : "")); }).join("");
    } else if (def.custom === "abandon") {
      extra = '<input id="abandon-reason" class="reason" maxlength="500" placeholder="' + Q.esc(T.abandon_reason_needed) + '">' +
        btn(Q.esc(V.event.abandon), { "data-abandon": "1" }, "act stop");
    } else {
      if (!call.fixed && def.team !== "none") {
        teams = TEAMS.map(function (t) {
          var attrs = { "data-team": t };
          var why = "";
          if (teamBlocked(t)) {
            attrs.disabled = "disabled";
            why = '<small class="why">' + Q.esc(noSubReason(view, t)) + "</small>";
          }
          return btn(Q.esc(teamName(t)) + "<kbd>" + (t === "home" ? "H" : "A") + "</kbd>" + why, attrs, "pick team-btn " + t + (call.team === t ? " chosen" : ""));
        }).join("");
      } else if (call.team) {
        teams = '<span class="team-fixed ' + call.team + '">' + Q.esc(teamName(call.team)) + "</span>";
      }
      (def.options || []).forEach(function (o) {
        if (o === "direct") options += btn(Q.esc(T.direct), { "data-opt": "direct" }, "toggle" + (call.options.direct ? " on" : ""));
        if (o === "on_official") options += btn(Q.esc(T.on_official), { "data-opt": "on_official" }, "toggle" + (call.options.on_official ? " on" : ""));
        if (o === "card") {
          ["", "yellow", "red"].forEach(function (c) {
            options += btn((c ? '<span class="card ' + c + '"></span>' : "") + Q.esc(c ? V.card[c] : T.no_card), { "data-card": c },
              "toggle" + ((call.options.card || "") === c ? " on" : ""));
          });
        }
        if (o === "side" && view.restart && view.restart.type === "penalty") {
          ["low", "high"].forEach(function (sd) {
            options += btn(Q.esc(T[sd + "_side"]), { "data-side": sd }, "toggle" + (call.options.side === sd ? " on" : ""));
          });
        }
      });
      var stage2 = def.player2 && call.player !== undefined;
      if (def.player !== "none" && call.team) {
        if (!stage2) {
          label = T[def.label || "choose_player"];
          var off = blocked(1);
          players = playerButtons(call.team, candidates(call.team, def.from), call.player, 1, off);
          if (off.length && def.type === "restart_taken") {
            label += " — " + Q.fmt(T.came_on, { players: off.map(function (n) { return Q.player(call.team, n); }).join(T.sep) });
          }
          if (off.length && def.type === "substitution") label += " — " + T.replacement_only;
          if (def.nobody && (view.teams[call.team].short > 0 || view.teams[call.team].replacements_due > 0)) {
            players += btn(Q.esc(T.nobody), { "data-player": "none", "data-stage": 1 }, "pick player none");
          }
          if (def.player === "optional") players += btn(Q.esc(T.no_player) + "<kbd>↵</kbd>", { "data-player": "none", "data-stage": 1 }, "pick player none");
        } else {
          var t2 = player2Team();
          label = (call.player !== null ? Q.player(call.team, call.player) + " → " : "") + T[def.player2.label || "choose_player"];
          players = playerButtons(t2, candidates(t2, def.player2.from), call.player2, 2);
          if (def.type === "catch") players += btn(Q.esc(T.no_player) + "<kbd>↵</kbd>", { "data-player": "none", "data-stage": 2 }, "pick player none");
        }
      }
      if (call.digits) label += "  [" + call.digits + "]";
      if (def.spot === "optional") extra = btn(Q.esc(T.send_without_spot), { "data-send": "1" }, "act");
    }
    Q.setHtml("b-teams", teams);
    Q.setHtml("b-options", options);
    Q.setText("b-label", label);
    Q.setHtml("b-players", players);
    Q.setHtml("b-extra", extra);
  }

  function prompt(key) {
    Q.setText("prompt", T[key] || key);
    Q.show("prompt", true);
  }

  /* Send once everything the call needs is there; a player tap sends unless a spot is still to come. */
  function tryComplete(trigger) {
    var def = call.def;
    if (def.custom === "toss") {
      if (call.options.kickoff && call.options.home_end) { submit({ type: "coin_toss", kickoff: call.options.kickoff, home_end: call.options.home_end }); cancel(); }
      return;
    }
    if (def.custom) return;
    if (!call.team) { prompt("choose_team"); return; }
    if (def.player === "required" && call.player === undefined) {
      if (trigger === "spot") { prompt("choose_player_first"); return; }
      Q.show("prompt", false);
      if (needsSpot()) prompt(def.prompt);
      return;
    }
    if (def.player2 && call.player2 === undefined) {
      if (call.player !== undefined) { Q.show("prompt", false); }
      return;
    }
    if (spotRequired() && !call.spot) { prompt(def.prompt); return; }
    if (def.spot === "optional" && !call.spot && trigger !== "send") { prompt(def.prompt); return; }
    if (trigger === "start" || trigger === "option" || trigger === "team") {
      if (needsSpot()) prompt(def.prompt);
      return;
    }
    send();
  }

  function send() {
    var def = call.def, s = view;
    var body = { type: def.type };
    if (def.kind) body.kind = def.kind;
    if (def.color) body.color = def.color;
    if (def.type !== "shootout_kick") body.team = call.team;
    if (def.player !== "none" && call.player !== undefined && call.player !== null) body.player = call.player;
    if (call.spot) body.spot = call.spot;
    if (def.type === "goal") body.direct = !!call.options.direct;
    if (def.type === "violation" && def.kind === "restart" && s.restart && s.restart.type === "penalty") body.side = call.options.side || "low";
    if (def.type === "foul") {
      body.on_official = !!call.options.on_official;
      if (call.options.card) body.card = call.options.card;
      body.where = "field";
      // A foul on an attacker beyond a line restarts from that line (10.4, 10.5); the tap says where.
      if (call.spot && call.team !== s.possession && !body.on_official) {
        var L = s.field.length, W = s.field.width, p = call.spot;
        if (p.x < 0 || p.x > L) body.where = "beyond_end_line";
        else if ((p.y < 0 || p.y > W) && s.field.side_lines) body.where = "beyond_side_line";
      }
    }
    if (def.type === "substitution") {
      body.out = call.player === undefined ? null : call.player;
      body["in"] = call.player2;
      delete body.player;
    }
    if (def.type === "catch" && call.player2 !== undefined && call.player2 !== null) body.caught = call.player2;
    cancel();
    submit(body);
  }

  Q.$("b-cancel").addEventListener("click", cancel);
  Q.$("builder").addEventListener("click", function (ev) {
    var b = ev.target.closest("button");
    if (!b || !call) return;
    if (b.hasAttribute("data-team")) {
      call.team = b.getAttribute("data-team");
      call.player = undefined; call.player2 = undefined;
      drawBuilder();
      tryComplete("team");
    } else if (b.hasAttribute("data-player")) {
      var v = b.getAttribute("data-player");
      choosePlayer(v === "none" ? null : Number(v), Number(b.getAttribute("data-stage")));
    } else if (b.hasAttribute("data-opt")) {
      var o = b.getAttribute("data-opt");
      call.options[o] = !call.options[o];
      drawBuilder();
    } else if (b.hasAttribute("data-card")) {
      call.options.card = b.getAttribute("data-card") || null;
      drawBuilder();
    } else if (b.hasAttribute("data-side")) {
      call.options.side = b.getAttribute("data-side");
      drawBuilder();
    } else if (b.hasAttribute("data-toss")) {
      call.options.kickoff = b.getAttribute("data-toss");
      drawBuilder();
      tryComplete("option");
    } else if (b.hasAttribute("data-end")) {
      call.options.home_end = b.getAttribute("data-end");
      drawBuilder();
      tryComplete("option");
    } else if (b.hasAttribute("data-send")) {
      tryComplete("send");
    } else if (b.hasAttribute("data-abandon")) {
      var reason = (Q.$("abandon-reason").value || "").trim();
      if (!reason) { prompt("abandon_reason_needed"); return; }
      submit({ type: "abandon", reason: reason });
      cancel();
    }
  });

  function choosePlayer(n, stage) {
    call.digits = "";
    if (stage === 2) {
      call.player2 = n;
      tryComplete("player");
      return;
    }
    call.player = n;
    drawBuilder();
    drawField(view);
    if (call.def.player2) return;
    tryComplete("player");
  }

  /* A tap on the field: metres in the field's own coordinates (the SVG's viewBox is in metres). A drag
   * scrolls the page (the browser cancels the pointer) and is not a tap. */
  var down = null;
  if (svg) {
    svg.addEventListener("pointerdown", function (ev) { down = { x: ev.clientX, y: ev.clientY }; });
    svg.addEventListener("pointercancel", function () { down = null; });
    svg.addEventListener("pointerup", function (ev) {
      var start = down;
      down = null;
      if (!call || !needsSpot()) return;
      if (start && Math.abs(ev.clientX - start.x) + Math.abs(ev.clientY - start.y) > 16) return;
      var pt = svg.createSVGPoint();
      pt.x = ev.clientX; pt.y = ev.clientY;
      var m = pt.matrixTransform(svg.getScreenCTM().inverse());
      call.spot = { x: Math.round(m.x * 10) / 10, y: Math.round(m.y * 10) / 10 };
      drawField(view);
      tryComplete("spot");
    });
  }

  /* ---- buttons and keys ------------------------------------------------------------------------ */
  document.querySelectorAll("[data-action]").forEach(function (b) {
    b.addEventListener("click", function () { b.blur(); start(b.getAttribute("data-action")); });
  });

  var KEYS = {};
  Object.keys(D.keys).forEach(function (a) { if (allowed[a]) KEYS[D.keys[a].toLowerCase()] = a; });
  document.addEventListener("keydown", function (ev) {
    var tag = (ev.target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "select" || tag === "textarea") {
      if (ev.key === "Enter" && ev.target.id === "clock-input") start("set");
      if (ev.key === "Escape") ev.target.blur();
      return;
    }
    if (ev.ctrlKey || ev.metaKey) {
      if (ev.key === "z" && undoBtn && !undoBtn.disabled) { ev.preventDefault(); undoBtn.click(); }
      return;
    }
    var k = ev.key;
    if (call) {
      if (k === "Escape") { cancel(); return; }
      if ((k === "h" || k === "a") && !call.fixed && !call.def.custom) {
        if (teamBlocked(k === "h" ? "home" : "away")) return;
        call.team = k === "h" ? "home" : "away";
        call.player = undefined; call.player2 = undefined;
        drawBuilder(); tryComplete("team");
        return;
      }
      if (/^\d$/.test(k)) { call.digits += k; drawBuilder(); return; }
      if (k === "Backspace") { call.digits = call.digits.slice(0, -1); drawBuilder(); return; }
      if (k === "Enter") {
        ev.preventDefault();
        var stage = call.def.player2 && call.player !== undefined ? 2 : 1;
        if (!call.digits) {
          if (call.def.spot === "optional") tryComplete("send");
          else if (call.def.player !== "required" || stage === 2 || call.def.nobody) choosePlayer(null, stage);
          return;
        }
        var n = Number(call.digits);
        var team = stage === 2 ? player2Team() : call.team;
        var from = stage === 2 ? call.def.player2.from : call.def.from;
        call.digits = "";
        if (candidates(team, from).indexOf(n) >= 0 && blocked(stage).indexOf(n) < 0) choosePlayer(n, stage);
        else drawBuilder();
      }
      return;
    }
    if (k === " ") {
      ev.preventDefault();
      var ok = legal(view);
      if (allowed.clock) start(ok.pause ? "pause" : "resume");
      return;
    }
    if (k === "q" && Q.$("clock-input")) { ev.preventDefault(); Q.$("clock-input").focus(); return; }
    var action = KEYS[k === "Enter" ? "enter" : k.toLowerCase()];
    if (action) { ev.preventDefault(); start(action); }
  });

  /* ---- live ------------------------------------------------------------------------------------- */
  Q.connect(matchId, {
    state: function (s) { acceptState(s); },
    event: addEntry,
    status: function (up) { if (up) { pump(); } netStatus(); },
  });
  drawLog();
  recompute();
  pump();
  setInterval(tick, 100);
})();
