/* The line-ups screen: both teams' players on the field and on the bench, live (a substitution moves
 * a name), the officials; names fitted into their boxes as on the scoreboard. */
(function () {
  "use strict";
  var state = Q.data.state;

  function list(t, numbers) {
    return numbers.map(function (n) {
      return "<li><b>" + n + "</b> " + Q.esc(Q.playerName(t, n)) + "</li>";
    }).join("");
  }
  function draw() {
    var s = state;
    ["home", "away"].forEach(function (t) {
      Q.setHtml(t + "-on", list(t, s.teams[t].on_field));
      Q.setHtml(t + "-bench", list(t, s.teams[t].bench));
      Q.fit(Q.$(t + "-name"), 10);
      Q.fit(Q.$(t + "-lists"), 8);
    });
    Q.setText("phase", Q.V.phase[s.phase]);
    Q.setText("lu-score", s.score.home + "–" + s.score.away);
    Q.show("lu-score", s.phase !== "scheduled");
    Q.drawStarts(s);
  }
  Q.connect(Q.data.match, {
    state: function (s) {
      if (!Q.newer(state, s)) return;
      state = s;
      draw();
    },
    logos: function () { location.reload(); }, // a team's logo changed: the server draws it
  });
  window.addEventListener("resize", draw);
  draw();
  document.body.setAttribute("data-ready", "1");
})();
