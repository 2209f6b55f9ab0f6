/* Drawing the console from the state it shows (the server's, or the forecast while calls wait):
 * the bar, the status line, the field's marks, the buttons (greyed from `legal`), the shootout
 * sheet and the rosters. Only what changed is touched (setText / setHtml compare first). */
import { $, esc, setHtml, setText, show as showEl } from "../lib/dom.js";
import { clockText, isHalf, returnLeft, timeUp } from "../lib/clock.js";
import { player, playerName } from "../lib/players.js";
import { fmt, multiAttackText, nextKickText, restartText, shootoutHtml, whyText } from "../lib/words.js";
import { D, T, TEAMS, V, allowed, other, teamName } from "./page.js";
import { reconnecting, rejoin } from "../lib/connection.js";
import { live } from "./state.js";
import * as queue from "./queue.js";
import { verdict } from "./legal.js";
import { drawBuilder, needsSpot } from "./builder.js";
import { drawField } from "./field.js";
import { drawUndo } from "./log.js";
import * as sheet from "./sheet.js";
import { fixable } from "./entries.js";
import * as roster from "./roster.js";
import * as horn from "./horn.js";


export function draw() {
  const s = live.view;
  document.body.classList.toggle("predicted", !!s.ruling && !queue.isOnline());
  TEAMS.forEach((t) => {
    setText(t + "-score", s.score[t]);
    $("team-" + t).classList.toggle("has-ball", s.possession === t && !timeUp(s));
  });
  setText("phase", V.phase[s.phase]);
  showEl("report-link", s.phase === "finished" || s.phase === "abandoned");
  setText("restart", restartText(s));
  // Issue 27.5: why the pending restart was given (rule and words), as the scoreboard says it.
  const why = whyText(s);
  setText("why", why);
  $("why").title = why;
  showEl("why", !!why);
  setText("possession", s.possession && !timeUp(s) ? fmt(T.possession_of, { team: teamName(s.possession) }) + (s.attacking ? T.attacking_paren : "") : "");
  setText("ma", timeUp(s) ? "" : multiAttackText(s));
  drawEnds(s);
  drawField(s, !!live.call && needsSpot());
  drawButtons(s);
  drawShootout(s);
  drawRosters(s);
  sheet.draw(s);
  // D161: the shootout's sheet and the score sheet take the field's place, unless a call being built (a
  // correction) may need a tap on the field.
  showEl("panels", (!$("shootout-panel").hidden || !$("sign-panel").hidden) && !live.call);
  roster.draw();
  drawUndo();
  netStatus();
  if (live.call) drawBuilder();
  tick();
}

let wasUp = false;
let ticked = false; // the first tick only learns the state: a console opened after time-up stays silent
let lastLeft = 0;
export function tick() {
  const s = live.view;
  const first = !ticked;
  ticked = true;
  setText("clock", clockText(s));
  const up = isHalf(s) && timeUp(s);
  $("clock").classList.toggle("up", up);
  $("clock").classList.toggle("paused", isHalf(s) && !s.clock.running && !up);
  if (up !== wasUp) {
    wasUp = up;
    if (up) rejoin(); // time is up: the server's state now has no restart (10.2)
    if (up && !first) { horn.horn(1.6); horn.vibrate(); } // issue 13: time-up is heard and felt
    draw();
  }
  const left = returnLeft(s);
  if (lastLeft > 0 && left <= 0 && !first) horn.horn(0.8); // the 30-s return is over (7.2)
  lastLeft = left;
  showEl("return", left > 0);
  if (left > 0) setText("return", T.return_countdown + " 0:" + ("0" + Math.ceil(left / 1000)).slice(-2));
}

export function netStatus() {
  const n = queue.load().length;
  const net = $("net");
  let text, cls;
  if (!queue.isOnline()) {
    text = n ? fmt(T.offline_queued, { n: n }) : T.offline;
    cls = "offline";
  } else if (n) {
    text = fmt(T.sending, { n: n });
    cls = "sending";
  } else if (reconnecting()) {
    text = T.reconnecting;
    cls = "sending";
  } else {
    text = T.online;
    cls = "online";
  }
  setText(net, text);
  net.className = "net " + cls;
}

function drawEnds(s) {
  if (!s.ends) { setHtml("ends", ""); return; }
  const left = s.ends.home === "x0" ? "home" : "away";
  setHtml("ends", '<span class="end left" style="--c:' + D.colors[left] + '">◀ ' + esc(teamName(left)) + "</span>" +
    '<span class="end right" style="--c:' + D.colors[other(left)] + '">' + esc(teamName(other(left))) + " ▶</span>");
}

/* Greyed (aria-disabled, still pressable) when `legal` refuses the call for both teams: a press shows
 * the engine's reason. Never hidden (issue 13): every button keeps its place in every phase, pause and
 * resume too (one of them is greyed). */
function drawButtons(s) {
  document.querySelectorAll("[data-action]").forEach((b) => {
    const a = b.getAttribute("data-action");
    // Choosing a call for a correction: `legal` is about now, not about then (fix.js).
    let v = live.fix ? { ok: fixable(a) ? null : false } : verdict(s, a, null);
    // While calls wait there is no `legal`: the clock shown says which of pause and resume applies.
    if (v.ok === null && !live.fix && (a === "pause" || a === "resume") && isHalf(s)) v = { ok: (a === "pause") === !!s.clock.running || null };
    b.setAttribute("aria-disabled", v.ok === false ? "true" : "false");
    b.classList.toggle("greyed", v.ok === false);
    b.classList.toggle("chosen", !!(live.call && live.call.action === a));
  });
}

