/* The call builder: a call in at most three taps plus one tap on the field. Which calls exist, their
 * order, labels, keys and who may make them come from the event catalogue (page data `calls`); what a
 * call asks for comes from its fields there (`params`, and `spot`: whether the schema needs one).
 * Which teams and players may be named comes from the state's `legal`: a refused choice is greyed
 * with the engine's reason. The server rules on what is sent.
 *
 * The same builder corrects the past (SPEC M3, fix.js opens it with a `correction`): while `live.fix` is
 * set it is filled in from the logged event, greys nothing (`legal` is about now, not then), offers every
 * player of the roster, and never sends: each change goes to the correction's preview, and fix.js saves.
 */
import { $, esc, setHtml, setText, show } from "../lib/dom.js";
import { mmss } from "../lib/clock.js";
import { player, playerName } from "../lib/players.js";
import { fmt } from "../lib/words.js";
import { CALLS, CODES, T, TEAMS, V, other, rosterNumbers, teamName } from "./page.js";
import { live, redraw, setCall } from "./state.js";
import { cameOn, mayBeCarded, onlyTeam, reasonText, spotAsked, takerAsked, takerRequired, verdict } from "./legal.js";
import { drawField } from "./field.js";
import { notice, refusedHere } from "./notices.js";
import { fixable } from "./entries.js";
import { floorNow, stampNow, submit } from "./calls.js";

/* How the builder asks (layout, not rules): the prompt for the tap on the field, whether to
 * preselect the team with the ball, calls whose spot the builder does not offer when the engine has
 * not said (calls wait, or a correction of the past), and the options a call shares with its type but does not use (a violation's side is the restart violation's: the
 * engine uses it when a penalty is handed over, D2). A call not named here is asked for from its
 * fields, with the generic prompt. */
const ASK = {
  goal: { ball: true },
  ball_out_side: { ball: true, prompt: "tap_field_out", hide: ["side"] },
  ball_out_end: { ball: true, prompt: "tap_field_out", hide: ["side"] },
  ball_grounded: { ball: true, prompt: "tap_field_landed", hide: ["side"] },
  ball_in_area: { ball: true, prompt: "tap_field_landed", hide: ["side"] },
  player_in_area: { prompt: "tap_field_entered", hide: ["side"] },
  caught: { ball: true, prompt: "tap_field_caught", hide: ["side"] },
  restart: { tap: false },
  foul: { prompt: "tap_field_foul" },
  injury: { prompt: "tap_field_last_touch" },
  shot_missed: { prompt: "tap_field_shot" },
};
// Who each player field names: the caught player is an opponent; the player coming on is on the bench;
// a card may go to a substitute too.
const PICK = {
  player: { label: "choose_player" },
  out: { label: "player_out" },
  in: { label: "player_in", from: "bench" },
  caught: { label: "caught", team: "other" },
};
// Whose action the call's team is (issue 13): said above the team buttons and in the prompt, never
// just "team". A call not named here (a new one in the catalogue) falls back to "Team".
const TEAM_ROLE = {
  restart_taken: "team_awarded",
  goal: "team_scored",
  ball_out_side: "team_last_touch",
  ball_out_end: "team_last_touch",
  ball_grounded: "team_last_touch",
  ball_in_area: "team_last_touch",
  player_in_area: "team_committed",
  caught: "team_committed",
  restart: "team_committed",
  foul: "team_committed",
  yellow: "team_shown",
  red: "team_shown",
  steal: "team_won",
  catch: "team_caught_by",
  attack: "team_attacking",
  shot_missed: "team_shot",
  injury: "team_injured",
  substitution: "team_substituting",
};
export function teamRole(action) { return T[TEAM_ROLE[action]] || T.choose_team; }
// Labels of a choice's values.
const CHOICE_LABEL = {
  card: (v) => (v ? V.card[v] : T.no_card),
  where: (v) => V.where[v],
  side: (v) => T[v + "_side"],
  // Issue 13: in plain words, a whole sentence per choice ("Renmin defends the left end"), never "x = 0".
  home_end: (v) => fmt(T.defends, { team: teamName("home"), end: T["end_" + v] }),
};

