/* The roster editor (SPEC M2), for the referee and the scorer: a late player joins the bench, a name
 * or a shirt number is corrected. Each change is a `roster` event; the rosters every console shows
 * come from the state's `players`, so the change shows at once everywhere. */
import { $, esc, setHtml, setText } from "../lib/dom.js";
import { playerName } from "../lib/players.js";
import { fmt } from "../lib/words.js";
import { T, TEAMS, may, rosterNumbers, teamName } from "./page.js";
import { live } from "./state.js";
import { submit } from "./calls.js";

const panel = $("roster-editor");
let team = "home";
let drawn = ""; // the roster the form was drawn from: redrawn only when it changed and no field is being typed in

export function draw() {
  if (!panel || panel.hidden) return;
  const ts = live.view.teams[team];
  const key = team + JSON.stringify(ts.players || {});
  const typing = panel.contains(document.activeElement) && document.activeElement.tagName === "INPUT";
  setHtml("re-teams", TEAMS.map((t) => '<button type="button" class="pick team-btn ' + t + (t === team ? " chosen" : "") + '" data-re-team="' + t + '">' + esc(teamName(t)) + "</button>").join(""));
  if (key === drawn || typing) return;
  drawn = key;
  const rows = rosterNumbers(ts).map((n) => {
    const name = (ts.players || {})[String(n)] || playerName(team, n);
    const first = (ts.renumbered || {})[String(n)];
    return '<tr data-n="' + n + '"><td><input class="re-number" inputmode="numeric" size="3" maxlength="3" value="' + n + '" aria-label="' + esc(T.roster_number) + '">' +
      (first !== undefined ? '<small class="muted">' + esc(fmt(T.roster_was, { number: first })) + "</small>" : "") + "</td>" +
      '<td><input class="re-name" maxlength="80" value="' + esc(name) + '" aria-label="' + esc(T.roster_name) + '"></td>' +
      '<td><button type="button" class="act small" data-re-save="' + n + '">' + esc(T.roster_save) + "</button></td></tr>";
  }).join("");
  setHtml("re-rows", rows);
}

function msg(text, bad) {
  setText("re-msg", text);
  $("re-msg").className = "re-msg" + (bad ? " bad" : "");
}

function number(text) {
  const t = String(text || "").trim();
  return /^\d{1,3}$/.test(t) ? Number(t) : null;
}

function saveRow(n) {
  const row = panel.querySelector('tr[data-n="' + n + '"]');
  const ts = live.view.teams[team];
  const to = number(row.querySelector(".re-number").value);
  const name = row.querySelector(".re-name").value.trim();
  if (to === null) { msg(T.roster_bad_number, true); return; }
  if (!name) { msg(T.roster_bad_name, true); return; }
  const body = { type: "roster", team: team, player: n };
  if (to !== n) body.number = to;
  if (name !== ((ts.players || {})[String(n)] || "")) body.name = name;
  if (body.number === undefined && body.name === undefined) { msg(T.roster_unchanged, false); return; }
  drawn = "";
  msg(T.roster_sent, false);
  submit(body);
}

function add() {
  const n = number($("re-add-number").value);
  const name = $("re-add-name").value.trim();
  if (n === null) { msg(T.roster_bad_number, true); $("re-add-number").focus(); return; }
  if (!name) { msg(T.roster_bad_name, true); $("re-add-name").focus(); return; }
  $("re-add-number").value = "";
  $("re-add-name").value = "";
  drawn = "";
  msg(T.roster_sent, false);
  submit({ type: "roster", team: team, add: { number: n, name: name } });
}

/* The answer to a roster change, shown in the editor (the notice may be out of sight). */
export function answered(body, ok, message) {
  if (!panel || body.type !== "roster") return;
  drawn = "";
  msg(ok ? T.roster_saved : message, !ok);
  draw();
}

if (panel && may.roster) {
  const toggle = $("roster-edit");
  toggle.hidden = false;
  toggle.addEventListener("click", () => {
    panel.hidden = !panel.hidden;
    toggle.classList.toggle("on", !panel.hidden);
    drawn = "";
    msg("", false);
    draw();
  });
  panel.addEventListener("click", (ev) => {
    const b = ev.target.closest("button");
    if (!b) return;
    if (b.hasAttribute("data-re-team")) { team = b.getAttribute("data-re-team"); drawn = ""; msg("", false); draw(); }
    else if (b.hasAttribute("data-re-save")) saveRow(Number(b.getAttribute("data-re-save")));
    else if (b.id === "re-add") add();
  });
  panel.addEventListener("keydown", (ev) => {
    if (ev.key !== "Enter") return;
    ev.preventDefault();
    const row = ev.target.closest("tr[data-n]");
    if (row) saveRow(Number(row.getAttribute("data-n")));
    else if (ev.target.id === "re-add-number" || ev.target.id === "re-add-name") add();
  });
}
