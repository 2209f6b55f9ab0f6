/* The officials' console: wiring the modules together.
 *
 *   page.js      the page's data and the live values the modules share
 *   legal.js     reading the state's `legal` (what the engine allows now, and why not)
 *   queue.js     the offline queue: idempotency keys, in order, once
 *   forecast.js  what the page shows while calls wait (pure: Node tests it against the engine)
 *   builder.js   building a call: team, players, options, a tap on the field; its keys
 *   draw.js      the bar, the field's marks, the buttons, the shootout sheet, the rosters
 *   log.js       the event log, Undo, and the notices (decisions and refusals)
 *   fix.js       correcting the past: amend, insert, disallow a goal, with the server's preview (M3)
 *   roster.js    the roster editor: late players, names, shirt numbers (M2)
 *   notes.js     notes for the referee's report (M7)
 *   sheet.js     confirming the score, signing the sheet, the lock (M6)
 *   devices.js   this tablet's label, its queue reports, the referee's list of consoles, revocation
 *
 * The server is the referee of the rules: the page greys what the state's `legal` refuses, shows the
 * engine's reason, and sends every call for the engine to rule on.
 */
import { D, Q, T, allowed, hooks, live, matchId } from "./page.js";
import * as queue from "./queue.js";
import { forecast } from "./forecast.js";
import { verdict } from "./legal.js";
import { cancel as builderCancel, key as builderKey, start } from "./builder.js";
import { draw, netStatus, shootoutFirst, shootoutStartBody, tick } from "./draw.js";
import { addEntry, decided, drawLog, duplicate, hideNotice, notice, refused, resyncLog, undo } from "./log.js";
import * as fix from "./fix.js";
import * as roster from "./roster.js";
import * as devices from "./devices.js";
import "./notes.js";
import * as horn from "./horn.js";

// Not stamped with the game clock: corrections carry their event's own time (or none), and the score
// sheet's confirmation and signatures are judged when received (SPEC M1, M3, M6).
const UNSTAMPED = new Set(["void", "amend", "insert", "confirm", "sign", "reopen"]);

/* SPEC M1: the game time of a call made now, as this tablet's clock shows it at the tap — never
 * later than the clock, never earlier than the last call of the half (the server's `last_at_ms`,
 * moved on by the calls still waiting in the queue: a clock set, a new half, their own stamps). */
export function stampOf(view, server, waiting) {
  if (!Q.isHalf(view)) return undefined;
  const clock = Math.min(Math.round(Q.elapsed(view)), view.clock.length_ms);
  return Math.max(floorOf(server, waiting), clock);
}
export function floorOf(server, waiting) {
  let floor = server.last_at_ms || 0;
  waiting.forEach((b) => {
    if (b.type === "period_start") floor = 0;
    else if (b.type === "clock" && b.action === "set") floor = b.elapsed_ms;
    else if (typeof b.at_ms === "number") floor = Math.max(floor, b.at_ms);
  });
  return floor;
}

/* A call made: the game clock it was made at (SPEC M1), then the queue. */
function submit(body) {
  if (live.revoked) { devices.revoked(); return; }
  if (body.at_ms === undefined && !UNSTAMPED.has(body.type)) {
    const at = stampOf(live.view, live.server, queue.load());
    if (at !== undefined) body.at_ms = at;
  }
  // The half it was stamped in (this tablet's own note, never sent): a call refused citing M1 is offered as
  // a missed call only in the half it belongs to (log.js).
  if (body.at_ms !== undefined && body._period === undefined) body._period = live.view.period;
  hideNotice();
  queue.add(body);
}

/* The server's state, then the forecast of the calls it does not have yet. */
function recompute() {
  const waiting = queue.pending(live.server.seq);
  live.view = forecast(live.server, waiting, { now: Q.serverNow(), half_ms: D.half_ms, halftime_ms: D.halftime_ms });
  draw();
  drawLog();
  devices.report(false);
}

function acceptState(s) {
  if (!s || !Q.newer(live.server, s)) return;
  Q.sample(s.server_time_ms);
  Q.setRoster(s);
  live.server = s;
  recompute();
  fix.refresh();
}

/* After an outage: fetch what others logged meanwhile. */
function resync() {
  queue.api("GET", "").then((r) => r.json()).then(acceptState).catch(() => {});
  resyncLog();
}

function answered(body, res, sentAfterOutage, outageOver) {
  if ((res.status === 200 || res.status === 201) && res.data && res.data.duplicate_of) {
    acceptState(res.data.state);
    duplicate(body, res.data); // SPEC M4: another official logged it first: not an error
  } else if (res.status === 200 || res.status === 201) {
    acceptState(res.data.state);
    decided(body, res.data.state, res.data.seq);
    roster.answered(body, true, "");
  } else {
    refused(res.data, body, sentAfterOutage);
    roster.answered(body, false, (res.data && res.data.message) || T.refused);
  }
  if (outageOver) resync();
  recompute();
}

hooks.submit = submit;
hooks.startCall = start;
hooks.cancelCall = builderCancel;
hooks.redraw = draw;
hooks.stamp = () => stampOf(live.view, live.server, queue.load());
hooks.floor = () => floorOf(live.server, queue.load());

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
  if (document.querySelector("dialog[open]")) return; // a note or a signature is being written
  if (ev.ctrlKey || ev.metaKey) {
    if (ev.key === "z") { ev.preventDefault(); undo(); }
    return;
  }
  if (live.call) { builderKey(ev); return; }
  const k = ev.key;
  if (k === "Escape" && live.fix) { fix.end(); return; }
  if (k === " ") {
    ev.preventDefault();
    if (allowed.has("clock")) start(live.view.clock.running || verdict(live.view, "pause", null).ok === true ? "pause" : "resume");
    return;
  }
  if (k === "q" && Q.$("clock-input")) { ev.preventDefault(); Q.$("clock-input").focus(); return; }
  const action = KEYS[k === "Enter" ? "enter" : k.toLowerCase()];
  if (action) { ev.preventDefault(); start(action); }
});

/* The horn's mute, remembered on this device (issue 13). */
const muteBtn = Q.$("horn-mute");
function drawMute() {
  const on = horn.muted();
  muteBtn.setAttribute("aria-pressed", on ? "true" : "false");
}
muteBtn.addEventListener("click", () => { horn.setMuted(!horn.muted()); drawMute(); muteBtn.blur(); });
drawMute();

/* ---- live ---------------------------------------------------------------------------------------- */
Q.connect(matchId, {
  state: acceptState,
  event: addEntry,
  status: (up) => { if (up) queue.pump(); netStatus(); },
  join: devices.joinData,
  revoked: devices.revoked,
});
queue.start({ answered: answered, changed: recompute, serverSeq: () => live.server.seq, revoked: devices.revoked });
devices.start();
recompute();
setInterval(tick, 100);
