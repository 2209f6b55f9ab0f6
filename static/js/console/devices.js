/* This tablet among the match's consoles (API.md "Match day", Devices; docs/api-extras.md):
 *
 * - its device label, set by the official and remembered on the tablet, carried by its Socket.IO
 *   `join` with its role cookie's CSRF token and its unsent-queue size;
 * - `status` {queued} whenever that size changes, and every 15 s;
 * - on the referee's console, the consoles connected now, per role, with their queues, and a warning
 *   when two share a role (`GET /api/matches/<id>/devices`, every 5 s);
 * - when the role's token is revoked (`token_revoked`, a join answered `unauthorized`, or a 401), the
 *   console says so and sends nothing more; its unsent calls stay on the tablet.
 */
import { $, esc, setHtml, setText, show } from "../lib/dom.js";
import { fmt } from "../lib/words.js";
import { T, V, csrf, matchId, role } from "./page.js";
import { connected, send } from "../lib/connection.js";
import { live, setRevoked } from "./state.js";
import * as queue from "./queue.js";

const LABEL = "qalisball.device";
const STATUS_MS = 15000;
const LIST_MS = 5000;
const ROLES = ["referee", "assistant1", "assistant2", "scorer"];

/* The tablet's name: the one its official saved, or the default, "Tablet 5BCB" in the console's language
 * (issue 27.10): only the default's four characters are kept, so a language switch words it anew. A default
 * kept whole by an older console ("Tablet 5BCB", "平板 5BCB") is read as its characters. */
const LABEL_ID = "qalisball.device.id";
const OLD_DEFAULT = /^(?:Tablet|平板) ([0-9A-F]{4})$/;
export function label() {
  const saved = localStorage.getItem(LABEL);
  const old = saved ? saved.match(OLD_DEFAULT) : null;
  if (saved && !old) return saved;
  let id = localStorage.getItem(LABEL_ID) || (old && old[1]);
  if (!id) {
    const b = new Uint8Array(2);
    crypto.getRandomValues(b);
    id = Array.from(b, (x) => ("0" + x.toString(16)).slice(-2)).join("").toUpperCase();
  }
  localStorage.setItem(LABEL_ID, id);
  if (old) localStorage.removeItem(LABEL);
  return fmt(T.device_default, { id: id });
}

/* What this console's `join` carries besides the match. */
export function joinData() {
  if (live.revoked) return {};
  lastSent = queue.load().length;
  return { csrf: csrf, device: label(), queued: lastSent }; // the server finds the role's cookie it unlocks
}

let lastSent = null;
/* Report the unsent-queue size when it changed (or always, with `force`). */
export function report(force) {
  if (live.revoked || !connected()) return;
  const n = queue.load().length;
  if (!force && n === lastSent) return;
  lastSent = n;
  send("status", { queued: n });
}

function drawLabel() {
  setText("device-name", label());
  const input = $("device-input");
  if (input && document.activeElement !== input) input.value = label();
}

function saveLabel() {
  const v = " ".concat($("device-input").value).split(/\s+/).join(" ").trim().slice(0, 40);
  if (!v) return;
  if (v !== label()) localStorage.setItem(LABEL, v); // the default saved as it is stays the default
  drawLabel();
  if (connected() && !live.revoked) send("status", { device: v, queued: queue.load().length });
}

/* ---- the referee's list ------------------------------------------------------------------ */
function fetchList() {
  if (live.revoked || document.hidden) return;
  queue.api("GET", "/devices").then((r) => (r.ok ? r.json() : null)).then((list) => { if (list) drawList(list); }).catch(() => {});
}

function time(iso) {
  const d = new Date(iso);
  return isNaN(d) ? "" : [d.getHours(), d.getMinutes(), d.getSeconds()].map((x) => ("0" + x).slice(-2)).join(":");
}

export function drawList(list) {
  const byRole = {};
  list.forEach((d) => { (byRole[d.role] = byRole[d.role] || []).push(d); });
  const rows = ROLES.map((r) => {
    const ds = byRole[r] || [];
    const cells = ds.length ? ds.map((d) => '<span class="dev' + (d.queued ? " waiting" : "") + '">' + esc(d.device || "?") +
      ' <small>' + esc(d.queued ? fmt(T.device_queued, { n: d.queued }) : T.device_nothing_queued) + " · " + esc(fmt(T.device_seen, { time: time(d.last_seen) })) + "</small></span>").join("")
      : '<span class="muted">' + esc(T.device_none) + "</span>";
    return '<li class="' + (ds.length > 1 ? "shared" : "") + '" data-role="' + r + '"><b>' + esc(V.role[r]) + "</b> " + cells + "</li>";
  }).join("");
  setHtml("devices-list", rows);
  const shared = ROLES.filter((r) => (byRole[r] || []).length > 1);
  const warn = shared.map((r) => fmt(T.devices_shared, { role: V.role[r], n: byRole[r].length })).join(" ");
  setText("devices-warning", warn);
  show("devices-warning", !!warn);
}

/* ---- revoked ------------------------------------------------------------------------------- */
export function revoked() {
  if (live.revoked) return;
  setRevoked();
  queue.halt();
  document.body.classList.add("revoked");
  const n = queue.load().length;
  setText("revoked-msg", fmt(T.token_revoked, { role: V.role[role] }) + (n ? " " + fmt(n === 1 ? T.token_revoked_queued_one : T.token_revoked_queued, { n: n }) : ""));
  show("revoked", true);
  send("leave", { match: matchId }); // the server forgets it; the state is followed again as a spectator
  send("join", { match: matchId });
}

export function start() {
  drawLabel();
  const save = $("device-save");
  if (save) save.addEventListener("click", saveLabel);
  const input = $("device-input");
  if (input) input.addEventListener("keydown", (ev) => { if (ev.key === "Enter") { ev.preventDefault(); saveLabel(); input.blur(); } });
  setInterval(() => report(true), STATUS_MS);
  if (role === "referee" && $("devices-list")) {
    setTimeout(fetchList, 1500); // once this console has joined: it is listed too
    setInterval(fetchList, LIST_MS);
  }
}