function ask() { return ASK[live.call.action] || {}; }
function params(kind) { return live.call.def.params.filter((p) => (kind ? p.kind === kind : true)); }
function teamParam() { return live.call.def.params.some((p) => p.name === "team" && p.kind === "team"); }
function picks() { return params("player"); }
function options() {
  const hide = ask().hide || [];
  return live.call.def.params.filter((p) => {
    if (hide.indexOf(p.name) >= 0) return false;
    if (p.kind === "bool") return true;
    if (p.kind === "team" && p.name !== "team") return true; // the coin toss's kickoff
    if (p.kind !== "choice") return false;
    return true;
  });
}
function textParam() { return params("text")[0] || null; }
function stage() { return picks().length > 1 && live.call.picks[0] !== undefined ? 2 : 1; }
function fixing() { return !!live.fix; }
/* A card's reason (SPEC M7): for a card, and for a foul shown with one. */
function asksReason() {
  const call = live.call;
  return call.def.params.some((p) => p.kind === "reason") && (call.def.type === "card" || !!call.options.card);
}

/* Whether the call waits for a tap on the field: the schema needs the spot, or the engine asks for one
 * now (`legal.spot`, at the call's first tap: M1). Unknown while calls wait: asked, the server rules. */
export function needsSpot() {
  const call = live.call;
  if (!call || !call.def || call.def.spot === "none") return false;
  if (call.def.spot === "required") return true;
  if (fixing()) return ask().tap !== false; // what happened then: a spot can always be given
  const asked = spotAsked(then(), call.action);
  return asked === null ? ask().tap !== false : asked !== "";
}
/* Whether the call cannot be sent without its spot: the schema's answer, or the engine's now. */
function spotRequired() {
  const call = live.call;
  return call.def.spot === "required" || (!fixing() && spotAsked(then(), call.action) === "required");
}

function pickTeam(p) {
  const call = live.call;
  const spec = PICK[p.name] || {};
  return spec.team === "other" ? (call.team ? other(call.team) : null) : call.team;
}
function candidates(p, team) {
  if (!team) return [];
  const ts = live.view.teams[team];
  if (fixing()) return rosterNumbers(ts); // who was on the field then is the replay's to judge
  if ((PICK[p.name] || {}).from === "bench") return ts.bench.slice();
  if (live.call.def.type === "card") return carded(ts, team);
  return ts.on_field.slice();
}
/* Who a card may go to (`legal.may_be_carded`), those on the field first; while calls wait, everyone on
 * the roster (the server rules). */
function carded(ts, team) {
  const may = mayBeCarded(then(), team);
  if (may === null) return rosterNumbers(ts);
  return ts.on_field.filter((n) => may.indexOf(n) >= 0).concat(may.filter((n) => ts.on_field.indexOf(n) < 0));
}

/* The players the first pick may not name, and why: at a restart, those who came on at this stoppage
 * (`legal.came_on`, 11.2); going off, everyone when `legal` allows this team only a replacement for
 * nobody (`bring_on`): the reason is the engine's refusal of an ordinary substitution. */
function blocked(p) {
  const call = live.call, s = live.view;
  const none = { players: [], why: "" };
  if (fixing() || !call.team || p !== picks()[0]) return none;
  if (call.def.type === "restart_taken") {
    const off = cameOn(s, call.team);
    return { players: off, why: off.length ? fmt(T.came_on, { players: off.map((n) => player(call.team, n)).join(T.sep) }) : "" };
  }
  const plain = s.legal && s.legal.calls && s.legal.calls.substitution;
  if (p.name !== "out" || !plain) return none;
  const v = typeof plain === "object" ? plain[call.team] : plain;
  if (v === true || verdict(s, "bring_on", call.team).ok !== true) return none;
  return { players: candidates(p, call.team), why: reasonText(s.legal.reasons[v]) };
}
/* Whether the pick may name nobody: an optional player, or (going off) nobody unless `legal` refuses a
 * replacement for nobody (`bring_on`); while calls wait it is offered and the server rules. */
