/* The part of the scoreboard and the phone page that is the same: phase class, names, scores, who has
 * the ball, cards, phase, pending restart and why, multi-attack counters, shootout, score sheet, result. */
import { data, T, V } from "./page.js";
import { $, setHtml, setText, show } from "./dom.js";
import { timeUp } from "./clock.js";
import { cardsHtml, fmt, multiAttackText, nextKickText, restartText, sheetText, shootoutHtml, whyText } from "./words.js";

/* The score sheet's line (SPEC M6): provisional until the referee signs, then final. */
export function drawSheet(state) {
  const n = $("sheet");
  if (!n) return;
  const text = sheetText(state);
  setText(n, text);
  n.hidden = !text;
  n.className = "sheet " + (state.locked ? "locked" : "provisional");
}

/* Before kickoff: when the match starts (page data `starts`, rendered by the server). */
export function drawStarts(state) {
  show("starts", state.phase === "scheduled" && !!data.starts);
}

export function drawHeader(s) {
  document.body.className = document.body.className.replace(/\bphase-\w+/, "phase-" + s.phase);
  document.body.classList.toggle("has-shootout", !!s.shootout);
  ["home", "away"].forEach((t) => {
    setText(t + "-name", s.teams[t].name);
    setText(t + "-score", s.score[t]);
    $("team-" + t).classList.toggle("has-ball", s.possession === t && !timeUp(s));
    setHtml(t + "-cards", cardsHtml(s.teams[t]));
    const second = $(t + "-second"); // the scoreboard says it in words too (SPEC M8)
    if (second) {
      const sy = s.teams[t].second_yellow || [];
      setText(second, sy.map((n) => "#" + n + " " + T.second_yellow).join(" · "));
      second.hidden = !sy.length;
    }
  });
  setText("phase", V.phase[s.phase]);
  setText("restart", restartText(s));
  const why = whyText(s);
  setText("why", why);
  show("why", !!why);
  drawStarts(s);
  setText("ma", timeUp(s) ? "" : multiAttackText(s));
  show("shootout", !!s.shootout);
  if (s.shootout) {
    setText("so-score", s.shootout.score.home + "–" + s.shootout.score.away);
    setHtml("so-board", shootoutHtml(s));
    setText("so-next", nextKickText(s));
  }
  drawSheet(s);
  // A finished match without a winner is a draw (only rule book 1.0 has them, V1-D2).
  const drawn = s.phase === "finished" && !s.winner;
  show("result", !!s.winner || drawn);
  // The report (provisional during the match, reports/) once the match has begun.
  show("report-link", s.phase !== "scheduled");
  if (s.winner) setText("result", fmt(T.winner, { team: s.teams[s.winner].name }));
  else if (drawn) setText("result", T.draw);
}
