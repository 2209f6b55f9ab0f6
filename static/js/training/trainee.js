/* The trainee's page (issue 24): join once with the code and a name (D220: the server gives this trainee a
 * token, which every answer carries), see each call as the referee logged it (the spot on the match's field,
 * drawn as the console draws it), answer the restart (a tap on the field for its spot) and, where the rule
 * book has them, the card; read the engine's verdict, part by part (the restart, the team, the spot, the
 * card: the answer's `parts`), with both spots on the field. The device keeps the trainee joined (local
 * storage: issue 27 item 8), so a reload or a change of language goes on where it was; the address drops the
 * code once joined. "Follow the trainer's pace" (D190) asks the server every 1.5 s which call the trainer
 * has moved everyone to, and goes there; otherwise "Next" goes on alone. What may be answered (the rule
 * book's restarts, whether cards exist) is the server's `choices` (issue 33 item 12). */
import { T, V } from "../lib/page.js";
import { $, esc } from "../lib/dom.js";
import { mmss } from "../lib/clock.js";
import { fmt } from "../lib/words.js";

const PACE_POLL_MS = 1500;
const KEY = "qalisball.training.trainee";  // {id, code, match, name, token, at, answered}
const SVG = "http://www.w3.org/2000/svg";
let me = null;
let choices = { restarts: [], cards: false, shootout: false };
let questions = [];
let at = 0;
let spot = null;
let names = { home: "home", away: "away" };
let answered = new Set();  // the questions this trainee has answered (the first answer counts)
let poller = null;

const teamName = (t) => names[t] || t || "";
const following = () => $("follow").checked;
const restartWord = (t) => (t === "shootout_kick" ? (V.event && V.event.shootout_kick) : V.restart && V.restart[t]) || t;
const api = (path) => `/api/training/${me.id}/${path}${path.indexOf("?") < 0 ? "?" : "&"}code=${encodeURIComponent(me.code)}`;

function save() {
  try { localStorage.setItem(KEY, JSON.stringify(Object.assign({}, me, { at: at, answered: Array.from(answered) }))); } catch (e) { /* no storage */ }
}
function forget() { try { localStorage.removeItem(KEY); } catch (e) { /* no storage */ } }
function saved() { try { return JSON.parse(localStorage.getItem(KEY) || "null"); } catch (e) { return null; } }

function callWords(c) {
  const what = c.type === "violation" ? (V.violation && V.violation[c.kind]) || c.kind : (V.event && V.event[c.type]) || c.type;
  const who = [c.team ? teamName(c.team) : "", c.player ? `#${c.player}` : ""].filter(Boolean).join(" ");
  return `${what}${who ? " · " + who : ""}`;
}

/* A marker on the field's overlay: the call's spot, the trainee's, the right one. */
function marker(id, cls, p, label) {
  const svg = $("field");
  if (!svg) return;
  let m = document.getElementById(id);
  if (!p) { if (m) m.remove(); return; }
  if (!m) {
    m = document.createElementNS(SVG, "circle");
    m.setAttribute("id", id);
    m.setAttribute("class", cls);
    m.setAttribute("r", "0.55");
    m.appendChild(document.createElementNS(SVG, "title"));
    (svg.querySelector("g.overlay") || svg).appendChild(m);
  }
  m.setAttribute("cx", p.x);
  m.setAttribute("cy", p.y);
  m.firstChild.textContent = label || "";
}

function fillChoices() {
  const f = $("answer");
  const types = choices.restarts.slice();
  if (choices.shootout) types.push("shootout_kick");
  f.elements.type.innerHTML = f.elements.type.options[0].outerHTML +
    types.map((t) => `<option value="${esc(t)}">${esc(restartWord(t))}</option>`).join("");
  f.elements.team.options[1].textContent = names.home;
  f.elements.team.options[2].textContent = names.away;
}

function show(i) {
  at = i;
  const q = questions[at];
  const c = q.call;
  const f = $("answer");
  $("question").hidden = false;
  $("question").dataset.n = q.n;
  $("verdict").innerHTML = "";
  $("verdict").className = "";
  // A new call starts blank: nothing of the previous answer is left chosen (issue 27 item 9).
  f.reset();
  spot = null;
  marker("answer-spot", "answer-spot", null);
  marker("expected-spot", "expected-spot", null);
  f.elements.card.hidden = !(choices.cards && c.type === "foul");
  $("question").querySelector(".call").textContent =
    `${q.n}/${questions.length} · ${q.period ? "P" + q.period : ""} ${q.at_ms != null ? mmss(q.at_ms) : ""} · ${callWords(c)}`;
  marker("call-spot", "call-spot", c.spot, callWords(c));
  f.querySelector("button").disabled = answered.has(q.n);
  $("next").hidden = following() || at + 1 >= questions.length;
  save();
}

function tapField(ev) {
  const svg = $("field");
  const p = svg.createSVGPoint();
  p.x = ev.clientX; p.y = ev.clientY;
  const m = p.matrixTransform(svg.getScreenCTM().inverse());
  spot = { x: Math.round(m.x * 10) / 10, y: Math.round(m.y * 10) / 10 };
  marker("answer-spot", "answer-spot", spot, T.your_spot);
}

function pollPace() {
  if (!me || !following()) return;
  fetch(api("pace")).then((r) => {
    if (r.status === 409) { ended(); return null; }
    return r.json();
  }).then((p) => {
    if (!p || p.n == null) return;
    const i = questions.findIndex((q) => q.n === p.n);
    if (i >= 0 && i !== at) show(i);
  });
}

