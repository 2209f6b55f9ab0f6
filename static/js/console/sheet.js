/* The score sheet (SPEC M6): the referee confirms the score after each half and after the shootout
 * (a prompt while a period has ended unconfirmed); once the match is over, the officials and both
 * captains sign on the referee's tablet (a name, and a signature drawn on a canvas, sent as a PNG of
 * at most 100 KB); the referee's signature locks the match. Every console shows whether the sheet is
 * provisional or final (locked). */
import { $, esc, setHtml, setText, show as showEl } from "../lib/dom.js";
import { fmt } from "../lib/words.js";
import { drawSheet } from "../lib/header.js";
import { D, T, may } from "./page.js";
import { live } from "./state.js";
import * as queue from "./queue.js";
import { isVoided, periodName, signerName } from "./entries.js";
import { submit } from "./calls.js";

// The referee signs last: his signature locks the sheet, and nothing is accepted after it.
const ORDER = ["assistant1", "assistant2", "scorer", "home_captain", "away_captain", "referee"];
const MAX = 100 * 1024; // API.md: the data URL, at most 100 KB
const LARGEST = 900; // px: a signature needs no more

/* The periods that have ended (1, 2, "shootout"), from the phase; an abandoned match's from its log. */
export function ended(s) {
  const out = [];
  if (s.phase === "abandoned") {
    const halves = live.log.filter((e) => e.type === "period_end" && !isVoided(e)).length;
    for (let p = 1; p <= Math.min(halves, 2); p++) out.push(p);
    return out;
  }
  if (["halftime", "second_half", "shootout", "finished"].indexOf(s.phase) >= 0) out.push(1);
  if (["shootout", "finished"].indexOf(s.phase) >= 0) out.push(2);
  if (s.phase === "finished" && s.shootout) out.push("shootout");
  return out;
}

export function draw(s) {
  drawSheet(s);
  showEl("lock-banner", !!s.locked);
  drawConfirm(s);
  drawSignatures(s);
}

function drawConfirm(s) {
  const box = $("confirm-prompt");
  if (!box) return;
  const queued = queue.load().filter((b) => b.type === "confirm").map((b) => b.period);
  const open = may.confirm && !s.locked && !live.revoked && !s.ruling
    ? ended(s).filter((p) => (s.confirmed || []).indexOf(p) < 0 && queued.indexOf(p) < 0) : [];
  box.hidden = !open.length;
  if (!open.length) return;
  const p = open[0];
  // The score is the period's only while it has just ended (later, the match's score has moved on).
  const just = (p === 1 && s.phase === "halftime") || (p === 2 && (s.phase === "shootout" || (s.phase === "finished" && !s.shootout))) ||
    (p === "shootout" && s.phase === "finished");
  const score = p === "shootout" && s.shootout ? s.shootout.score : s.score;
  const text = just ? fmt(T.confirm_prompt_score, { period: periodName(p), home: score.home, away: score.away })
    : fmt(T.confirm_prompt, { period: periodName(p) });
  setText("confirm-text", text);
  $("confirm-send").setAttribute("data-period", String(p));
}

function drawSignatures(s) {
  const box = $("sign-panel");
  if (!box) return;
  const show = s.phase === "finished" || s.phase === "abandoned" || (s.signatures || []).length > 0;
  box.hidden = !show;
  if (!show) return;
  const queued = queue.load().filter((b) => b.type === "sign").map((b) => b.as);
  const rows = ORDER.map((as) => {
    const sig = (s.signatures || []).find((x) => x.as === as);
    let right;
    if (sig) right = '<span class="signed">✓ ' + esc(sig.name) + ' <small class="muted">' + esc(localTime(sig.at)) + "</small></span>";
    else if (queued.indexOf(as) >= 0) right = '<span class="muted">' + esc(T.queued) + "</span>";
    else if (may.sign && !s.locked && !live.revoked) right = '<button type="button" class="act small' + (as === "referee" ? " go" : "") + '" data-sign="' + as + '">' + esc(T.sign) + "</button>";
    else right = '<span class="muted">—</span>';
    return '<li data-as="' + as + '"><span class="who">' + esc(signerName(as)) + "</span>" + right + "</li>";
  }).join("");
  setHtml("sign-list", rows);
}

function localTime(iso) {
  const d = new Date(iso);
  return isNaN(d) ? iso : ("0" + d.getHours()).slice(-2) + ":" + ("0" + d.getMinutes()).slice(-2);
}

/* ---- the signature pad ------------------------------------------------------------------- */
const dialog = $("sign-dialog");
const pad = $("sign-pad");
let signing = null; // {as, strokes, box: drawn bounding box}

function openPad(as) {
  signing = { as: as, strokes: 0, box: null };
  setText("sign-title", fmt(T.sign_title, { who: signerName(as) }));
  showEl("sign-warn", as === "referee");
  $("sign-name").value = as === "referee" || as.indexOf("assistant") === 0 || as === "scorer" ? (D.officials || {})[as] || "" : "";
  setText("sign-msg", "");
  if (dialog.showModal) dialog.showModal();
  else dialog.setAttribute("open", "");
  size();
  clear();
  $("sign-name").focus();
  ready();
}

