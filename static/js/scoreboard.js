/* The big screen: redraws from each `state`; the clock and countdowns tick from the server's clock. */
(function () {
  "use strict";
  var state = Q.data.state;
  var timeUpSeen = false;

  function draw() {
    var s = state;
    Q.drawHeader(s);
    tick();
  }

  function tick() {
    var s = state;
    Q.setText("clock", Q.clockText(s));
    var up = Q.timeUp(s) && Q.isHalf(s);
    Q.$("clock").classList.toggle("up", up);
    var paused = Q.isHalf(s) && !s.clock.running && !up;
    Q.$("clock").classList.toggle("paused", paused);
    Q.show("paused", paused); // not by colour alone
    if (up && !timeUpSeen) {
      timeUpSeen = true;
      draw(); // restart and possession are gone once time is up (10.2)
    }
    var left = Q.returnLeft(s);
    Q.show("return", left > 0);
    if (left > 0) Q.setText("return-time", "0:" + ("0" + Math.ceil(left / 1000)).slice(-2));
  }

  Q.connect(Q.data.match, {
    state: function (s) {
      if (!Q.newer(state, s)) return;
      state = s;
      timeUpSeen = Q.timeUp(s);
      draw();
    },
  });
  draw();
  Q.tick(tick);
})();
