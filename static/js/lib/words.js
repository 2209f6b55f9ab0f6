/* The page's words: templates filled in, and what the screens say about a state (the pending restart,
 * why it was given, multiple attack, cards, the shootout, the score sheet). The one renderer of the
 * engine's reasons and refusals ({rule, message, template, params}) is here: every page uses it. */
import { data, T, V } from "./page.js";
import { isHalf, timeUp } from "./clock.js";
import { playerName } from "./players.js";
import { esc } from "./dom.js";

/* "{team} kicks off" with {team: "Renmin"}; a placeholder without a value stays as it is. */
export function fmt(s, params) {
  return String(s).replace(/\{(\w+)\}/g, (m, k) => (params && params[k] !== undefined && params[k] !== null ? params[k] : m));
}

/* The team names of a state, as reasonText wants them. */
export function namesOf(state) { return (t) => state.teams[t].name; }

/* ---- the engine's reasons, in the page's language -------------------------------------------------- */
// The params of a reason that name a team, an event type, or an N_ phrase (as the server's renderer).
const TEAM_PARAMS = new Set(["team", "restarting", "winner", "due"]);
const EVENT_PARAMS = new Set(["event", "event_type", "type"]);
const PHRASE_PARAMS = new Set(["phase", "what", "restart", "reason"]);

/* A reason of the engine (`legal`'s reasons, a refusal, the `why` of a restart) in the page's language,
 * from the engine's own templates (page data `rule_templates`): params naming a team show its name
 * (`teamName(t)`), an event type its label, an N_ phrase its translation. */
export function reasonText(r, teamName) {
  if (!r) return "";
  if (!r.template) return r.message || "";
  const RT = data.rule_templates || {};
  const params = {};
  Object.keys(r.params || {}).forEach((k) => {
    let v = r.params[k];
    // A nested refusal (a correction's replay, D200): "its words (rule n)".
    if (v && typeof v === "object" && v.template) v = reasonText(v, teamName) + " " + fmt(T.rule_paren || "(rule {rule})", { rule: v.rule });
    else if (TEAM_PARAMS.has(k) && (v === "home" || v === "away")) v = teamName(v);
    else if (EVENT_PARAMS.has(k) && typeof v === "string" && V.event[v]) v = V.event[v];
    else if (PHRASE_PARAMS.has(k) && typeof v === "string" && v) v = RT[v] || v;
    params[k] = v;
  });
  return fmt(RT[r.template] || r.template, params);
}

/* The rule's title in the page's language ("11.1" → "Substitutions: the basic principle"; page data `rules`). */
export function ruleTitle(rule) {
  const rules = data.rules || {};
  return rule ? rules[rule] || rules[String(rule).split(".")[0]] || "" : "";
}

/* A refusal of an organiser's form in words: the rule cited and its title, the message (in the page's
 * language when the refusal carries its template), each field's complaint. */
export function explainAnswer(status, answer) {
  if (!answer) return T.failed + " (" + status + ")";
  if (answer.error === "unauthorized" || answer.error === "forbidden") return T.token_rejected;
  let text = answer.message || T.failed;
  if (answer.error === "rule") {
    const title = ruleTitle(answer.rule);
    text = fmt(T.refused_rule, { rule: answer.rule }) + (title ? " · " + title : "") + T.colon + answer.message;
  }
  if (answer.fields) {
    text += "\n" + Object.keys(answer.fields).map((k) => {
      const v = answer.fields[k];
      return k + T.colon + (Array.isArray(v) ? v.join(" ") : JSON.stringify(v));
    }).join("\n");
  }
  return text;
}

