/* Correcting the past (SPEC M3): tap an event of the log → "correct" → the call builder, filled in
 * from it → before saving, the server's preview (`?dry_run=1`) of what the correction changes: the
 * score, the restart, and when it is refused, the refusal and the first later event that would be
 * refused → save posts an `amend`. "Add a missed call after this one" posts an `insert`; "disallow
 * goal" is an amend of the goal into the call that voids it (the engine names it, `legal.disallowed_goal`:
 * a player in the area, at a tapped spot).
 *
 * Nothing here judges a rule: the preview is the engine's answer, with nothing stored.
 */
import { $, esc, setHtml, setText, show } from "../lib/dom.js";
import { player } from "../lib/players.js";
import { fmt, restartText, ruleTitle } from "../lib/words.js";
import { CALLS, T, V, may } from "./page.js";
import { live, redraw, setFix } from "./state.js";
import * as queue from "./queue.js";
import { actionOf, describe, entryEvent, entryTime, fixable } from "./entries.js";
import { cancel as cancelCall, closedBy, start as startCall } from "./builder.js";
import { submit } from "./calls.js";
import { disallowedGoalCall, refusalText } from "./legal.js";

const SKIP = new Set(["seq", "by", "at_ms", "received_at", "voided_by", "id", "_period"]); // the log's own fields

/* What the log entry's menu offers for `e` (a log entry). */
export function offers(e) {
  if (e.voided_by !== null || e.type === "void" || live.revoked) return { amend: false, insert: false, disallow: false };
  const ev = entryEvent(e);
  return {
    amend: !!may.amend && fixable(actionOf(ev)), // the sheet's events (roster, note, sign …) are voided, not amended
    insert: !!may.insert,
    disallow: !!may.amend && ev.type === "goal" && !!CALLS[disallowing()],
  };
}

/* The call a disallowed goal becomes, as the engine says (`legal.disallowed_goal`: SPEC M3, 7.2 note); the
 * server's last state has it even while calls wait. */
function disallowing() { return disallowedGoalCall(live.server); }

function bodyOf(e) {
  const out = {};
  Object.keys(e).forEach((k) => { if (!SKIP.has(k)) out[k] = e[k]; });
  return out;
}

/* Begin a correction of log entry `e`: "amend", "insert" (a missed call after it) or "disallow". */
export function begin(mode, e) {
  if (live.call) cancelCall(true);
  const ev = bodyOf(entryEvent(e));
  setFix({ mode: mode === "insert" ? "insert" : "amend", seq: e.seq, entry: e, carry: null, key: null, result: null, body: null, n: 0 });
  setText("fix-what", fmt(mode === "insert" ? T.fix_after : T.fix_replaces, { what: what(e) }));
  $("fix-reason").value = "";
  drawPreview();
  window.scrollTo(0, 0); // the log is below: the field and the builder are at the top
  if (mode === "insert") { choose(); return; }
  if (mode === "disallow") {
    // The goal is voided by the call that should have been made (4.3, 7.2 note), the engine's
    // `legal.disallowed_goal`; the referee taps where, and may choose another call.
    live.fix.carry = { team: ev.team, player: ev.player === undefined ? null : ev.player };
    rebuild(disallowing(), live.fix.carry);
    return;
  }
  rebuild(actionOf(ev), ev);
}

/* A call that arrived too late to be judged at its own time (SPEC M1: another official had logged a later
 * one) becomes a missed call added after `anchor`, the last entry before it, at its own game time: the
 * builder opens filled in from it, the server previews it, and the referee saves it or not (M3). */
export function beginInsert(anchor, body) {
  begin("insert", anchor);
  live.fix.at_ms = body.at_ms;
  const ev = bodyOf(body);
  rebuild(actionOf(ev), ev); // the caller offers only calls the builder can rebuild (fixable)
}

function what(e) { return "#" + e.seq + " " + describe(entryEvent(e)) + (entryTime(e) ? " (" + entryTime(e) + ")" : ""); }

/* Choose the call (a missed one, or another call in place of the logged one): the call buttons. */
function choose() {
  const f = live.fix;
  show("builder", false);
  show("actions", true);
  setText("fix-banner-text", fmt(f.mode === "insert" ? T.fix_choose_insert : T.fix_choose_amend, { what: what(f.entry) }));
  show("fix-banner", true);
  redraw();
}

/* The builder, opened for this correction: filled in from `prefill`; it hands each call it describes to
 * preview() and closing it ends the correction. */
function rebuild(action, prefill) {
  const f = live.fix;
  startCall(action, { prefill: prefill, preview: preview, end: () => { if (live.fix === f) end(); } });
}

/* A call button pressed while choosing the call of a correction (main.js). */
export function chooseCall(action) {
  if (fixable(action)) rebuild(action, live.fix.carry || {});
}

export function end() {
  setFix(null);
  show("fix-banner", false);
  show("b-fix", false);
  if (live.call) cancelCall();
  else redraw();
}

