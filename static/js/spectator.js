/* The spectator's phone: score, clock, phase, the pending restart and why it was given, and the
 * timeline (goals, cards, substitutions, half markers, a "paused" sign), live.
 * The timeline is the events the match is the replay of: a corrected event as corrected, a missed call
 * at its place, nothing voided (as pages.timeline, from qalisball/rules/corrections.py), except that a
 * goal taken away stays struck out with the server's words for why (D163, D164); a yellow card
 * that is a player's second reads "second yellow → sent off" (SPEC M8). */
import { T, V, data } from "./lib/page.js";
import { $, esc, setHtml, setText, show } from "./lib/dom.js";
import { clockText, isHalf, mmss, newer, tick as everyTenth, timeUp } from "./lib/clock.js";
import { player } from "./lib/players.js";
import { fmt } from "./lib/words.js";
import { drawHeader } from "./lib/header.js";
import { connect, isStale } from "./lib/connection.js";
import "./lib/offline.js";
var state = data.state;
// What the timeline shows comes from the event catalogue (true, or the field that must be set: a foul with its card).
var ON_TIMELINE = data.on_timeline || {};
// Changes that move or rename what is already shown, and cards (a second yellow is the engine's to
// say, SPEC M8): the timeline is fetched again as the server makes it (pages.timeline).
var REBUILD = { void: 1, amend: 1, insert: 1, roster: 1, card: 1 };

function onTimeline(e) {
  var rule = ON_TIMELINE[e.type];
  return rule === true || (typeof rule === "string" && e[rule] !== null && e[rule] !== undefined);
}

/* A correction that changed a goal, in the server's words (pages.timeline, notice_words: D163, D164). */
function correctionItem(e) {
  var c = e.correction;
  var cls = "tl tl-correction tl-" + c.kind + (c.kind === "disallowed" || c.kind === "cancelled" ? " tl-struck" : "");
  return '<li class="' + cls + '" data-seq="' + e.seq + '"><span class="tl-time">' +
    (e.at_ms !== null && e.at_ms !== undefined ? mmss(e.at_ms) : "") + '</span><span class="tl-what"><span class="tl-who">⚽ ' + esc(V.event.goal) +
    " · " + esc(c.who) + '</span><b class="tl-fix">' + esc(c.text) + "</b>" +
    (c.reason_text ? '<small class="tl-reason">' + esc(c.reason_text) + "</small>" : "") + "</span></li>";
}

function item(e) {
  if (e.correction) return correctionItem(e);
  var name = function (t) { return esc(state.teams[t].name); };
  var what;
  if (e.type === "goal") {
    what = "⚽ " + esc(V.event.goal) + " · " + name(e.team) + (e.player !== null && e.player !== undefined ? " " + esc(player(e.team, e.player)) : "");
  } else if ((e.type === "card" || e.type === "foul") && e.second_yellow) {
    what = '<span class="card yellow"></span><span class="card red"></span>' + esc(T.second_yellow) + " · " + name(e.team) + " " + esc(player(e.team, e.player));
  } else if (e.type === "card" || e.type === "foul") {
    var color = e.color || e.card;
    what = '<span class="card ' + color + '"></span>' + esc(V.card[color]) + " · " + name(e.team) + " " + esc(player(e.team, e.player));
  } else if (e.type === "substitution") {
    what = "⇄ " + esc(V.event.substitution) + " · " + name(e.team) + ": " +
      (e.out !== null && e.out !== undefined ? esc(player(e.team, e.out)) + " → " : "") + esc(player(e.team, e["in"]));
  } else if (e.type === "shootout_kick") {
    what = esc(V.event.shootout_kick) + " · " + name(e.team) +
      (e.taker !== undefined ? " " + esc(player(e.team, e.taker)) + " · " + esc(fmt(T.points, { n: e.points })) : "") +
      " · " + esc(e.scored ? T.scored : T.missed);
  } else if (e.type === "period_start") {
    what = "▶ " + esc(halfWords(e.half, T.half_begins, T.half_started));
  } else if (e.type === "period_end") {
    what = "■ " + esc(halfWords(e.half, T.half_ends, T.half_ended));
  } else if (e.type === "abandon") {
    what = esc(V.phase.abandoned) + ": " + esc(e.reason);
  } else if (e.type === "reopen") {
    what = esc(V.event.reopen) + ": " + esc(e.reason);
  } else {
    what = esc(V.event[e.type] || e.type);
  }
  var cls = "tl tl-" + e.type + (e.type === "card" || e.type === "foul" ? " tl-" + (e.second_yellow ? "red tl-second" : e.color || e.card) : "") +
    (e.half ? " tl-half" : "");
  return '<li class="' + cls + '" data-seq="' + e.seq + '"' + (e.half ? ' data-half="' + e.half + '"' : "") + '><span class="tl-time">' +
    (e.at_ms !== null && e.at_ms !== undefined ? mmss(e.at_ms) : "") + '</span><span class="tl-what">' + what + "</span></li>";
}