function closePad() {
  signing = null;
  if (dialog.close) dialog.close();
  else dialog.removeAttribute("open");
}

/* The canvas draws at the screen's resolution (sharp lines); the PNG is cropped and scaled down. */
function size() {
  const r = pad.getBoundingClientRect();
  const dpr = Math.min(window.devicePixelRatio || 1, 2);
  pad.width = Math.max(1, Math.round(r.width * dpr));
  pad.height = Math.max(1, Math.round(r.height * dpr));
}

function clear() {
  const ctx = pad.getContext("2d");
  ctx.clearRect(0, 0, pad.width, pad.height);
  if (signing) { signing.strokes = 0; signing.box = null; }
  ready();
}

function ready() {
  const ok = !!signing && signing.strokes > 0 && !!$("sign-name").value.trim();
  $("sign-save").disabled = !ok;
}

let last = null; // the previous point of the stroke being drawn
function point(ev) {
  const r = pad.getBoundingClientRect();
  return { x: (ev.clientX - r.left) * (pad.width / r.width), y: (ev.clientY - r.top) * (pad.height / r.height) };
}
function grow(p) {
  const b = signing.box;
  signing.box = b ? { x0: Math.min(b.x0, p.x), y0: Math.min(b.y0, p.y), x1: Math.max(b.x1, p.x), y1: Math.max(b.y1, p.y) } : { x0: p.x, y0: p.y, x1: p.x, y1: p.y };
}
function line(a, b) {
  const ctx = pad.getContext("2d");
  ctx.strokeStyle = "#0b1f66";
  ctx.lineWidth = Math.max(2, pad.width / 250);
  ctx.lineCap = "round";
  ctx.lineJoin = "round";
  ctx.beginPath();
  ctx.moveTo(a.x, a.y);
  ctx.lineTo(b.x + 0.01, b.y);
  ctx.stroke();
}

if (pad) {
  pad.addEventListener("pointerdown", (ev) => {
    if (!signing) return;
    ev.preventDefault();
    pad.setPointerCapture(ev.pointerId);
    last = point(ev);
    grow(last);
    line(last, last);
  });
  pad.addEventListener("pointermove", (ev) => {
    if (!signing || !last) return;
    const p = point(ev);
    line(last, p);
    grow(p);
    last = p;
  });
  const up = () => {
    if (last && signing) { signing.strokes += 1; ready(); }
    last = null;
  };
  pad.addEventListener("pointerup", up);
  pad.addEventListener("pointercancel", up);
}

/* The drawn part as a PNG data URL of at most 100 KB: cropped to the ink, at most LARGEST px wide,
 * then made smaller until it fits (a transparent PNG of strokes is usually a few KB). */
export function png(canvas, box) {
  const m = Math.ceil(canvas.width / 100) + 4;
  const b = box || { x0: 0, y0: 0, x1: canvas.width, y1: canvas.height };
  const x = Math.max(0, Math.floor(b.x0 - m)), y = Math.max(0, Math.floor(b.y0 - m));
  const w = Math.min(canvas.width, Math.ceil(b.x1 + m)) - x, h = Math.min(canvas.height, Math.ceil(b.y1 + m)) - y;
  let scale = Math.min(1, LARGEST / Math.max(w, h));
  for (let i = 0; i < 8; i++) {
    const out = document.createElement("canvas");
    out.width = Math.max(1, Math.round(w * scale));
    out.height = Math.max(1, Math.round(h * scale));
    out.getContext("2d").drawImage(canvas, x, y, w, h, 0, 0, out.width, out.height);
    const url = out.toDataURL("image/png");
    if (url.length <= MAX) return url;
    scale *= 0.7;
  }
  return null;
}

function savePad() {
  if (!signing) return;
  const name = $("sign-name").value.trim();
  if (!name || !signing.strokes) { ready(); return; }
  const url = png(pad, signing.box);
  if (!url) { setText("sign-msg", T.sign_too_large); return; }
  const body = { type: "sign", as: signing.as, name: name, signature: url };
  closePad();
  submit(body);
}

if (dialog) {
  $("sign-clear").addEventListener("click", clear);
  $("sign-cancel").addEventListener("click", closePad);
  $("sign-save").addEventListener("click", savePad);
  $("sign-name").addEventListener("input", ready);
}
const list = $("sign-list");
if (list) list.addEventListener("click", (ev) => {
  const b = ev.target.closest("[data-sign]");
  if (b) openPad(b.getAttribute("data-sign"));
});
const confirmBtn = $("confirm-send");
if (confirmBtn) confirmBtn.addEventListener("click", () => {
  const p = confirmBtn.getAttribute("data-period");
  if (!p) return;
  submit({ type: "confirm", period: p === "shootout" ? p : Number(p) });
  showEl("confirm-prompt", false);
});

