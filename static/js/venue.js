/* A venue's screen (/screens/<name>): shows what the organiser chose and follows each new choice.
 *
 * Joins the Socket.IO room of the screen (`join_screen`); every `screen` message says what to show:
 * a page (`src`: a scoreboard, line-ups, a competition's screen) loaded in a frame, a slide (an
 * uploaded image and its caption) or nothing. A new page loads in the hidden frame and takes the
 * place of the shown one once loaded. A lost connection is said on the screen (lib/connection.js).
 */
import { data } from "./lib/page.js";
import { $, setText, show as showEl } from "./lib/dom.js";
import { localNow } from "./lib/clock.js";
import { markStale, setLastUpdate } from "./lib/connection.js";
var name = data.screen;
var current = data.current;
var frames = [$("frame-a"), $("frame-b")];
var shown = 0; // the frame on screen
setLastUpdate(Date.now());

function withLang(src) {
  return src + (src.indexOf("?") < 0 ? "?" : "&") + "lang=" + encodeURIComponent(data.lang);
}
function show(screen) {
  var before = current;
  current = screen;
  document.body.className = document.body.className.replace(/\bshow-\w+/, "show-" + screen.show);
  var slide = screen.show === "slide";
  showEl("slide", slide);
  if (slide) {
    var img = $("slide-img");
    if (screen.image_url && img.getAttribute("src") !== screen.image_url) img.src = screen.image_url;
    setText("slide-caption", screen.caption || "");
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
  var heard = localNow();
  var join = function () { socket.emit("join_screen", { screen: name }); };
  socket.on("connect", join);
  socket.on("disconnect", function () { markStale(true); });
  socket.on("connect_error", function () { markStale(true); });
  socket.on("screen", function (screen) {
    heard = localNow();
    setLastUpdate(Date.now());
    markStale(false);
    show(screen);
  });
  setInterval(function () { if (socket.connected) join(); }, 30000);
  setInterval(function () { if (localNow() - heard > 45000) markStale(true); }, 1000);
}
document.body.setAttribute("data-ready", "1");