/* "1st half begins": the half markers of the timeline. */
function halfWords(half, template, plain) {
  if (half !== 1 && half !== 2) return plain;
  return fmt(template, { half: V.phase[half === 1 ? "first_half" : "second_half"] });
}
/* Which half a period_start or period_end of the log begins or ends (counted in the list shown). */
function numberHalves(entries) {
  var half = 0;
  entries.forEach(function (e) {
    if (e.type === "period_start") half += 1;
    if (e.type === "period_start" || e.type === "period_end") e.half = half;
  });
}
function halvesShown() { return $("timeline").querySelectorAll('.tl-period_start').length; }

function draw() {
  var s = state;
  drawHeader(s);
  document.title = s.teams.home.name + " " + s.score.home + "–" + s.score.away + " " + s.teams.away.name;
  show("clock", !(s.phase === "scheduled" && data.starts));
  tick();
}
/* The clock, and whether it is paused (beside the clock and on top of the timeline). */
function tick() {
  if (isStale()) return; // stale data: the clock stops where it was (lib/connection.js says why)
  var s = state;
  setText("clock", clockText(s));
  var paused = isHalf(s) && !s.clock.running && !timeUp(s);
  $("clock").classList.toggle("paused", paused);
  show("paused", paused);
  show("tl-paused", paused);
  if (paused) setText("tl-paused-text", fmt(T.paused_at, { time: clockText(s) }));
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
  var list = $("timeline");
  if (REBUILD[e.type] || (e.type === "foul" && e.card)) {
    reload();
  } else if (e.type === "shootout_kick") {
    pendingKicks.push(e);
  } else if (onTimeline(e) && !list.querySelector('[data-seq="' + e.seq + '"]')) {
    if (e.type === "period_start") e.half = halvesShown() + 1;
    if (e.type === "period_end") e.half = halvesShown();
    list.insertAdjacentHTML("afterbegin", item(e));
  }
  show("timeline-empty", !list.children.length);
}

/* Events were missed (before joining, or while disconnected): rebuild the timeline from the log. */
var reloading = false, again = false;
function reload() {
  if (reloading) { again = true; return; } // asked while a fetch runs: fetch once more after it
  reloading = true;
  again = false;
  // In this page's language: a correction's words are the server's (D163).
  fetch("/matches/" + encodeURIComponent(data.match) + "/timeline.json?lang=" + encodeURIComponent(data.lang || ""))
    .then(function (r) { return r.ok ? r.json() : null; })
    .then(function (t) {
      if (!t) return;
      logSeq = Math.max(logSeq, t.seq);
      var shown = t.entries; // the server's timeline: corrections in place, second yellows marked (pages.timeline)
      numberHalves(shown);
      annotateKicks(shown.filter(function (e) { return e.type === "shootout_kick"; }), state);
      var html = shown.reverse().map(item).join("");
      setHtml("timeline", html);
      show("timeline-empty", !html);
    })
    .catch(function () {})
    .then(function () { reloading = false; if (again) reload(); });
}


connect(data.match, {
  state: function (s) {
    if (!newer(state, s)) return;
    state = s;
    if (pendingKicks.length) {
      annotateKicks(pendingKicks, s);
      pendingKicks.forEach(function (e) { $("timeline").insertAdjacentHTML("afterbegin", item(e)); });
      pendingKicks = [];
      show("timeline-empty", false);
    }
    if (s.seq > logSeq) reload();
    draw();
  },
  event: onEvent,
});
draw();
everyTenth(tick);