function mayPickNone(p) {
  if (!p.nullable) return false;
  if (fixing()) return true;
  if (p.name !== "out") return !pickRequired(p);
  return verdict(live.view, "bring_on", live.call.team).ok !== false;
}
/* Whether the restart's taker must be named, as the engine answers it (`legal.taker_asked`, D342): a
 * penalty (10.8, `legal.taker_required`), or a player came on who may not take it (11.2). */
function needsTaker(team) {
  return takerRequired(live.view) || takerAsked(live.view, team);
}
function pickRequired(p) {
  if (live.call.def.type === "restart_taken") return !fixing() && needsTaker(live.call.team);
  return p.required && !p.nullable;
}


/* Issue 27.3: the tap that completed or closed a call. A double tap's second tap (the browser counts it: the
 * click's `detail` is 2) lands on the grid the builder uncovers: it must not start a call there. A tap of
 * its own (`detail` 1) always counts, however quick; a key's click (`detail` 0) is no tap. */
const DOUBLE_TAP_MS = 1000; // a bound only: the browser's own double-tap interval decides `detail`
let closedAt = null;
export function closedBy(ev) { closedAt = ev.detail ? ev.timeStamp : null; }
export function fallsThrough(ev) {
  return closedAt !== null && ev.detail > 1 && ev.timeStamp >= closedAt && ev.timeStamp - closedAt < DOUBLE_TAP_MS;
}

/* ---- starting, drawing, finishing ---------------------------------------------------------------- */
/* `correction` (fix.js, while `live.fix` is set): {prefill: the logged event's body, preview(event or null):
 * each call the builder describes, end(): the builder closed}. The builder hands it what happens and
 * imports nothing of fix.js, which opens it. */
export function start(action, correction) {
  const s = live.view;
  const def = CALLS[action];
  if (!fixing()) {
    const v = verdict(s, action, null);
    if (v.ok === false) { refusedHere(def ? def.label : action, v.reason); return; }
    if (action === "pause" || action === "resume") { submit({ type: "clock", action: action }); return; }
    if (action === "set") { setClock(); return; }
  } else if (!fixable(action) || !correction) {
    return;
  }
  if (!def) return;
  if (!def.params.length) {
    if (fixing()) correction.preview({ type: def.type });
    else submit({ type: def.type });
    return;
  }
  const call = { action: action, def: def, team: null, picks: [], spot: null, options: {}, digits: "", reason: null, correction: fixing() ? correction : null };
  if (!fixing()) {
    // SPEC M1: the call happened at this tap. Its game time, and what `legal` allowed then, stay with
    // it while the team and player are chosen: a goal begun at 29:58 still counts if finished at 30:01.
    call.at = stampNow();
    call.legal = s.legal || null;
  }
  setCall(call);
  if (fixing()) {
    fill(call, correction.prefill || {});
  } else {
    call.team = onlyTeam(s, action) || (ask().ball && s.possession && verdict(s, action, s.possession).ok !== false ? s.possession : null);
  }
  options().forEach((p) => {
    if (p.kind === "choice" && p.default !== null && p.default !== undefined && call.options[p.name] === undefined) call.options[p.name] = p.default;
  });
  show("actions", false);
  show("builder", true);
  show("b-fix", fixing());
  const input = $("b-reason-text");
  if (input) input.value = call.reason && call.reason.text ? call.reason.text : "";
  redraw();
  tryComplete("start");
}