function drawShootout(s) {
  const show = s.phase === "shootout" || !!s.shootout;
  showEl("shootout-panel", show);
  $("actions").classList.toggle("dimmed", show);
  if (!show) return;
  const start = allowed.has("shootout_start") && !s.shootout && verdict(s, "shootout_start", null).ok !== false && !s.ruling;
  showEl("so-start", start);
  showEl("so-live", !!s.shootout);
  if (start) fillTakers(s);
  if (s.shootout) {
    setHtml("so-board", shootoutHtml(s));
    const next = s.ruling ? T.next_kick_ruled : s.shootout.next ? nextKickText(s) : T.shootout_decided + (s.winner ? " · " + fmt(T.winner, { team: teamName(s.winner) }) : "");
    setText("so-next", next);
    setText("so-score", s.shootout.score.home + "–" + s.shootout.score.away);
    showEl("so-kick", !!s.shootout.next && !s.ruling); // the next kick's team is the server's to say
    const kick = s.shootout.next && allowed.has("shootout_kick") && verdict(s, "shootout_kick", s.shootout.next.team).ok !== false;
    document.querySelectorAll("[data-kick]").forEach((b) => { b.disabled = !kick; });
  }
}

let soFirst = null;
function fillTakers(s) {
  document.querySelectorAll("#so-start select").forEach((sel) => {
    if (sel.options.length) return;
    const t = sel.getAttribute("data-team"), slot = Number(sel.getAttribute("data-slot"));
    const ts = s.teams[t];
    const eligible = ts.on_field.concat(ts.bench.filter((n) => ts.on_field.indexOf(n) < 0));
    eligible.forEach((n) => sel.add(new Option(player(t, n), n)));
    if (eligible[slot] !== undefined) sel.value = eligible[slot];
  });
  document.querySelectorAll("[data-first]").forEach((b) => b.classList.toggle("chosen", b.getAttribute("data-first") === soFirst));
}
export function shootoutFirst(t) { soFirst = t; fillTakers(live.view); }
export function shootoutStartBody() {
  if (!soFirst) return null;
  const takers = { home: [], away: [] };
  document.querySelectorAll("#so-start select").forEach((sel) => takers[sel.getAttribute("data-team")].push(Number(sel.value)));
  return { type: "shootout_start", first: soFirst, takers: takers };
}

function drawRosters(s) {
  TEAMS.forEach((t) => {
    const ts = s.teams[t];
    const chips = (list, cls) => list.map((n) => {
      let c = cls, title = "";
      if (ts.yellow.indexOf(n) >= 0) c += " yc";
      if (ts.sent_off.indexOf(n) >= 0) c += " rc";
      if ((ts.second_yellow || []).indexOf(n) >= 0) { c += " sy"; title = T.second_yellow; }
      if ((ts.injured || []).indexOf(n) >= 0) c += " inj";
      // M8: the player's fouls in this match, as a badge.
      const f = (ts.fouls || {})[String(n)] || 0;
      const badge = f ? ' <i class="fc" title="' + esc(fmt(f === 1 ? T.fouls_n_one : T.fouls_n, { n: f })) + '">' + f + "</i>" : "";
      return '<span class="pl' + c + '" data-player="' + n + '"' + (title ? ' title="' + esc(title) + '"' : "") + ">#" + n + " " + esc(playerName(t, n)) + badge + "</span>";
    }).join("");
    const ma = ts.multi_attack || {};
    let maText = "";
    if (ma.team !== null && ma.team !== undefined) maText = T.multi_attack + " " + ma.team;
    Object.keys(ma.players || {}).forEach((n) => { maText += " #" + n + ":" + ma.players[n]; });
    const flags = [];
    if (ts.may_substitute !== null && ts.may_substitute !== undefined) flags.push(ts.may_substitute ? T.may_substitute : T.may_not_substitute);
    if (ts.replacements_due && !s.ruling) flags.push(T.replacement_due + " ×" + ts.replacements_due);
    if (ts.short) flags.push(fmt(T.short, { n: ts.short }));
    const html = "<h3>" + esc(teamName(t)) + (s.possession === t ? ' <span class="ball">●</span>' : "") +
      ' <small class="' + (ts.may_substitute ? "yes" : "no") + '">' + esc(flags.join(" · ")) + "</small>" +
      (maText ? ' <small class="ma">' + esc(maText) + "</small>" : "") + "</h3>" +
      '<div class="r-line"><span class="r-label">' + esc(T.on_field) + "</span>" + chips(ts.on_field, "") + "</div>" +
      '<div class="r-line"><span class="r-label">' + esc(T.bench) + "</span>" + chips(ts.bench, " bench") + "</div>" +
      (ts.sent_off.length ? '<div class="r-line"><span class="r-label">' + esc(T.sent_off) + "</span>" + chips(ts.sent_off, " off") + "</div>" : "");
    setHtml("roster-" + t, html);
  });
}


