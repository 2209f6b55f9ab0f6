/* Notes for the referee's report (SPEC M7), from every official's console: about the match, an event
 * of the log (its menu opens this about it), a team or a player, optionally with a misconduct code. */
import { $, esc, setHtml, setText, show } from "../lib/dom.js";
import { player } from "../lib/players.js";
import { fmt } from "../lib/words.js";
import { NOTE_CODES, T, TEAMS, rosterNumbers, teamName } from "./page.js";
import { live } from "./state.js";
import { describe, entryEvent, entryTime } from "./entries.js";
import { submit } from "./calls.js";

const dialog = $("note-dialog");
let note = null; // {about, team, player, code}

/* Open the note form; `e`: the log entry it is about (its team and player are filled in). */
export function open(e) {
  if (!dialog || live.revoked) return;
  const ev = e ? entryEvent(e) : {};
  note = { about: e ? e.seq : null, team: ev.team || null, player: ev.player === undefined ? null : ev.player, code: null };
  $("note-text").value = "";
  setText("note-about", e ? fmt(T.note_about_event, { what: "#" + e.seq + " " + describe(ev) + (entryTime(e) ? " (" + entryTime(e) + ")" : "") }) : "");
  show("note-about", !!e);
  draw();
  if (dialog.showModal) dialog.showModal();
  else dialog.setAttribute("open", "");
  $("note-text").focus();
}

function close() {
  note = null;
  if (dialog.close) dialog.close();
  else dialog.removeAttribute("open");
}

function draw() {
  const btn = (label, attrs, on) => '<button type="button" class="toggle' + (on ? " on" : "") + '" ' +
    Object.keys(attrs).map((k) => k + '="' + esc(attrs[k]) + '"').join(" ") + ">" + esc(label) + "</button>";
  setHtml("note-teams", btn(T.note_match, { "data-note-team": "" }, !note.team) +
    TEAMS.map((t) => btn(teamName(t), { "data-note-team": t }, note.team === t)).join(""));
  const sel = $("note-player");
  sel.innerHTML = "";
  sel.add(new Option(T.note_no_player, ""));
  if (note.team) rosterNumbers(live.view.teams[note.team]).forEach((n) => sel.add(new Option(player(note.team, n), String(n))));
  sel.value = note.player === null ? "" : String(note.player);
  sel.disabled = !note.team;
  setHtml("note-codes", NOTE_CODES.map((c) => btn(c.label, { "data-note-code": c.code }, note.code === c.code)).join(""));
}

function save() {
  const text = ($("note-text").value || "").trim();
  if (!text) { $("note-text").focus(); $("note-text").setAttribute("aria-invalid", "true"); return; }
  const body = { type: "note", text: text };
  if (note.about) body.about = note.about;
  if (note.team) body.team = note.team;
  if (note.team && note.player !== null) body.player = note.player;
  if (note.code) body.code = note.code;
  close();
  submit(body);
}

if (dialog) {
  dialog.addEventListener("click", (ev) => {
    const b = ev.target.closest("button");
    if (!b || !note) return;
    if (b.hasAttribute("data-note-team")) {
      note.team = b.getAttribute("data-note-team") || null;
      note.player = null;
      draw();
    } else if (b.hasAttribute("data-note-code")) {
      const c = b.getAttribute("data-note-code");
      note.code = note.code === c ? null : c;
      draw();
    } else if (b.id === "note-save") {
      save();
    } else if (b.id === "note-cancel") {
      close();
    }
  });
  $("note-player").addEventListener("change", (ev) => { if (note) note.player = ev.target.value === "" ? null : Number(ev.target.value); });
  $("note-text").addEventListener("input", (ev) => ev.target.removeAttribute("aria-invalid"));
  const opener = $("note-open");
  if (opener) opener.addEventListener("click", () => open(null));
}
