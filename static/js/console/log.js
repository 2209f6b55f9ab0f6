/* The event log, the waiting calls, Undo (two taps: the first arms it for 6 s) and the notices that
 * tell the engine's decisions and refusals. */
import { Q, T, V, allowed, hooks, live, other, teamName } from "./page.js";
import * as queue from "./queue.js";
import { reasonText, ruleTitle, verdict } from "./legal.js";

const ARMED_MS = 6000;
let armed = null; // a void waiting for its confirming second tap: {seq, button, timer}
const undoBtn = Q.$("undo");

/* A call or log entry in words: "Goal, home #7 Li". */
export function describe(e) {
  const t = e.team, S = T.sep, C = T.colon;
  const who = t ? teamName(t) + (e.player !== null && e.player !== undefined ? " " + Q.player(t, e.player) : "") : "";
  switch (e.type) {
    case "violation": return V.violation[e.kind] + S + who;
    case "foul":
      return V.event.foul + S + who + (e.where && e.where !== "field" ? S + V.where[e.where] : "") +
        (e.on_official ? S + T.on_official : "") + (e.card ? " + " + V.card[e.card] : "");
    case "card": return V.card[e.color] + S + who;
    case "substitution":
      return V.event.substitution + S + teamName(t) + C + (e.out === null || e.out === undefined
        ? Q.fmt(T.sub_line_nobody, { in: e.in }) : Q.fmt(T.sub_line, { out: e.out, in: e.in }));
    case "clock": return V.event.clock + C + V.clock[e.action] + (e.action === "set" ? " " + Q.mmss(e.elapsed_ms) : "");
    case "coin_toss": return V.event.coin_toss + C + Q.fmt(T.kicks_off, { team: teamName(e.kickoff) }) + S + Q.fmt(T.defends, { team: teamName("home"), end: T["end_" + e.home_end] });
    case "catch": return V.event.catch + S + who + (e.caught !== null && e.caught !== undefined ? " → " + Q.player(other(t), e.caught) : "");
    case "shootout_kick": return V.event.shootout_kick + S + teamName(t) + C + (e.scored ? T.scored : T.missed);
    case "shootout_start": return V.event.shootout_start + C + teamName(e.first);
    case "void": return Q.fmt(T.undone, { what: voidedWhat(e.target) });
    case "abandon": return V.event.abandon + C + e.reason;
    default: return (V.event[e.type] || e.type) + (who ? S + who : "");
  }
}
function entryTime(e) { return e.at_ms !== null && e.at_ms !== undefined ? Q.mmss(e.at_ms) : ""; }
/* A log entry in the Undo button's words: "Goal, home #7 Li, 12:31". */
export function undoWhat(e) { return describe(e) + (entryTime(e) ? T.sep + entryTime(e) : ""); }
export function voidedWhat(seq) {
  const e = live.log.find((x) => x.seq === seq);
  return e ? undoWhat(e) : "#" + seq;
}

function lastVoidable() {
  for (let i = live.log.length - 1; i >= 0; i--) {
    if (live.log[i].type !== "void" && live.log[i].voided_by === null) return live.log[i];
  }
  return null;
}

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
    const voided = e.voided_by !== null;
    const canVoid = allowed.has("void") && !voided && e.type !== "void";
    const isArmed = armed && armed.seq === e.seq && armed.button !== undoBtn;
    html += '<li class="' + (voided ? "voided" : "") + '" value="' + e.seq + '" data-seq="' + e.seq + '">' +
      '<span class="t">' + entryTime(e) + "</span> " +
      '<span class="d">' + Q.esc(describe(e)) + "</span> " +
      '<span class="by">' + Q.esc(Q.fmt(T.by_role, { role: V.role[e.by] || e.by })) + "</span>" +
      (voided ? ' <span class="vd">' + Q.esc(T.voided) + "</span>" : "") +
      (canVoid ? ' <button type="button" class="void-btn' + (isArmed ? " armed" : "") + '" data-void="' + e.seq + '">' + Q.esc(isArmed ? T.tap_again_undo : T.void) + "</button>" : "") +
      "</li>";
  }
  Q.setHtml("log", html);
  drawUndo();
}

/* A log entry from Socket.IO; a gap means entries were missed: fetch the log again. */
export function addEntry(e) {
  if (live.log.some((x) => x.seq === e.seq)) return;
  if (live.log.length && e.seq > live.log[live.log.length - 1].seq + 1) { resyncLog(); return; }
  live.log.push(e);
  if (e.type === "void") live.log.forEach((x) => { if (x.seq === e.target) x.voided_by = e.seq; });
  drawLog();
}

export function resyncLog() {
  queue.api("GET", "/events").then((r) => r.json()).then((l) => { live.log = l; drawLog(); }).catch(() => {});
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
  if (b) armOrVoid(Number(b.getAttribute("data-void")), "log");
  const c = ev.target.closest("[data-cancel]");
  if (c) queue.takeBack(c.getAttribute("data-cancel"));
});

/* ---- notices: refusals and decisions ------------------------------------------------------ */
export function notice(n) {
  const box = Q.$("notice");
  box.className = "notice " + (n.kind || "refusal");
  Q.setText("notice-rule", n.rule || "");
  Q.setText("notice-title", n.title || "");
  Q.setText("notice-msg", n.msg || "");
  Q.show(box, true);
}
export function hideNotice() { Q.show("notice", false); }
Q.$("notice-close").addEventListener("click", hideNotice);

/* A greyed call pressed: the engine's own reason, with its rule, in the page's language. */
export function refusedHere(what, reason) {
  if (!reason) return;
  notice({ kind: "refusal", rule: Q.fmt(T.not_now_rule, { rule: reason.rule }), title: ruleTitle(reason.rule), msg: what + " — " + reasonText(reason) });
}

/* The server refused a call (its message is already in the page's language). */
export function refused(data, body, queued) {
  const rule = data && data.rule;
  const head = data && data.error === "rule" ? Q.fmt(T.refused_rule, { rule: rule }) : T[data && data.error] || T.refused;
  const what = body.type === "void" ? Q.fmt(T.undo_label, { what: voidedWhat(body.target) }) : describe(body);
  let msg = (queued ? T.queued_refused + T.colon : "") + what + " — " + ((data && data.message) || "");
  const fields = flattenFields(data && data.fields, "", []);
  if (fields.length) msg += T.colon + fields.join("; ");
  notice({ kind: "refusal", rule: head, title: ruleTitle(rule), msg: msg });
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

/* The engine's decision on an accepted call: what it awarded. */
export function decided(body, s) {
  if (!s) return;
  const after = s.restart ? Q.fmt(T.restart_pending, { restart: V.restart[s.restart.type], team: s.teams[s.restart.team].name }) : "";
  notice({ kind: "decision", rule: "✓", title: describe(body), msg: after ? "→ " + after : "" });
}

