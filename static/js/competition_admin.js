/* The organiser's competition page: every form writes through the API with the organiser's cookie.
 *
 * The server exchanged the link's or the sign-in form's ?token= for that HttpOnly cookie (D53); the page
 * holds only its CSRF token (D54). After each accepted write the page's part is fetched again from the server (one
 * renderer); the fixture's panel stays open. An error is shown in the form, with the server's field
 * messages and, for a rule, the rule's number and the explanation in the page's language.
 * Results that change elsewhere (a match finishing) refresh the page only while no form is being filled.
 */
import { T, data } from "./lib/page.js";
import { $, setText, show } from "./lib/dom.js";
import { explainAnswer, fmt } from "./lib/words.js";
import { formSay, organiserCall } from "./lib/forms.js";
import { configure, refresh as fetchPart } from "./competition.js";
var body = $("live-body");
var token = !!data.organiser; // whether this device holds the organiser's cookie
var dirty = false;

function signIn() { show("login", !token); }

function openPanels() {
  return Array.prototype.map.call(document.querySelectorAll("details[open]"), function (d) { return d.id; }).filter(Boolean);
}
var keepOpen = [];
// The part comes back with the open fixtures' forms in it (the others are fetched when opened).
function partQuery() {
  var open = openPanels().filter(function (id) { return id.indexOf("fx-") === 0; }).map(function (id) { return id.slice(3); });
  return open.length ? "open=" + encodeURIComponent(open.join(",")) : "";
}
/* A fixture's forms, fetched from the server the first time its panel opens. */
body.addEventListener("toggle", function (ev) {
  var d = ev.target;
  if (!d.open || !d.classList || !d.classList.contains("fx-admin")) return;
  var lazy = d.querySelector(".fx-admin-body[data-lazy]");
  if (!lazy || lazy.getAttribute("data-loading")) return;
  lazy.setAttribute("data-loading", "1");
  fetch(lazy.getAttribute("data-lazy"), { credentials: "same-origin" })
    .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
    .then(function (html) {
      if (!lazy.isConnected) return; // the part was replaced meanwhile (it renders open panels itself)
      var holder = document.createElement("div");
      holder.innerHTML = html; // our own server's rendering, as the page's part
      var fresh = holder.querySelector(".fx-admin-body");
      if (fresh) lazy.replaceWith(fresh);
    })
    .catch(function () {
      lazy.removeAttribute("data-loading");
      setText(lazy, T.load_failed);
    });
}, true); // "toggle" does not bubble: listen while it goes down
function onRefresh() {
  keepOpen.forEach(function (id) { var d = document.getElementById(id); if (d) d.open = true; });
  dirty = false;
  show("stale", false);
  signIn();
}
function refresh() {
  keepOpen = openPanels();
  fetchPart();
}
// Results changed elsewhere: refresh now, unless the organiser is filling a form.
function onChanged() {
  if (dirty) { show("stale", true); return; }
  refresh();
}
configure({ partQuery: partQuery, onRefresh: onRefresh, onChanged: onChanged });
$("reload").addEventListener("click", function () { dirty = false; refresh(); });
body.addEventListener("input", function () { dirty = true; });

function numbers(form, name) {
  return Array.prototype.filter.call(form.querySelectorAll('input[name="' + name + '"]'), function (i) { return i.checked; })
    .map(function (i) { return Number(i.value); });
}
function value(form, name) {
  var n = form.elements[name];
  return n ? n.value.trim() : "";
}
function intOrNull(form, name) {
  var v = value(form, name);
  return v === "" ? null : Number(v);
}

/* Each form's request body, from its inputs (null: the form itself found a mistake). */
var BODIES = {
  officials: function (form) {
    var b = {};
    ["referee", "assistant1", "assistant2", "scorer"].forEach(function (r) { b[r] = value(form, r) || null; });
    return b;
  },
  lineup: function (form) {
    var n = Number(form.getAttribute("data-starters"));
    var b = {};
    var bad = null;
    ["home", "away"].forEach(function (side) {
      var start = numbers(form, side + ".start");
      var squad = numbers(form, side + ".squad");
      start.forEach(function (x) { if (squad.indexOf(x) < 0) squad.push(x); });
      if (start.length !== n) bad = fmt(T.starters_count, { n: n });
      b[side] = { starting: start, players: squad };
    });
    if (bad) { say(form, bad, true); return null; }
    return b;
  },
  forfeit: function (form) {
    var team = form.elements.team;
    var label = team.options[team.selectedIndex].text;
    if (!window.confirm(fmt(T.confirm_forfeit, { team: label }))) return null;
    return { team: value(form, "team"), reason: value(form, "reason") };
  },
  result: function (form) {
    return { home: intOrNull(form, "home"), away: intOrNull(form, "away"), winner: value(form, "winner") || null, text: value(form, "text") };
  },
  protest: function (form) {
    return { fixture: form.getAttribute("data-fixture"), team: value(form, "team"), text: value(form, "text") };
  },
  decision: function (form) {
    var b = { upheld: form.elements.upheld.checked, text: value(form, "text"), replay: form.elements.replay.checked };
    var h = intOrNull(form, "home");
    var a = intOrNull(form, "away");
    if (h !== null || a !== null) b.result = { home: h, away: a, winner: value(form, "winner") || null };
    return b;
  },
  lots: function (form) {
    var inputs = Array.prototype.slice.call(form.querySelectorAll('input[name="order"]'));
    inputs.sort(function (x, y) { return Number(x.value) - Number(y.value); });
    return { teams: inputs.map(function (i) { return i.getAttribute("data-team"); }), text: value(form, "text") };
  },
  official: function (form) {
    return { name: value(form, "name"), club: value(form, "club") || null };
  },
  // D75: the time as typed (the competition's time zone, added by the server) and the field's name.
  move: function (form) {
    var b = {};
    if (value(form, "starts_at")) b.starts_at = value(form, "starts_at");
    b.field = value(form, "field");
    return b;
  },
};

var say = formSay;

body.addEventListener("submit", function (ev) {
  var form = ev.target.closest("form.act");
  if (!form) return;
  ev.preventDefault();
  if (!token) { signIn(); say(form, T.token_needed, true); return; }
  var kind = form.getAttribute("data-form");
  var payload = BODIES[kind](form);
  if (payload === null) return;
  var button = form.querySelector("button[type=submit]");
  if (button) button.disabled = true;
  organiserCall(form.getAttribute("data-method") || "POST", form.getAttribute("data-url"), JSON.stringify(payload), "application/json")
    .then(function (res) {
      if (button) button.disabled = false;
      if (res.status >= 300) { say(form, explainAnswer(res.status, res.answer), true); return; }
      say(form, kind === "lineup" ? T.match_made : T.saved, false);
      dirty = false;
      refresh();
    })
    .catch(function () {
      if (button) button.disabled = false;
      say(form, T.offline, true);
    });
});

// A starter is in the squad: ticking one ticks the other.
body.addEventListener("change", function (ev) {
  var box = ev.target;
  if (!box.name || !/\.start$/.test(box.name) || !box.checked) return;
  var squad = box.closest("tr").querySelector('input[name$=".squad"]');
  if (squad) squad.checked = true;
});

signIn();
