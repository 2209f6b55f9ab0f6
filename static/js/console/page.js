/* The console page's data (rendered by the server into #page-data, lib/page.js) and what follows from it:
 * the calls this role may make, its match-day rights, the team names. Nothing here changes; the live
 * state is state.js's. */
import { data, T, V } from "../lib/page.js";

export { T, V };
export const D = data;
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

export function other(t) { return t === "home" ? "away" : "home"; }
export function teamName(t) { return t ? D.names[t] : ""; }

/* The shirt numbers of a team's roster now (late players included, SPEC M2), in order. */
export function rosterNumbers(ts) {
  const numbers = ts.players ? Object.keys(ts.players).map(Number) : ts.on_field.concat(ts.bench, ts.sent_off);
  return numbers.filter((n, i) => numbers.indexOf(n) === i).sort((a, b) => a - b);
}
