/* The page's elements: find, fill (only when the text or HTML changed), show, escape, and fit text into
 * the boxes of a screen's grid. */
export function $(id) { return document.getElementById(id); }

function node(id) { return typeof id === "string" ? $(id) : id; }

export function setText(id, text) {
  const n = node(id);
  if (n && n.textContent !== String(text)) n.textContent = text;
}
export function setHtml(id, html) {
  const n = node(id);
  if (n && n.innerHTML !== html) n.innerHTML = html;
}
export function show(id, on) {
  const n = node(id);
  if (n) n.hidden = !on;
}
const ENTITIES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export function esc(s) {
  return String(s === null || s === undefined ? "" : s).replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

/* ---- fitting text into the boxes of a screen's grid ------------------------------------------ */
function fits(el) { return el.scrollWidth <= el.clientWidth && el.scrollHeight <= el.clientHeight; }
/* Shrink el's font (from its stylesheet size down to minPx) until its content fits its box: the grid
 * fixes the box, so a long name gets smaller instead of pushing or covering its neighbours. */
export function fit(el, minPx) {
  if (!el || !el.getClientRects().length) return;
  el.style.fontSize = "";
  el.style.removeProperty("--fit"); // the server's first guess (pages.fit_vw)
  if (fits(el)) return;
  let lo = minPx || 6;
  let hi = parseFloat(getComputedStyle(el).fontSize);
  for (let i = 0; i < 14 && hi - lo > 0.25; i++) {
    const mid = (lo + hi) / 2;
    el.style.fontSize = mid + "px";
    if (fits(el)) lo = mid; else hi = mid;
  }
  el.style.fontSize = lo + "px";
}