/* A logged event's fields as the builder's choices (a correction starts from what was logged). */
function fill(call, e) {
  const def = call.def;
  if (e.team && teamParam()) call.team = e.team;
  picks().forEach((p, i) => {
    if (e[p.name] !== undefined) call.picks[i] = e[p.name];
  });
  if (call.picks.length && call.picks.some((v) => v === undefined)) call.picks.length = call.picks.findIndex((v) => v === undefined);
  if (e.spot) call.spot = { x: e.spot.x, y: e.spot.y };
  options().forEach((p) => {
    if (e[p.name] !== undefined) call.options[p.name] = e[p.name];
  });
  if (e.reason && typeof e.reason === "object") call.reason = { code: e.reason.code || null, text: e.reason.text || "" };
  const text = textParam();
  if (text && typeof e[text.name] === "string") call.text = e[text.name];
  return def;
}

/* Close the builder; a correction in progress ends too unless `keepFix` (another call is chosen for it). */
export function cancel(keepFix) {
  const correction = live.call && live.call.correction;
  setCall(null);
  setHtml("b-extra", "");
  setHtml("b-reason", "");
  show("builder", false);
  show("actions", true);
  show("prompt", false);
  show("call-warning", false);
  if (!keepFix && correction) correction.end();
  redraw();
}

function btn(label, attrs, cls) {
  const a = Object.keys(attrs).map((k) => k + '="' + esc(attrs[k]) + '"').join(" ");
  return '<button type="button" class="' + (cls || "pick") + '" ' + a + ">" + label + "</button>";
}

export function drawBuilder() {
  const call = live.call, s = live.view, def = call.def;
  setText("b-title", fixing() ? fmt(live.fix.mode === "insert" ? T.fix_insert_title : T.fix_amend_title, { what: def.label }) : def.label);
  let teams = "", opts = "", label = "", players = "", extra = "";
  if (teamParam()) {
    teams = '<span class="b-sub">' + esc(teamRole(call.action)) + "</span>" + TEAMS.map((t) => {
      const v = fixing() ? { ok: true } : verdict(then(), call.action, t);
      const attrs = { "data-team": t };
      let why = "";
      if (v.ok === false) {
        attrs.disabled = "disabled";
        why = '<small class="why">' + esc(reasonText(v.reason) + " " + fmt(T.rule_paren, { rule: v.reason ? v.reason.rule : "" })) + "</small>";
      }
      return btn(esc(teamName(t)) + "<kbd>" + (t === "home" ? "H" : "A") + "</kbd>" + why, attrs, "pick team-btn " + t + (call.team === t ? " chosen" : ""));
    }).join("");
  }
  options().forEach((p) => {
    const chosen = call.options[p.name];
    if (p.kind === "bool") {
      opts += btn(esc(T[p.name] || p.name), { "data-choice": p.name, "data-value": "true" }, "toggle" + (chosen ? " on" : ""));
      return;
    }
    if (p.name === "kickoff") opts += '<span class="b-sub">' + esc(fmt(T.kicks_off, { team: "…" })) + "</span>";
    if (p.name === "home_end") opts += '<span class="b-sub">' + esc(T.toss_ends) + "</span>";
    const values = p.kind === "team" ? TEAMS : (p.nullable ? [""] : []).concat(p.choices);
    values.forEach((v) => {
      const text = p.kind === "team" ? esc(teamName(v)) : (p.name === "card" && v ? '<span class="card ' + v + '"></span>' : "") + esc((CHOICE_LABEL[p.name] || String)(v));
      const on = (chosen === undefined || chosen === null ? "" : chosen) === v;
      opts += btn(text, { "data-choice": p.name, "data-value": v }, (p.kind === "team" ? "pick team-btn " + v : "toggle") + (on ? (p.kind === "team" ? " chosen" : " on") : ""));
    });
  });
  const ps = picks();
  if (ps.length && call.team) {
    // Building a call: one pick at a time. Correcting one: every pick at once, each changeable.
    const shown = fixing() ? ps.map((p, i) => i + 1) : [stage()];
    shown.forEach((st) => {
      const p = ps[st - 1];
      const team = pickTeam(p);
      const block = blocked(p);
      let head = T[(PICK[p.name] || PICK.player).label];
      if (!fixing()) {
        head = (st === 2 && call.picks[0] !== null ? player(call.team, call.picks[0]) + " → " : "") + head;
        if (block.why) head += " — " + block.why;
        label = head;
      } else {
        players += '<span class="b-sub">' + esc(head) + "</span>";
      }
      players += candidates(p, team).map((n) => {
        const attrs = { "data-player": n, "data-stage": st };
        const off = block.players.indexOf(n) >= 0;
        if (off) attrs.disabled = "disabled";
        return btn("<b>" + n + "</b><small>" + esc(playerName(team, n)) + "</small>" + badges(team, n), attrs,
          "pick player" + (call.picks[st - 1] === n ? " chosen" : "") + (off ? " blocked" : "") + cardClass(team, n));
      }).join("");
      if (mayPickNone(p)) {
        players += btn(esc(p.name === "out" ? T.nobody : T.no_player) + "<kbd>↵</kbd>", { "data-player": "none", "data-stage": st },
          "pick player none" + (fixing() && call.picks[st - 1] === null ? " chosen" : ""));
      }
    });
  }
  if (call.digits) label += "  [" + call.digits + "]";
  const text = textParam();
  if (text && !fixing()) {
    extra = '<input id="b-text" class="reason" maxlength="500" placeholder="' + esc(T.abandon_reason_needed) + '">' +
      btn(esc(def.label), { "data-send": "1" }, "act stop");
  } else if (needsSpot() && !spotRequired() && !fixing()) {
    extra = btn(esc(T.send_without_spot) + "<kbd>↵</kbd>", { "data-send": "1" }, "act");
  } else if (fixing() && call.spot && def.spot !== "required") {
    extra = btn(esc(T.fix_no_spot), { "data-nospot": "1" }, "act small");
  }
  setHtml("b-teams", teams);
  setHtml("b-options", opts);
  setText("b-label", label);
  setHtml("b-players", players);
  if (!(text && $("b-text"))) setHtml("b-extra", extra);
  drawReason();
  drawWarning();
}

