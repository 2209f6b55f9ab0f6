/* The rosters as they are now (SPEC M2: late players, renames, renumbers), from the page's data and then
 * from each state's `players`; a renumbered player's first number still names him, for the events logged
 * before. This module owns them: setRoster is the only writer. */
import { data } from "./page.js";

let roster = data.roster || {};

export function setRoster(state) {
  if (!state || !state.teams) return;
  const next = {};
  ["home", "away"].forEach((t) => {
    const ts = state.teams[t];
    if (!ts || !ts.players) { next[t] = roster[t] || {}; return; }
    const r = Object.assign({}, ts.players);
    Object.keys(ts.renumbered || {}).forEach((n) => {
      const first = String(ts.renumbered[n]);
      if (!(first in r)) r[first] = ts.players[n];
    });
    next[t] = r;
  });
  roster = next;
}
setRoster(data.state);

export function playerName(team, n) {
  const r = roster[team] || {};
  return r[String(n)] || "";
}
/* "#7 Li" */
export function player(team, n) {
  if (n === null || n === undefined) return "";
  const name = playerName(team, n);
  return "#" + n + (name ? " " + name : "");
}