/* ---- a state in words ------------------------------------------------------------------------------ */
export function restartText(state) {
  // The console's offline forecast leaves the restart to the engine (console/forecast.js).
  if (state.ruling) return T.to_be_ruled;
  if (timeUp(state) && isHalf(state)) return T.time_up;
  if (state.restart) {
    return fmt(T.restart_pending, { restart: V.restart[state.restart.type], team: state.teams[state.restart.team].name });
  }
  if (isHalf(state) && state.ball === "live") return T.ball_live;
  return "";
}
/* Why the pending restart was given: "foul by Renmin #4 (10.7); moved 3 m out of the area (10.8)". */
export function whyText(state) {
  const r = state.restart;
  if (!r || !r.why || state.ruling || (timeUp(state) && isHalf(state))) return "";
  let text = fmt(T.why_rule, { reason: reasonText(r.why, namesOf(state)), rule: r.why.rule });
  if (r.origin) text += T.why_sep + T.moved_3m;
  return text;
}
export function multiAttackText(state) {
  const t = state.possession;
  if (!t) return "";
  const ma = state.teams[t].multi_attack;
  if (ma.team !== null && ma.team !== undefined) return T.multi_attack + T.colon + ma.team;
  const keys = Object.keys(ma.players || {});
  if (!keys.length) return "";
  return T.multi_attack + T.colon + keys.map((n) => "#" + n + " " + ma.players[n]).join(" ");
}
export function cardsHtml(ts) {
  let out = "";
  const seen = {};
  ts.yellow.forEach((n) => {
    if (ts.sent_off.indexOf(n) < 0 && !seen[n]) {
      seen[n] = 1;
      out += '<span class="card yellow" title="' + esc(V.card.yellow) + '">' + n + "</span>";
    }
  });
  ts.sent_off.forEach((n) => {
    // SPEC M8: a second yellow is shown as what it is, a sending-off.
    const second = (ts.second_yellow || []).indexOf(n) >= 0;
    const title = second ? T.second_yellow : V.card.red;
    out += '<span class="card red' + (second ? " second" : "") + '" title="' + esc(title) + '" aria-label="' + esc(title + " #" + n) + '">' + n + "</span>";
  });
  return out;
}
/* The score sheet (SPEC M6): provisional until the referee signs, then final and locked. */
export function sheetText(state) {
  if (state.locked) return T.sheet_final;
  if (state.phase === "finished" || state.phase === "abandoned") return T.sheet_provisional;
  return "";
}
export function shootoutHtml(state) {
  const so = state.shootout;
  if (!so) return "";
  const rounds = Math.max(so.rounds || 4, so.round || 1);
  const order = [so.first, so.first === "home" ? "away" : "home"];
  let h = '<table class="so-board"><colgroup><col class="c-name">';
  for (let c = 0; c < rounds * 2; c++) h += '<col class="c-kick">';
  h += '<col class="c-total"></colgroup><thead><tr><th></th>';
  for (let r = 1; r <= rounds; r++) h += '<th colspan="2">' + r + "</th>";
  h += '<th>Σ</th></tr><tr class="pts"><th></th>';
  for (let r = 1; r <= rounds; r++) h += "<th>1</th><th>2</th>";
  h += "<th></th></tr></thead><tbody>";
  order.forEach((t) => {
    h += '<tr class="' + t + '"><th class="so-name"><span>' + esc(state.teams[t].name) + "</span></th>";
    for (let r = 1; r <= rounds; r++) {
      [1, 2].forEach((p) => {
        let k = null;
        so.kicks.forEach((x) => { if (x.round === r && x.team === t && x.points === p) k = x; });
        const next = so.next && so.round === r && so.next.team === t && so.next.points === p;
        const cls = "kick" + (k ? (k.scored ? " scored" : " missed") : "") + (next ? " next" : "");
        h += '<td class="' + cls + '">' + (k ? (k.scored ? "●" : "✕") : next ? "◎" : "·") + "</td>";
      });
    }
    h += '<td class="total">' + so.score[t] + "</td></tr>";
  });
  return h + "</tbody></table>";
}
export function nextKickText(state) {
  const so = state.shootout;
  if (!so || !so.next) return "";
  const n = so.next;
  return fmt(T.next_kick, { team: state.teams[n.team].name, player: n.player, name: playerName(n.team, n.player), points: n.points });
}