/* M8: a player's fouls so far, as a badge on his button. */
function badges(team, n) {
  const f = foulsOf(team, n);
  return f ? '<i class="fc" title="' + esc(fmt(f === 1 ? T.fouls_n_one : T.fouls_n, { n: f })) + '">' + f + "</i>" : "";
}
function cardClass(team, n) {
  const ts = live.view.teams[team];
  if (ts.sent_off.indexOf(n) >= 0) return " rc";
  return ts.yellow.indexOf(n) >= 0 ? " yc" : "";
}
export function foulsOf(team, n) {
  const ts = live.view.teams[team];
  return (ts && ts.fouls && ts.fouls[String(n)]) || 0;
}

/* A card's reason: the misconduct codes (SPEC M7, zh/en labels) and a short text. The text box is
 * made once per call, so a redraw never takes what the referee is typing. */
function drawReason() {
  const call = live.call;
  if (!asksReason()) { setHtml("b-reason", ""); return; }
  const chosen = call.reason && call.reason.code;
  const codes = CODES.map((c) => btn(esc(c.label), { "data-code": c.code }, "toggle code" + (chosen === c.code ? " on" : ""))).join("");
  let box = $("b-codes");
  if (!box) {
    setHtml("b-reason", '<span class="b-sub">' + esc(T.card_reason) + '</span><div class="b-codes" id="b-codes"></div>' +
      '<input id="b-reason-text" class="reason" maxlength="500" placeholder="' + esc(T.card_reason_text) + '">');
    box = $("b-codes");
    if (call.reason && call.reason.text) $("b-reason-text").value = call.reason.text;
  }
  setHtml(box, codes);
}
function reasonBody() {
  const call = live.call;
  if (!asksReason()) return null;
  const input = $("b-reason-text");
  const text = input ? input.value.trim() : (call.reason && call.reason.text) || "";
  const code = call.reason && call.reason.code;
  if (!code && !text) return null;
  const r = {};
  if (code) r.code = code;
  if (text) r.text = text;
  return r;
}

