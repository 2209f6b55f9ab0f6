/* Competition pages (public page and big screen): live scores and clocks, fresh standings.
 *
 * The server renders everything. This script joins the competition's Socket.IO room:
 * - `fixture` (a match's phase, score and clock) updates that fixture's score and clock in place;
 * - `competition` (results, standings or the bracket changed) fetches the page's live part again
 *   from the server (`<page>/part`) and swaps it in: one renderer, no second drawing in JavaScript.
 * Clocks tick from the server's clock (common.js), never the device's.
 * The organiser's page and the big screen import it and configure() what a refresh keeps and does after.
 */
import { T, V, data } from "./lib/page.js";
import { $, setText, show } from "./lib/dom.js";
import { clockText, hhmmss, sample, serverNow } from "./lib/clock.js";
import { fmt } from "./lib/words.js";
/* What the page importing this adds (competition_admin.js, competition_screen.js): partQuery() the extra
   query of a refresh; onRefresh() after a part was swapped in; onChanged() instead of a refresh when the
   competition changed elsewhere. */
var options = {};
export function configure(o) { options = Object.assign({}, options, o); }
var stale = false; // the connection is lost: the clocks stop (the #net line says why)
var lastUpdate = serverNow();
var body = $("live-body");
var live = {};
if (data.server_time_ms) sample(data.server_time_ms);

/* Which of two live snapshots of a fixture is the newer (its match's seq, else the server's time). */
function newer(a, b) {
  if (!b) return true;
  if (!a) return false;
  if (a.seq !== undefined && b.seq !== undefined && a.seq !== b.seq) return a.seq > b.seq;
  return (a.server_time_ms || 0) >= (b.server_time_ms || 0);
}
/* The server-rendered part's live data, merged with what the socket said meanwhile: a part fetched just
   before a goal must not put the score back (the newer snapshot wins), and every fixture is drawn again. */
function readLive() {
  var el = body && body.querySelector(".live-data");
  var fresh = el ? JSON.parse(el.textContent) : {};
  Object.keys(fresh).forEach(function (fid) {
    if (newer(fresh[fid], live[fid])) live[fid] = fresh[fid];
    if (live[fid] && live[fid].server_time_ms) sample(live[fid].server_time_ms);
  });
  Object.keys(live).forEach(drawFixture);
}

function clockOf(l) {
  if (!l || !l.clock) return "";
  if (l.phase === "first_half" || l.phase === "second_half" || l.phase === "halftime") {
    return clockText({ phase: l.phase, clock: l.clock, server_time_ms: l.server_time_ms, time_up: l.time_up });
  }
  return "";
}

function drawFixture(fid) {
  var l = live[fid];
  if (!l) return;
  document.querySelectorAll('[data-score="' + fid + '"] .fx-score').forEach(function (n) {
    if (n.getAttribute("data-final")) return;
    if (l.phase !== "scheduled") {
      n.classList.remove("fx-vs");
      setText(n, l.score.home + "–" + l.score.away);
    }
  });
  document.querySelectorAll('[data-fixture="' + fid + '"] .fx-phase').forEach(function (n) {
    setText(n, (V.phase || {})[l.phase] || l.phase);
  });
  document.querySelectorAll('[data-fixture="' + fid + '"] .b-goals').forEach(function (n, i) {
    if (l.phase !== "scheduled") setText(n, i === 0 ? l.score.home : l.score.away);
  });
}

function tick() {
  if (stale) return; // stale data: the clocks stop where they were (the #net line says why)
  document.querySelectorAll("[data-clock]").forEach(function (n) {
    setText(n, clockOf(live[n.getAttribute("data-clock")]));
  });
}

var pending = false;
var again = false;
var SPREAD_MS = 1500;
var spreading = false;
export function refresh() {
  if (!body) return;
  if (pending) { again = true; return; } // asked while a fetch runs: fetch once more after it
  pending = true;
  again = false;
  var url = location.pathname.replace(/\/$/, "") + "/part" + location.search;
  var extra = options.partQuery ? options.partQuery() : ""; // the organiser's page: which panels to render open
  if (extra) url += (location.search ? "&" : "?") + extra;
  fetch(url, { credentials: "same-origin" })
    .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
    .then(function (html) {
      body.innerHTML = html;
      readLive();
      tick();
      if (options.onRefresh) options.onRefresh();
    })
    .catch(function () {})
    .then(function () {
      pending = false;
      if (again) refresh();
    });
}

function connect() {
  if (typeof io !== "function") return;
  var socket = io({ reconnectionDelayMax: 4000 });
  var joinedBefore = false;
  function join() { socket.emit("join_competition", { competition: data.competition }); }
  socket.on("connect", function () {
    show("net", false);
    join();
  });
  // A lost connection is said with the time of the last update (issue 13), and the clocks stop.
  function lost() {
    stale = true;
    if (T.connection_lost) setText("net", fmt(T.connection_lost, { time: hhmmss(lastUpdate) }));
    show("net", true);
  }
  socket.on("disconnect", lost);
  socket.on("connect_error", lost);
  socket.onAny(function () {
    lastUpdate = serverNow();
    if (stale) { stale = false; show("net", false); }
  });
  socket.on("fixture", function (msg) {
    if (!msg || !msg.live) return;
    if (msg.live.server_time_ms) sample(msg.live.server_time_ms);
    if (newer(msg.live, live[msg.fixture])) live[msg.fixture] = msg.live;
    drawFixture(msg.fixture);
  });
  socket.on("competition", function () {
    // The answer to our own join is the page we have: fetch again only after a reconnection.
    if (!joinedBefore) { joinedBefore = true; return; }
    if (options.onChanged) { options.onChanged(); return; }
    // Every open page hears the same message: spread their fetches over SPREAD_MS (D253; the server
    // renders the part once for all of them), and ask once for several messages meanwhile.
    if (spreading) return;
    spreading = true;
    setTimeout(function () { spreading = false; refresh(); }, Math.random() * SPREAD_MS);
  });
}

readLive();
tick();
setInterval(tick, 500);
connect();
