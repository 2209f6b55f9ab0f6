/* The what-if page (issue 24, SPEC C7): pick a call of the match's log, change it (amend with a form of
 * the call's fields from GET /api/catalogue, void, or insert a call after it), and see both outcomes side
 * by side from POST /api/matches/<id>/what-if — score, shootout, winner, the restart after the changed
 * call, the later calls refused with their rules, the standings. Opened from a protest, it records the
 * committee's decision with the what-if's request (D188). Nothing here changes the match. */
import { data, T, V } from "../lib/page.js";
import { $, esc } from "../lib/dom.js";
import { authHeaders, formSay } from "../lib/forms.js";
import { mmss } from "../lib/clock.js";
import { fmt } from "../lib/words.js";

const lang = data.lang === "zh" ? "zh" : "en";
let catalogue = {};  // event type -> its catalogue entry
let log = [];
let picked = null;  // the log entry picked
let asked = null;  // the last what-if request and its answer: {changes, answer}

const teamName = (t) => (t && data.teams[t]) || t || "";
const label = (entry) => (entry ? entry.label[lang] || entry.label.en : "");

function callWords(e) {
  const what = e.type === "violation" ? V.violation[e.kind] || e.kind : V.event[e.type] || label(catalogue[e.type]) || e.type;
  const who = [e.team ? teamName(e.team) : "", e.player ? `#${e.player}` : ""].filter(Boolean).join(" ");
  const spot = e.spot ? ` (${e.spot.x}, ${e.spot.y})` : "";
  const card = e.card ? ` · ${V.card[e.card] || e.card}` : "";
  return `${what}${who ? " · " + who : ""}${spot}${card}`;
}

/* An error the server answered, in the page's language (D295): a rule's refusal (409 "rule") is worded by
 * the server in the request's language (the page's: ?lang=); every other error by its code, with the fields
 * it names; an answer that is no JSON of ours (a proxy's page, no connection) by its status. */
function errorText(status, a) {
  if (a && a.error === "rule" && a.message) return `${a.rule ? a.rule + " " : ""}${a.message}`;
  const code = a && a.error ? a.error : "";
  let text = T[`error_${code}`] || fmt(T.error_other, { status: status || "—" });
  if (a && a.fields && typeof a.fields === "object") text += ` (${Object.keys(a.fields).join(", ")})`;
  return text;
}

/* A POST of this page: resolves to {ok, status, answer}, answer null when the body is no JSON. */
function post(url, body) {
  const sep = url.indexOf("?") < 0 ? "?" : "&";
  return fetch(`${url}${sep}lang=${lang}`, {
    method: "POST", headers: authHeaders({ "Content-Type": "application/json" }), body: JSON.stringify(body),
  }).then((r) => r.json().catch(() => null).then((a) => ({ ok: r.ok && !!a, status: r.status, answer: a })),
    () => ({ ok: false, status: 0, answer: null }));
}

function drawLog() {
  $("log").innerHTML = log.map((e) =>
    `<li><label><input type="radio" name="event" value="${e.seq}"> <span class="seq">#${e.seq}</span> ` +
    `<span class="at">${e.at_ms != null ? mmss(e.at_ms) : ""}</span> ${esc(callWords(e))}</label></li>`).join("");
}

