/* The venue's league fixtures (issue 31 item 4, L4): each "make the match" form posts the starters ticked
 * to POST /api/league/fixtures/<fid>/match with the organiser's cookie and its CSRF token (D53, D54); the
 * server checks them against the rosters and suspensions last fetched from the central (C1, C4). */
import { T, data } from "./lib/page.js";
import { formSay, organiserCall } from "./lib/forms.js";

if (data.organiser) {
  document.querySelectorAll("form.league-match").forEach((form) => {
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const lineup = {};
      ["home", "away"].forEach((side) => {
        const ticked = Array.from(form.querySelectorAll('input[name="' + side + '"]:checked'));
        lineup[side] = { starting: ticked.map((i) => Number(i.value)) };
      });
      const url = "/api/league/fixtures/" + encodeURIComponent(form.dataset.fixture) + "/match";
      organiserCall("POST", url, JSON.stringify(lineup), "application/json").then((r) => {
        if (r.status === 201) {
          const said = document.createElement("p");
          said.textContent = T.made + " ";
          const a = document.createElement("a");
          a.href = "/matches/" + encodeURIComponent(r.answer.id) + "/officials";
          a.textContent = T.officials;
          said.appendChild(a);
          form.replaceWith(said);
          return;
        }
        const fields = r.answer && r.answer.fields ? " " + JSON.stringify(r.answer.fields) : "";
        formSay(form, T.failed + " " + ((r.answer && r.answer.message) || r.status) + fields, true);
      });
    });
  });
}