/* M8: before a foul is sent, how many the player already has ("#4 has 2 fouls"); before a yellow,
 * that he already has one (a second yellow sends him off). */
function drawWarning() {
  const call = live.call;
  let text = "";
  const n = call.picks[0];
  if (call.team && typeof n === "number" && !fixing()) {
    const f = foulsOf(call.team, n);
    if (call.def.type === "foul" && f) text = fmt(f === 1 ? T.fouls_warning_one : T.fouls_warning, { player: "#" + n, n: f });
    const yellow = call.def.type === "card" ? call.action === "yellow" : call.options.card === "yellow";
    if (yellow && live.view.teams[call.team].yellow.indexOf(n) >= 0) text += (text ? " · " : "") + fmt(T.second_yellow_warning, { player: "#" + n });
  }
  setText("call-warning", text);
  show("call-warning", !!text);
}

function prompt(key) {
  setText("prompt", T[key] || key);
  show("prompt", true);
}
function spotPrompt() { prompt(ask().prompt || "tap_field"); }

/* Send once everything the call needs is there; a player tap sends unless a spot is still to come.
 * A correction is never sent from here: once complete, fix.js previews it. */
function tryComplete(trigger) {
  const call = live.call;
  if (!call) return;
  if (fixing()) { fixComplete(); return; }
  if (teamParam() && !call.team) { prompt(teamRole(call.action)); return; }
  show("prompt", false);
  // Issue 13: the taker is named only where a rule depends on him; otherwise the restart is sent at once,
  // without a player tap.
  if (call.def.type === "restart_taken" && call.picks[0] === undefined && !needsTaker(call.team)) { send(); return; }
  const missing = options().some((p) => p.required && (call.options[p.name] === undefined || call.options[p.name] === null));
  if (missing) return;
  const ps = picks();
  if (ps.length && call.picks[0] === undefined) {
    if (trigger !== "spot" && trigger !== "send") {
      if (needsSpot() && !call.spot) spotPrompt();
      return;
    }
    if (!mayPickNone(ps[0])) { prompt("choose_player_first"); return; }
    call.picks[0] = null; // a tap on the field before any player: sent without one
  }
  if (ps.length > 1 && call.picks[1] === undefined) { drawBuilder(); return; }
  if (needsSpot() && !call.spot && !(trigger === "send" && !spotRequired())) { spotPrompt(); return; }
  const text = textParam();
  if (text) {
    if (trigger !== "send") return;
    const reason = ($("b-text").value || "").trim();
    if (!reason) { prompt("abandon_reason_needed"); return; }
    call.text = reason;
  }
  const waits = ps.length || needsSpot() || text;
  if ((trigger === "start" || trigger === "team" || trigger === "option") && waits) return;
  send();
}

/* A correction: what is still missing, or the preview of the whole call. */
function fixComplete() {
  const call = live.call;
  let missing = "";
  if (teamParam() && !call.team) missing = teamRole(call.action);
  else if (options().some((p) => p.required && (call.options[p.name] === undefined || call.options[p.name] === null))) missing = "fix_choose_option";
  else if (picks().some((p, i) => call.picks[i] === undefined && !mayPickNone(p))) missing = "fix_choose_player";
  else if (call.def.spot === "required" && !call.spot) missing = ask().prompt || "tap_field";
  if (missing) { prompt(missing); call.correction.preview(null); return; }
  show("prompt", false);
  call.correction.preview(body());
}

