/* The offline queue: every call gets an idempotency key (`id`) when it is made and waits in
 * localStorage; the calls are sent in order, one at a time; a call whose answer never came is sent
 * again with the same key, and the server stores it once (API.md "Idempotency").
 */
import { csrf, matchId, role } from "./page.js";

const KEY = "qalisball.queue." + matchId;
let inflight = null; // {id, storedSeq: its seq once its entry has arrived from the room, else null}
let pumping = false;
let online = navigator.onLine !== false;
let afterOutage = false; // a call went unanswered: others may have logged meanwhile
let halted = false; // the token was revoked: nothing more is sent; the calls stay on the tablet
let hooks = { answered() {}, changed() {}, revoked() {} };

export function load() {
  try { return JSON.parse(localStorage.getItem(KEY)) || []; } catch (e) { return []; }
}
function save(q) { localStorage.setItem(KEY, JSON.stringify(q)); }

function newId() {
  const b = new Uint8Array(9);
  crypto.getRandomValues(b); // crypto.randomUUID needs https; tablets on the field's LAN use http
  return role + "-" + Date.now().toString(36) + "-" + Array.from(b, (x) => ("0" + x.toString(16)).slice(-2)).join("");
}

export function isOnline() { return online; }
export function isHalted() { return halted; }
/* Stop sending for good (the token was revoked): waiting calls stay in localStorage, unsent. */
export function halt() { halted = true; hooks.changed(); }
export function isInflight(id) { return !!inflight && inflight.id === id; }

/* The waiting calls the server's state does not have yet (the one being sent is in a newer state). */
/* The calls the server's state at `serverSeq` does not hold yet. The one being sent is held once its own entry
 * has arrived (`stored`, by its idempotency key) and the state is that far: a state that is newer only because
 * another official logged something meanwhile does not hold it (its pause would otherwise vanish from the
 * forecast, and Space would pause a second time instead of resuming). */
export function pending(serverSeq) {
  return load().filter((b) => !(inflight && inflight.id === b.id && inflight.storedSeq !== null && serverSeq >= inflight.storedSeq));
}

/* A log entry arrived from the room: if it is the call being sent, the server has stored it at `e.seq`. */
export function stored(e) {
  if (inflight && e && e.id === inflight.id) inflight.storedSeq = e.seq;
}

export function add(body) {
  body.id = newId();
  const q = load();
  q.push(body);
  save(q);
  hooks.changed();
  pump();
}

/* The last call still waiting (not the one being sent): it can be taken back unsent. */
export function cancellable() {
  const q = load();
  const last = q[q.length - 1];
  return last && !isInflight(last.id) ? last : null;
}
export function takeBack(id) {
  if (isInflight(id)) return;
  save(load().filter((b) => b.id !== id));
  hooks.changed();
}

/* What goes to the server: the call without this tablet's own notes (keys starting with "_"). */
function wire(body) {
  const out = {};
  Object.keys(body).forEach((k) => { if (k[0] !== "_") out[k] = body[k]; });
  return out;
}

export function api(method, path, body) {
  return fetch("/api/matches/" + encodeURIComponent(matchId) + path, {
    method: method,
    headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf }, // the role's cookie goes by itself
    body: body ? JSON.stringify(body) : undefined,
    cache: "no-store",
  });
}

/* Send the first waiting call, then the next: one at a time, in order, each exactly once. */
export function pump() {
  if (pumping || halted) return;
  const q = load();
  if (!q.length) { hooks.changed(); return; }
  pumping = true;
  const body = q[0];
  inflight = { id: body.id, storedSeq: null };
  hooks.changed();
  api("POST", "/events", wire(body))
    .then((r) => {
      if (r.status >= 500) throw new Error("server " + r.status);
      return r.json().catch(() => ({})).then((data) => ({ status: r.status, data: data }));
    })
    .then((res) => {
      online = true;
      pumping = false;
      inflight = null;
      if (res.status === 401) {
        // The token no longer works (a new one was issued for this role): the call is not lost
        // as refused; it stays, unsent, and the console says why (devices.js).
        halted = true;
        hooks.revoked();
        hooks.changed();
        return;
      }
      save(load().filter((b) => b.id !== body.id));
      const wasOutage = afterOutage;
      if (!load().length) afterOutage = false;
      try {
        hooks.answered(body, res, wasOutage, !load().length && wasOutage);
      } catch (err) {
        if (window.console) console.error(err);
      }
      pump();
    }, () => {
      // No answer: the call may or may not have arrived. It stays first in the queue and goes again
      // with the same key; the server stores it once.
      pumping = false;
      inflight = null;
      online = false;
      afterOutage = true;
      hooks.changed();
    });
}

/* hooks: answered(body, {status, data}, sentAfterOutage, outageOver), changed(), revoked(). */
export function start(h) {
  hooks = h;
  setInterval(() => { if (load().length) pump(); }, 2000);
  window.addEventListener("online", () => { online = true; pump(); });
  window.addEventListener("offline", () => { online = false; hooks.changed(); });
  pump();
}
