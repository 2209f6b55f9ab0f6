/* The officials' console: wiring the modules together.
 *
 *   page.js      the page's data (lib/ holds what every page shares: clock, words, connection, dom)
 *   state.js     the live state (server, view, log, call, fix, revoked): its one owner, with setters
 *   calls.js     making a call: its game time (M1), then the queue
 *   notices.js   the notices that tell the engine's decisions and refusals
 *   legal.js     reading the state's `legal` (what the engine allows now, and why not)
 *   queue.js     the offline queue: idempotency keys, in order, once
 *   forecast.js  what the page shows while calls wait (pure: Node tests it against the engine)
 *   builder.js   building a call: team, players, options, a tap on the field; its keys
 *   draw.js      the bar, the field's marks, the buttons, the shootout sheet, the rosters
 *   log.js       the event log, Undo, and the engine's answers to the calls sent
 *   fix.js       correcting the past: amend, insert, disallow a goal, with the server's preview (M3)
 *   roster.js    the roster editor: late players, names, shirt numbers (M2)
 *   notes.js     notes for the referee's report (M7)
 *   sheet.js     confirming the score, signing the sheet, the lock (M6)
 *   devices.js   this tablet's label, its queue reports, the referee's list of consoles, revocation
 *   leave.js     Back closes an open call; leaving with a half-built call or calls waiting asks first
 *
 * The server is the referee of the rules: the page greys what the state's `legal` refuses, shows the
 * engine's reason, and sends every call for the engine to rule on.
 */
import { $ } from "../lib/dom.js";
import { newer, sample, serverNow } from "../lib/clock.js";
import { setRoster } from "../lib/players.js";
import { connect } from "../lib/connection.js";
import "../lib/offline.js";
import { D, KEYS as CALL_KEYS, T, allowed, matchId } from "./page.js";
import { live, onRedraw, setServer, setView } from "./state.js";
import * as queue from "./queue.js";
import { forecast } from "./forecast.js";
import { refusalText, verdict } from "./legal.js";
import { submit } from "./calls.js";
import { key as builderKey, fallsThrough, start } from "./builder.js";
import { draw, netStatus, shootoutFirst, shootoutStartBody, tick } from "./draw.js";
import { addEntry, decided, drawLog, duplicate, refused, resyncLog, undo } from "./log.js";
import { notice } from "./notices.js";
import * as fix from "./fix.js";
import * as roster from "./roster.js";
import * as devices from "./devices.js";
import "./notes.js";
import * as horn from "./horn.js";
import { closeAll } from "./leave.js";

/* The server's state, then the forecast of the calls it does not have yet. */
function recompute() {
  const waiting = queue.pending(live.server.seq);
  setView(forecast(live.server, waiting, { now: serverNow(), rules: D.forecast }));
  draw();
  drawLog();
  devices.report(false);
}

function acceptState(s) {
  if (!s || !newer(live.server, s)) return;
  sample(s.server_time_ms);
  setRoster(s);
  setServer(s);
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
    roster.answered(body, false, refusalText(res.data) || T.refused);
  }
  if (outageOver) resync();
  recompute();
  startDeferred(); // after the answer's own notice: a greyed press is told why
}

/* A call button or its key: a new call, or while a correction chooses its call, that call (fix.js).
 * Issue 27.3: while the call just sent waits for its answer (online: a moment), the state has no `legal`;
 * the call pressed meanwhile opens once the answer is there, greyed or not as the new `legal` says. */
let deferred = null;
function awaitingAnswer() {
  return !live.fix && !live.view.legal && !live.revoked && queue.isOnline() && queue.load().length > 0;
}
function startCall(action) {
  if (live.fix) { fix.chooseCall(action); return; }
  if (awaitingAnswer()) { deferred = action; return; }
  deferred = null;
  start(action);
}
function startDeferred() {
  if (!deferred || awaitingAnswer()) return;
  const action = deferred;
  deferred = null;
  if (!live.call) startCall(action);
}

onRedraw(draw);

/* ---- buttons and keys ----------------------------------------------------------------------- */
document.querySelectorAll("[data-action]").forEach((b) => {
  b.addEventListener("click", (ev) => {
    b.blur();
    if (fallsThrough(ev)) return; // issue 27.3: a double tap's second tap, on the grid the builder uncovered
    startCall(b.getAttribute("data-action"));
  });
});
document.querySelectorAll("[data-first]").forEach((b) => {
  b.addEventListener("click", () => shootoutFirst(b.getAttribute("data-first")));
});
const soSend = $("so-start-send");
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
Object.keys(CALL_KEYS).forEach((a) => { if (allowed.has(a)) KEYS[CALL_KEYS[a].toLowerCase()] = a; });
document.addEventListener("keydown", (ev) => {
  const tag = (ev.target.tagName || "").toLowerCase();
  if (tag === "input" || tag === "select" || tag === "textarea") {
    if (ev.key === "Enter" && ev.target.id === "clock-input") startCall("set");
    if (ev.key === "Enter" && ev.target.id === "b-text") builderKey(ev);
    if (ev.key === "Escape") ev.target.blur();
    return;
  }
  if (document.querySelector("dialog[open]")) return; // a note or a signature is being written
  // A log entry or its menu's button, focused: Enter and Space are that button's (D182), not a call's key.
  if ((ev.key === "Enter" || ev.key === " ") && ev.target.closest && ev.target.closest("#log button")) return;
  if (ev.ctrlKey || ev.metaKey) {
    if (ev.key === "z") { ev.preventDefault(); undo(); }
    return;
  }
  if (live.call) { builderKey(ev); return; }
  const k = ev.key;
  if (k === "Escape" && live.fix) { closeAll(); return; }
  if (k === " ") {
    ev.preventDefault();
    if (allowed.has("clock")) startCall(live.view.clock.running || verdict(live.view, "pause", null).ok === true ? "pause" : "resume");
    return;
  }
  if (k === "q" && $("clock-input")) { ev.preventDefault(); $("clock-input").focus(); return; }
  const action = KEYS[k === "Enter" ? "enter" : k.toLowerCase()];
  if (action) { ev.preventDefault(); startCall(action); }
});

/* The horn's mute, remembered on this device (issue 13). */
const muteBtn = $("horn-mute");
function drawMute() {
  const on = horn.muted();
  muteBtn.setAttribute("aria-pressed", on ? "true" : "false");
}
muteBtn.addEventListener("click", () => { horn.setMuted(!horn.muted()); drawMute(); muteBtn.blur(); });
drawMute();

/* ---- live ---------------------------------------------------------------------------------------- */
/* A state from the room. A join's answer is a state without its entries: one newer than the log (a call
 * logged between this page's rendering and its join, or while it was away) means the log missed entries
 * and their marks (D344's struck): fetch it again. */
function liveState(s) {
  acceptState(s);
  const logged = live.log.length ? live.log[live.log.length - 1].seq : 0;
  if (s && s.seq > logged) resyncLog();
}

connect(matchId, {
  state: liveState,
  event: (e) => { queue.stored(e); addEntry(e); },
  status: (up) => { if (up) queue.pump(); netStatus(); },
  join: devices.joinData,
  revoked: devices.revoked,
});
queue.start({ answered: answered, changed: () => { recompute(); startDeferred(); }, revoked: devices.revoked });
devices.start();
recompute();
setInterval(tick, 100);
