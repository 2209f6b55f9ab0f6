/* Leaving the console (issue 27, items 1 and 7).
 *
 * - The browser's Back (Android's back gesture) while a call or a correction is open closes it, as Cancel
 *   and Esc do: the console is again exactly what the state's `legal` says. The first call opened (a tap)
 *   adds one entry to the history for this; Back on it with nothing open goes on back.
 * - Leaving the page (Back again, a reload, a link, closing the tab) while a call is half-built or calls
 *   wait unsent asks first (`beforeunload`); switching the language with only calls waiting does not (the
 *   queue stays on the tablet and the console reopens at once).
 */
import { live, onRedraw } from "./state.js";
import * as queue from "./queue.js";
import { cancel } from "./builder.js";
import * as fix from "./fix.js";

let guarded = false; // the entry Back pops to close an open call is in the history, on top

export function halfBuilt() { return !!(live.call || live.fix); }
export function waiting() { return queue.load().length > 0; }

function arm() {
  if (guarded) return;
  history.pushState(Object.assign({}, history.state, { qalisballConsole: true }), "");
  guarded = true;
}

/* Close whatever is open: the correction (and its call), or the call being built. */
export function closeAll() {
  if (live.fix) fix.end();
  else if (live.call) cancel();
}

onRedraw(() => { if (halfBuilt()) arm(); });

window.addEventListener("popstate", () => {
  if (!guarded) return;
  guarded = false;
  if (halfBuilt()) { closeAll(); return; }
  history.back(); // nothing open: Back means leaving (asked below when calls wait)
});

let switching = false;
document.querySelectorAll("nav.lang a").forEach((a) => a.addEventListener("click", () => { switching = true; }));
window.addEventListener("beforeunload", (ev) => {
  const ask = halfBuilt() || (waiting() && !switching);
  switching = false;
  if (!ask) return;
  ev.preventDefault();
  ev.returnValue = ""; // the browser words the question itself
});
