"""common.js's live connection (Q.connect), run in Node with a fake Socket.IO: an update whose state a join's
answer already brought (the answer overtook it) still hands over its event, once; older events are not
handed over again. The scoreboard's goal pop-up depends on it (tests/browser/test_screens_live.py, S5)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

HARNESS = r"""
const fs = require("fs");
const handlers = {};
const socket = { connected: true, on: (n, f) => { handlers[n] = f; }, emit: () => {} };
global.window = global;
global.io = () => socket;
global.performance = { timeOrigin: 0, now: () => 0 };
global.localStorage = { getItem: () => null, setItem: () => {}, removeItem: () => {}, key: () => null, length: 0 };
global.setInterval = () => 0;
global.setTimeout = () => 0;
global.navigator = {};
const pageData = { state: { seq: 5, server_time_ms: 0 }, strings: {}, vocab: {} };
global.document = {
  getElementById: (id) => (id === "page-data" ? { textContent: JSON.stringify(pageData) } : null),
  querySelector: () => null, querySelectorAll: () => [], addEventListener: () => {},
  documentElement: { lang: "en" }, body: { classList: { toggle() {}, add() {}, remove() {} } },
};
eval(fs.readFileSync(process.argv[1], "utf8"));
const seen = [], states = [];
Q.markStale = () => {}; Q.sample = () => {}; Q.setRoster = () => {};
Q.connect("m1", { event: (e) => seen.push(e.seq), state: (s) => states.push(s.seq) });
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
    out = subprocess.run(
        ["node", "-e", HARNESS, str(ROOT / "static" / "js" / "common.js")], capture_output=True, text=True, check=True
    )
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result == {"seen": [6, 7, 8], "states": [5, 7, 8]}, out.stderr