/* The form of one call's fields, from the catalogue (team, player, choice, bool, spot), filled from ``e``. */
function drawFields(type, e) {
  const entry = catalogue[type];
  const fields = entry ? entry.fields : [];
  $("event-fields").innerHTML = fields.map((f) => {
    const v = e ? e[f.name] : undefined;
    const name = `f.${f.name}`;
    if (f.kind === "team") {
      return `<label>${esc(f.name)} <select name="${name}">` + ["home", "away"].map((t) =>
        `<option value="${t}"${v === t ? " selected" : ""}>${esc(teamName(t))}</option>`).join("") + "</select></label>";
    }
    if (f.kind === "player") {
      return `<label>${esc(T.player)} (${esc(f.name)}) <input type="number" min="0" max="999" name="${name}" value="${v != null ? v : ""}"></label>`;
    }
    if (f.kind === "choice") {
      const words = f.name === "kind" ? V.violation : f.name === "card" || f.name === "color" ? V.card : f.name === "where" ? V.where : {};
      return `<label>${esc(f.name)} <select name="${name}">${f.required ? "" : '<option value="">—</option>'}` + f.choices.map((c) =>
        `<option value="${c}"${v === c ? " selected" : ""}>${esc((words && words[c]) || c)}</option>`).join("") + "</select></label>";
    }
    if (f.kind === "bool") {
      return `<label class="check"><input type="checkbox" name="${name}"${v ? " checked" : ""}> ${esc(f.name)}</label>`;
    }
    if (f.kind === "spot") {
      return `<label>${esc(T.spot_x)} <input type="number" step="0.1" name="${name}.x" value="${v ? v.x : ""}"></label>` +
        `<label>${esc(T.spot_y)} <input type="number" step="0.1" name="${name}.y" value="${v ? v.y : ""}"></label>`;
    }
    return `<label>${esc(f.name)} <input name="${name}" value="${v != null ? esc(v) : ""}"></label>`;
  }).join("");
}

function readEvent(form, type) {
  const ev = { type: type };
  (catalogue[type] ? catalogue[type].fields : []).forEach((f) => {
    const el = form.elements[`f.${f.name}`];
    if (f.kind === "spot") {
      const x = form.elements[`f.${f.name}.x`].value, y = form.elements[`f.${f.name}.y`].value;
      if (x !== "" && y !== "") ev[f.name] = { x: Number(x), y: Number(y) };
    } else if (f.kind === "bool") {
      if (el.checked) ev[f.name] = true;
    } else if (f.kind === "player") {
      if (el.value !== "") ev[f.name] = Number(el.value);
    } else if (el && el.value !== "") {
      ev[f.name] = el.value;
    }
  });
  return ev;
}

function kind() { return $("change").elements.kind.value; }

function syncForm() {
  const k = kind();
  $("type-label").hidden = k === "void";
  $("event-fields").hidden = k === "void";
  if (k === "void") return;
  const sel = $("event-type");
  const type = k === "amend" && picked && catalogue[picked.type] ? picked.type : sel.value;
  sel.value = type;
  drawFields(type, k === "amend" ? picked : null);
}

function restartWords(r) {
  if (!r) return T.none;
  return `${V.restart[r.type] || r.type} · ${teamName(r.team)} (${r.spot.x}, ${r.spot.y})${r.rule ? " — " + r.rule : ""}`;
}

function shootoutWords(s) {
  if (!s) return "—";
  const sc = s.score || {};
  return `${sc.home != null ? sc.home : "?"}–${sc.away != null ? sc.away : "?"}`;
}

function standingsTable(rows) {
  return `<table class="standings"><thead><tr><th>#</th><th></th><th>${esc(T.points)}</th><th>${esc(T.goal_difference)}</th></tr></thead><tbody>` +
    rows.map((r) => `<tr data-team="${esc(r.team)}"><td>${r.rank}</td><td>${esc(r.name)}</td><td class="pts">${r.points}</td><td>${r.goal_difference}</td></tr>`).join("") +
    "</tbody></table>";
}

