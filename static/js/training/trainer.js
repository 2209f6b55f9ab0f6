/* The trainer's page (issue 24): start a session from a finished match, show its code, lead the pace
 * (D190: "Next call" moves everyone following), everyone's answer per call live, the score sheet per
 * trainee and rule with its CSV; and the hand-written exercises (D189), stored and shared as JSON.
 * The sessions started before are listed, running first, and one is reopened with a tap, so a reload loses
 * nothing (issue 27 item 8); the trainer ends one ("End the session": its code stops working, D221).
 * Polling is bounded (issue 33 item 5): every 2 s only the answers not seen yet (`?since=`), and the sheet
 * only when new answers came. Teams are named, never home/away (issue 27 item 9). */
import { T, V } from "../lib/page.js";
import { $, esc } from "../lib/dom.js";
import { authHeaders, formSay } from "../lib/forms.js";

const POLL_MS = 2000;
const KEY = "qalisball.training.trainer";  // the session this device's trainer had open
let session = null;
let questions = [];
let pace = null;  // the call everyone following is on (its n), or null
let seen = [];  // every answer fetched so far, in the order they came
let names = { home: "home", away: "away" };
let busy = false;

const teamName = (t) => names[t] || t || "";

function get(path, since) {
  const q = since ? `?since=${since}` : "";
  return fetch(`/api/training/${session.id}/${path}${q}`, { headers: authHeaders({}) }).then((r) => r.json());
}

function callWords(c) {
  const what = c.type === "violation" ? (V.violation && V.violation[c.kind]) || c.kind : (V.event && V.event[c.type]) || c.type;
  return `${what}${c.team ? " · " + teamName(c.team) : ""}${c.player ? " #" + c.player : ""}`;
}

function answerWords(a) {
  const r = a.restart || {};
  const what = r.type === "shootout_kick" ? (V.event && V.event.shootout_kick) : V.restart && V.restart[r.type];
  return `${what || r.type || ""} ${teamName(r.team)}${a.card ? " · " + ((V.card && V.card[a.card]) || a.card) : ""}`;
}

function drawGrid() {
  const trainees = [];
  seen.forEach((a) => { if (trainees.indexOf(a.trainee) < 0) trainees.push(a.trainee); });
  const by = {};
  seen.forEach((a) => { by[`${a.n}\u0000${a.trainee}`] = a; });
  $("grid").querySelector("thead").innerHTML = "<tr><th>#</th><th></th>" + trainees.map((t) => `<th>${esc(t)}</th>`).join("") + "</tr>";
  $("grid").querySelector("tbody").innerHTML = questions.map((q) =>
    `<tr data-n="${q.n}"${q.n === pace ? ' class="current"' : ""}><td>${q.n}</td><td>${esc(callWords(q.call))}</td>` +
    trainees.map((t) => {
      const a = by[`${q.n}\u0000${t}`];
      return a ? `<td data-trainee="${esc(t)}" class="${a.correct ? "ok" : "bad"}">${a.correct ? "✓" : "✗"} ${esc(answerWords(a))}</td>` : `<td data-trainee="${esc(t)}"></td>`;
    }).join("") + "</tr>").join("");
}

function drawSheet() {
  return get("sheet").then((sheet) => {
    $("sheet").querySelector("tbody").innerHTML = sheet.trainees.map((t) =>
      `<tr data-trainee="${esc(t.name)}"><td>${esc(t.name)}</td><td class="total">${t.correct} / ${t.answered}</td><td class="by-rule">` +
      Object.keys(t.by_rule).sort().map((r) => `<span data-rule="${esc(r)}">${esc(r)}: ${t.by_rule[r][0]} / ${t.by_rule[r][1]}</span>`).join(" · ") +
      "</td></tr>").join("");
  });
}

/* Only what is new: the answers since the last poll (at most a page a request), the sheet when they changed. */
function refresh() {
  if (!session || busy) return;
  busy = true;
  const id = session.id;
  get("answers", seen.length).then((list) => {
    if (!session || session.id !== id) return null;
    seen = seen.concat(list);
    drawGrid();
    return list.length ? drawSheet() : null;
  }).finally(() => { busy = false; });
}

function setPace(n) {
  return fetch(`/api/training/${session.id}/pace`, {
    method: "PUT", headers: authHeaders({ "Content-Type": "application/json" }), body: JSON.stringify({ n: n }),
  }).then((r) => r.json()).then((p) => {
    pace = p.n === undefined ? pace : p.n;
    const q = questions.find((x) => x.n === pace);
    $("pace-at").textContent = q ? `${q.n}/${questions.length}` : "";
    $("pace-call").textContent = q ? callWords(q.call) : "";
    drawGrid();
  });
}

function step(d) {
  if (!questions.length) return;
  const i = questions.findIndex((q) => q.n === pace);
  const next = Math.min(questions.length - 1, Math.max(0, i + d));
  $("lead").checked = true;
  setPace(questions[next].n);
}

$("lead").addEventListener("change", (ev) => setPace(ev.target.checked ? (pace || (questions[0] && questions[0].n)) : null));
$("next-call").addEventListener("click", () => step(pace == null ? 0 : 1));
$("prev").addEventListener("click", () => step(-1));

