/* The event log, the waiting calls, Undo (two taps: the first arms it for 6 s) and the notices that
 * tell the engine's decisions and refusals. A tap on an event opens its menu: correct it, add a
 * missed call after it, disallow a goal (fix.js), or write a note about it (notes.js). */
import { D, Q, T, V, allowed, hooks, live, may } from "./page.js";
import { describe, entryEvent, entryTime, isVoided, undoWhat, voidedWhat } from "./entries.js";
import * as queue from "./queue.js";
import { reasonText, ruleTitle, verdict } from "./legal.js";
import * as fix from "./fix.js";
import * as notes from "./notes.js";

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
const undoBtn = Q.$("undo");

function lastVoidable() {
  for (let i = live.log.length - 1; i >= 0; i--) {
    if (live.log[i].type !== "void" && live.log[i].voided_by === null) return live.log[i];
  }
  return null;
}

let openSeq = null; // the log entry whose menu is open

export function drawUndo() {
  if (!undoBtn) return;
  const queued = queue.cancellable();
  if (queued) {
    Q.setText(undoBtn, Q.fmt(T.cancel_queued, { what: describe(queued) }));
    undoBtn.disabled = false;
    undoBtn.setAttribute("data-target", "");
    undoBtn.setAttribute("data-queued", queued.id);
    return;
  }
  undoBtn.removeAttribute("data-queued");
  const e = lastVoidable();
  const isArmed = !!(e && armed && armed.button === undoBtn && armed.seq === e.seq);
  const label = !e ? T.undo_nothing : isArmed ? T.tap_again_undo + T.colon + undoWhat(e) : Q.fmt(T.undo_label, { what: undoWhat(e) });
  Q.setText(undoBtn, label);
  undoBtn.classList.toggle("armed", isArmed);
  undoBtn.disabled = !e;
  undoBtn.setAttribute("data-target", e ? e.seq : "");
}

export function drawLog() {
  let html = "";
  const q = queue.load();
  for (let j = q.length - 1; j >= 0; j--) {
    const b = q[j];
    const sending = queue.isInflight(b.id);
    html += '<li class="queued" data-id="' + Q.esc(b.id) + '"><span class="t">' + (b.at_ms !== undefined ? Q.mmss(b.at_ms) : "") + "</span> " +
      '<span class="d">' + Q.esc(describe(b)) + "</span> " +
      '<span class="vd">' + Q.esc(sending ? T.sending_one : T.queued) + "</span>" +
      (sending ? "" : ' <button type="button" class="void-btn" data-cancel="' + Q.esc(b.id) + '">' + Q.esc(T.cancel) + "</button>") + "</li>";
  }
  for (let i = live.log.length - 1; i >= 0; i--) {
    const e = live.log[i];
    const voided = isVoided(e);
    const canVoid = allowed.has("void") && e.voided_by === null && e.type !== "void" && !live.revoked;
    const isArmed = armed && armed.seq === e.seq && armed.button !== undoBtn;
    const sy = secondSeqs.has(e.seq);
    html += '<li class="' + (voided ? "voided" : "") + (sy ? " second-yellow" : "") + (openSeq === e.seq ? " open" : "") + '" value="' + e.seq + '" data-seq="' + e.seq + '">' +
      '<span class="t">' + entryTime(e) + "</span> " +
      '<span class="d">' + Q.esc(describe(e, sy)) + "</span> " +
      '<span class="by">' + Q.esc(Q.fmt(T.by_role, { role: V.role[e.by] || e.by })) + "</span>" +
      (voided ? ' <span class="vd">' + Q.esc(T.voided) + "</span>" : "") +
      (canVoid ? ' <button type="button" class="void-btn' + (isArmed ? " armed" : "") + '" data-void="' + e.seq + '">' + Q.esc(isArmed ? T.tap_again_undo : T.void) + "</button>" : "") +
      (openSeq === e.seq ? menu(e) : "") +
      "</li>";
  }
  Q.setHtml("log", html);
  drawUndo();
}

/* An entry's menu: what can be done about it from here. */
function menu(e) {
  const o = fix.offers(e);
  let h = "";
  if (o.amend) h += '<button type="button" class="act small" data-fix="amend">' + Q.esc(T.fix_correct) + "</button>";
  if (o.insert) h += '<button type="button" class="act small" data-fix="insert">' + Q.esc(T.fix_add_after) + "</button>";
  if (o.disallow) h += '<button type="button" class="act small stop" data-fix="disallow">' + Q.esc(T.fix_disallow) + "</button>";
  if (may.note && e.type !== "void" && !live.revoked) h += '<button type="button" class="act small" data-note-about="1">' + Q.esc(T.note_about) + "</button>";
  return h ? '<div class="entry-menu">' + h + "</div>" : "";
}

/* A log entry from Socket.IO; a gap means entries were missed: fetch the log again. */
export function addEntry(e) {
  if (live.log.some((x) => x.seq === e.seq)) return;
  if (live.log.length && e.seq > live.log[live.log.length - 1].seq + 1) { resyncLog(); return; }
  live.log.push(e);
  if (e.type === "void" || e.type === "amend") live.log.forEach((x) => { if (x.seq === e.target) x.voided_by = e.seq; });
  if (maySecondYellow(e)) refreshSecondYellows();
  drawLog();
}

