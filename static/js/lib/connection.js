/* The live connection of a match page, and a stale screen saying so.
 *
 * connect(matchId, handlers) joins the match's room with `updates`: one `update` message per change, the
 * entry and the whole state or a patch of the one before (docs/api-extras.md "One message per change");
 * it re-joins on reconnect and every 30 s (a fresh state re-anchors the clock). It calls
 * handlers.state(state), handlers.event(entry) (each entry once, in order), handlers.status(connected),
 * handlers.logos(); an official's console adds handlers.join() (what its join carries besides: its CSRF
 * token, device label, queue size: the server finds the cookie it unlocks and the state then carries
 * `legal`) and handlers.revoked(role) (its token no longer works: API.md "Match day", Devices). An
 * official's connection says so in its URL, which a cluster's proxy uses to send officials to the writer
 * process (docs/deploy.md). It returns {socket, rejoin}.
 *
 * Every public screen has a #conn line: "connection lost — last update hh:mm:ss" (the server's clock of
 * the last state, in this device's time zone). While stale, body.stale stops the screens' clocks (they
 * must not tick as if live); the next state clears it.
 */
import { data, T } from "./page.js";
import { $, setText } from "./dom.js";
import { hhmmss, localNow, sample } from "./clock.js";
import { setRoster } from "./players.js";
import { clone, patched } from "./patch.js";
import { fmt } from "./words.js";

/* ---- a stale screen says so ------------------------------------------------------------------------ */
let stale = false;
let lastUpdate = data.state ? data.state.server_time_ms : data.server_time_ms || Date.now();
const staleListeners = [];

export function isStale() { return stale; }
/* When the data shown was last fresh (ms, the server's clock or this device's). */
export function setLastUpdate(ms) { lastUpdate = ms; }
/* fn(on) whenever the page turns stale or fresh again. */
export function onStale(fn) { staleListeners.push(fn); }

export function markStale(on) {
  on = !!on;
  const n = $("conn");
  if (!n) return; // a page without the line (the console) shows its connection its own way
  if (on) setText(n, fmt(T.connection_lost || "connection lost \u2014 last update {time}", { time: hhmmss(lastUpdate) }));
  if (on === stale) return;
  stale = on;
  if (document.body) document.body.classList.toggle("stale", on);
  n.hidden = !on;
  staleListeners.forEach((fn) => fn(on));
}

/* ---- the match's room ------------------------------------------------------------------------------ */
let current = null; // {socket, rejoin} of this page's connection

/* Whether this page's connection is up. */
export function connected() { return !!(current && current.socket.connected); }
/* Whether this page has a connection that is down (Socket.IO is trying again). */
export function reconnecting() { return !!current && !current.socket.connected; }
/* Join again now: the answer is the whole state. */
export function rejoin() { if (current) current.rejoin(); }
/* A message to the server on this page's connection (Socket.IO sends it once connected). */
export function send(name, payload) { if (current) current.socket.emit(name, payload); }

export function connect(matchId, handlers) {
  if (typeof io !== "function") return null;
  // An official's connection proves its role when it connects (D244): the CSRF token of its role cookie.
  // Refused (D296: a role cookie revoked since the page was rendered, or an address throttled), it connects
  // again as anyone's: the page follows the match as a spectator's would, and a revoked role says so (D158).
  const official = data.role && data.csrf;
  let socket = null;
  function open(asOfficial) {
    if (socket) { socket.removeAllListeners(); socket.close(); }
    socket = io(asOfficial
      ? { reconnectionDelayMax: 4000, query: { official: 1 }, auth: { csrf: data.csrf }, forceNew: true }
      : { reconnectionDelayMax: 4000, forceNew: true });
    wire(socket);
    if (asOfficial) {
      socket.on("connect_error", (err) => {
        if (socket.active) return; // a network error: Socket.IO tries again by itself
        open(false); // refused by the server: watch as anyone
        if (current) current.socket = socket;
        if (err && err.message === "unauthorized" && handlers.revoked) handlers.revoked(null);
      });
    }
    return socket;
  }
  let last = null; // the last whole state received, kept apart from what the page may change
  // The last log entry handed to handlers.event (each one once, in order): the page was rendered with
  // every entry up to its own state's.
  let eventSeq = (data.state && data.state.seq) || 0;
  function gotEvent(e) {
    if (!e || !handlers.event || (e.seq !== undefined && e.seq <= eventSeq)) return;
    if (e.seq !== undefined) eventSeq = e.seq;
    handlers.event(e);
  }
  let heard = localNow(); // when the server last said anything
  function join() {
    const extra = handlers.join ? handlers.join() : {};
    socket.emit("join", Object.assign({ match: matchId, updates: true }, extra || {}));
  }
  function gotState(s) {
    heard = localNow();
    last = clone(s);
    sample(s.server_time_ms);
    lastUpdate = s.server_time_ms;
    markStale(false);
    document.body.dataset.live = "1"; // the server has answered on this connection (the browser tests wait for it)
    setRoster(s);
    if (handlers.state) handlers.state(s);
  }
  function wire(socket) {
    socket.on("connect", () => { join(); if (handlers.status) handlers.status(true); });
    socket.on("disconnect", () => {
      delete document.body.dataset.live;
      markStale(true);
      if (handlers.status) handlers.status(false);
    });
    socket.on("connect_error", () => { markStale(true); });
    socket.on("state", gotState);
    socket.on("event", (e) => { heard = localNow(); gotEvent(e); });
    socket.on("update", (u) => {
      heard = localNow();
      // A join's answer can overtake the update: its state is already shown, but its event (a goal's
      // pop-up) is still news.
      gotEvent(u.event);
      if (last && u.seq <= last.seq) return;
      const s = u.state || (last && last.seq === u.base ? patched(last, u.patch) : null);
      if (s) gotState(s);
      else if (!last || u.seq > last.seq) join(); // a change was missed: joining again answers the whole state
    });
    socket.on("token_revoked", (d) => { if (handlers.revoked) handlers.revoked(d && d.role); });
    socket.on("logos", (d) => { if (handlers.logos) handlers.logos(d); }); // a team's logo changed
    socket.on("error", (d) => {
      if (d && d.error === "unauthorized" && handlers.revoked) handlers.revoked(null);
    });
  }
  open(!!official);
  setInterval(() => { if (socket.connected) join(); }, 30000);
  // A connection that stays open while the server says nothing (a hung server, a half-open link): the
  // re-join above is answered every 30 s, so 45 s of silence means the data is stale.
  setInterval(() => { if (localNow() - heard > 45000) markStale(true); }, 1000);
  current = { socket: socket, rejoin: join };
  return current;
}
