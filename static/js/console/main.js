/* The officials' console: wiring the modules together.
 *
 *   page.js      the page's data and the live values the modules share
 *   legal.js     reading the state's `legal` (what the engine allows now, and why not)
 *   queue.js     the offline queue: idempotency keys, in order, once
 *   forecast.js  what the page shows while calls wait (pure: Node tests it against the engine)
 *   builder.js   building a call: team, players, options, a tap on the field; its keys
 *   draw.js      the bar, the field's marks, the buttons, the shootout sheet, the rosters
 *   log.js       the event log, Undo, and the notices (decisions and refusals)
 *
 * The server is the referee of the rules: the page greys what the state's `legal` refuses, shows the
 * engine's reason, and sends every call for the engine to rule on.
 */
import { D, Q, T, allowed, hooks, live, matchId, token } from "./page.js";
import * as queue from "./queue.js";
import { forecast } from "./forecast.js";
import { verdict } from "./legal.js";
import { key as builderKey, start } from "./builder.js";
import { draw, netStatus, shootoutFirst, shootoutStartBody, tick } from "./draw.js";
import { addEntry, decided, drawLog, hideNotice, notice, refused, resyncLog, undo } from "./log.js";

localStorage.setItem("qalisball.token." + matchId, token); // this tablet's role, for a link without one

/* A call made: the game clock it was made at (SPEC D8), then the queue. */
function submit(body) {
  if (Q.isHalf(live.view) && body.at_ms === undefined) body.at_ms = Math.round(Q.elapsed(live.view));
  hideNotice();
  queue.add(body);
}

/* The server's state, then the forecast of the calls it does not have yet. */
function recompute() {
  const waiting = queue.pending(live.server.seq);
  live.view = forecast(live.server, waiting, { now: Q.serverNow(), half_ms: D.half_ms, halftime_ms: D.halftime_ms });
  draw();
  drawLog();
}

function acceptState(s) {
  if (!s || !Q.newer(live.server, s)) return;
  Q.sample(s.server_time_ms);
  live.server = s;
  recompute();
}

/* After an outage: fetch what others logged meanwhile. */
function resync() {
  queue.api("GET", "").then((r) => r.json()).then(acceptState).catch(() => {});
  resyncLog();
}

function answered(body, res, sentAfterOutage, outageOver) {
  if (res.status === 200 || res.status === 201) {
    acceptState(res.data.state);
    decided(body, res.data.state);
  } else {
    refused(res.data, body, sentAfterOutage);
  }
  if (outageOver) resync();
  recompute();
}

hooks.submit = submit;
hooks.redraw = draw;

/* ---- buttons and keys ----------------------------------------------------------------------- */
document.querySelectorAll("[data-action]").forEach((b) => {
  b.addEventListener("click", () => { b.blur(); start(b.getAttribute("data-action")); });
});
document.querySelectorAll("[data-first]").forEach((b) => {
  b.addEventListener("click", () => shootoutFirst(b.getAttribute("data-first")));
});
const soSend = Q.$("so-start-send");
if (soSend) soSend.addEventListener("click", () => {
  const body = shootoutStartBody();
  if (!body) { notice({ kind: "hint", msg: T.choose_team }); return; }
  submit(body);
});
document.querySelectorAll("[data-kick]").forEach((b) => {
  b.addEventListener("click", () => {
    const n = live.view.shootout && live.view.shootout.next;
    if (n && !live.view.ruling) submit({ type: "shootout_kick", team: n.team, scored: b.getAttribute("data-kick") === "1" });
  });
});

const KEYS = {};
Object.keys(D.keys).forEach((a) => { if (allowed.has(a)) KEYS[D.keys[a].toLowerCase()] = a; });
document.addEventListener("keydown", (ev) => {
  const tag = (ev.target.tagName || "").toLowerCase();
  if (tag === "input" || tag === "select" || tag === "textarea") {
    if (ev.key === "Enter" && ev.target.id === "clock-input") start("set");
    if (ev.key === "Enter" && ev.target.id === "b-text") builderKey(ev);
    if (ev.key === "Escape") ev.target.blur();
    return;
  }
  if (ev.ctrlKey || ev.metaKey) {
    if (ev.key === "z") { ev.preventDefault(); undo(); }
    return;
  }
  if (live.call) { builderKey(ev); return; }
  const k = ev.key;
  if (k === " ") {
    ev.preventDefault();
    if (allowed.has("clock")) start(live.view.clock.running || verdict(live.view, "pause", null).ok === true ? "pause" : "resume");
    return;
  }
  if (k === "q" && Q.$("clock-input")) { ev.preventDefault(); Q.$("clock-input").focus(); return; }
  const action = KEYS[k === "Enter" ? "enter" : k.toLowerCase()];
  if (action) { ev.preventDefault(); start(action); }
});

/* ---- live ---------------------------------------------------------------------------------------- */
Q.connect(matchId, {
  state: acceptState,
  event: addEntry,
  status: (up) => { if (up) queue.pump(); netStatus(); },
});
queue.start({ answered: answered, changed: recompute, serverSeq: () => live.server.seq });
recompute();
setInterval(tick, 100);