/* The call the builder describes (or null while incomplete): ask the server what it would do. */
export function preview(event) {
  const f = live.fix;
  if (!f) return;
  show("fix-banner", false);
  show("b-fix", true);
  if (!event) {
    f.event = null;
    f.key = null;
    f.result = null;
    drawPreview();
    return;
  }
  f.event = event;
  const body = wrap(f, event, false); // the reason changes nothing the preview shows
  const key = JSON.stringify(body) + "@" + live.server.seq;
  if (key === f.key) return;
  f.key = key;
  f.result = { loading: true };
  drawPreview();
  const n = ++f.n;
  queue.api("POST", "/events?dry_run=1", body)
    .then((r) => r.json().catch(() => ({})).then((data) => ({ status: r.status, data: data })))
    .then((res) => {
      if (live.fix !== f || f.n !== n) return;
      f.result = res;
      drawPreview();
    }, () => {
      if (live.fix !== f || f.n !== n) return;
      f.result = { offline: true };
      drawPreview();
    });
}

/* The server's state moved on (another official's call): the preview is asked again. */
export function refresh() {
  const f = live.fix;
  if (f && f.event && f.key && !f.key.endsWith("@" + live.server.seq)) preview(f.event);
}

function wrap(f, event, withReason) {
  if (f.at_ms !== undefined && f.at_ms !== null && event.at_ms === undefined) event = Object.assign({}, event, { at_ms: f.at_ms });
  const body = f.mode === "insert" ? { type: "insert", after: f.seq, event: event } : { type: "amend", target: f.seq, event: event };
  const reason = ($("fix-reason").value || "").trim();
  if (reason && withReason !== false) body.reason = reason;
  return body;
}

function drawPreview() {
  const f = live.fix;
  const box = $("fix-preview");
  const save = $("fix-save");
  let html = "", cls = "fix-preview", ok = false;
  const r = f && f.result;
  if (!f || !f.event) {
    html = esc(T.fix_incomplete);
  } else if (r && r.loading) {
    html = esc(T.fix_previewing);
  } else if (r && r.offline) {
    html = esc(T.fix_no_preview);
    ok = true; // no preview without the network: it can still be queued; the server rules on it
  } else if (r && r.status === 200 && r.data && r.data.state) {
    html = changes(live.server, r.data.state).map((line) => "<li>" + esc(line) + "</li>").join("");
    html = '<b class="ok">' + esc(T.fix_accepted) + "</b><ul>" + html + "</ul>";
    cls += " accepted";
    ok = true;
  } else if (r) {
    html = refusal(r.data || {});
    cls += " refused";
  }
  box.className = cls;
  setHtml(box, html);
  save.disabled = !ok;
}

/* What the correction changes, in words: the score, the restart, the phase, who is sent off. */
function changes(before, after) {
  const out = [];
  const score = (s) => s.score.home + "–" + s.score.away;
  out.push(score(before) === score(after) ? fmt(T.fix_score_same, { score: score(after) }) : fmt(T.fix_score, { before: score(before), after: score(after) }));
  const r0 = restartText(before) || "—", r1 = restartText(after) || "—";
  out.push(r0 === r1 ? fmt(T.fix_restart_same, { restart: r1 }) : fmt(T.fix_restart, { before: r0, after: r1 }));
  if (before.phase !== after.phase) out.push(fmt(T.fix_phase, { before: V.phase[before.phase], after: V.phase[after.phase] }));
  ["home", "away"].forEach((t) => {
    const was = before.teams[t].sent_off, now = after.teams[t].sent_off;
    now.filter((n) => was.indexOf(n) < 0).forEach((n) => out.push(fmt(T.fix_sent_off, { player: after.teams[t].name + " " + player(t, n) })));
    was.filter((n) => now.indexOf(n) < 0).forEach((n) => out.push(fmt(T.fix_not_sent_off, { player: after.teams[t].name + " " + player(t, n) })));
  });
  return out;
}

function refusal(data) {
  const head = data.error === "rule" ? fmt(T.refused_rule, { rule: data.rule }) : T[data.error] || T.refused;
  let html = '<b class="no">' + esc(head) + "</b> " + esc(ruleTitle(data.rule)) + '<p class="msg">' + esc(refusalText(data)) + "</p>";
  if (data.first_refused) {
    const e = live.log.find((x) => x.seq === data.first_refused);
    const text = e ? what(e) : "#" + data.first_refused;
    html += '<p class="first" data-first-refused="' + data.first_refused + '">' + esc(fmt(T.fix_first_refused, { what: text })) + "</p>";
  }
  const fields = Object.keys(data.fields || {}).map((k) => k + T.colon + [].concat(data.fields[k]).join(" "));
  if (fields.length) html += '<p class="msg">' + esc(fields.join("; ")) + "</p>";
  return html;
}

function save() {
  const f = live.fix;
  if (!f || !f.event) return;
  const body = wrap(f, f.event);
  end();
  submit(body);
}

$("fix-save").addEventListener("click", (ev) => { closedBy(ev); save(); });
$("fix-banner-cancel").addEventListener("click", (ev) => { closedBy(ev); end(); });
$("fix-other").addEventListener("click", () => {
  const f = live.fix;
  if (!f) return;
  const c = live.call;
  if (c) f.carry = { team: c.team, player: c.picks[0] === undefined ? null : c.picks[0], spot: c.spot };
  cancelCall(true);
  choose();
});
