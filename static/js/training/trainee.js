/* The trainee's page (issue 24): join with the code, see each call as the referee logged it (the spot on
 * the field diagram, the clock), answer the restart (a tap on the field for its spot) and the card, and
 * read the engine's verdict with the rule. "Follow the trainer's pace" (D190) asks the server every 1.5 s
 * which call the trainer has moved everyone to, and goes there; otherwise "Next" goes on alone. */
import { V } from "../lib/page.js";
import { $, esc } from "../lib/dom.js";
import { mmss } from "../lib/clock.js";

const PACE_POLL_MS = 1500;
let session = null;
let trainee = "";
let questions = [];
let at = 0;
let spot = null;
let names = { home: "home", away: "away" };
const answered = new Set();  // the questions this trainee has answered (the first answer counts)

const teamName = (t) => names[t] || t || "";
const following = () => $("follow").checked;

function callWords(c) {
  const what = c.type === "violation" ? (V.violation && V.violation[c.kind]) || c.kind : (V.event && V.event[c.type]) || c.type;
  const who = [c.team ? teamName(c.team) : "", c.player ? `#${c.player}` : ""].filter(Boolean).join(" ");
  return `${what}${who ? " · " + who : ""}`;
}

function show(i) {
  at = i;
  const q = questions[at];
  const c = q.call;
  $("question").hidden = false;
  $("question").dataset.n = q.n;
  $("verdict").textContent = "";
  $("verdict").className = "";
  spot = null;
  $("answer-spot").setAttribute("visibility", "hidden");
  $("question").querySelector(".call").textContent =
    `${q.n}/${questions.length} · ${q.period ? "P" + q.period : ""} ${q.at_ms != null ? mmss(q.at_ms) : ""} · ${callWords(c)}`;
  const dot = $("call-spot");
  if (c.spot) { dot.setAttribute("cx", c.spot.x); dot.setAttribute("cy", c.spot.y); dot.setAttribute("visibility", "visible"); }
  else dot.setAttribute("visibility", "hidden");
  $("answer").querySelector("button").disabled = answered.has(q.n);
  $("next").hidden = following() || at + 1 >= questions.length;
}

function field(f) {
  if (!f) return;
  $("field").setAttribute("viewBox", `-2 -2 ${f.length + 4} ${f.width + 4}`);
  $("pitch").setAttribute("width", f.length);
  $("pitch").setAttribute("height", f.width);
  ["x1", "x2"].forEach((a) => $("halfway").setAttribute(a, f.length / 2));
  $("halfway").setAttribute("y2", f.width);
}

$("field").addEventListener("click", (ev) => {
  const svg = $("field");
  const p = svg.createSVGPoint();
  p.x = ev.clientX; p.y = ev.clientY;
  const m = p.matrixTransform(svg.getScreenCTM().inverse());
  spot = { x: Math.round(m.x * 10) / 10, y: Math.round(m.y * 10) / 10 };
  const dot = $("answer-spot");
  dot.setAttribute("cx", spot.x); dot.setAttribute("cy", spot.y); dot.setAttribute("visibility", "visible");
});

function pollPace() {
  if (!session || !following()) return;
  fetch(`/api/training/${session.id}/pace?code=${encodeURIComponent(session.code)}`).then((r) => r.json()).then((p) => {
    if (p.n == null) return;
    const i = questions.findIndex((q) => q.n === p.n);
    if (i >= 0 && i !== at) show(i);
  });
}

$("follow").addEventListener("change", () => { if (questions.length) show(at); pollPace(); });

$("join").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const code = ev.target.code.value.trim().toUpperCase();
  trainee = ev.target.trainee.value.trim();
  fetch(`/api/training/join?code=${encodeURIComponent(code)}`).then((r) => r.json()).then((s) => {
    if (!s.id) { $("join-msg").textContent = s.message || "?"; return null; }
    session = { id: s.id, code: code };
    return Promise.all([
      fetch(`/api/training/${s.id}/questions?code=${encodeURIComponent(code)}`).then((r) => r.json()),
      fetch(`/api/matches/${s.match}`).then((r) => r.json()),
    ]).then(([qs, state]) => {
      names = { home: state.teams.home.name, away: state.teams.away.name };
      $("answer").elements.team.options[0].textContent = names.home;
      $("answer").elements.team.options[1].textContent = names.away;
      field(state.field);
      questions = qs;
      $("join").hidden = true;
      if (qs.length) show(0);
      document.body.dataset.joined = "1";
      setInterval(pollPace, PACE_POLL_MS);
      pollPace();
    });
  });
});

$("answer").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const f = ev.target;
  const q = questions[at];
  const body = { code: session.code, trainee: trainee, n: q.n, restart: { type: f.type.value, team: f.team.value, spot: spot } };
  if (q.call.type === "foul") body.card = f.card.value || null;
  fetch(`/api/training/${session.id}/answers`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  }).then((r) => r.json()).then((a) => {
    const e = a.expected;
    answered.add(q.n);
    f.querySelector("button").disabled = true;
    const where = e.spot ? ` (${e.spot.x}, ${e.spot.y})` : "";
    $("verdict").className = a.correct ? "ok" : "bad";
    $("verdict").innerHTML = `${a.correct ? "✓" : "✗"} ${esc((V.restart && V.restart[e.type]) || e.type)} · ${esc(teamName(e.team))}${where}` +
      `${e.card ? " · " + esc((V.card && V.card[e.card]) || e.card) : ""} — ${esc(a.rule)} ${esc(a.rule_title || "")}: ${esc(a.message)}`;
  });
});

$("next").addEventListener("click", () => { if (at + 1 < questions.length) show(at + 1); });
