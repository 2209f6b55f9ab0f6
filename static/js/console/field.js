/* The field diagram's live marks (an SVG overlay drawn by the server's field_svg): below the builder and
 * the console's drawing, which both redraw it. */
import { timeUp } from "../lib/clock.js";
import { D, TEAMS, V, teamName } from "./page.js";
import { live } from "./state.js";

const svg = document.querySelector("#field-wrap svg");
const overlay = svg ? svg.querySelector(".overlay") : null;
const SVGNS = "http://www.w3.org/2000/svg";
if (svg) svg.querySelectorAll(".end-tint").forEach((n) => n.remove()); // the ends are drawn live below

function svgEl(name, attrs, text) {
  const n = document.createElementNS(SVGNS, name);
  Object.keys(attrs).forEach((k) => n.setAttribute(k, attrs[k]));
  if (text !== undefined) n.textContent = text;
  return n;
}

/* Issue 27.10: a label centred on `x` but moved along so that all of it is inside the drawing (a corner's
 * words at the field's corner were cut at its edge), as wide as the browser measures it in this language. */
function inside(text, x) {
  const vb = svg.viewBox && svg.viewBox.baseVal;
  if (!vb || !vb.width) return;
  const half = text.getComputedTextLength() / 2 + 0.3; // the outline's half width, and a little air
  const lo = vb.x + half, hi = vb.x + vb.width - half;
  text.setAttribute("x", lo > hi ? vb.x + vb.width / 2 : Math.min(Math.max(x, lo), hi));
}

/* The field's marks: the ends, the pending restart's spot and words, the spot of the call being built;
 * `awaiting`: the call being built waits for a tap on the field. */
export function drawField(s, awaiting) {
  if (!overlay) return;
  while (overlay.firstChild) overlay.removeChild(overlay.firstChild);
  const L = s.field.length, W = s.field.width;
  if (s.ends) {
    TEAMS.forEach((t) => {
      overlay.appendChild(svgEl("rect", { x: s.ends[t] === "x0" ? -0.9 : L + 0.1, y: 0, width: 0.8, height: W, fill: D.colors[t] }));
    });
  }
  const r = timeUp(s) ? null : s.restart;
  if (r) {
    overlay.appendChild(svgEl("circle", { cx: r.spot.x, cy: r.spot.y, r: 1.4, fill: "none", stroke: "#fff", "stroke-width": 0.25, class: "pulse" }));
    overlay.appendChild(svgEl("circle", { cx: r.spot.x, cy: r.spot.y, r: 0.8, fill: D.colors[r.team], stroke: "#fff", "stroke-width": 0.2, class: "restart-spot" }));
    const ty = r.spot.y > W - 3 ? r.spot.y - 1.6 : r.spot.y + 2.4;
    const label = svgEl("text", { x: r.spot.x, y: ty, "text-anchor": "middle", "font-size": 1.5, fill: "#fff", stroke: "#000", "stroke-width": 0.25, "paint-order": "stroke", class: "restart-label" }, V.restart[r.type] + " · " + teamName(r.team));
    overlay.appendChild(label);
    inside(label, r.spot.x);
  }
  const call = live.call;
  if (call && call.spot) {
    overlay.appendChild(svgEl("circle", { cx: call.spot.x, cy: call.spot.y, r: 0.6, fill: "#ffeb3b", stroke: "#000", "stroke-width": 0.1 }));
  } else if (call && call.cursor && awaiting) {
    // D182: the keyboard's mark (builder.js: arrows move it, Enter sets the spot), with where it is in metres.
    const c = call.cursor;
    const mark = { stroke: "#ffeb3b", "stroke-width": 0.25, "paint-order": "stroke" };
    overlay.appendChild(svgEl("circle", Object.assign({ cx: c.x, cy: c.y, r: 0.9, fill: "none", class: "kb-cursor" }, mark)));
    overlay.appendChild(svgEl("path", Object.assign({ d: `M${c.x - 1.6} ${c.y}h3.2M${c.x} ${c.y - 1.6}v3.2` }, mark)));
    const at = svgEl("text", { x: c.x, y: c.y > W - 3 ? c.y - 1.6 : c.y + 2.4, "text-anchor": "middle", "font-size": 1.3, fill: "#fff", stroke: "#000", "stroke-width": 0.25, "paint-order": "stroke", class: "kb-cursor-at" }, `${c.x} m, ${c.y} m`);
    overlay.appendChild(at);
    inside(at, c.x);
  }
  svg.classList.toggle("awaiting", !!awaiting);
  // D182: while a call waits for its spot the field is a stop of Tab too (its prompt says what to mark).
  svg.setAttribute("tabindex", awaiting ? "0" : "-1");
  svg.setAttribute("aria-describedby", "prompt");
}