/* The event the builder describes, as it would be posted. */
function body() {
  const call = live.call, def = call.def;
  const out = { type: def.type };
  if (def.param) out[def.param] = def.variant;
  def.params.forEach((p) => {
    if (p.name === "team" && p.kind === "team") out.team = call.team;
    else if (p.kind === "player") {
      const v = call.picks[picks().indexOf(p)];
      if (v !== undefined && (v !== null || p.required)) out[p.name] = v;
    } else if (p.kind === "spot") {
      if (call.spot) out.spot = call.spot;
    } else if (p.kind === "text") {
      if (call.text !== undefined) out[p.name] = call.text;
    } else if (p.kind === "reason") {
      const r = reasonBody();
      if (r) out.reason = r;
    } else if (options().indexOf(p) >= 0) {
      const v = call.options[p.name];
      if (p.kind === "bool") out[p.name] = !!v;
      else if (v !== undefined && v !== null && v !== "") out[p.name] = v;
    }
  });
  return out;
}

/* The state's `legal` as it was when the call was begun (M1). */
function then() { return { legal: live.call.legal }; }

function send() {
  const b = body();
  // Stamped at its first tap; if other calls were logged while it was being finished, just after them
  // (M1: never earlier than the last call of the half).
  if (live.call.at !== undefined) b.at_ms = Math.max(live.call.at, floorNow());
  cancel();
  submit(b);
}

function chooseTeam(t) {
  const call = live.call;
  if (!fixing() && verdict(then(), call.action, t).ok === false) return;
  if (fixing() && call.team === t) return;
  call.team = t;
  call.picks = [];
  drawBuilder();
  tryComplete("team");
}

function choosePlayer(n, st) {
  const call = live.call;
  call.digits = "";
  call.picks[st - 1] = n;
  if (st === 1 && !fixing()) call.picks.length = 1;
  drawBuilder();
  drawField(live.view, !!live.call && needsSpot());
  tryComplete("player");
}

// Issue 27.1: Cancel closes the call and the correction it belongs to (a click's event is no `keepFix`).
$("b-cancel").addEventListener("click", (ev) => { closedBy(ev); cancel(); });
$("builder").addEventListener("click", (ev) => {
  const b = ev.target.closest("button");
  const call = live.call;
  if (!b || !call) return;
  if (fallsThrough(ev)) return; // the second tap of the one that completed a call: not a choice of the next
  chosen(b, call);
  if (!live.call || live.call !== call) closedBy(ev); // this tap sent the call (or ended it)
});
function chosen(b, call) {
  if (b.hasAttribute("data-team")) {
    chooseTeam(b.getAttribute("data-team"));
  } else if (b.hasAttribute("data-player")) {
    const v = b.getAttribute("data-player");
    choosePlayer(v === "none" ? null : Number(v), Number(b.getAttribute("data-stage")));
  } else if (b.hasAttribute("data-choice")) {
    const name = b.getAttribute("data-choice"), v = b.getAttribute("data-value");
    const p = options().find((x) => x.name === name);
    call.options[name] = p.kind === "bool" ? !call.options[name] : v === "" ? null : v;
    drawBuilder();
    tryComplete("option");
  } else if (b.hasAttribute("data-send")) {
    tryComplete("send");
  } else if (b.hasAttribute("data-code")) {
    const code = b.getAttribute("data-code");
    const input = $("b-reason-text");
    call.reason = { code: call.reason && call.reason.code === code ? null : code, text: input ? input.value : "" };
    drawReason();
    if (fixing()) tryComplete("option");
  } else if (b.hasAttribute("data-nospot")) {
    call.spot = null;
    drawBuilder();
    drawField(live.view, !!live.call && needsSpot());
    tryComplete("option");
  }
}
$("builder").addEventListener("change", (ev) => {
  if (ev.target.id === "b-reason-text" && fixing() && live.call) tryComplete("option");
});

/* A tap on the field: metres in the field's own coordinates (the SVG's viewBox is in metres). A drag
 * scrolls the page (the browser cancels the pointer) and is not a tap. */