/* The trainer's sessions, running first; a tap reopens one. */
function drawSessions() {
  return fetch("/api/training", { headers: authHeaders({}) }).then((r) => (r.ok ? r.json() : [])).then((list) => {
    $("sessions").innerHTML = list.map((s) =>
      `<li data-session="${esc(s.id)}" class="${esc(s.status)}"><button type="button" class="link" data-open="${esc(s.id)}">${esc(s.code)}</button>` +
      ` · ${esc(s.created_at.slice(0, 16).replace("T", " "))} · ${esc(T[s.status] || s.status)} · ${esc(String(s.trainees))}</li>`).join("");
    $("sessions").querySelectorAll("button[data-open]").forEach((b) => {
      b.addEventListener("click", () => open(list.find((s) => s.id === b.dataset.open)));
    });
    return list;
  });
}

/* The latest open wins: a session started while the reload still reopens the previous one must not be
 * overwritten when the slower reads of the previous one arrive (the page showed the old session's code). */
let opening = 0;
function open(s) {
  const mine = ++opening;
  session = { id: s.id, code: s.code, match: s.match, status: s.status };
  try { localStorage.setItem(KEY, s.id); } catch (e) { /* no storage */ }
  pace = null;
  seen = [];
  $("session").hidden = false;
  $("code").textContent = s.code;
  $("session-status").textContent = T[s.status] || s.status;
  $("close-session").hidden = s.status !== "open";
  $("join-link").href = `/training/join?code=${s.code}`;
  $("csv").href = `/api/training/${s.id}/sheet.csv?code=${s.code}`;
  return Promise.all([
    get("questions"),
    fetch(`/api/matches/${s.match}`).then((r) => r.json()),
    get("pace").catch(() => ({ n: null })),
  ]).then(([qs, state, p]) => {
    if (mine !== opening) return;
    names = { home: state.teams.home.name, away: state.teams.away.name };
    questions = qs;
    pace = p && p.n !== undefined ? p.n : null;
    $("lead").checked = pace != null;
    refresh();
    drawSheet();
    document.body.dataset.session = s.id;
  });
}

/* The sheet's CSV, downloaded with the trainer's cookie and its CSRF token, as every other read of this page:
 * the link's ?code= stops working once the session is closed (D221), the trainer's token never does. */
$("csv").addEventListener("click", (ev) => {
  if (!session) return;
  ev.preventDefault();
  fetch(`/api/training/${session.id}/sheet.csv`, { headers: authHeaders({}) })
    .then((r) => (r.ok ? r.blob() : Promise.reject(r.status)))
    .then((blob) => {
      const a = document.createElement("a");
      a.href = URL.createObjectURL(blob);
      a.download = `training-${session.id}.csv`;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(a.href), 60000);
    })
    .catch(() => { window.location.href = $("csv").href; });
});

$("close-session").addEventListener("click", () => {
  fetch(`/api/training/${session.id}/close`, { method: "POST", headers: authHeaders({}) }).then((r) => r.json()).then((c) => {
    session.status = c.status;
    $("session-status").textContent = T[c.status] || c.status;
    $("close-session").hidden = true;
    drawSessions();
  });
});

$("start").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const form = ev.target;
  const rules = form.rules.value ? [form.rules.value] : [];
  fetch("/api/training", {
    method: "POST",
    headers: authHeaders({ "Content-Type": "application/json" }),
    body: JSON.stringify({ match: form.match.value, rules: rules }),
  }).then((r) => r.json()).then((answer) => {
    if (!answer.code) { $("session").hidden = false; $("code").textContent = answer.message || "?"; return; }
    drawSessions().then((list) => open(list.find((s) => s.id === answer.id)));
  });
});

/* A reload reopens the session this device had open (or the newest running one). */
drawSessions().then((list) => {
  let last = null;
  try { last = localStorage.getItem(KEY); } catch (e) { /* no storage */ }
  const s = list.find((x) => x.id === last) || list.find((x) => x.status === "open");
  // Not over a session the trainer started or tapped meanwhile; data-ready once the page shows what it reopened.
  return s && !session ? open(s) : null;
}).finally(() => { document.body.dataset.ready = "1"; });

/* ---- hand-written exercises (D189) -------------------------------------------------------------- */

function drawExercises() {
  fetch("/api/training/exercises").then((r) => r.json()).then((list) => {
    $("exercises").innerHTML = list.map((x) =>
      `<li data-exercise="${esc(x.id)}">${esc(x.title || x.id)} · ${x.events.length} · <a href="/api/training/exercises/${esc(x.id)}?download=1" download>JSON</a></li>`).join("");
  });
}

$("exercise").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const form = ev.target;
  let parsed;
  try { parsed = JSON.parse(form.elements.events.value); } catch (e) { formSay(form, String(e.message || e), true); return; }
  // Either a list of calls, or an exercise as shared ({"title", "events"}).
  const body = Array.isArray(parsed) ? { title: form.elements.title.value, events: parsed } : parsed;
  if (!Array.isArray(parsed) && form.elements.title.value) body.title = form.elements.title.value;
  fetch("/api/training/exercises", {
    method: "POST", headers: authHeaders({ "Content-Type": "application/json" }), body: JSON.stringify(body),
  }).then((r) => r.json().then((a) => {
    if (!r.ok) { formSay(form, `${a.rule ? a.rule + " · " : ""}${a.index != null ? "#" + (a.index + 1) + " · " : ""}${a.message || r.status}`, true); return; }
    const e = a.expected;
    formSay(form, `${(V.restart && V.restart[e.type]) || e.type} · ${e.team || ""}${e.spot ? ` (${e.spot.x}, ${e.spot.y})` : ""} — ${a.rule} ${a.rule_title || ""}: ${a.message}`, false);
    drawExercises();
  }));
});

drawExercises();
setInterval(refresh, POLL_MS);
