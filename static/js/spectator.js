/* The spectator's phone: score, clock, phase, the pending restart and why it was given, and the
 * timeline (goals, cards, substitutions, half markers, a "paused" sign), live.
 * The timeline is the events the match is the replay of: a corrected event as corrected, a missed call
 * at its place, nothing voided (as pages.timeline, from qalisball/rules/corrections.py); a yellow card
 * that is a player's second reads "second yellow → sent off" (SPEC M8). */
(function () {
  "use strict";
  var state = Q.data.state;
  var ON_TIMELINE = { goal: 1, card: 1, substitution: 1, period_start: 1, period_end: 1, shootout_kick: 1, abandon: 1, reopen: 1 };
  // Changes that move or rename what is already shown: the timeline is rebuilt from the log.
  var REBUILD = { void: 1, amend: 1, insert: 1, roster: 1 };
  var yellows = {}; // "team#player" → yellow cards shown so far

  function onTimeline(e) {
    return ON_TIMELINE[e.type] || (e.type === "foul" && e.card);
  }
  function isYellow(e) { return (e.type === "card" && e.color === "yellow") || (e.type === "foul" && e.card === "yellow"); }
  /* Count e's yellow; mark it when it is the player's second. */
  function countYellow(e) {
    if (!isYellow(e)) return;
    var k = e.team + "#" + e.player;
    yellows[k] = (yellows[k] || 0) + 1;
    if (yellows[k] === 2) e.second_yellow = true;
  }

  /* The log as the events the state is the replay of (corrections.effective_log). */
  function effective(log) {
    var bySeq = {}, inserts = {}, out = [];
    log.forEach(function (e) {
      bySeq[e.seq] = e;
      if (e.type === "insert") (inserts[e.after] = inserts[e.after] || []).push(e);
    });
    function current(row) {
      var cur = row;
      while (cur.voided_by !== null && cur.voided_by !== undefined) {
        var by = bySeq[cur.voided_by];
        if (!by || by.type === "void") return null;
        var undo = by.voided_by !== null && by.voided_by !== undefined ? bySeq[by.voided_by] : null;
        if (undo && undo.type === "void") break; // the amend was undone: what it replaced stands again
        cur = by;
      }
      return cur;
    }
    function asEvent(row, place) {
      if (row.type !== "amend" && row.type !== "insert") return row;
      var e = {};
      Object.keys(row).forEach(function (k) { e[k] = row[k]; });
      Object.keys(row.event).forEach(function (k) { e[k] = row.event[k]; });
      e.at_ms = row.event.at_ms !== undefined ? row.event.at_ms : place ? place.at_ms : null;
      return e;
    }
    function seqsOf(row) {
      var seqs = [row.seq], cur = row;
      while (cur.voided_by !== null && cur.voided_by !== undefined && bySeq[cur.voided_by] && bySeq[cur.voided_by].type === "amend") {
        cur = bySeq[cur.voided_by];
        seqs.push(cur.seq);
      }
      return seqs;
    }
    function placeInserts(seqs, anchor) {
      seqs.forEach(function (seq) {
        (inserts[seq] || []).forEach(function (ins) {
          var now = current(ins);
          if (!now) return;
          var e = asEvent(now, anchor);
          out.push(e);
          placeInserts(seqsOf(ins), e);
        });
      });
    }
    placeInserts([0], null);
    log.forEach(function (row) {
      if (row.type === "void" || row.type === "amend" || row.type === "insert") return;
      var now = current(row);
      var e = now ? asEvent(now, row) : null;
      if (e) out.push(e);
      placeInserts(seqsOf(row), e || row);
    });
    return out;
  }

  function item(e) {
    var name = function (t) { return Q.esc(state.teams[t].name); };
    var what;
    if (e.type === "goal") {
      what = "⚽ " + Q.esc(Q.V.event.goal) + " · " + name(e.team) + (e.player !== null && e.player !== undefined ? " " + Q.esc(Q.player(e.team, e.player)) : "");
    } else if ((e.type === "card" || e.type === "foul") && e.second_yellow) {
      what = '<span class="card yellow"></span><span class="card red"></span>' + Q.esc(Q.T.second_yellow) + " · " + name(e.team) + " " + Q.esc(Q.player(e.team, e.player));
    } else if (e.type === "card" || e.type === "foul") {
      var color = e.color || e.card;
      what = '<span class="card ' + color + '"></span>' + Q.esc(Q.V.card[color]) + " · " + name(e.team) + " " + Q.esc(Q.player(e.team, e.player));
    } else if (e.type === "substitution") {
      what = "⇄ " + Q.esc(Q.V.event.substitution) + " · " + name(e.team) + ": " +
        (e.out !== null && e.out !== undefined ? Q.esc(Q.player(e.team, e.out)) + " → " : "") + Q.esc(Q.player(e.team, e["in"]));
    } else if (e.type === "shootout_kick") {
      what = Q.esc(Q.V.event.shootout_kick) + " · " + name(e.team) +
        (e.taker !== undefined ? " " + Q.esc(Q.player(e.team, e.taker)) + " · " + Q.esc(Q.fmt(Q.T.points, { n: e.points })) : "") +
        " · " + Q.esc(e.scored ? Q.T.scored : Q.T.missed);
    } else if (e.type === "period_start") {
      what = "▶ " + Q.esc(halfWords(e.half, Q.T.half_begins, Q.T.half_started));
    } else if (e.type === "period_end") {
      what = "■ " + Q.esc(halfWords(e.half, Q.T.half_ends, Q.T.half_ended));
    } else if (e.type === "abandon") {
      what = Q.esc(Q.V.phase.abandoned) + ": " + Q.esc(e.reason);
    } else if (e.type === "reopen") {
      what = Q.esc(Q.V.event.reopen) + ": " + Q.esc(e.reason);
    } else {
      what = Q.esc(Q.V.event[e.type] || e.type);
    }
    var cls = "tl tl-" + e.type + (e.type === "card" || e.type === "foul" ? " tl-" + (e.second_yellow ? "red tl-second" : e.color || e.card) : "") +
      (e.half ? " tl-half" : "");
    return '<li class="' + cls + '" data-seq="' + e.seq + '"' + (e.half ? ' data-half="' + e.half + '"' : "") + '><span class="tl-time">' +
      (e.at_ms !== null && e.at_ms !== undefined ? Q.mmss(e.at_ms) : "") + '</span><span class="tl-what">' + what + "</span></li>";
  }

  /* "1st half begins": the half markers of the timeline. */
  function halfWords(half, template, plain) {
    if (half !== 1 && half !== 2) return plain;
    return Q.fmt(template, { half: Q.V.phase[half === 1 ? "first_half" : "second_half"] });
  }
  /* Which half a period_start or period_end of the log begins or ends (counted in the list shown). */
  function numberHalves(entries) {
    var half = 0;
    entries.forEach(function (e) {
      if (e.type === "period_start") half += 1;
      if (e.type === "period_start" || e.type === "period_end") e.half = half;
    });
  }
  function halvesShown() { return Q.$("timeline").querySelectorAll('.tl-period_start').length; }

  function draw() {
    var s = state;
    Q.drawHeader(s);
    document.title = s.teams.home.name + " " + s.score.home + "–" + s.score.away + " " + s.teams.away.name;
    Q.show("clock", !(s.phase === "scheduled" && Q.data.starts));
    tick();
  }
  /* The clock, and whether it is paused (beside the clock and on top of the timeline). */
  function tick() {
    if (Q.stale) return; // stale data: the clock stops where it was (common.js says why)
    var s = state;
    Q.setText("clock", Q.clockText(s));
    var paused = Q.isHalf(s) && !s.clock.running && !Q.timeUp(s);
    Q.$("clock").classList.toggle("paused", paused);
    Q.show("paused", paused);
    Q.show("tl-paused", paused);
    if (paused) Q.setText("tl-paused-text", Q.fmt(Q.T.paused_at, { time: Q.clockText(s) }));
  }

  var logSeq = state.seq; // the last log entry this page has seen
  var pendingKicks = []; // shootout kicks wait for the state that says their points and taker

  /* Give the last len(entries) kicks of state's shootout to the entries, in order. */
  function annotateKicks(entries, s) {
    var kicks = (s.shootout && s.shootout.kicks) || [];
    entries.forEach(function (e, i) {
      var k = kicks[kicks.length - entries.length + i];
      if (k) { e.points = k.points; e.taker = k.player; }
    });
  }

  function onEvent(e) {
    if (e.seq > logSeq + 1) reload();
    logSeq = Math.max(logSeq, e.seq);
    var list = Q.$("timeline");
    if (REBUILD[e.type]) {
      reload();
    } else if (e.type === "shootout_kick") {
      pendingKicks.push(e);
    } else if (onTimeline(e) && !list.querySelector('[data-seq="' + e.seq + '"]')) {
      countYellow(e);
      if (e.type === "period_start") e.half = halvesShown() + 1;
      if (e.type === "period_end") e.half = halvesShown();
      list.insertAdjacentHTML("afterbegin", item(e));
    }
    Q.show("timeline-empty", !list.children.length);
  }

  /* Events were missed (before joining, or while disconnected): rebuild the timeline from the log. */
  var reloading = false, again = false;
  function reload() {
    if (reloading) { again = true; return; } // asked while a fetch runs: fetch once more after it
    reloading = true;
    again = false;
    fetch("/api/matches/" + encodeURIComponent(Q.data.match) + "/events")
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (log) {
        if (!log) return;
        if (log.length) logSeq = Math.max(logSeq, log[log.length - 1].seq);
        var shown = effective(log).filter(onTimeline);
        yellows = {};
        shown.forEach(countYellow);
        numberHalves(shown);
        annotateKicks(shown.filter(function (e) { return e.type === "shootout_kick"; }), state);
        var html = shown.reverse().map(item).join("");
        Q.setHtml("timeline", html);
        Q.show("timeline-empty", !html);
      })
      .catch(function () {})
      .then(function () { reloading = false; if (again) reload(); });
  }

  (Q.data.log || []).forEach(function (e) { if (isYellow(e)) { var k = e.team + "#" + e.player; yellows[k] = (yellows[k] || 0) + 1; } });

  Q.connect(Q.data.match, {
    state: function (s) {
      if (!Q.newer(state, s)) return;
      state = s;
      if (pendingKicks.length) {
        annotateKicks(pendingKicks, s);
        pendingKicks.forEach(function (e) { Q.$("timeline").insertAdjacentHTML("afterbegin", item(e)); });
        pendingKicks = [];
        Q.show("timeline-empty", false);
      }
      if (s.seq > logSeq) reload();
      draw();
    },
    event: onEvent,
  });
  draw();
  Q.tick(tick);
})();