function ended() {
  forget();
  if (poller) clearInterval(poller);
  me = null;
  $("question").hidden = true;
  $("joined-as").hidden = true;
  $("join").hidden = false;
  $("join-msg").textContent = T.session_over;
  delete document.body.dataset.joined;
}

/* The address without the code, and the language links with it (issue 27 item 8): the device keeps the trainee. */
function dropCode() {
  history.replaceState(null, "", "/training/join");
  document.querySelectorAll("nav.lang a[data-lang]").forEach((a) => { a.href = `/training/join?lang=${a.dataset.lang}`; });
}

function enter(trainee, offered) {
  me = trainee;
  choices = offered || choices;
  answered = new Set(trainee.answered || []);
  dropCode();
  return Promise.all([
    fetch(api("questions")).then((r) => r.json()),
    fetch(`/api/matches/${trainee.match}`).then((r) => r.json()),
    fetch(api("field.svg")).then((r) => r.text()),
  ]).then(([qs, state, svg]) => {
    names = { home: state.teams.home.name, away: state.teams.away.name };
    $("field-box").innerHTML = svg;
    $("field").addEventListener("click", tapField);
    fillChoices();
    questions = qs;
    $("join").hidden = true;
    $("joined-as").hidden = false;
    $("joined-as").querySelector("span").textContent = fmt(T.joined_as, { name: trainee.name });
    if (qs.length) show(Math.min(trainee.at || 0, qs.length - 1));
    document.body.dataset.joined = "1";
    poller = setInterval(pollPace, PACE_POLL_MS);
    pollPace();
  });
}

$("follow").addEventListener("change", () => { if (questions.length) show(at); pollPace(); });

$("join").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const code = ev.target.code.value.trim().toUpperCase();
  const name = ev.target.trainee.value.trim();
  const say = (text) => { $("join-msg").textContent = text; };
  fetch(`/api/training/join?code=${encodeURIComponent(code)}`).then((r) => r.json().then((s) => {
    if (!r.ok) { say(r.status === 409 ? T.session_over : s.message || "?"); return null; }
    return fetch(`/api/training/${s.id}/trainees`, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ code: code, name: name }),
    }).then((j) => j.json().then((t) => {
      if (!j.ok) { say(j.status === 409 && t.message && t.message.indexOf("joined") >= 0 ? T.name_taken : t.message || "?"); return null; }
      return enter({ id: s.id, code: code, match: s.match, name: t.name || name, token: t.token, trainee: t.trainee, at: 0 }, s.choices);
    }));
  }));
});

$("leave").addEventListener("click", () => { forget(); location.assign("/training/join"); });

function verdictParts(a) {
  const p = a.parts || {};
  const e = a.expected;
  if (a.correct) return [["ok", T.all_right]];
  const out = [];
  if (p.type === false) out.push(["type", fmt(T.wrong_type, { what: restartWord(e.type) })]);
  if (p.team === false) out.push(["team", fmt(T.wrong_team, { team: teamName(e.team) })]);
  if (p.spot === false) {
    const why = spot == null ? T.no_spot : p.at_call_spot ? fmt(T.wrong_spot_call, { rule: a.rule }) : fmt(T.wrong_spot, { m: p.distance_m });
    out.push(["spot", why]);
  }
  if (p.card === false) out.push(["card", fmt(T.wrong_card, { card: e.card ? (V.card && V.card[e.card]) || e.card : T.no_card })]);
  return out;
}

$("answer").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const f = ev.target;
  const q = questions[at];
  const body = { code: me.code, token: me.token, trainee: me.name, n: q.n, restart: { type: f.type.value, team: f.team.value, spot: spot } };
  if (!f.card.hidden) body.card = f.card.value || null;
  fetch(api("answers").split("?")[0], {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  }).then((r) => {
    if (r.status === 409) { ended(); return null; }
    return r.json();
  }).then((a) => {
    if (!a || !a.expected) return;
    const e = a.expected;
    answered.add(q.n);
    save();
    f.querySelector("button").disabled = true;
    const where = e.spot ? ` (${e.spot.x}, ${e.spot.y})` : "";
    marker("expected-spot", "expected-spot", e.spot, T.expected_spot);
    $("verdict").className = a.correct ? "ok" : "bad";
    $("verdict").innerHTML =
      `<p class="summary">${a.correct ? "✓" : "✗"} ${esc(restartWord(e.type))} · ${esc(teamName(e.team))}${where}` +
      `${e.card ? " · " + esc((V.card && V.card[e.card]) || e.card) : ""} — ${esc(a.rule)} ${esc(a.rule_title || "")}: ${esc(a.message)}</p>` +
      `<ul class="parts">${verdictParts(a).map(([k, w]) => `<li data-part="${k}">${esc(w)}</li>`).join("")}</ul>`;
  });
});

$("next").addEventListener("click", () => { if (at + 1 < questions.length) show(at + 1); });

/* A device that joined before (a reload, a change of language) goes on where it was, if the session still runs. */
const kept = saved();
if (kept && kept.id && kept.token) {
  fetch(`/api/training/join?code=${encodeURIComponent(kept.code)}`).then((r) => r.json().then((s) => {
    if (r.ok && s.id === kept.id) enter(kept, s.choices);
    else { forget(); $("join-msg").textContent = T.session_over; }
  }));
}
