/* The event log, the waiting calls, Undo (two taps: the first arms it for 6 s), and the notices of the
 * engine's answers to the calls sent (notices.js draws them). A tap on an event opens its menu: correct it, add a
 * missed call after it, disallow a goal (fix.js), or write a note about it (notes.js). */
import { $, esc, setHtml, setText, show } from "../lib/dom.js";
import { mmss } from "../lib/clock.js";
import { fmt } from "../lib/words.js";
import { CALLS, D, NOT_UNDOABLE, T, V, allowed, may } from "./page.js";
import { appendEntry, live, setLog } from "./state.js";
import { actionOf, describe, entryEvent, entryTime, fixable, isVoided, undoWhat, voidedWhat } from "./entries.js";
import * as queue from "./queue.js";
import { ruleTitle } from "../lib/words.js";
import { reasonText, refusalText, verdict } from "./legal.js";
import * as fix from "./fix.js";
import * as notes from "./notes.js";
import { hintFor, notice, refusedHere } from "./notices.js";
import { submit } from "./calls.js";

const ARMED_MS = 6000;
/* SPEC M8: the log entries whose yellow card was a player's second, as the engine's replay says
 * (/matches/<id>/timeline.json, pages.timeline): never counted here. Handed over with the page, then
 * fetched again after an entry that may change them (a card, a correction). */
let secondSeqs = new Set(D.second_yellows || []);
let fetchingSeconds = false, fetchAgain = false;
function refreshSecondYellows() {
  if (fetchingSeconds) { fetchAgain = true; return; }
  fetchingSeconds = true;
  fetchAgain = false;
  fetch("/matches/" + encodeURIComponent(D.match) + "/timeline.json", { cache: "no-store" })
    .then((r) => (r.ok ? r.json() : null))
    .then((t) => {
      if (!t) return;
      secondSeqs = new Set(t.entries.filter((x) => x.second_yellow).map((x) => x.seq));
      drawLog();
    })
    .catch(() => {})
    .then(() => {
      fetchingSeconds = false;
      if (fetchAgain) refreshSecondYellows();
    });
}
function maySecondYellow(e) {
  const ev = entryEvent(e);
  return e.type === "void" || e.type === "amend" || e.type === "insert" || ev.type === "card" || (ev.type === "foul" && !!ev.card);
}
let armed = null; // a void waiting for its confirming second tap: {seq, button, timer}
const undoBtn = $("undo");

/* M6, D132 (the engine's catalogue, handed over as page data): the score sheet's events and the
 * organiser's are never undone from a console; a locked match takes no void at all. */
// M6, D132: the catalogue says which types are never undone; the page, whose events (the organiser's).
const UNDO = { not_types: NOT_UNDOABLE, not_by: (D.undo || {}).not_by || [] };
function undoable(e) {
  return e.type !== "void" && e.voided_by === null && UNDO.not_types.indexOf(e.type) < 0 && UNDO.not_by.indexOf(e.by) < 0;
}
function locked() { return !!(live.view && live.view.locked); }

function lastVoidable() {
  if (locked()) return null;
  for (let i = live.log.length - 1; i >= 0; i--) {
    if (undoable(live.log[i])) return live.log[i];
  }
  return null;
}

let openSeq = null; // the log entry whose menu is open

export function drawUndo() {
  drawNoteOpen();
  if (!undoBtn) return;
  const queued = queue.cancellable();
  if (queued) {
    setText(undoBtn, fmt(T.cancel_queued, { what: describe(queued) }));
    undoBtn.disabled = false;
    undoBtn.setAttribute("data-target", "");
    undoBtn.setAttribute("data-queued", queued.id);
    return;
  }
  undoBtn.removeAttribute("data-queued");
  const e = lastVoidable();
  const isArmed = !!(e && armed && armed.button === undoBtn && armed.seq === e.seq);
  const label = !e ? T.undo_nothing : isArmed ? T.tap_again_undo + T.colon + undoWhat(e) : fmt(T.undo_label, { what: undoWhat(e) });
  setText(undoBtn, label);
  undoBtn.classList.toggle("armed", isArmed);
  undoBtn.disabled = !e;
  undoBtn.setAttribute("data-target", e ? e.seq : "");
}

/* The Note button follows `legal` like every call: greyed, with the engine's reason, once locked (M6). */
function drawNoteOpen() {
  const b = $("note-open");
  if (!b) return;
  const v = verdict(live.view, "note", null);
  b.disabled = v.ok === false || live.revoked;
  b.title = v.ok === false && v.reason ? reasonText(v.reason) : "";
}

