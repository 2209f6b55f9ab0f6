/* Log entries in words, and what they stand for: shared by the log, corrections (fix.js), notes and the
 * score sheet, below all of them (no module here imports one that draws). */
import { mmss } from "../lib/clock.js";
import { player } from "../lib/players.js";
import { fmt } from "../lib/words.js";
import { CALLS, CODES, NOTE_CODES, T, V, VARIANT_FIELD, other, teamName } from "./page.js";
import { live } from "./state.js";

/* A call or log entry in words: "Goal, home #7 Li". `second`: this yellow is the player's second
 * (SPEC M8: shown as what it is, a sending-off). */
export function describe(e, second) {
  const t = e.team, S = T.sep, C = T.colon;
  const who = t ? teamName(t) + (e.player !== null && e.player !== undefined ? " " + player(t, e.player) : "") : "";
  const why = e.reason && typeof e.reason === "object" ? reasonWords(e.reason) : "";
  switch (e.type) {
    case "violation": return V.violation[e.kind] + S + who;
    case "foul":
      return V.event.foul + S + who + (e.where && e.where !== "field" ? S + V.where[e.where] : "") +
        (e.on_official ? S + T.on_official : "") + (e.card ? " + " + (second ? T.second_yellow : V.card[e.card]) : "") + (why ? S + why : "");
    case "card": return (second ? T.second_yellow : V.card[e.color]) + S + who + (why ? S + why : "");
    case "amend": return fmt(T.log_amend, { seq: e.target, what: describe(e.event, second) });
    case "insert": return fmt(T.log_insert, { seq: e.after, what: describe(e.event, second) });
    case "note": return V.event.note + C + (e.code ? codeLabel(e.code) + S : "") + e.text +
      (who ? " (" + who + ")" : "") + (e.about ? " → #" + e.about : "");
    case "roster": return V.event.roster + C + rosterWords(e);
    case "confirm": return fmt(T.log_confirm, { period: periodName(e.period) });
    case "sign": return fmt(T.log_sign, { who: signerName(e.as), name: e.name });
    case "reopen": return V.event.reopen + C + e.reason;
    case "substitution":
      return V.event.substitution + S + teamName(t) + C + (e.out === null || e.out === undefined
        ? fmt(T.sub_line_nobody, { in: e.in }) : fmt(T.sub_line, { out: e.out, in: e.in }));
    case "clock": return V.event.clock + C + V.clock[e.action] + (e.action === "set" ? " " + mmss(e.elapsed_ms) : "");
    case "coin_toss": return V.event.coin_toss + C + fmt(T.kicks_off, { team: teamName(e.kickoff) }) + S + fmt(T.defends, { team: teamName("home"), end: T["end_" + e.home_end] });
    case "catch": return V.event.catch + S + who + (e.caught !== null && e.caught !== undefined ? " → " + player(other(t), e.caught) : "");
    case "shootout_kick": return V.event.shootout_kick + S + teamName(t) + C + (e.scored ? T.scored : T.missed);
    case "shootout_start": return V.event.shootout_start + C + teamName(e.first);
    case "void": return fmt(T.undone, { what: voidedWhat(e.target) });
    case "abandon": return V.event.abandon + C + e.reason;
    default: return (V.event[e.type] || e.type) + (who ? S + who : "");
  }
}
/* The event an entry stands for: a correction's own event, else the entry. */
export function entryEvent(e) {
  return (e.type === "amend" || e.type === "insert") && e.event ? e.event : e;
}
/* The game time an entry happened at: a correction's event's own, else the time of its place. */
export function entryTime(e) {
  let ms = e.at_ms;
  if ((e.type === "amend" || e.type === "insert") && e.event) {
    const place = live.log.find((x) => x.seq === (e.type === "amend" ? e.target : e.after));
    ms = e.event.at_ms !== undefined ? e.event.at_ms : place ? place.at_ms : null;
  }
  return ms !== null && ms !== undefined ? mmss(ms) : "";
}
export function codeLabel(code) {
  const c = CODES.concat(NOTE_CODES).find((x) => x.code === code);
  return c ? c.label : code;
}
function reasonWords(r) { return [r.code ? codeLabel(r.code) : "", r.text || ""].filter(Boolean).join(T.colon); }
export function periodName(p) { return p === "shootout" ? V.phase.shootout : p === 2 ? V.phase.second_half : V.phase.first_half; }
export function signerName(as) {
  if (as === "home_captain" || as === "away_captain") return fmt(T.captain_of, { team: teamName(as.split("_")[0]) });
  return V.role[as] || as;
}
function rosterWords(e) {
  const t = teamName(e.team);
  if (e.add) return fmt(T.roster_add, { team: t, number: e.add.number, name: e.add.name });
  const parts = [];
  if (e.number !== null && e.number !== undefined && e.number !== e.player) parts.push("#" + e.player + " → #" + e.number);
  else parts.push("#" + e.player);
  if (e.name) parts.push(e.name);
  return t + " " + parts.join(" ");
}

/* Whether an entry no longer counts (D8, M3): the server's answer (the log's `struck`, from
 * qalisball/rules/corrections.py::struck; D344), never worked out here. An entry that came live is new:
 * it counts; a correction arriving live has the log fetched again (log.js), with the marks it changed. */
export function isVoided(e) { return e.struck === true; }

/* A log entry in the Undo button's words: "Goal, home #7 Li, 12:31". */
export function undoWhat(e) { return describe(e) + (entryTime(e) ? T.sep + entryTime(e) : ""); }
export function voidedWhat(seq) {
  const e = live.log.find((x) => x.seq === seq);
  return e ? undoWhat(e) : "#" + seq;
}

/* ---- which call logs an entry, and whether the builder can rebuild it (corrections, fix.js) ---------- */
// Calls that cannot be rebuilt here: the clock's own controls, the shootout's sheet, abandoning, and
// calls without fields (a half's start or end): void them instead.
const NOT_HERE = new Set(["pause", "resume", "set", "shootout_start", "abandon", "period_start", "period_end"]);

/* The console call that logs `e`: its variant (a violation's kind, a card's colour: the catalogue's
 * variant field), else its type. */
export function actionOf(e) {
  const field = VARIANT_FIELD[e.type];
  return field ? e[field] : e.type;
}
export function fixable(action) { return !NOT_HERE.has(action) && !!CALLS[action]; }
