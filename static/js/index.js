/* The matches page: keeps the organiser token on this device and creates matches through the API. */
(function () {
  "use strict";
  var KEY = "qalisball.organiser";
  var params = new URLSearchParams(location.search);
  var fromUrl = params.get("token");
  if (fromUrl && Q.data.organiser) localStorage.setItem(KEY, fromUrl);
  if (fromUrl && !Q.data.organiser) localStorage.removeItem(KEY);
  if (fromUrl) {
    params.delete("token"); // keep the secret out of the address bar and of screenshots
    history.replaceState(null, "", location.pathname + (params.toString() ? "?" + params : ""));
  }
  var token = localStorage.getItem(KEY);
  if (!token) return;

  document.querySelectorAll(".organiser-only").forEach(function (n) { n.hidden = false; });
  Q.show("login", false);
  document.querySelectorAll("[data-officials]").forEach(function (a) {
    a.href = a.getAttribute("data-officials") + "?token=" + encodeURIComponent(token);
  });
  Q.$("forget-token").addEventListener("click", function (ev) {
    ev.preventDefault();
    localStorage.removeItem(KEY);
    location.href = location.pathname;
  });

  var form = Q.$("create");
  function val(name) { var n = form.elements[name]; return n ? n.value.trim() : ""; }
  function numbers(text) {
    return text.split(/[\s,，、]+/).filter(Boolean).map(Number).filter(function (n) { return Number.isInteger(n); });
  }
  function team(t, starters) {
    var players = [];
    val(t + ".players").split(/\n/).forEach(function (line) {
      var m = line.trim().match(/^#?(\d+)[\s.:：、-]+(.+)$/);
      if (m) players.push({ number: Number(m[1]), name: m[2].trim() });
    });
    var starting = numbers(val(t + ".starting"));
    if (!starting.length) starting = players.slice(0, starters).map(function (p) { return p.number; });
    return { name: val(t + ".name"), color: val(t + ".color"), players: players, starting: starting };
  }
  function flatten(fields, prefix, out) {
    Object.keys(fields || {}).forEach(function (k) {
      var v = fields[k];
      var path = prefix ? prefix + "." + k : k;
      if (Array.isArray(v)) out.push(path + ": " + v.join(" "));
      else if (v && typeof v === "object") flatten(v, path, out);
    });
    return out;
  }
  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    var starters = Number(val("starters"));
    var mode = val("rules.multi_attack.mode");
    var body = {
      home: team("home", starters),
      away: team("away", starters),
      starters: starters,
      field: { length: Number(val("field.length")), width: Number(val("field.width")), side_lines: form.elements["field.side_lines"].checked },
      rules: {
        half_minutes: Number(val("rules.half_minutes")),
        halftime_minutes: Number(val("rules.halftime_minutes")),
        shootout_rounds: Number(val("rules.shootout_rounds")),
        multi_attack: {
          mode: mode,
          k: Number(val("rules.multi_attack.k")),
          teams: ["home", "away"].filter(function (t) { return form.elements["rules.multi_attack.teams." + t].checked; }),
          players: { home: numbers(val("rules.multi_attack.players.home")), away: numbers(val("rules.multi_attack.players.away")) },
        },
      },
      venue: val("venue"),
    };
    var at = val("starts_at");
    if (at) {
      var d = new Date(at);
      var off = -d.getTimezoneOffset();
      var sign = off >= 0 ? "+" : "-";
      off = Math.abs(off);
      body.starts_at = at + ":00" + sign + ("0" + Math.floor(off / 60)).slice(-2) + ":" + ("0" + (off % 60)).slice(-2);
    }
    var err = Q.$("create-error");
    Q.show(err, false);
    fetch("/api/matches", {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: "Bearer " + token },
      body: JSON.stringify(body),
    })
      .then(function (r) { return r.json().then(function (data) { return { status: r.status, data: data }; }); })
      .then(function (res) {
        if (res.status === 201) {
          location.href = "/matches/" + encodeURIComponent(res.data.id) + "/officials?token=" + encodeURIComponent(token);
          return;
        }
        var lines = res.status === 401 ? [Q.T.organiser_token_rejected] : [Q.T.form_errors].concat(flatten(res.data.fields, "", []));
        err.textContent = lines.join("\n");
        Q.show(err, true);
      })
      .catch(function (e) {
        err.textContent = Q.T.offline + ": " + e;
        Q.show(err, true);
      });
  });
})();
