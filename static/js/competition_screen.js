/* The venue's big screen: live matches, the latest results (D166), then the standings (and the bracket),
 * then what is next, in turn.
 * Panels without content are skipped; ?seconds=N sets how long each stays (default 12).
 */
import { data } from "./lib/page.js";
import { $, fit } from "./lib/dom.js";
import { configure } from "./competition.js";
var seconds = data.seconds || 12;
var index = -1;
var current = null;

function panels() {
  return Array.prototype.filter.call(document.querySelectorAll(".panel"), function (p) { return !p.hasAttribute("data-empty"); });
}
function show(name) {
  var list = panels();
  if (!list.length) return;
  var target = list.filter(function (p) { return p.getAttribute("data-panel") === name; })[0] || list[0];
  document.querySelectorAll(".panel").forEach(function (p) { p.hidden = p !== target; });
  current = target.getAttribute("data-panel");
  fitNames(target);
  index = list.indexOf(target);
  $("dots").innerHTML = list.map(function (p, i) { return '<i class="' + (i === index ? "on" : "") + '"></i>'; }).join("");
}
/* Names of the panel shown, each in its box: a smaller font rather than a word cut in two (issue 19). */
function fitNames(panel) {
  if (panel) panel.querySelectorAll("[data-fit]").forEach(function (n) { fit(n, 12); });
}
window.addEventListener("resize", function () { fitNames(document.querySelector(".panel:not([hidden])")); });
if (document.fonts && document.fonts.ready) document.fonts.ready.then(function () { fitNames(document.querySelector(".panel:not([hidden])")); });
function next() {
  var list = panels();
  if (!list.length) return;
  var i = (index + 1) % list.length;
  show(list[i].getAttribute("data-panel"));
}
configure({ onRefresh: function () { show(current); } });
show("live");
setInterval(next, seconds * 1000);
