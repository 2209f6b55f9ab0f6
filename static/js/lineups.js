/* The line-ups screen: both teams' players on the field and on the bench, live (a substitution moves
 * a name), the officials; names fitted into their boxes as on the scoreboard. */
import { V, data } from "./lib/page.js";
import { $, esc, fit, setHtml, setText, show } from "./lib/dom.js";
import { newer } from "./lib/clock.js";
import { playerName } from "./lib/players.js";
import { drawStarts } from "./lib/header.js";
import { connect } from "./lib/connection.js";
import "./lib/offline.js";
var state = data.state;

function list(t, numbers) {
  return numbers.map(function (n) {
    return "<li><b>" + n + "</b> " + esc(playerName(t, n)) + "</li>";
  }).join("");
}
function draw() {
  var s = state;
  ["home", "away"].forEach(function (t) {
    setHtml(t + "-on", list(t, s.teams[t].on_field));
    setHtml(t + "-bench", list(t, s.teams[t].bench));
    fit($(t + "-name"), 10);
    fit($(t + "-lists"), 8);
  });
  setText("phase", V.phase[s.phase]);
  setText("lu-score", s.score.home + "–" + s.score.away);
  show("lu-score", s.phase !== "scheduled");
  drawStarts(s);
}
connect(data.match, {
  state: function (s) {
    if (!newer(state, s)) return;
    state = s;
    draw();
  },
  logos: function () { location.reload(); }, // a team's logo changed: the server draws it
});
window.addEventListener("resize", draw);
draw();
document.body.setAttribute("data-ready", "1");
