/* The console's live state, and its one owner: every other module reads it through `live` (read-only:
 * assigning to it throws) and changes it only through the setters below, which say what changes.
 *
 *   server   the last state the server sent (main.js, setServer)
 *   view     what the page shows: the server's state, or the forecast while calls wait (main.js, setView)
 *   log      the event log (log.js: setLog after a fetch, appendEntry for each live entry)
 *   call     the call being built (builder.js, setCall)
 *   fix      a correction of the past being made (fix.js, setFix): {mode: "amend" | "insert", seq, entry, …}
 *   revoked  this tablet's token was revoked: it sends nothing more (devices.js, setRevoked)
 *
 * redraw() asks for the page to be drawn again from the state; main.js is the one listener (onRedraw).
 */
import { data } from "../lib/page.js";

let server = data.state;
let view = data.state;
let log = data.log.slice();
let call = null;
let fix = null;
let revoked = false;

export const live = Object.freeze({
  get server() { return server; },
  get view() { return view; },
  get log() { return log; },
  get call() { return call; },
  get fix() { return fix; },
  get revoked() { return revoked; },
});

export function setServer(s) { server = s; }
export function setView(v) { view = v; }
export function setLog(entries) { log = entries; }
/* A new log entry; a void or an amend marks the entry it replaces (D8, M3). */
export function appendEntry(e) {
  log.push(e);
  if (e.type === "void" || e.type === "amend") log.forEach((x) => { if (x.seq === e.target) x.voided_by = e.seq; });
}
export function setCall(c) { call = c; }
export function setFix(f) { fix = f; }
export function setRevoked() { revoked = true; }

const redrawers = [];
export function onRedraw(fn) { redrawers.push(fn); }
export function redraw() { redrawers.forEach((fn) => fn()); }
