/* The notices: the engine's decisions and refusals, and what to call next. Below every module that
 * tells one (the builder, the log, the console's buttons); it imports none of them. */
import { $, setText, show } from "../lib/dom.js";
import { fmt, ruleTitle } from "../lib/words.js";
import { CALLS, T, allowed } from "./page.js";
import { reasonText } from "./legal.js";

export function notice(n) {
  const box = $("notice");
  box.className = "notice " + (n.kind || "refusal");
  setText("notice-rule", n.rule || "");
  setText("notice-title", n.title || "");
  setText("notice-msg", n.msg || "");
  setText("notice-hint", n.hint || "");
  show("notice-hint", !!n.hint);
  const act = $("notice-action");
  noticeAction = n.action || null;
  setText(act, noticeAction ? noticeAction.label : "");
  act.hidden = !noticeAction;
  show(box, true);
  // The notices' box has a fixed height (issue 13): under a banner, scroll it to the new notice.
  const area = $("notices");
  if (area) area.scrollTop = box.offsetTop; // .notices is positioned: offsetTop is within it
}
let noticeAction = null; // {label, run}: what the notice offers (a goal just logged: disallow it)
$("notice-action").addEventListener("click", () => {
  const a = noticeAction;
  hideNotice();
  if (a) a.run();
});
export function hideNotice() { show("notice", false); }
$("notice-close").addEventListener("click", hideNotice);

/* Issue 13, D169: after a refusal because the ball is dead or in play, what to log first: the engine's
 * `next_call` (on `legal`'s reasons and on a 409). Named only to a role that may log it (the catalogue's
 * `who`: page data `allowed`); any other role is told to ask the referee. A refusal without one gets none. */
const HINTS = {
  restart_taken: ["hint_take_restart", "hint_ask_take_restart"],
  ball_out_end: ["hint_end_line", "hint_ask_end_line"],
  stoppage: ["hint_stop_first", "hint_ask_stop_first"], // any call that stops play: a violation or a foul
};
function mayLog(call) {
  if (call !== "stoppage") return allowed.has(call);
  return Object.keys(CALLS).some((c) => allowed.has(c) && (CALLS[c].type === "violation" || CALLS[c].type === "foul"));
}
export function hintFor(nextCall) {
  const h = HINTS[nextCall];
  return h ? T[h[mayLog(nextCall) ? 0 : 1]] : "";
}

/* A greyed call pressed: the engine's own reason, with its rule, in the page's language. */
export function refusedHere(what, reason) {
  if (!reason) return;
  notice({
    kind: "refusal", rule: fmt(T.not_now_rule, { rule: reason.rule }), title: ruleTitle(reason.rule),
    msg: what + " — " + reasonText(reason), hint: hintFor(reason.next_call),
  });
}
