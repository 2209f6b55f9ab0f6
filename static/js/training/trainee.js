/* The trainee's page (issue 24): join with the code, see each call as the referee logged it (the spot on
 * the field diagram, the clock), answer the restart (a tap on the field for its spot) and the card, and
 * read the engine's verdict with the rule. */
import { $, esc } from "../lib/dom.js";
import { mmss } from "../lib/clock.js";

let session = null;
let trainee = "";
let questions = [];
let at = 0;
let spot = null;

function show(q) {
  const c = q.call;
  $("question").hidden = false;
  $("verdict").textContent = "";
  $("next").hidden = true;
  spot = null;
  $("answer-spot").setAttribute("visibility", "hidden");
  const who = [c.team, c.player ? `#${c.player}` : ""].join(" ");
  $("question").querySelector(".call").textContent =
    `${q.n}/${questions.length} · ${q.period ? "P" + q.period : ""} ${q.at_ms != null ? mmss(q.at_ms) : ""} · ${c.type}${c.kind ? " " + c.kind : ""} · ${who}`;
  const dot = $("call-spot");
  if (c.spot) { dot.setAttribute("cx", c.spot.x); dot.setAttribute("cy", c.spot.y); dot.setAttribute("visibility", "visible"); }
  else dot.setAttribute("visibility", "hidden");
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

$("join").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const code = ev.target.code.value.trim().toUpperCase();
  trainee = ev.target.trainee.value.trim();
  fetch(`/api/training/join?code=${encodeURIComponent(code)}`).then((r) => r.json()).then((s) => {
    if (!s.id) { $("verdict").textContent = s.message || "?"; return; }
    session = { id: s.id, code: code };
    return fetch(`/api/training/${s.id}/questions?code=${encodeURIComponent(code)}`).then((r) => r.json()).then((qs) => {
      questions = qs; at = 0;
      $("join").hidden = true;
      if (qs.length) show(qs[0]);
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
    const where = e.spot ? ` (${e.spot.x}, ${e.spot.y})` : "";
    $("verdict").className = a.correct ? "ok" : "bad";
    $("verdict").innerHTML = `${a.correct ? "✓" : "✗"} ${esc(e.type)} ${esc(e.team || "")}${where}` +
      `${e.card ? " · " + esc(e.card) : ""} — ${esc(a.rule)} ${esc(a.rule_title || "")}: ${esc(a.message)}`;
    $("next").hidden = at + 1 >= questions.length;
  });
});

$("next").addEventListener("click", () => { at += 1; if (at < questions.length) show(questions[at]); });
