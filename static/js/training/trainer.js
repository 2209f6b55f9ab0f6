/* The trainer's page (issue 24): start a session from a finished match, show its code, everyone's answers
 * per call (polled every 2 s) and the score sheet per trainee and rule. */
import { $, esc } from "../lib/dom.js";
import { authHeaders } from "../lib/forms.js";

let session = null;

function get(path) {
  return fetch(`/api/training/${session.id}/${path}?code=${encodeURIComponent(session.code)}`).then((r) => r.json());
}

function refresh() {
  if (!session) return;
  get("answers").then((list) => {
    $("answers").hidden = false;
    $("answers").querySelector("tbody").innerHTML = list.map((a) =>
      `<tr data-n="${a.n}" data-trainee="${esc(a.trainee)}"><td>${a.n}</td><td>${esc(a.trainee)}</td>` +
      `<td>${esc(a.restart.type)} ${esc(a.restart.team || "")}${a.card ? " " + esc(a.card) : ""}</td>` +
      `<td class="${a.correct ? "ok" : "bad"}">${a.correct ? "✓" : "✗"}</td></tr>`).join("");
  });
  get("sheet").then((sheet) => {
    $("sheet").hidden = false;
    $("sheet").querySelector("tbody").innerHTML = sheet.trainees.map((t) =>
      `<tr><td>${esc(t.name)}</td><td>${t.correct} / ${t.answered}</td><td>` +
      Object.keys(t.by_rule).sort().map((r) => `${esc(r)}: ${t.by_rule[r][0]} / ${t.by_rule[r][1]}`).join(" · ") +
      "</td></tr>").join("");
  });
}

$("start").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const form = ev.target;
  const rules = form.rules.value ? [form.rules.value] : [];
  fetch("/api/training", {
    method: "POST",
    headers: authHeaders({ "Content-Type": "application/json" }),
    body: JSON.stringify({ match: form.match.value, rules: rules }),
  }).then((r) => r.json()).then((answer) => {
    if (!answer.code) { $("code").hidden = false; $("code").textContent = answer.message || "?"; return; }
    session = answer;
    $("code").hidden = false;
    $("code").textContent = answer.code;
    const csv = $("csv");
    csv.hidden = false;
    csv.href = `/api/training/${answer.id}/sheet.csv?code=${answer.code}`;
    refresh();
  });
});

setInterval(refresh, 2000);
