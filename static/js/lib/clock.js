/* A clock that follows the server's: every state carries server_time_ms, the server's clock when it was
 * made; the page keeps the best estimate of (server time - this device's monotonic time) and
 * extrapolates the game clock from the last state, so it ticks smoothly and never drifts. */
import { data } from "./page.js";

const samples = []; // [{at: local ms, offset: server - local}]
let delayMs = 0;

export function localNow() { return performance.timeOrigin + performance.now(); }

export function sample(serverMs, receivedAt) {
  const at = receivedAt || localNow();
  samples.push({ at: at, offset: serverMs - at });
  // Keep ten minutes: the best (largest) offset is the one with the least network delay; old samples
  // go, so a device clock that runs a little fast cannot hold a stale offset.
  while (samples.length > 1 && at - samples[0].at > 600000) samples.shift();
  if (samples.length > 200) samples.shift();
}

/* A stream overlay may run behind the server by `delay` (its stream's latency): every clock it shows is
 * the server's clock that long ago (scoreboard.js holds the states back as long). */
export function setDelay(ms) { delayMs = ms || 0; }
export function delay() { return delayMs; }

export function serverNow() {
  if (!samples.length) return Date.now() - delayMs;
  let best = -Infinity;
  for (const s of samples) best = Math.max(best, s.offset);
  return localNow() + best - delayMs;
}

/* The game clock of `state` now: elapsed ms, clamped to the period's length. */
export function elapsed(state) {
  const c = state.clock;
  if (!c) return 0;
  if (!c.running) return c.elapsed_ms;
  const e = c.elapsed_ms + Math.max(0, serverNow() - state.server_time_ms);
  return Math.min(e, c.length_ms);
}
export function isHalf(state) { return state.phase === "first_half" || state.phase === "second_half"; }
export function timeUp(state) {
  return state.time_up || (isHalf(state) && state.clock.running && elapsed(state) >= state.clock.length_ms);
}

export function mmss(ms) {
  if (ms === null || ms === undefined) return "--:--";
  let s = Math.max(0, Math.floor(ms / 1000));
  const m = Math.floor(s / 60);
  s = s % 60;
  return (m < 10 ? "0" : "") + m + ":" + (s < 10 ? "0" : "") + s;
}
function pad(n) { return (n < 10 ? "0" : "") + n; }
/* A wall-clock time in this device's time zone. */
export function hhmmss(ms) {
  const d = new Date(ms);
  return pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds());
}

/* The clock as the screens show it: a half counts up; half-time counts down. */
export function clockText(state) {
  if (state.phase === "halftime") return mmss(state.clock.length_ms - elapsed(state));
  if (isHalf(state)) return mmss(elapsed(state));
  return state.clock.elapsed_ms ? mmss(state.clock.elapsed_ms) : "00:00";
}
/* 7.2: 30 s to return to their halves after a goal, while the kickoff it gave is pending. */
export function returnLeft(state) {
  if (!state.return_countdown_ms || !state.restart || state.restart.type !== "kickoff") return 0;
  return Math.max(0, state.return_countdown_ms - Math.max(0, serverNow() - state.server_time_ms));
}
/* Accept a state only if it is not older than the one shown. */
export function newer(cur, s) {
  if (!cur) return true;
  if (s.seq !== cur.seq) return s.seq > cur.seq;
  return s.server_time_ms >= cur.server_time_ms;
}
/* Call fn ten times a second; fn draws only what changed. */
export function tick(fn) {
  fn();
  setInterval(fn, 100);
}

/* The first state came with the page: it was made when the response's first byte left the server. */
if (data.state && typeof performance !== "undefined") {
  const nav = performance.getEntriesByType && performance.getEntriesByType("navigation")[0];
  sample(data.state.server_time_ms, nav && nav.responseStart ? performance.timeOrigin + nav.responseStart : localNow());
}
