/* The states of `update` messages (docs/api-extras.md "One message per change"): pure, so Node runs it
 * against the server's patches too (tests/test_live_updates.py). */
export function clone(x) {
  return typeof structuredClone === "function" ? structuredClone(x) : JSON.parse(JSON.stringify(x));
}
/* The state `base` with `patch` ([[path, value], ...]: each value replaces what is at its path), as a new object. */
export function patched(base, patch) {
  let s = clone(base);
  for (const [path, value] of patch) {
    if (!path.length) { s = value; continue; }
    let node = s;
    for (let k = 0; k < path.length - 1; k++) node = node[path[k]];
    node[path[path.length - 1]] = value;
  }
  return s;
}