function drawOutcomes(a) {
  const row = (name, key, f) => `<tr data-row="${key}"><th>${esc(name)}</th><td class="actual">${esc(f(a.actual, "actual"))}</td><td class="what-if">${esc(f(a.what_if, "what_if"))}</td></tr>`;
  $("columns").querySelector("tbody").innerHTML = [
    row(T.score, "score", (s) => `${s.score.home}–${s.score.away}`),
    row(T.shootout, "shootout", (s) => shootoutWords(s.shootout)),
    row(T.winner, "winner", (s) => (s.winner ? teamName(s.winner) : s.phase === "finished" ? T.draw : V.phase[s.phase] || s.phase)),
    row(T.restart_after, "restart", (s, side) => restartWords(a.restart_after ? a.restart_after[side] : null)),
  ].join("");
  $("refused").innerHTML = `<h3>${esc(T.refused)}</h3>` + (a.refused.length
    ? "<ul>" + a.refused.map((r) => `<li data-seq="${r.seq}">#${r.seq} ${esc(V.event[r.type] || r.type)} — <strong>${esc(r.rule)}</strong> ${esc(r.message)}</li>`).join("") + "</ul>"
    : `<p class="muted">${esc(T.no_refusal)}</p>`);
  if (a.standings) {
    $("standings").innerHTML = `<h3>${esc(T.standings)}</h3>` + Object.keys(a.standings.actual).map((g) =>
      `<div class="pair"><div class="actual"><h4>${esc(T.actual)}${g !== "all" ? " · " + esc(g) : ""}</h4>${standingsTable(a.standings.actual[g])}</div>` +
      `<div class="what-if"><h4>${esc(T.what_if)}${g !== "all" ? " · " + esc(g) : ""}</h4>${standingsTable(a.standings.what_if[g] || [])}</div></div>`).join("");
  } else {
    $("standings").innerHTML = "";
  }
  $("outcomes").hidden = false;
  if ($("decide")) $("decide").hidden = false;
}

$("log").addEventListener("change", (ev) => {
  picked = log.find((e) => String(e.seq) === ev.target.value) || null;
  $("picked").textContent = picked ? `#${picked.seq} ${callWords(picked)}` : T.pick_event;
  syncForm();
});
$("change").addEventListener("change", (ev) => {
  if (ev.target.name === "kind") syncForm();
  // An amend keeps what the picked call had (its team, player, spot) where the new call has the same field.
  if (ev.target.id === "event-type") drawFields(ev.target.value, kind() === "amend" ? picked : null);
});

$("change").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const form = ev.target;
  if (!picked) { formSay(form, T.pick_event, true); return; }
  const k = kind();
  const reason = form.elements.reason.value;
  const change = k === "void" ? { type: "void", target: picked.seq, reason: reason }
    : k === "amend" ? { type: "amend", target: picked.seq, event: readEvent(form, $("event-type").value), reason: reason }
    : { type: "insert", after: picked.seq, event: readEvent(form, $("event-type").value), reason: reason };
  const changes = [change];
  post(`/api/matches/${data.match}/what-if`, { changes: changes }).then(({ ok, status, answer: a }) => {
    if (!ok) { formSay(form, errorText(status, a), true); return; }
    formSay(form, "", false);
    asked = { changes: changes, answer: a };
    drawOutcomes(a);
  });
});

if ($("decision")) {
  $("decision").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const form = ev.target;
    if (!asked) { formSay(form, T.pick_event, true); return; }
    const body = {
      upheld: form.elements.upheld.checked,
      text: form.elements.text.value,
      replay: form.elements.replay.checked,
      what_if: { changes: asked.changes, seq: asked.answer.actual.seq },
    };
    const w = asked.answer.what_if;
    if (form.elements.take_result.checked) {
      const ids = data.protest.teams;
      body.result = { home: w.score.home, away: w.score.away, winner: w.winner ? ids[w.winner] : null };
      if (w.shootout && w.shootout.score) body.result.shootout = { home: w.shootout.score.home, away: w.shootout.score.away };
    }
    post(data.protest.decision_url, body).then(({ ok, status, answer: a }) => {
      if (!ok) { formSay(form, errorText(status, a), true); return; }
      formSay(form, T.decided, false);
      form.querySelector("button").disabled = true;
    });
  });
}

Promise.all([
  fetch("/api/catalogue").then((r) => r.json()),
  fetch(`/api/matches/${data.match}/events`).then((r) => r.json()),
]).then(([cat, events]) => {
  cat.events.filter((e) => e.correctable).forEach((e) => { catalogue[e.type] = e; });
  $("event-type").innerHTML = Object.keys(catalogue).map((t) => `<option value="${t}">${esc(V.event[t] || label(catalogue[t]))}</option>`).join("");
  const corrections = new Set(["amend", "void", "insert", "note", "undo"]);
  log = events.filter((e) => !e.voided_by && !corrections.has(e.type) && catalogue[e.type]);
  drawLog();
  document.body.dataset.ready = "1";
});
