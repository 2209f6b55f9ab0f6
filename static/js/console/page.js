/* The console page's data (rendered by the server into #page-data, lib/page.js) and what follows from it:
 * the calls this role may make, its match-day rights, the team names. Nothing here changes; the live
 * state is state.js's. */
import { data, T, V } from "../lib/page.js";
import { consoleCatalogue } from "../lib/catalogue.js";

export { T, V };
export const D = data;
export const TEAMS = ["home", "away"];
export const role = D.role;
export const csrf = D.csrf; // the CSRF token of this tablet's role cookie (D54): the page never holds the token
export const matchId = D.match;

/* What this role takes from the event catalogue the page embeds (GET /api/catalogue's answer, issue 23). */
const K = consoleCatalogue(D.catalogue, role, D.rule_set, D.lang);
/* The calls this role may make, by name, and the calls' keys (call → letter). */
export const CALLS = {};
K.calls.forEach((c) => { CALLS[c.call] = c; });
export const allowed = new Set(K.allowed);
export const KEYS = K.keys;
/* The field that names a type's variant, which is the call (a violation's `kind`, a card's `color`…). */
export const VARIANT_FIELD = K.variantField;

/* The match day's events (SPEC §9) this role may post: roster, amend, insert, note, confirm, sign. */
export const may = K.may;
/* The event types Undo never offers (M6), the misconduct codes (M7) and the notes' codes, in words. */
export const NOT_UNDOABLE = K.notUndoable;
export const CODES = K.codes;
export const NOTE_CODES = K.noteCodes;

export function other(t) { return t === "home" ? "away" : "home"; }
export function teamName(t) { return t ? D.names[t] : ""; }

/* The shirt numbers of a team's roster now (late players included, SPEC M2), in order. */
export function rosterNumbers(ts) {
  const numbers = ts.players ? Object.keys(ts.players).map(Number) : ts.on_field.concat(ts.bench, ts.sent_off);
  return numbers.filter((n, i) => numbers.indexOf(n) === i).sort((a, b) => a - b);
}
