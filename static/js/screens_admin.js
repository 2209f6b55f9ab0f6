/* The organiser's venue screens page: switch what each screen shows, upload slides and team logos.
 *
 * Every form writes through the API with the organiser's HttpOnly cookie (the server exchanged the
 * link's or the sign-in form's ?token= for it, D53) and its CSRF token from the page (D54). A screen switches as soon as its
 * PUT is answered (the screen follows over Socket.IO); uploads reload the page to show the new image.
 */
import { T, data } from "./lib/page.js";
import { show as qShow } from "./lib/dom.js";
import { explainAnswer, fmt } from "./lib/words.js";
import { formSay, organiserCall } from "./lib/forms.js";
var token = !!data.organiser; // whether this device holds the organiser's cookie

function signIn() { qShow("login", !token); }

var say = formSay, explain = explainAnswer;
function call(method, url, body, json) { return organiserCall(method, url, body, json ? "application/json" : null); }

/* Only the fields the chosen "show" uses. */
function fieldsFor(form) {
  var show = form.elements.show.value;
  form.querySelectorAll("[data-for]").forEach(function (l) {
    l.hidden = l.getAttribute("data-for").split(" ").indexOf(show) < 0;
  });
}
document.querySelectorAll("form.screen-form").forEach(function (form) {
  fieldsFor(form);
  form.elements.show.addEventListener("change", function () { fieldsFor(form); });
});

document.addEventListener("submit", function (ev) {
  var form = ev.target.closest("form.act");
  if (!form) return;
  ev.preventDefault();
  if (!token) { say(form, T.token_needed, true); signIn(); return; }
  var kind = form.getAttribute("data-form");
  if (kind === "screen") {
    var name = form.getAttribute("data-name") || form.elements.name.value.trim();
    var show = form.elements.show.value;
    var body = { show: show };
    if (show === "scoreboard" || show === "lineups") body.match = form.elements.match.value;
    if (show === "competition") body.competition = form.elements.competition.value;
    if (show === "slide") { body.image = form.elements.image.value; body.caption = form.elements.caption.value; }
    call("PUT", "/api/screens/" + encodeURIComponent(name), JSON.stringify(body), true)
      .then(function (res) {
        if (res.status >= 300) { say(form, explain(res.status, res.answer), true); return; }
        say(form, T.saved, false);
        if (!form.getAttribute("data-name")) location.reload();
      })
      .catch(function () { say(form, T.failed, true); });
    return;
  }
  var url = kind === "logo" ? "/api/logos" : "/api/images?kind=slide";
  call("POST", url, new FormData(form), false)
    .then(function (res) {
      if (res.status >= 300) { say(form, explain(res.status, res.answer), true); return; }
      say(form, T.uploaded, false);
      location.reload();
    })
    .catch(function () { say(form, T.failed, true); });
});

document.addEventListener("click", function (ev) {
  var b = ev.target.closest("button.remove-logo");
  if (!b || !token) return;
  var team = b.getAttribute("data-team");
  if (!confirm(fmt(T.confirm_delete, { what: team }))) return;
  call("DELETE", "/api/logos?team=" + encodeURIComponent(team), null, false).then(function (res) {
    if (res.status < 300) location.reload();
  });
});

signIn();
