/* A venue's screen (/screens/<name>): shows what the organiser chose and follows each new choice.
 *
 * Joins the Socket.IO room of the screen (`join_screen`); every `screen` message says what to show:
 * a page (`src`: a scoreboard, line-ups, a competition's screen) loaded in a frame, a slide (an
 * uploaded image and its caption) or nothing. A new page loads in the hidden frame and takes the
 * place of the shown one once loaded. A lost connection is said on the screen (common.js).
 */
(function () {
  "use strict";
  var name = Q.data.screen;
  var current = Q.data.current;
  var frames = [Q.$("frame-a"), Q.$("frame-b")];
  var shown = 0; // the frame on screen
  Q.lastUpdate = Date.now();

  function withLang(src) {
    return src + (src.indexOf("?") < 0 ? "?" : "&") + "lang=" + encodeURIComponent(Q.data.lang);
  }
  function show(screen) {
    var before = current;
    current = screen;
    document.body.className = document.body.className.replace(/\bshow-\w+/, "show-" + screen.show);
    var slide = screen.show === "slide";
    Q.show("slide", slide);
    if (slide) {
      var img = Q.$("slide-img");
      if (screen.image_url && img.getAttribute("src") !== screen.image_url) img.src = screen.image_url;
      Q.setText("slide-caption", screen.caption || "");
    }
    if (!screen.src) {
      frames.forEach(function (f) { f.hidden = true; f.removeAttribute("src"); });
      return;
    }
    var src = withLang(screen.src);
    var on = frames[shown];
    if (!on.hidden && before && before.src === screen.src) return; // already showing it
    var next = frames[1 - shown];
    next.onload = function () {
      next.onload = null;
      next.hidden = false;
      on.hidden = true;
      on.removeAttribute("src");
      shown = 1 - shown;
    };
    next.src = src;
  }

  if (typeof io === "function") {
    var socket = io({ reconnectionDelayMax: 4000 });
    var heard = Q.localNow();
    var join = function () { socket.emit("join_screen", { screen: name }); };
    socket.on("connect", join);
    socket.on("disconnect", function () { Q.markStale(true); });
    socket.on("connect_error", function () { Q.markStale(true); });
    socket.on("screen", function (screen) {
      heard = Q.localNow();
      Q.lastUpdate = Date.now();
      Q.markStale(false);
      show(screen);
    });
    setInterval(function () { if (socket.connected) join(); }, 30000);
    setInterval(function () { if (Q.localNow() - heard > 45000) Q.markStale(true); }, 1000);
  }
  document.body.setAttribute("data-ready", "1");
})();
