/* The competitions page: the organiser keeps teams (one by one or from CSV) and officials, and creates
 * competitions, through the API with the organiser's cookie (the sign-in form's ?token= is exchanged for
 * it by the server, D53) and the cookie's CSRF token from the page (D54).
 */
import { T, data } from "./lib/page.js";
import { setText, show } from "./lib/dom.js";
import { explainAnswer, fmt } from "./lib/words.js";
import { formSay, organiserCall } from "./lib/forms.js";
var organiser = !!data.organiser;

function signIn() {
  document.querySelectorAll(".organiser-only").forEach(function (n) { n.hidden = !organiser; });
  show("login", !organiser);
}

function value(form, name) {
  var n = form.elements[name];
  return n ? String(n.value).trim() : "";
}
function num(form, name) {
  var v = value(form, name);
  return v === "" ? null : Number(v);
}
var say = formSay;
/* "2026-12-05T09:00" typed on this device, with this device's UTC offset: the venue's local time. */
function withOffset(local) {
  if (!local) return null;
  var off = -new Date(local).getTimezoneOffset();
  var sign = off >= 0 ? "+" : "-";
  var a = Math.abs(off);
  return local + (local.length === 16 ? ":00" : "") + sign + ("0" + Math.floor(a / 60)).slice(-2) + ":" + ("0" + (a % 60)).slice(-2);
}

var BODIES = {
  team: function (form) {
    var players = [];
    var bad = [];
    value(form, "players").split(/\n/).forEach(function (line, i) {
      var text = line.trim();
      if (!text) return;
      // "7 李华", "#7 李华", "7. Alex Chen", and "7 李华 | f" with a gender.
      var m = text.match(/^#?(\d+)[\s.:：、-]+(.+?)(?:\s*[|｜]\s*(\S+))?$/);
      if (m) players.push({ number: Number(m[1]), name: m[2].trim(), gender: m[3] || null });
      else bad.push(fmt(T.err_line, { n: i + 1, line: text }));
    });
    if (bad.length) { say(form, bad.join("\n"), true); return null; }
    return { name: value(form, "name"), club: value(form, "club") || null, color: value(form, "color") || null, players: players };
  },
  official: function (form) {
    return { name: value(form, "name"), club: value(form, "club") || null };
  },
  competition: function (form) {
    var teams = Array.prototype.filter.call(form.querySelectorAll('input[name="teams"]'), function (i) { return i.checked; })
      .map(function (i) { return i.value; });
    var fields = value(form, "fields").split(/\n/).map(function (s) { return s.trim(); }).filter(Boolean)
      .map(function (name) { return { name: name }; });
    var yellow = num(form, "discipline.yellow_accumulation");
    return {
      name: value(form, "name"),
      format: value(form, "format"),
      teams: teams,
      groups: num(form, "groups"),
      advance: num(form, "advance"),
      third_place: !!(form.elements.third_place && form.elements.third_place.checked), // D76: knockouts only
      fields: fields,
      starts_at: withOffset(value(form, "starts_at")),
      slot_minutes: num(form, "slot_minutes"),
      // SPEC §11.2: the rule book every fixture's match is played under.
      match: { starters: num(form, "starters"), rules: { rule_set: value(form, "rules.rule_set") || undefined } },
      points: {
        win: num(form, "points.win"),
        shootout_win: num(form, "points.shootout_win"),
        shootout_loss: num(form, "points.shootout_loss"),
        draw: num(form, "points.draw"), // a level 1.0 match (V1-D2)
        loss: num(form, "points.loss"),
      },
      discipline: { red_suspension_matches: num(form, "discipline.red_suspension_matches"), yellow_accumulation: yellow },
      forfeit: {
        after_minutes: num(form, "forfeit.after_minutes"),
        score: num(form, "forfeit.score"),
        voids_all_results: form.elements["forfeit.voids_all_results"].checked,
      },
    };
  },
};

function send(form, kind, body, contentType) {
  return organiserCall(form.getAttribute("data-method") || "POST", form.getAttribute("data-url"), body, contentType)
    .then(function (res) {
      if (res.status >= 300) { say(form, explainAnswer(res.status, res.answer), true); return; }
      say(form, T.saved, false);
      if (kind === "competition") location.href = location.pathname.replace(/\/$/, "") + "/" + res.answer.id + "/admin";
      else location.reload();
    })
    .catch(function () { say(form, T.offline, true); });
}

document.addEventListener("submit", function (ev) {
  var form = ev.target.closest("form.act");
  if (!form) return;
  ev.preventDefault();
  var kind = form.getAttribute("data-form");
  if (kind === "import") {
    var file = form.elements.file.files[0];
    if (!file) return;
    file.arrayBuffer().then(function (buf) { send(form, kind, buf, "text/csv"); });
    return;
  }
  var body = BODIES[kind](form);
  if (body) send(form, kind, JSON.stringify(body), "application/json");
});

/* The points that count under the chosen rule book: a label names the books it is for (the server's list:
   those with a shootout count its wins and losses, the others their draws, V1-D2). */
function showRuleSet(form) {
  var chosen = value(form, "rules.rule_set");
  form.querySelectorAll("[data-rule-set]").forEach(function (n) {
    n.hidden = n.getAttribute("data-rule-set").split(" ").indexOf(chosen) < 0;
  });
}
document.addEventListener("change", function (ev) {
  if (ev.target.name === "rules.rule_set") showRuleSet(ev.target.form);
});

/* A part of the page fetched from the server (D159): a team's roster form when its card opens, the
   new-competition form's team checkboxes once the organiser is signed in. */
function load(lazy) {
  if (!lazy || lazy.getAttribute("data-loading")) return;
  lazy.setAttribute("data-loading", "1");
  fetch(lazy.getAttribute("data-lazy"), { credentials: "same-origin" })
    .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
    .then(function (html) {
      var holder = document.createElement("div");
      holder.innerHTML = html; // our own server's rendering of the same templates
      lazy.replaceWith.apply(lazy, Array.prototype.slice.call(holder.children));
    })
    .catch(function () {
      lazy.removeAttribute("data-loading");
      setText(lazy, T.team_load_failed);
    });
}
document.addEventListener("toggle", function (ev) {
  var d = ev.target;
  if (d.open && d.classList && d.classList.contains("team-card")) load(d.querySelector(".lazy[data-lazy]"));
}, true); // "toggle" does not bubble: listen while it goes down

signIn();
document.querySelectorAll('form[data-form="competition"]').forEach(showRuleSet); // a browser may restore the choice
if (organiser) document.querySelectorAll(".lazy[data-lazy]").forEach(function (n) { if (!n.closest("details")) load(n); });
