"""The live connection (static/js/lib/connection.js, ``connect``), run in Node with a fake Socket.IO: an update
whose state a join's answer already brought (the answer overtook it) still hands over its event, once; older
events are not handed over again. The scoreboard's goal pop-up depends on it (tests/browser/test_screens_live.py,
S5). Issue 21: the page scripts are ES modules without a global ``Q``; Node imports the module as the browser does."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

HARNESS = r"""
const handlers = {};
const socket = { connected: true, on: (n, f) => { handlers[n] = f; }, emit: () => {} };
globalThis.window = globalThis;
globalThis.io = () => socket;
globalThis.localStorage = { getItem: () => null, setItem: () => {}, removeItem: () => {}, key: () => null, length: 0 };
globalThis.setInterval = () => 0;
const pageData = { state: { seq: 5, server_time_ms: 0 }, strings: {}, vocab: {} };
globalThis.document = {
  getElementById: (id) => (id === "page-data" ? { textContent: JSON.stringify(pageData) } : null),
  querySelector: () => null, querySelectorAll: () => [], addEventListener: () => {},
  documentElement: { lang: "en" }, body: { dataset: {}, classList: { toggle() {}, add() {}, remove() {} } },
};
const { connect } = await import(process.argv[1]);
const seen = [], states = [];
connect("m1", { event: (e) => seen.push(e.seq), state: (s) => states.push(s.seq) });
const st = (seq) => ({ seq: seq, server_time_ms: 0 });
handlers.update({ seq: 5, event: { seq: 5 }, state: st(5) });  // before the page: already rendered
handlers.state(st(7));                                           // a join's answer: seq 7
handlers.update({ seq: 6, event: { seq: 6 }, state: st(6) });  // overtaken: its event still counts
handlers.update({ seq: 7, event: { seq: 7 }, state: st(7) });  // overtaken too
handlers.update({ seq: 7, event: { seq: 7 }, state: st(7) });  // sent twice: once only
handlers.update({ seq: 8, event: { seq: 8 }, state: st(8) });
console.log(JSON.stringify({ seen: seen, states: states }));
"""


def test_an_update_overtaken_by_a_joins_answer_still_hands_over_its_event_once() -> None:
    module = (ROOT / "static" / "js" / "lib" / "connection.js").as_uri()
    out = subprocess.run(["node", "--input-type=module", "-e", HARNESS, module], capture_output=True, text=True, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result == {"seen": [6, 7, 8], "states": [5, 7, 8]}, out.stderr


def test_issue_21_the_page_scripts_are_es_modules_without_a_global() -> None:
    """Issue 21 item 4: one module system in the browser. No script sets or reads ``window.Q`` (or any other
    global of ours), every page loads its script as a module, and common.js is gone (split into lib/)."""
    js = ROOT / "static" / "js"
    assert not (js / "common.js").exists()
    for path in js.rglob("*.js"):
        if path.name == "sw.js":  # a service worker is a worker script, not a page's module
            continue
        text = path.read_text()
        assert not re.search(r"\bwindow\.QC?\b|\bQC?\.\w", text), path
    classic = [
        f"{p.name}: {line.strip()}"
        for p in (ROOT / "templates").rglob("*.html")
        for line in p.read_text().splitlines()
        # api_docs.js starts the vendored Swagger UI, itself a classic script (static/vendor stays as it is).
        if "<script src=" in line and "filename='js/" in line and "js/api_docs.js" not in line
    ]
    assert not classic, classic
