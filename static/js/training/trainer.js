/* The trainer's page (issue 24): start a session from a finished match, show its code, lead the pace
 * (D190: "Next call" moves everyone following), everyone's answer per call live (polled every 2 s), the
 * score sheet per trainee and rule with its CSV; and the hand-written exercises (D189), stored and shared
 * as JSON. */
import { V } from "../lib/page.js";
import { $, esc } from "../lib/dom.js";
import { authHeaders, formSay } from "../lib/forms.js";

const POLL_MS = 2000;
let session = null;
let questions = [];
let pace = null;  // the call everyone following is on (its n), or null

function get(path) {
  return fetch(`/api/training/${session.id}/${path}?code=${encodeURIComponent(session.code)}`).then((r) => r.json());
}

function callWords(c) {
  const what = c.type === "violation" ? (V.violation && V.violation[c.kind]) || c.kind : (V.event && V.event[c.type]) || c.type;
  return `${what}${c.team ? " · " + c.team : ""}${c.player ? " #" + c.player : ""}`;
}

function answerWords(a) {
  const r = a.restart || {};
  return `${(V.restart && V.restart[r.type]) || r.type || ""} ${r.team || ""}${a.card ? " · " + ((V.card && V.card[a.card]) || a.card) : ""}`;
}

function drawGrid(list) {
  const trainees = [];
  list.forEach((a) => { if (trainees.indexOf(a.trainee) < 0) trainees.push(a.trainee); });
  const by = {};
  list.forEach((a) => { by[`${a.n}\u0000${a.trainee}`] = a; });
  $("grid").querySelector("thead").innerHTML = "<tr><th>#</th><th></th>" + trainees.map((t) => `<th>${esc(t)}</th>`).join("") + "</tr>";
  $("grid").querySelector("tbody").innerHTML = questions.map((q) =>
    `<tr data-n="${q.n}"${q.n === pace ? ' class="current"' : ""}><td>${q.n}</td><td>${esc(callWords(q.call))}</td>` +
    trainees.map((t) => {
      const a = by[`${q.n}\u0000${t}`];
      return a ? `<td data-trainee="${esc(t)}" class="${a.correct ? "ok" : "bad"}">${a.correct ? "✓" : "✗"} ${esc(answerWords(a))}</td>` : `<td data-trainee="${esc(t)}"></td>`;
    }).join("") + "</tr>").join("");
}

function refresh() {
  if (!session) return;
  get("answers").then(drawGrid);
  get("sheet").then((sheet) => {
    $("sheet").querySelector("tbody").innerHTML = sheet.trainees.map((t) =>
      `<tr data-trainee="${esc(t.name)}"><td>${esc(t.name)}</td><td class="total">${t.correct} / ${t.answered}</td><td class="by-rule">` +
      Object.keys(t.by_rule).sort().map((r) => `<span data-rule="${esc(r)}">${esc(r)}: ${t.by_rule[r][0]} / ${t.by_rule[r][1]}</span>`).join(" · ") +
      "</td></tr>").join("");
  });
}

function setPace(n) {
  return fetch(`/api/training/${session.id}/pace`, {
    method: "PUT", headers: authHeaders({ "Content-Type": "application/json" }), body: JSON.stringify({ n: n }),
  }).then((r) => r.json()).then((p) => {
    pace = p.n === undefined ? pace : p.n;
    const q = questions.find((x) => x.n === pace);
    $("pace-at").textContent = q ? `${q.n}/${questions.length}` : "";
    $("pace-call").textContent = q ? callWords(q.call) : "";
    refresh();
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
    session = answer;
    pace = null;
    $("session").hidden = false;
    $("code").textContent = answer.code;
    $("join-link").href = `/training/join?code=${answer.code}`;
    $("csv").href = `/api/training/${answer.id}/sheet.csv?code=${answer.code}`;
    get("questions").then((qs) => { questions = qs; refresh(); document.body.dataset.session = answer.id; });
  });
});

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