export function resyncLog() {
  queue.api("GET", "/events").then((r) => r.json()).then((l) => { live.log = l; drawLog(); refreshSecondYellows(); }).catch(() => {});
}

function armOrVoid(seq, button) {
  if (armed && armed.seq === seq && armed.button === button) {
    clearTimeout(armed.timer);
    armed = null;
    const v = verdict(live.view, "void", null);
    if (v.ok === false) { refusedHere(V.event.void, v.reason); drawLog(); return; }
    hooks.submit({ type: "void", target: seq, reason: "undo" });
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
Q.$("log").addEventListener("click", (ev) => {
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
});

/* ---- notices: refusals and decisions ------------------------------------------------------ */
export function notice(n) {
  const box = Q.$("notice");
  box.className = "notice " + (n.kind || "refusal");
  Q.setText("notice-rule", n.rule || "");
  Q.setText("notice-title", n.title || "");
  Q.setText("notice-msg", n.msg || "");
  Q.setText("notice-hint", n.hint || "");
  Q.show("notice-hint", !!n.hint);
  const act = Q.$("notice-action");
  noticeAction = n.action || null;
  Q.setText(act, noticeAction ? noticeAction.label : "");
  act.hidden = !noticeAction;
  Q.show(box, true);
  // The notices' box has a fixed height (issue 13): under a banner, scroll it to the new notice.
  const area = Q.$("notices");
  if (area) area.scrollTop = box.offsetTop; // .notices is positioned: offsetTop is within it
}
let noticeAction = null; // {label, run}: what the notice offers (a goal just logged: disallow it)
Q.$("notice-action").addEventListener("click", () => {
  const a = noticeAction;
  hideNotice();
  if (a) a.run();
});
export function hideNotice() { Q.show("notice", false); }
Q.$("notice-close").addEventListener("click", hideNotice);

/* Issue 13: after a refusal because the ball is dead or in play, what to call next. Derived from the
 * refusal's English template (the engine's msgid: `legal`'s reasons carry it; a server refusal carries
 * its English text as `message`, or `message_en` in another language). A refusal not listed gets none. */
const HINTS = [
  [/^a bottle knocked down straight from an end-line ball/, "hint_end_line"], // 10.4: the ball went out
  [/^no restart is pending: the ball is in play/, "hint_stop_first"], // 10.1: a restart while live
  [/^the ball is dead \(/, "hint_take_restart"], // a live-ball call while a restart is pending
];
export function hintFor(englishText) {
  const h = HINTS.find(([re]) => re.test(englishText || ""));
  return h ? T[h[1]] : "";
}

/* A greyed call pressed: the engine's own reason, with its rule, in the page's language. */
export function refusedHere(what, reason) {
  if (!reason) return;
  notice({
    kind: "refusal", rule: Q.fmt(T.not_now_rule, { rule: reason.rule }), title: ruleTitle(reason.rule),
    msg: what + " — " + reasonText(reason), hint: hintFor(reason.template || reason.message),
  });
}

/* The server refused a call (its message is already in the page's language). */
export function refused(data, body, queued) {
  const rule = data && data.rule;
  const head = data && data.error === "rule" ? Q.fmt(T.refused_rule, { rule: rule }) : T[data && data.error] || T.refused;
  const what = body.type === "void" ? Q.fmt(T.undo_label, { what: voidedWhat(body.target) }) : describe(body);
  let msg = (queued ? T.queued_refused + T.colon : "") + what + " — " + ((data && data.message) || "");
  const fields = flattenFields(data && data.fields, "", []);
  if (fields.length) msg += T.colon + fields.join("; ");
  const english = data && data.error === "rule" ? data.message_en || data.message : "";
  // SPEC M1: a call queued offline arrives after another official's later call. It was made, so it is
  // not simply lost: the referee may add it as a missed call at its own time (M3); others are told so.
  let action = null, hint = hintFor(english);
  // The server says where it fits (`fits_after`, the engine's replay); offered only in the half it was
  // stamped in, and for calls the builder can rebuild (not the clock's own controls).
  const anchor = data && typeof data.fits_after === "number" ? live.log.find((x) => x.seq === data.fits_after) : null;
  const rebuildable = fix.fixable(fix.actionOf(body)) && body._period === live.server.period;
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
  const after = s.restart ? Q.fmt(T.restart_pending, { restart: V.restart[s.restart.type], team: s.teams[s.restart.team].name }) : "";
  let msg = after ? "→ " + after : "";
  if (body.type === "foul" && body.player !== null && body.player !== undefined && s.teams[body.team].fouls) {
    const n = s.teams[body.team].fouls[String(body.player)];
    if (n) msg += (msg ? " · " : "") + Q.fmt(n === 1 ? T.fouls_now_one : T.fouls_now, { player: "#" + body.player, n: n });
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
    title: Q.fmt(T.already_logged, { role: V.role[data.by] || data.by }),
    msg: describe(body) + (e && entryTime(e) ? " · " + entryTime(e) : ""),
  });
}