const svg = document.querySelector("#field-wrap svg");
let down = null;
if (svg) {
  svg.addEventListener("pointerdown", (ev) => { down = { x: ev.clientX, y: ev.clientY }; });
  svg.addEventListener("pointercancel", () => { down = null; });
  svg.addEventListener("pointerup", (ev) => {
    const startAt = down;
    down = null;
    if (!live.call || !needsSpot()) return;
    if (startAt && Math.abs(ev.clientX - startAt.x) + Math.abs(ev.clientY - startAt.y) > 16) return;
    const pt = svg.createSVGPoint();
    pt.x = ev.clientX;
    pt.y = ev.clientY;
    const m = pt.matrixTransform(svg.getScreenCTM().inverse());
    markSpot({ x: Math.round(m.x * 10) / 10, y: Math.round(m.y * 10) / 10 });
  });
}
function markSpot(spot) {
  live.call.spot = spot;
  live.call.cursor = null;
  drawField(live.view, !!live.call && needsSpot());
  tryComplete("spot");
}

/* The field from the keyboard (D182): while the call waits for its spot, the arrows move a visible mark
 * in 1 m steps (5 m with Shift), from the middle of the field at the first press, and Enter sets the spot
 * there, as a tap would. The mark stays within the drawing (3 m beyond the lines: a ball out lands there). */
const ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
function awaitingSpot() { return !!live.call && needsSpot() && !live.call.spot; }
function moveCursor(dx, dy) {
  const f = live.view.field, call = live.call;
  const at = call.cursor || { x: Math.round(f.length / 2), y: Math.round(f.width / 2) };
  const clamp = (v, hi) => Math.min(Math.max(v, -3), hi + 3);
  call.cursor = call.cursor ? { x: clamp(at.x + dx, f.length), y: clamp(at.y + dy, f.width) } : at;
  drawField(live.view, true);
}

/* Setting the clock: typed as minutes:seconds. */
function setClock() {
  const input = $("clock-input");
  const m = (input.value || "").trim().match(/^(\d{1,3})(?:[:.\s]?(\d{2}))?$/);
  if (!m) { notice({ kind: "hint", msg: T.clock_set_invalid }); input.focus(); return; }
  const ms = (Number(m[1]) * 60 + Number(m[2] || 0)) * 1000;
  const length = live.view.clock.length_ms;
  if (ms > length) {
    // Shown here, never shortened silently: the official sees what was typed and the half's length.
    notice({ kind: "hint", msg: fmt(T.clock_set_too_long, { typed: mmss(ms), length: mmss(length) }) });
    input.focus();
    return;
  }
  submit({ type: "clock", action: "set", elapsed_ms: ms });
  input.value = "";
  input.blur();
}

/* ---- keys while a call is being built ----------------------------------------------------------- */
export function key(ev) {
  const call = live.call, k = ev.key;
  if (k === "Escape") { cancel(); return; }
  if (ARROWS[k] && awaitingSpot()) {
    ev.preventDefault();
    const step = ev.shiftKey ? 5 : 1;
    moveCursor(ARROWS[k][0] * step, ARROWS[k][1] * step);
    return;
  }
  if (k === "Enter" && !call.digits && call.cursor && awaitingSpot()) { ev.preventDefault(); markSpot(call.cursor); return; }
  if ((k === "h" || k === "a") && teamParam()) { chooseTeam(k === "h" ? "home" : "away"); return; }
  if (/^\d$/.test(k)) { call.digits += k; drawBuilder(); return; }
  if (k === "Backspace") { call.digits = call.digits.slice(0, -1); drawBuilder(); return; }
  if (k !== "Enter") return;
  ev.preventDefault();
  const ps = picks();
  const st = stage();
  const p = ps[st - 1];
  if (!call.digits) {
    if (p && call.picks[st - 1] === undefined && mayPickNone(p)) choosePlayer(null, st);
    else tryComplete("send");
    return;
  }
  const n = Number(call.digits);
  call.digits = "";
  if (p && candidates(p, pickTeam(p)).indexOf(n) >= 0 && blocked(p).players.indexOf(n) < 0) choosePlayer(n, st);
  else drawBuilder();
}
