/* The big screen and the stream overlays: redraw from each `state`; the clock and countdowns tick
 * from the server's clock (lib/clock.js).
 *
 * - Text is fitted into the boxes of the grid (scoreboard.css): when a name, the info line or the
 *   shootout board would not fit, its font gets smaller, never its neighbours' room.
 * - The horn (lib/horn.js, Web Audio) sounds at time-up and at the end of the 30-s return (7.2),
 *   unless this device muted it (remembered).
 * - Overlays (?overlay=1, README "Stream overlays"): `delay` holds every update back by the stream's
 *   latency; goals and cards pop up for `popup` seconds. The big screen pops up goals (D165); both
 *   pop up a correction that took away, moved or gave a goal, in the server's words (D163).
 * - When the connection is lost the info line says so and the clock stops (lib/connection.js, markStale).
 */
import { T, V, data } from "./lib/page.js";
import { $, esc, fit, setText, show } from "./lib/dom.js";
import { clockText, isHalf, localNow, newer, delay, returnLeft as returnLeftOf, setDelay, tick as everyTenth, timeUp } from "./lib/clock.js";
import { player } from "./lib/players.js";
import { drawHeader } from "./lib/header.js";
import { connect, isStale, onStale } from "./lib/connection.js";
import * as airHorn from "./lib/horn.js";
import "./lib/offline.js";
var state = data.state;
var opts = data.overlay; // null on the big screen
var parts = {};
((opts && opts.parts) || []).forEach(function (p) { parts[p] = true; });
var soundOn = !opts || opts.sound;
if (opts) setDelay(opts.delay_ms || 0);

/* ---- fitting --------------------------------------------------------------------------- */
var fitted = ""; // the texts last fitted: fit again only when they change (or the window does)
export function fitAll(force) {
  var key = [state.teams.home.name, state.teams.away.name, $("restart").textContent, $("why").textContent,
    $("ma").textContent, $("info-line").offsetWidth, $("so-board").textContent, $("home-cards").innerHTML,
    $("away-cards").innerHTML, document.body.className, $("starts").textContent, $("so-next").textContent,
    window.innerWidth, window.innerHeight].join("|");
  var table = $("so-board").querySelector("table");
  // drawHeader redraws the board from each state (its innerHTML carries the fitted sizes): fit the new one.
  if (!force && key === fitted && (!table || table.fitted)) return;
  if (table) table.fitted = true;
  fitted = key;
  ["home-name", "away-name"].forEach(function (id) { fit($(id), 8); });
  if (opts) return; // overlay boxes follow their content; only names have a limit
  document.querySelectorAll(".score-row, .cards, .clock-box, .paused-slot, .phase, .info-line, .why, .so-title, .so-next, .follow")
    .forEach(function (n) { fit(n, 8); });
  fitShootout();
}
/* The board as a whole first, then each name within its cell (two lines at most, never cut). */
function fitShootout() {
  var wrap = $("so-board");
  if (!wrap || !wrap.getClientRects().length) return;
  var names = wrap.querySelectorAll(".so-name span");
  names.forEach(function (n) { n.style.fontSize = ""; n.style.height = ""; });
  fit(wrap, 8);
  names.forEach(function (n) {
    n.style.height = n.clientHeight + "px"; // the cell's box at the board's size, kept while fitting
    fit(n, 6);
  });
}
window.addEventListener("resize", function () { fitAll(true); });
if (document.fonts && document.fonts.ready) document.fonts.ready.then(function () { fitAll(true); });

/* ---- sound ----------------------------------------------------------------------------- */
var soundButton = $("sound");
function drawSound() {
  if (!soundButton) return;
  var muted = airHorn.muted();
  soundButton.hidden = false;
  soundButton.classList.toggle("off", muted || airHorn.blocked());
  setText(soundButton, muted ? T.sound_off : airHorn.blocked() ? T.sound_blocked : T.sound_on);
}
if (soundButton) {
  soundButton.addEventListener("click", function () {
    // A blocked context (no click yet on this page) is unblocked by this click, not muted.
    airHorn.setMuted(airHorn.blocked() ? false : !airHorn.muted());
    setTimeout(drawSound, 50);
    drawSound();
  });
  drawSound();
}
function horn() {
  if (soundOn && !isStale()) airHorn.play();
  drawSound();
}
var wasUp = timeUp(state) && isHalf(state);
var returnLeft = returnLeftOf(state);

/* ---- drawing --------------------------------------------------------------------------- */
function draw() {
  drawHeader(state);
  show("clock", !(state.phase === "scheduled" && data.starts));
  tick();
  fitAll();
}

function tick() {
  if (isStale()) return; // stale data: the clock stops where it was (lib/connection.js shows why)
  var s = state;
  setText("clock", clockText(s));
  var up = timeUp(s) && isHalf(s);
  $("clock").classList.toggle("up", up);
  var paused = isHalf(s) && !s.clock.running && !up;
  $("clock").classList.toggle("paused", paused);
  show("paused", paused); // not by colour alone
  if (up && !wasUp) {
    wasUp = true;
    horn(); // time up (3.1)
    draw(); // restart and possession are gone once time is up (10.2)
  }
  wasUp = up;
  var left = returnLeftOf(s);
  if (returnLeft > 0 && left === 0) horn(); // the 30 s to return are over, the kickoff still pending (7.2)
  returnLeft = left;
  show("return", left > 0);
  if (left > 0) setText("return-time", "0:" + ("0" + Math.ceil(left / 1000)).slice(-2));
}