export function drawLog() {
  let html = "";
  const q = queue.load();
  for (let j = q.length - 1; j >= 0; j--) {
    const b = q[j];
    const sending = queue.isInflight(b.id);
    html += '<li class="queued" data-id="' + esc(b.id) + '"><span class="t">' + (b.at_ms !== undefined ? mmss(b.at_ms) : "") + "</span> " +
      '<span class="d">' + esc(describe(b)) + "</span> " +
      '<span class="vd">' + esc(sending ? T.sending_one : T.queued) + "</span>" +
      (sending ? "" : ' <button type="button" class="void-btn" data-cancel="' + esc(b.id) + '">' + esc(T.cancel) + "</button>") + "</li>";
  }
  for (let i = live.log.length - 1; i >= 0; i--) {
    const e = live.log[i];
    const voided = isVoided(e);
    const canVoid = allowed.has("void") && undoable(e) && !locked() && !live.revoked;
    const isArmed = armed && armed.seq === e.seq && armed.button !== undoBtn;
    const sy = secondSeqs.has(e.seq);
    // D182: the entry is a button, so that its menu opens from the keyboard too (Tab, then Enter or Space).
    html += '<li class="' + (voided ? "voided" : "") + (sy ? " second-yellow" : "") + (openSeq === e.seq ? " open" : "") + '" value="' + e.seq + '" data-seq="' + e.seq + '">' +
      '<button type="button" class="entry" aria-expanded="' + (openSeq === e.seq) + '">' +
      '<span class="t">' + entryTime(e) + "</span> " +
      '<span class="d">' + esc(describe(e, sy)) + "</span> " +
      '<span class="by">' + esc(fmt(T.by_role, { role: V.role[e.by] || e.by })) + "</span></button>" +
      (voided ? ' <span class="vd">' + esc(T.voided) + "</span>" : "") +
      (canVoid ? ' <button type="button" class="void-btn' + (isArmed ? " armed" : "") + '" data-void="' + e.seq + '">' + esc(isArmed ? T.tap_again_undo : T.void) + "</button>" : "") +
      (openSeq === e.seq ? menu(e) : "") +
      "</li>";
  }
  setHtml("log", html);
  drawUndo();
}

/* An entry's menu: what can be done about it from here. */
function menu(e) {
  const o = fix.offers(e);
  let h = "";
  if (o.amend) h += '<button type="button" class="act small" data-fix="amend">' + esc(T.fix_correct) + "</button>";
  if (o.insert) h += '<button type="button" class="act small" data-fix="insert">' + esc(T.fix_add_after) + "</button>";
  if (o.disallow) h += '<button type="button" class="act small stop" data-fix="disallow">' + esc(T.fix_disallow) + "</button>";
  if (may.note && e.type !== "void" && !locked() && !live.revoked) h += '<button type="button" class="act small" data-note-about="1">' + esc(T.note_about) + "</button>";
  return h ? '<div class="entry-menu">' + h + "</div>" : "";
}

/* A log entry from Socket.IO; a gap means entries were missed: fetch the log again. */
export function addEntry(e) {
  if (live.log.some((x) => x.seq === e.seq)) return;
  if (live.log.length && e.seq > live.log[live.log.length - 1].seq + 1) { resyncLog(); return; }
  appendEntry(e);
  // A correction changes which entries count (D8, M3): the server's log says so again (its `struck`, D344).
  if (e.type === "void" || e.type === "amend") resyncLog();
  // M6: a reopen arriving live replaces whatever the console said while the match was locked (a
  // refusal citing M6 would otherwise stay up) with the organiser's reason.
  if (e.type === "reopen") notice({ kind: "decision", rule: "M6", title: V.event.reopen, msg: fmt(T.reopened_notice, { reason: e.reason }) });
  if (maySecondYellow(e)) refreshSecondYellows();
  drawLog();
}

export function resyncLog() {
  queue.api("GET", "/events").then((r) => r.json()).then((l) => { setLog(l); drawLog(); refreshSecondYellows(); }).catch(() => {});
}

function armOrVoid(seq, button) {
  if (armed && armed.seq === seq && armed.button === button) {
    clearTimeout(armed.timer);
    armed = null;
    const v = verdict(live.view, "void", null);
    if (v.ok === false) { refusedHere(V.event.void, v.reason); drawLog(); return; }
    submit({ type: "void", target: seq, reason: "undo" });
    drawLog();
    return;
  }
  if (armed) clearTimeout(armed.timer);
  armed = { seq: seq, button: button, timer: setTimeout(() => { armed = null; drawLog(); }, ARMED_MS) };
  drawLog();
}

export function undo() { if (undoBtn && !undoBtn.disabled) undoBtn.click(); }

