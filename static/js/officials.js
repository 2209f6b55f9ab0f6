/* The organiser's officials page: the consoles connected now per role (with their unsent calls, and a
 * warning when two share a role) — after a restart too, when the codes cannot be shown but the consoles
 * have rejoined (D168) —, the score sheet's state, and reopening a locked match (SPEC M6).
 * Polls the API every 5 s with the organiser's cookie (the page holds only its CSRF token: D54).
 * A new code for a role whose console is connected is issued only once the organiser confirms it. */
import { T, V, data } from "./lib/page.js";
import { $, esc, setHtml, setText, show } from "./lib/dom.js";
import { fmt, sheetText } from "./lib/words.js";
import { drawSheet } from "./lib/header.js";
import { authHeaders } from "./lib/forms.js";
import "./lib/offline.js";
var match = data.match;
var EVERY_MS = 5000;

function api(method, path, body) {
  return fetch("/api/matches/" + encodeURIComponent(match) + path, {
    method: method,
    headers: authHeaders({ "Content-Type": "application/json" }),
    body: body ? JSON.stringify(body) : undefined,
    cache: "no-store",
  });
}

function time(iso) {
  var d = new Date(iso);
  return isNaN(d) ? "" : [d.getHours(), d.getMinutes(), d.getSeconds()].map(function (x) { return ("0" + x).slice(-2); }).join(":");
}

var lastDevices = [];
function drawDevices(list) {
  lastDevices = list;
  var byRole = {};
  list.forEach(function (d) { (byRole[d.role] = byRole[d.role] || []).push(d); });
  var shared = [];
  document.querySelectorAll("[data-devices]").forEach(function (ul) {
    var role = ul.getAttribute("data-devices");
    var ds = byRole[role] || [];
    if (ds.length > 1) shared.push(fmt(T.devices_shared, { role: V.role[role], n: ds.length }));
    setHtml(ul, ds.length ? ds.map(function (d) {
      return '<li class="' + (d.queued ? "waiting" : "") + '">' + esc(d.device || "?") + " · " +
        esc(d.queued ? fmt(T.device_queued, { n: d.queued }) : T.device_nothing_queued) + " · " + esc(fmt(T.device_seen, { time: time(d.last_seen) })) + "</li>";
    }).join("") : '<li class="muted">' + esc(T.device_none) + "</li>");
  });
  setText("shared-warning", shared.join(" "));
  show("shared-warning", shared.length > 0);
}

function drawState(s) {
  drawSheet(s);
  // The box once there is a sheet (issue 19.7): a result (provisional or final) or a signature, as pages.officials.
  $("sheet-box").hidden = !(sheetText(s) || (s.signatures || []).length);
  $("reopen-form").hidden = !s.locked;
  setText("signatures", (s.signatures || []).map(function (x) { return x.name + " (" + (V.signer[x.as] || x.as) + ")"; }).join(", "));
}

function poll() {
  if (document.hidden) return;
  api("GET", "/devices").then(function (r) { return r.ok ? r.json() : null; }).then(function (l) { if (l) drawDevices(l); }).catch(function () {});
  fetch("/api/matches/" + encodeURIComponent(match), { cache: "no-store" })
    .then(function (r) { return r.ok ? r.json() : null; }).then(function (s) { if (s) drawState(s); }).catch(function () {});
}

/* D168: a new code stops the console that uses the old one at once. The consoles are asked for again at
 * the press (not the last poll's): when one of the form's roles is connected, the organiser confirms. */
function confirmOnline(roles, list) {
  var lines = roles.filter(function (role) { return list.some(function (d) { return d.role === role; }); }).map(function (role) {
    var names = list.filter(function (d) { return d.role === role; }).map(function (d) { return d.device || "?"; });
    return fmt(T.new_code_online, { role: V.role[role] || role, devices: names.join(", ") });
  });
  return !lines.length || window.confirm(lines.join("\n\n"));
}
document.querySelectorAll("form[data-new-code]").forEach(function (form) {
  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    var roles = Array.prototype.map.call(form.querySelectorAll('input[name="role"]'), function (i) { return i.value; });
    api("GET", "/devices")
      .then(function (r) { return r.ok ? r.json() : lastDevices; }, function () { return lastDevices; })
      .then(function (list) {
        drawDevices(list);
        if (confirmOnline(roles, list)) form.submit(); // form.submit() does not fire this handler again
      });
  });
});

$("reopen-form").addEventListener("submit", function (ev) {
  ev.preventDefault();
  var reason = $("reopen-reason").value.trim();
  if (!reason) { $("reopen-reason").focus(); return; }
  $("reopen").disabled = true;
  api("POST", "/events", { type: "reopen", reason: reason })
    .then(function (r) { return r.json().then(function (d) { return { status: r.status, data: d }; }); })
    .then(function (res) {
      if (res.status === 201) {
        $("reopen-reason").value = "";
        setText("reopen-msg", T.reopened);
        drawState(res.data.state);
      } else {
        setText("reopen-msg", (res.data && res.data.message) || T.refused);
      }
    })
    .catch(function () { setText("reopen-msg", T.offline); })
    .then(function () { $("reopen").disabled = false; });
});

if (data.state) drawState(data.state);
poll();
setInterval(poll, EVERY_MS);
