/* The console page: its data (rendered by the server into #page-data, read once by common.js), the
 * live values the modules share, and the hooks main.js wires between them.
 *
 * common.js (a classic script, shared with the scoreboard and the phone page) has already run and
 * set window.Q: the clock that follows the server's, the words, the Socket.IO connection.
 */
export const Q = window.Q;
export const D = Q.data;
export const T = Q.T;
export const V = Q.V;
export const TEAMS = ["home", "away"];
export const role = D.role;
export const csrf = D.csrf; // the CSRF token of this tablet's role cookie (D54): the page never holds the token
export const matchId = D.match;

/* The calls this role may make (the event catalogue via pages.console_calls), by name. */
export const CALLS = {};
D.calls.forEach((c) => { CALLS[c.call] = c; });
export const allowed = new Set(D.allowed);

/* The match day's events (SPEC §9) this role may post: roster, amend, insert, note, confirm, sign. */
export const may = D.matchday || {};

export const live = {
  server: D.state, // the last state the server sent
  view: D.state, // what the page shows: the server's state, or the forecast while calls wait
  log: D.log.slice(),
  call: null, // the call being built (builder.js)
  fix: null, // a correction of the past being made (fix.js): {mode: "amend" | "insert", seq, entry}
  revoked: false, // this tablet's token was revoked: it sends nothing more (devices.js)
};

/* Set by main.js: submit(body) queues a call; redraw() draws the view again; stamp() is the game
 * time of a call made now (SPEC M1; undefined outside a half); floor() the earliest a call sent now
 * may be stamped (the last call of the half, the server's or still queued here). */
export const hooks = {
  submit: null,
  redraw: null,
  stamp: () => undefined,
  floor: () => 0,
  // The call builder's start(action, prefill) and cancel(keepFix): corrections (fix.js) open it with a
  // logged event's body without importing it (the builder itself uses fix.js).
  startCall: null,
  cancelCall: null,
};

export function other(t) { return t === "home" ? "away" : "home"; }
export function teamName(t) { return t ? D.names[t] : ""; }
export function isHalf(s) { return Q.isHalf(s); }

/* The shirt numbers of a team's roster now (late players included, SPEC M2), in order. */
export function rosterNumbers(ts) {
  const numbers = ts.players ? Object.keys(ts.players).map(Number) : ts.on_field.concat(ts.bench, ts.sent_off);
  return numbers.filter((n, i) => numbers.indexOf(n) === i).sort((a, b) => a - b);
}