if (undoBtn) undoBtn.addEventListener("click", () => {
  const queued = undoBtn.getAttribute("data-queued");
  if (queued) { queue.takeBack(queued); return; }
  const seq = Number(undoBtn.getAttribute("data-target"));
  if (seq) armOrVoid(seq, undoBtn);
});
$("log").addEventListener("click", (ev) => {
  const b = ev.target.closest("[data-void]");
  if (b) { armOrVoid(Number(b.getAttribute("data-void")), "log"); return; }
  const c = ev.target.closest("[data-cancel]");
  if (c) { queue.takeBack(c.getAttribute("data-cancel")); return; }
  const li = ev.target.closest("li[data-seq]");
  if (!li) return;
  const seq = Number(li.getAttribute("data-seq"));
  const e = live.log.find((x) => x.seq === seq);
  const f = ev.target.closest("[data-fix]");
  if (f && e) { openSeq = null; fix.begin(f.getAttribute("data-fix"), e); drawLog(); return; }
  if (ev.target.closest("[data-note-about]") && e) { openSeq = null; notes.open(e); drawLog(); return; }
  openSeq = openSeq === seq ? null : seq;
  drawLog();
  // The log is drawn again: the keyboard's place stays on the entry (its menu follows it in Tab order).
  const entry = $("log").querySelector('li[data-seq="' + seq + '"] button.entry');
  if (entry && ev.detail === 0) entry.focus();
});

/* The server refused a call (its message is already in the page's language). */
export function refused(data, body, queued) {
  const rule = data && data.rule;
  const head = data && data.error === "rule" ? fmt(T.refused_rule, { rule: rule }) : T[data && data.error] || T.refused;
  const what = body.type === "void" ? fmt(T.undo_label, { what: voidedWhat(body.target) }) : describe(body);
  let msg = (queued ? T.queued_refused + T.colon : "") + what + " — " + refusalText(data);
  const fields = flattenFields(data && data.fields, "", []);
  if (fields.length) msg += T.colon + fields.join("; ");
  // SPEC M1: a call queued offline arrives after another official's later call. It was made, so it is
  // not simply lost: the referee may add it as a missed call at its own time (M3); others are told so.
  let action = null, hint = hintFor(data && data.next_call);
  // The server says where it fits (`fits_after`, the engine's replay); offered only in the half it was
  // stamped in, and for calls the builder can rebuild (not the clock's own controls).
  const anchor = data && typeof data.fits_after === "number" ? live.log.find((x) => x.seq === data.fits_after) : null;
  const rebuildable = fixable(actionOf(body)) && body._period === live.server.period;
  if (queued && rule === "M1" && anchor && rebuildable) {
    if (may.insert) action = { label: T.add_as_missed, run: () => fix.beginInsert(anchor, body) };
    else hint = T.ask_referee_missed;
  }
  notice({ kind: "refusal", rule: head, title: ruleTitle(rule), msg: msg, hint: hint, action: action });
}

/* A 400's `fields` map as "elapsed_ms: must be at most …" lines. */
function flattenFields(fields, prefix, out) {
  Object.keys(fields || {}).forEach((k) => {
    const v = fields[k], path = prefix ? prefix + "." + k : k;
    if (Array.isArray(v)) out.push(path + T.colon + v.join(" "));
    else if (v && typeof v === "object") flattenFields(v, path, out);
  });
  return out;
}

/* The engine's decision on an accepted call: what it awarded (and, after a foul, the player's count, M8).
 * After a goal, the referee may disallow it at once (M3: an amend into the call that voids it). */
export function decided(body, s, seq) {
  if (!s) return;
  const after = s.restart ? fmt(T.restart_pending, { restart: V.restart[s.restart.type], team: s.teams[s.restart.team].name }) : "";
  let msg = after ? "→ " + after : "";
  if (body.type === "foul" && body.player !== null && body.player !== undefined && s.teams[body.team].fouls) {
    const n = s.teams[body.team].fouls[String(body.player)];
    if (n) msg += (msg ? " · " : "") + fmt(n === 1 ? T.fouls_now_one : T.fouls_now, { player: "#" + body.player, n: n });
  }
  const ts = body.team && s.teams[body.team];
  const second = !!(ts && (body.type === "card" || body.type === "foul") && (ts.second_yellow || []).indexOf(body.player) >= 0 &&
    (body.color === "yellow" || body.card === "yellow"));
  let action = null;
  if (body.type === "goal" && seq && may.amend && !live.revoked) {
    action = {
      label: T.fix_disallow,
      run: () => fix.begin("disallow", live.log.find((x) => x.seq === seq) || Object.assign({ seq: seq, voided_by: null }, body)),
    };
  }
  notice({ kind: "decision", rule: "✓", title: describe(body, second), msg: msg, action: action });
}

/* SPEC M4: the same call was already logged by another official: nothing stored, and no error. */
export function duplicate(body, data) {
  const e = live.log.find((x) => x.seq === data.duplicate_of);
  notice({
    kind: "duplicate",
    rule: "M4",
    title: fmt(T.already_logged, { role: V.role[data.by] || data.by }),
    msg: describe(body) + (e && entryTime(e) ? " · " + entryTime(e) : ""),
  });
}

