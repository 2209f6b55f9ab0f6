/* The matches page: creates matches through the API with the organiser's cookie and its CSRF token.
 *
 * The form is checked here first (lines that are not "number name", repeated shirt numbers, the number
 * of starters, the catalogue's ranges), so the organiser sees those mistakes at once, in the page's
 * language, next to the field they concern; what a rule book refuses beyond its ranges (2.1's shape) is
 * the server's to say (issue 28 item 6). The server checks again: each message of its 400 `fields` map is shown the
 * same way, next to its field, as the server words it in the page's language (`?lang=`).
 */
import { T, data } from "./lib/page.js";
import { $, show } from "./lib/dom.js";
import { fmt } from "./lib/words.js";
import { authHeaders } from "./lib/forms.js";
// The organiser token is in an HttpOnly cookie (a ?token= link was exchanged for it: D53); the server
// says whether this device holds it, and hands the page its CSRF token (D54).
if (data.organiser) organiserForms();

function organiserForms() {

  var TEAMS = ["home", "away"];
  var OFFICIALS = ["referee", "assistant1", "assistant2", "scorer"];
  var LANG = document.documentElement.lang.split("-")[0] || "en"; // "zh-CN" → "zh"
  var form = $("create");
  function val(name) { var n = form.elements[name]; return n ? n.value.trim() : ""; }
  function tokens(text) { return text.split(/[\s,，、]+/).filter(Boolean); }
  function numbers(text) {
    return tokens(text).map(Number).filter(function (n) { return Number.isInteger(n); });
  }
  function list(ns) { return ns.map(function (n) { return "#" + n; }).join(T.sep); }
  function repeated(ns) {
    return ns.filter(function (n, i) { return ns.indexOf(n) !== i && ns.indexOf(n, i + 1) < 0; });
  }

  /* "7 李华", "#7 李华", "7. Alex Chen": one player a line; anything else is reported, never dropped. */
  function parsePlayers(t, errors) {
    var players = [];
    val(t + ".players").split(/\n/).forEach(function (line, i) {
      var text = line.trim();
      if (!text) return;
      var m = text.match(/^#?(\d+)[\s.:：、-]+(.+)$/);
      if (m) players.push({ number: Number(m[1]), name: m[2].trim() });
      else errors.push([t + ".players", fmt(T.err_line, { n: i + 1, line: text })]);
    });
    return players;
  }

  function team(t, starters, errors) {
    var players = parsePlayers(t, errors);
    var shirts = players.map(function (p) { return p.number; });
    var startText = val(t + ".starting");
    var starting = numbers(startText);
    var name = val(t + ".name");
    if (!name) errors.push([t + ".name", T.err_required]);
    if (!players.length && !errors.some(function (e) { return e[0] === t + ".players"; })) errors.push([t + ".players", T.err_no_players]);
    var dup = repeated(shirts);
    if (dup.length) errors.push([t + ".players", fmt(T.err_dup_numbers, { numbers: list(dup) })]);
    var junk = tokens(startText).filter(function (x) { return !Number.isInteger(Number(x)); });
    if (junk.length) errors.push([t + ".starting", fmt(T.err_not_numbers, { items: junk.join(T.sep) })]);
    if (startText) {
      var unknown = starting.filter(function (n) { return shirts.indexOf(n) < 0; });
      if (unknown.length && players.length) errors.push([t + ".starting", fmt(T.err_not_on_roster, { numbers: list(unknown) })]);
      if (repeated(starting).length) errors.push([t + ".starting", T.err_starter_twice]);
      if (starting.length !== starters && starters) errors.push([t + ".starting", fmt(T.err_starters_count, { n: starters, got: starting.length })]);
    } else {
      if (players.length && players.length < starters) errors.push([t + ".players", fmt(T.err_too_few_players, { n: starters, got: players.length })]);
      starting = players.slice(0, starters).map(function (p) { return p.number; });
    }
    return { name: name, color: val(t + ".color"), players: players, starting: starting };
  }

  /* Every number field within its min and max (the same limits as the server's schema). */
  function checkNumbers(errors) {
    form.querySelectorAll('input[type="number"]:not(:disabled)').forEach(function (input) {
      var raw = input.value.trim();
      var v = Number(raw);
      var min = input.getAttribute("min"), max = input.getAttribute("max");
      if (raw === "" || !isFinite(v)) errors.push([input.name, T.err_number]);
      else if (min !== null && max !== null && (v < Number(min) || v > Number(max))) errors.push([input.name, fmt(T.err_range, { min: min, max: max })]);
      else if (min !== null && v < Number(min)) errors.push([input.name, fmt(T.err_min, { min: min })]);
    });
  }

  /* ---- the rule book (SPEC §11.2): its limits are the server's (the catalogue's "rule_books"), never a
   * test of its name here; its words are the page's, one list per book, shown for the chosen one. -------- */
  var BOOKS = data.rule_books || {};
  var MULTI_ATTACK = ["rules.multi_attack.mode", "rules.multi_attack.k", "rules.multi_attack.teams.home",
    "rules.multi_attack.teams.away", "rules.multi_attack.players.home", "rules.multi_attack.players.away"];
  function bound(input, range) {
    input.setAttribute("min", range[0]);
    if (range[1] === null || range[1] === undefined) input.removeAttribute("max");
    else input.setAttribute("max", range[1]);
  }
  function allow(name, allowed) {
    var input = form.elements[name];
    input.disabled = !allowed;
    var label = input.closest("label");
    if (label) label.classList.toggle("not-in-book", !allowed);
  }
  var shown = null; // the book whose defaults the form holds
  function applyBook() {
    var chosen = val("rules.rule_set");
    var book = BOOKS[chosen];
    if (!book) return;
    var lim = book.limits;
    // The book's defaults (halves, half-time, shootout rounds), where the organiser kept the last book's.
    Object.keys(book.defaults || {}).forEach(function (name) {
      var input = form.elements["rules." + name];
      if (input && (!shown || Number(input.value) === shown.defaults[name])) input.value = book.defaults[name];
    });
    shown = book;
    form.querySelectorAll("[data-rule-set]").forEach(function (n) { n.hidden = n.getAttribute("data-rule-set") !== chosen; });
    bound(form.elements["field.length"], lim.field.length);
    bound(form.elements["field.width"], lim.field.width);
    bound(form.elements["starters"], lim.starters);
    var side = form.elements["field.side_lines"];
    if (lim.field.side_lines_required) side.checked = true;
    allow("field.side_lines", !lim.field.side_lines_required);
    if (!lim.multi_attack) {
      form.elements["rules.multi_attack.mode"].value = "off";
      form.elements["rules.multi_attack.teams.home"].checked = form.elements["rules.multi_attack.teams.away"].checked = false;
    }
    MULTI_ATTACK.forEach(function (name) { allow(name, lim.multi_attack); });
    allow("rules.shootout_rounds", lim.shootout);
  }
  if (form.elements["rules.rule_set"]) {
    form.elements["rules.rule_set"].addEventListener("change", function () { clearErrors(); applyBook(); });
    applyBook();
  }

  function build(errors) {
    checkNumbers(errors);
    var starters = Number(val("starters"));
    var home = team("home", starters, errors), away = team("away", starters, errors);
    var mode = val("rules.multi_attack.mode");
    var field = { length: Number(val("field.length")), width: Number(val("field.width")), side_lines: form.elements["field.side_lines"].checked };
    // The field's shape (2.1: longer than wide with side lines) is the rule book's: the server's 400 names it.
    var maTeams = TEAMS.filter(function (t) { return form.elements["rules.multi_attack.teams." + t].checked; });
    var maPlayers = {};
    TEAMS.forEach(function (t) {
      var name = "rules.multi_attack.players." + t;
      maPlayers[t] = numbers(val(name));
      var junk = tokens(val(name)).filter(function (x) { return !Number.isInteger(Number(x)); });
      if (junk.length) errors.push([name, fmt(T.err_not_numbers, { items: junk.join(T.sep) })]);
      var roster = (t === "home" ? home : away).players.map(function (p) { return p.number; });
      var unknown = maPlayers[t].filter(function (n) { return roster.indexOf(n) < 0; });
      if (unknown.length && roster.length) errors.push([name, fmt(T.err_not_on_roster, { numbers: list(unknown) })]);
    });
    if (mode === "teams" && !maTeams.length) errors.push(["rules.multi_attack.teams", T.err_ma_teams]);
    if (mode === "players" && !maPlayers.home.length && !maPlayers.away.length) errors.push(["rules.multi_attack.players", T.err_ma_players]);
    var body = {
      home: home,
      away: away,
      starters: starters,
      field: field,
      rules: {
        rule_set: val("rules.rule_set") || undefined,
        half_minutes: Number(val("rules.half_minutes")),
        halftime_minutes: Number(val("rules.halftime_minutes")),
        shootout_rounds: Number(val("rules.shootout_rounds")),
        multi_attack: { mode: mode, k: Number(val("rules.multi_attack.k")), teams: maTeams, players: maPlayers },
      },
      venue: val("venue"),
    };
    var officials = {};
    OFFICIALS.forEach(function (r) { if (val("officials." + r)) officials[r] = val("officials." + r); });
    if (Object.keys(officials).length) body.officials = officials;
    var at = val("starts_at");
    if (at) {
      var d = new Date(at);
      var off = -d.getTimezoneOffset();
      var sign = off >= 0 ? "+" : "-";
      off = Math.abs(off);
      body.starts_at = at + ":00" + sign + ("0" + Math.floor(off / 60)).slice(-2) + ":" + ("0" + (off % 60)).slice(-2);
    }
    return body;
  }

  /* ---- errors next to their fields ---------------------------------------------------------- */

  /* {"home": {"players": ["..."]}, "home.starting": ["..."]} → [["home.players", "..."], ...] */
  function flatten(fields, prefix, out) {
    Object.keys(fields || {}).forEach(function (k) {
      var v = fields[k];
      var path = prefix ? prefix + "." + k : k;
      if (Array.isArray(v)) v.forEach(function (msg) { out.push([path, msg]); });
      else if (v && typeof v === "object") flatten(v, path, out);
      else if (typeof v === "string") out.push([path, v]);
    });
    return out;
  }

  /* The input a field path concerns: the path itself, its first team ("….teams" → "….teams.home"), or
   * the nearest enclosing path that names an input ("home.players.3.name" → "home.players"). */
  function inputFor(path) {
    var parts = path.split(".");
    while (parts.length) {
      var name = parts.join(".");
      var el = form.elements[name] || form.elements[name + ".home"];
      if (el && el.tagName) return el;
      parts.pop();
    }
    return null;
  }
  function labelOf(input) {
    var label = input.closest("label");
    var words = "";
    if (label) {
      var copy = label.cloneNode(true);
      copy.querySelectorAll("input, select, textarea, small").forEach(function (n) { n.remove(); });
      words = copy.textContent.trim();
    }
    var set = input.closest("fieldset");
    var legend = set && set.querySelector("legend");
    var group = legend && set.classList.contains("team-form") ? legend.textContent.trim() + " · " : "";
    return group + words;
  }

  function clearErrors() {
    form.querySelectorAll(".field-error").forEach(function (n) {
      if (n.hasAttribute("data-field")) n.textContent = "";
      else n.remove();
    });
    form.querySelectorAll(".invalid").forEach(function (n) {
      n.classList.remove("invalid");
      n.removeAttribute("aria-invalid");
      n.removeAttribute("aria-describedby");
    });
  }

  function showErrors(errors) {
    var err = $("create-error");
    var summary = [];
    var first = null;
    errors.forEach(function (e) {
      var path = e[0], msg = e[1];
      var input = inputFor(path);
      if (!input) {
        var group = TEAMS.indexOf(path.split(".")[0]) >= 0 ? path.split(".")[0] : path.indexOf("officials") === 0 ? "officials" : "rules";
        var box = form.querySelector('.field-error[data-field="' + group + '"]');
        box.textContent += (box.textContent ? "\n" : "") + msg;
        summary.push(msg);
        return;
      }
      var id = "err-" + input.name.replace(/\W/g, "-");
      var note = $(id);
      if (!note) {
        note = document.createElement("small");
        note.className = "field-error";
        note.id = id;
        note.setAttribute("data-for", input.name);
        (input.closest("label") || input).insertAdjacentElement("afterend", note);
      }
      note.textContent += (note.textContent ? "\n" : "") + msg;
      input.classList.add("invalid");
      input.setAttribute("aria-invalid", "true");
      input.setAttribute("aria-describedby", id);
      summary.push(labelOf(input) + T.colon + msg);
      first = first || input;
    });
    err.textContent = [fmt(T.form_errors_n, { n: errors.length })].concat(summary).join("\n");
    show(err, true);
    err.scrollIntoView({ block: "nearest" });
    if (first) first.focus({ preventScroll: true });
  }

  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    var err = $("create-error");
    show(err, false);
    clearErrors();
    var errors = [];
    var body = build(errors);
    if (errors.length) { showErrors(errors); return; }
    // The server words its 400 `fields` in the language asked for (qalisball/match/validation_words.py).
    fetch("/api/matches?lang=" + encodeURIComponent(LANG), {
      method: "POST",
      headers: authHeaders({ "Content-Type": "application/json" }),
      body: JSON.stringify(body),
    })
      .then(function (r) { return r.json().then(function (data) { return { status: r.status, data: data }; }); })
      .then(function (res) {
        if (res.status === 201) {
          location.href = "/matches/" + encodeURIComponent(res.data.id) + "/officials";
          return;
        }
        if (res.status === 401) {
          err.textContent = T.organiser_token_rejected;
          show(err, true);
          return;
        }
        var found = flatten(res.data.fields, "", []);
        if (!found.length) found = [["_schema", res.data.message || T.invalid]];
        showErrors(found);
      })
      .catch(function (e) {
        err.textContent = T.offline + T.colon + e;
        show(err, true);
      });
  });
}
