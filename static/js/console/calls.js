/* Making a call: the game clock it was made at (SPEC M1), then the queue. Every module that makes a call
 * (the builder, Undo, the roster editor, notes, the score sheet, corrections) submits it here. */
import { elapsed, isHalf } from "../lib/clock.js";
import { live } from "./state.js";
import * as queue from "./queue.js";
import * as devices from "./devices.js";
import { hideNotice } from "./notices.js";

// Not stamped with the game clock: corrections carry their event's own time (or none), and the score
// sheet's confirmation and signatures are judged when received (SPEC M1, M3, M6).
const UNSTAMPED = new Set(["void", "amend", "insert", "confirm", "sign", "reopen"]);

/* SPEC M1: the game time of a call made now, as this tablet's clock shows it at the tap — never
 * later than the clock, never earlier than the last call of the half (the server's `last_at_ms`,
 * moved on by the calls still waiting in the queue: a clock set, a new half, their own stamps). */
export function stampOf(view, server, waiting) {
  if (!isHalf(view)) return undefined;
  const clock = Math.min(Math.round(elapsed(view)), view.clock.length_ms);
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
/* The game time of a call made now (undefined outside a half). */
export function stampNow() { return stampOf(live.view, live.server, queue.load()); }
/* The earliest a call sent now may be stamped (the last call of the half, the server's or still queued here). */
export function floorNow() { return floorOf(live.server, queue.load()); }

export function submit(body) {
  if (live.revoked) { devices.revoked(); return; }
  if (body.at_ms === undefined && !UNSTAMPED.has(body.type)) {
    const at = stampNow();
    if (at !== undefined) body.at_ms = at;
  }
  // The half it was stamped in (this tablet's own note, never sent): a call refused citing M1 is offered as
  // a missed call only in the half it belongs to (log.js).
  if (body.at_ms !== undefined && body._period === undefined) body._period = live.view.period;
  hideNotice();
  queue.add(body);
}
