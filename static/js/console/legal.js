/* Reading the engine's `legal` object (docs/api-extras.md, qalisball/rules/legal.py): which calls the
 * rules allow now, and the engine's own reason for those they do not, in the page's language.
 *
 * The console decides nothing here: a call is greyed exactly when the state's `legal` refuses it.
 * While calls wait in the queue the forecast has no `legal` (forecast.js): every call is offered and
 * the server rules on it when it is sent.
 *
 * `legal` is the same for every official; what differs is M4's open call (`legal.duplicates`, D167): the
 * goal or ball out another official logged just now stays offered to this role, which may log it, for
 * 10 s of game time (qalisball/rules/legal.py's for_role does the same).
 */
import { elapsed, isHalf } from "../lib/clock.js";
import { reasonText as renderReason } from "../lib/words.js";
import { data } from "../lib/page.js";
import { allowed, role, teamName } from "./page.js";
import { redraw } from "./state.js";

/* The engine's verdict on `call` for `team` (null: for either team):
 * {ok: true}, {ok: false, reason}, or {ok: null} when no verdict is known (to be ruled). */
export function verdict(state, call, team) {
  const legal = state && state.legal;
  if (!legal || !legal.calls || !(call in legal.calls)) return { ok: null };
  if (seenByAnother(state, call, team)) return { ok: true }; // the server answers "already logged by …"
  // A button standing for several calls has the engine's own verdict (`legal.buttons`, D341: the
  // substitution, a replacement for nobody included, 11.2).
  return plain(legal.buttons && call in legal.buttons ? legal.buttons : legal.calls, legal.reasons, call, team);
}

/* M4, D167: is `call` (for `team`, or either) the call another official logged just now, still open? */
function seenByAnother(state, call, team) {
  return (state.legal.duplicates || []).some((w) =>
    w.call === call && (!team || w.team === team) && w.by !== role && allowed.has(call) && stillOpen(state, w));
}
let closing = null; // the timer that redraws the buttons when the window closes (the game clock runs)
function stillOpen(state, w) {
  if (w.until_ms === null || w.until_ms === undefined) return true;
  if (!isHalf(state)) return false;
  const left = w.until_ms - elapsed(state);
  if (left < 0) return false;
  if (state.clock.running) {
    clearTimeout(closing);
    closing = setTimeout(() => { if (true) redraw(); }, left + 50);
  }
  return true;
}

function plain(calls, reasons, call, team) {
  let v = calls[call];
  if (v !== null && typeof v === "object") {
    if (team) v = v[team];
    else v = v.home === true || v.away === true ? true : v.home;
  }
  if (v === true) return { ok: true };
  return { ok: false, reason: reasons[v] || null };
}

export function usable(state, call, team) { return verdict(state, call, team).ok !== false; }

/* The only teams `legal` allows for `call`, when it allows exactly one (the builder preselects it). */
export function onlyTeam(state, call) {
  const ok = ["home", "away"].filter((t) => verdict(state, call, t).ok === true);
  return ok.length === 1 ? ok[0] : null;
}

/* Players who came on at this stoppage (they may not take its restart, 11.2). */
export function cameOn(state, team) {
  return (state.legal && state.legal.came_on && state.legal.came_on[team]) || [];
}

/* Whether the pending restart needs a named taker (a penalty, 10.8: `legal.taker_required`). While calls
 * wait there is no `legal`: none is asked for, and the server rules on the restart when it is sent. */
export function takerRequired(state) {
  return !!(state && state.legal && state.legal.taker_required);
}

/* Whether the builder asks who takes `team`'s restart, as the engine answers it (`legal.taker_asked`, D342:
 * a penalty's taker, 10.8, or a player who came on may not take it, 11.2). No `legal`: none asked. */
export function takerAsked(state, team) {
  const asked = state && state.legal && state.legal.taker_asked;
  return !!(asked && team && asked[team]);
}

/* Whether `call` asks for a tap on the field now, as the engine answers it (`legal.spot`): "required"
 * (refused without a spot), "optional" (the ball is in play: where it happened is logged), "" (not
 * asked), or null when no `legal` is known (calls wait: the builder asks, the server rules). */
export function spotAsked(state, call) {
  if (!state || !state.legal) return null;
  return (state.legal.spot && state.legal.spot[call]) || "";
}

/* Who may be shown a card now (`legal.may_be_carded`, 9.3, D5); null when no `legal` is known. */
export function mayBeCarded(state, team) {
  const may = state && state.legal && state.legal.may_be_carded;
  return may ? may[team] || [] : null;
}

/* The call a disallowed goal is amended into (`legal.disallowed_goal`, SPEC M3, 7.2 note). */
export function disallowedGoalCall(state) {
  return (state && state.legal && state.legal.disallowed_goal) || null;
}

/* A reason of `legal` (or a refusal's template and params) in the page's language: the one renderer
 * (lib/words.js), with this match's team names. */
export function reasonText(r) { return renderReason(r, teamName); }

/* Issue 27.6, D200: a refusal the server answered (a 409 with the engine's `template` and `params`) in the
 * console's own language, teams by their names, whatever language the request was answered in; the
 * server's `message` only when the template is not one of the engine's (then it is the server's words). */
export function refusalText(answer) {
  if (!answer) return "";
  if (answer.template && (data.rule_templates || {})[answer.template] !== undefined) return reasonText(answer);
  return answer.message || "";
}