function apply(s) {
  if (!newer(state, s)) return;
  state = s;
  // A new state re-anchors the countdown: the kickoff taken ends it without a horn.
  if (!(s.return_countdown_ms && s.restart && s.restart.type === "kickoff")) returnLeft = 0;
  if (resync) {
    // Back from a lost connection: the horn must not sound late for what was missed meanwhile.
    resync = false;
    wasUp = timeUp(s) && isHalf(s);
    returnLeft = returnLeftOf(s);
  }
  draw();
  if (pending) { popup(pending, s); pending = null; }
}

/* ---- pop-ups: a goal or a card, or a correction of a goal, with the score after it ------- */
// Overlays pop up goals and cards (unless hide=popups); the big screen pops up goals only, its cards
// are on the board (D165). Both say when a correction took away, moved or gave a goal (D163).
var popups = opts ? !!parts.popups : true;
var FIXES = { amend: 1, void: 1, insert: 1 };
var pending = null;
var popTimer = null;
function onEvent(e) {
  if (!popups) return;
  if (FIXES[e.type]) { fetchFix(e.seq); return; }
  if (e.type === "goal") pending = { kind: "goal", team: e.team, player: e.player };
  else if (opts && ((e.type === "card" && e.color) || (e.type === "foul" && e.card))) {
    pending = { kind: "card", color: e.color || e.card, team: e.team, player: e.player };
  }
  // Its state came first (a join answered just after the goal): pop it up with the state shown.
  if (pending && state && e.seq !== undefined && state.seq >= e.seq) { popup(pending, state); pending = null; }
}
/* The words of correction `seq` are the server's (pages.corrections, in this page's language): only a
 * correction that changed a goal is there; any other passes without a word. */
function fetchFix(seq) {
  fetch("/matches/" + encodeURIComponent(data.match) + "/timeline.json?lang=" + encodeURIComponent(data.lang || ""))
    .then(function (r) { return r.ok ? r.json() : null; })
    .then(function (t) {
      var c = t && (t.corrections || []).filter(function (x) { return x.seq === seq; })[0];
      if (!c) return;
      var p = { kind: "fix", fix: c, team: c.new_team || c.team };
      if (state.seq >= seq) popup(p, state); else pending = p;
    })
    .catch(function () {});
}
function popup(p, s) {
  var box = $("popup");
  if (!box) return;
  var logo = (data.logos || {})[p.team];
  var who = s.teams[p.team].name + (p.player !== null && p.player !== undefined ? " " + player(p.team, p.player) : "");
  var html = (!opts || parts.logos) && logo ? '<img class="pop-logo" alt="" src="' + esc(logo) + '">' : "";
  var score = '<span class="pop-score">' + s.score.home + "–" + s.score.away + "</span>";
  if (p.kind === "goal") {
    html += '<div class="pop-main"><span class="pop-title">' + esc(T.goal_popup) + '</span><span class="pop-who">' + esc(who) +
      "</span></div>" + score;
  } else if (p.kind === "fix") {
    html += '<div class="pop-main"><span class="pop-title">' + esc(p.fix.title) + "</span>" +
      (p.fix.detail ? '<span class="pop-detail">' + esc(p.fix.detail) + "</span>" : "") +
      '<span class="pop-who">' + esc(p.fix.who) + "</span></div>" + score;
  } else {
    html += '<span class="pop-card ' + p.color + '"></span><div class="pop-main"><span class="pop-title">' +
      esc(V.card[p.color]) + '</span><span class="pop-who">' + esc(who) + "</span></div>";
  }
  box.className = "popup pop-" + p.kind;
  box.style.setProperty("--pop", s.teams[p.team].color || "#fff");
  box.innerHTML = html;
  box.hidden = false;
  clearTimeout(popTimer);
  popTimer = setTimeout(function () {
    box.classList.add("leaving");
    popTimer = setTimeout(function () { box.hidden = true; box.classList.remove("leaving"); }, 400);
  }, (opts && opts.popup_ms) || 6000);
}

/* ---- updates, held back by the overlay's delay ------------------------------------------ */
var queue = [];
function later(fn, arg) {
  if (!delay()) return fn(arg);
  queue.push({ at: localNow() + delay(), fn: fn, arg: arg });
}
function release() {
  var now = localNow();
  while (queue.length && queue[0].at <= now) {
    var item = queue.shift();
    item.fn(item.arg);
  }
}

connect(data.match, {
  state: function (s) { later(apply, s); },
  event: function (e) { later(onEvent, e); },
  // A team's logo was uploaded or removed: the server lays the names out around it, so draw anew.
  logos: function () { location.reload(); },
});
var resync = false;
onStale(function (on) { if (!on) resync = true; });
draw();
fitAll(true);
document.body.setAttribute("data-ready", "1"); // fitted: what the browser tests wait for
everyTenth(function () { release(); tick(); });
