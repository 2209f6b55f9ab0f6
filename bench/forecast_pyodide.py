"""Offline forecast: the real rule engine in the browser through Pyodide, measured on a tablet profile.

    .venv/bin/python bench/forecast_pyodide.py [--events 200] [--seed 7] [--passes 5] [--cpu 4]
                                               [--down-mbit 10] [--up-mbit 5] [--latency-ms 40]

Run by hand; prints numbers and asserts nothing about speed (issue 10, item 2). What it does:

1. Fetches Pyodide from the npm registry with ``npm pack pyodide@<version>`` into ``bench/.cache/``
   (git-ignored; tens of MB, never committed) and unpacks it once. Without npm and without a cached copy it
   stops with a clear message.
2. Lays out a small site in a temporary directory: Pyodide's core files, ``rules.zip`` (this tree's
   ``qalisball/rules/`` — pure Python, stdlib only — with an empty ``qalisball/__init__.py``, because the
   real one imports Flask, plus a small bridge module), ``match.json`` (a seeded, legal ~200-event match
   from ``engine_bench.generate_match``), the bench page and a service worker. A local HTTP/1.1 server
   serves it the way a vendored deployment would: immutable cache headers on the vendored files,
   ``no-cache`` on the page, optionally gzip, and COOP/COEP so the page is cross-origin isolated and
   ``performance.now()`` resolves to 5 µs instead of 100 µs.
3. Drives Debian's Chromium (Playwright, the tests' launch arguments) with a tablet profile: viewport
   1280×800, CPU throttled ×4 (CDP ``Emulation.setCPUThrottlingRate``) and the network throttled to a
   venue Wi-Fi (CDP ``Network.emulateNetworkConditions``: 10 Mbit/s down, 5 up, 40 ms latency), and
   measures, each "tablet" a fresh Chromium profile (its own empty on-disk cache, as a real tablet has):
   - **cold**: bytes on the wire and time from navigation to "engine ready" (Pyodide loaded, the rules
     package unpacked and imported), then replaying the match's log (what the console must do on every
     start to have a state to forecast from), as the app's static files are served today (no compression)
     and again with gzip; and how long the page's main thread was blocked (a 20 ms heartbeat's longest gap:
     an official's tap would wait that long);
   - **warm, HTTP cache**: the same context opens the page again (three times);
   - **warm, service worker, offline**: a service worker caches every file after the engine is ready,
     the server is then shut down, and the page is opened again (three times);
   - **per forecast call**: ``engine.apply`` of the match's next event on the state before it, plus
     ``qalisball.rules.view.public_state`` and the JSON both ways (what the console would call per tap),
     median / p90 / p99 over ``--passes`` × the match's events, and the same pieces timed inside Python;
     every forecast of the first pass is compared with CPython's result for the same state and event;
   - **bare JS** for comparison: a score-only forecast, and a "cut back" forecast (clone the public state,
     update score / cards / clock, mark the restart "to be ruled"), per call in µs.
4. Runs the same forecast calls in this CPython (no throttling) as a reference.

Nothing here is part of ``make test`` or requirements.txt; it needs npm, Playwright (already a test
dependency) and /usr/bin/chromium.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(BENCH))

from engine_bench import generate_match  # noqa: E402

from qalisball.match.schemas import MatchSchema  # noqa: E402
from qalisball.rules import engine  # noqa: E402
from qalisball.rules.events import from_fields  # noqa: E402
from qalisball.rules.setup import build_setup  # noqa: E402
from qalisball.rules.state import initial_state  # noqa: E402
from qalisball.rules.view import public_state  # noqa: E402
from tests.browser.conftest import CHROMIUM  # noqa: E402
from tests.browser.conftest import CHROMIUM_ARGS as BROWSER_TEST_ARGS  # noqa: E402

PYODIDE_VERSION = "314.0.7"  # pinned so runs compare; --pyodide-version overrides
CACHE = BENCH / ".cache"
# The browser tests' Chromium and launch arguments, plus precise heap numbers.
CHROMIUM_ARGS = [*BROWSER_TEST_ARGS, "--enable-precise-memory-info"]
TABLET = {"width": 1280, "height": 800}
# Pyodide's core: what loadPyodide() fetches (checked against the server's log on every cold run).
CORE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
SW_CACHE = "forecast-bench-v1"

# ------------------------------------------------------------------------------------------------
# What runs inside Pyodide: a thin bridge over the real rule core (the same calls the server makes).

BRIDGE = '''\
"""Bench bridge: the console's offline forecast, written against the real rule core."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from qalisball.rules import engine
from qalisball.rules.events import from_fields
from qalisball.rules.setup import build_setup
from qalisball.rules.state import initial_state
from qalisball.rules.view import public_state


@dataclass(frozen=True)
class Row:
    """One row of the event log as GET /events gives it (engine.Logged)."""

    seq: int
    type: str
    fields: dict[str, Any]
    received_ms: int
    voided_by: int | None = None


class Bridge:
    def load(self, match_json):
        """Rebuild the match from its log, as the console would on start (setup + engine.replay)."""
        m = json.loads(match_json)
        self.setup = build_setup(m["setup"])
        rows = [Row(seq, t, f, now) for seq, t, f, now in m["log"]]
        self.state = engine.replay(self.setup, rows)
        self.entries = [(r.seq, from_fields(r.type, r.fields), r.received_ms) for r in rows]
        return len(rows)

    def prepare(self):
        """The state before every event, so that each forecast call starts from a different state."""
        s = initial_state(self.setup)
        self.before = []
        for _, ev, now in self.entries:
            self.before.append(s)
            s = engine.apply(s, ev, now)
        return len(self.before)

    def forecast(self, i, body_json, now):
        """One forecast: the event as the console holds it (JSON), applied by the engine, rendered."""
        body = json.loads(body_json)
        ev = from_fields(body.pop("type"), body)
        s = engine.apply(self.before[i], ev, now)
        return json.dumps(public_state(s, now, "m", i + 1), ensure_ascii=False)

    def pieces(self, passes):
        """Mean µs per event of engine.apply alone and of public_state + json.dumps alone."""
        after = [engine.apply(b, ev, now) for b, (_, ev, now) in zip(self.before, self.entries)]
        t0 = time.perf_counter()
        for _ in range(passes):
            for b, (_, ev, now) in zip(self.before, self.entries):
                engine.apply(b, ev, now)
        t1 = time.perf_counter()
        for _ in range(passes):
            for i, (s, (_, _, now)) in enumerate(zip(after, self.entries)):
                json.dumps(public_state(s, now, "m", i + 1), ensure_ascii=False)
        t2 = time.perf_counter()
        n = passes * len(self.entries)
        return json.dumps({"apply_us": (t1 - t0) / n * 1e6, "render_us": (t2 - t1) / n * 1e6})


bridge = Bridge()
'''

PAGE = """<!doctype html>
<html lang="en"><meta charset="utf-8"><title>Offline forecast bench</title>
<body><p id="status">loading…</p>
<script>
// A heartbeat from the very start: the longest gap between 20 ms timer ticks is how long the main thread
// (an official's tap) was blocked. (The Long Tasks API was tried first: on a page controlled by a service
// worker it reported ~120 ms where this heartbeat saw a 5 s freeze.)
window.__gap = 0;
(() => {
  let last = performance.now();
  window.__beat = setInterval(() => {
    const now = performance.now();
    window.__gap = Math.max(window.__gap, now - last);
    last = now;
  }, 20);
})();
</script>
<script type="module">
const B = (window.__bench = { t: {}, done: false, error: null });
const mark = (k) => (B.t[k] = performance.now());
const q = new URLSearchParams(location.search);
const passes = Number(q.get("passes") || 0);
const status = (s) => (document.getElementById("status").textContent = s);
try {
  mark("script");
  const { loadPyodide } = await import("/pyodide/pyodide.mjs");
  mark("pyodide_js");
  const py = await loadPyodide({ indexURL: "/pyodide/" });
  mark("pyodide_ready");
  const [zip, matchText] = await Promise.all([
    fetch("/rules.zip").then((r) => r.arrayBuffer()),
    fetch("/match.json").then((r) => r.text()),
  ]);
  mark("rules_fetched");
  py.unpackArchive(zip, "zip", { extractDir: "/qb" });
  py.runPython("import sys; sys.path.insert(0, '/qb'); import forecast_bridge");
  mark("engine_ready");
  const bridge = py.runPython("forecast_bridge.bridge");
  B.events = bridge.load(matchText);
  mark("replayed");
  B.python = py.runPython("import sys; sys.version.split()[0]");
  B.pyodide = py.version;
  B.ua = navigator.userAgent;
  B.isolated = self.crossOriginIsolated;
  B.wasm_mb = py._module && py._module.HEAPU8 ? py._module.HEAPU8.length / 1048576 : null;
  B.js_heap_mb = performance.memory ? performance.memory.usedJSHeapSize / 1048576 : null;
  B.max_gap = window.__gap;
  clearInterval(window.__beat);

  if (passes > 0) {
    status("forecasting…");
    bridge.prepare();
    const log = JSON.parse(matchText).log;
    const bodies = log.map(([seq, type, fields, now]) => [JSON.stringify({ type, ...fields }), now]);
    // One untimed pass first (the first call of each handler compiles; a console would pay it once).
    const outputs = bodies.map(([body, now], i) => JSON.parse(bridge.forecast(i, body, now)));
    const times = [];
    for (let p = 0; p < passes; p++) {
      for (let i = 0; i < bodies.length; i++) {
        const t0 = performance.now();
        const out = JSON.parse(bridge.forecast(i, bodies[i][0], bodies[i][1]));
        times.push(performance.now() - t0);
        if (out.seq !== i + 1) throw new Error("wrong forecast");
      }
    }
    B.call_ms = times;
    B.outputs = outputs;
    B.pieces = JSON.parse(bridge.pieces(passes));

    // Bare JS for comparison. The public state before event i is the forecast after event i - 1.
    const before = [null, ...outputs.slice(0, -1)];
    before[0] = outputs[0];
    const events = log.map(([seq, type, fields, now]) => ({ type, ...fields, now }));
    const scoreOnly = (score, ev) => {
      if (ev.type !== "goal") return score;
      const s = { ...score };
      s[ev.team] += 1;
      return s;
    };
    const cutBack = (pub, ev) => {
      // What cannot disagree with the server: score, cards, clock; the restart is left "to be ruled".
      const s = structuredClone(pub);
      s.restart = null;
      s.to_be_ruled = true;
      if (ev.type === "goal") { s.score[ev.team] += 1; s.ball = "dead"; }
      const card = ev.type === "card" ? ev.color : ev.type === "foul" ? ev.card : null;
      if (card === "yellow") s.teams[ev.team].yellow.push(ev.player);
      if (card === "red") s.teams[ev.team].sent_off.push(ev.player);
      if (ev.type === "clock") {
        if (ev.action === "pause") s.clock.running = false;
        if (ev.action === "resume") s.clock.running = true;
        if (ev.action === "set") s.clock.elapsed_ms = ev.elapsed_ms;
      }
      return s;
    };
    const perCall = (fn) => {
      let sink = 0, n = 0;
      const t0 = performance.now();
      while (performance.now() - t0 < 300) {
        for (let i = 0; i < events.length; i++) sink += fn(i) ? 1 : 0;
        n += events.length;
      }
      B.sink = sink;
      return ((performance.now() - t0) / n) * 1000; // µs
    };
    let score = { home: 0, away: 0 };
    B.js_score_us = perCall((i) => (score = scoreOnly(score, events[i])));
    B.js_cutback_us = perCall((i) => cutBack(before[i], events[i]));
  }
  status("done");
} catch (e) {
  B.error = String(e && e.stack ? e.stack : e);
  status("error: " + B.error);
}
B.done = true;

if (q.get("sw") === "1" && "serviceWorker" in navigator) {
  // Registered only once the engine is ready, so its precache reads the HTTP cache, not the network.
  B.sw = "registering";
  navigator.serviceWorker.register("/sw.js").then(() => navigator.serviceWorker.ready).then(async () => {
    const cache = await caches.open("__SW_CACHE__");
    for (;;) {
      if ((await cache.keys()).length >= __SW_COUNT__) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    B.sw = "cached";
  }, (e) => (B.sw = "failed: " + e));
}
</script>
"""

SW = """// Cache-first service worker for the vendored engine: the console must start with no network at all.
const CACHE = "__SW_CACHE__";
const ASSETS = __SW_ASSETS__;
self.addEventListener("install", (e) =>
  e.waitUntil(caches.open(CACHE).then((c) => c.addAll(ASSETS)).then(() => self.skipWaiting())));
self.addEventListener("activate", (e) => e.waitUntil(self.clients.claim()));
self.addEventListener("fetch", (e) => {
  e.respondWith(caches.match(e.request, { ignoreSearch: true }).then((r) => r || fetch(e.request)));
});
"""

# ------------------------------------------------------------------------------------------------
# Pyodide from npm


def fetch_pyodide(version: str) -> Path:
    """The unpacked npm package of Pyodide ``version`` in bench/.cache (npm pack on the first run)."""
    dest = CACHE / f"pyodide-{version}"
    if (dest / "package" / "pyodide.asm.wasm").exists():
        return dest / "package"
    npm = shutil.which("npm")
    if npm is None:
        sys.exit(
            "forecast_pyodide.py: npm is not installed, and Pyodide is not cached in "
            f"{dest}.\nInstall Node.js/npm (Debian: apt-get install npm), then run this again."
        )
    dest.mkdir(parents=True, exist_ok=True)
    print(f"fetching pyodide@{version} with npm pack into {dest} …", flush=True)
    r = subprocess.run(
        [npm, "pack", f"pyodide@{version}", "--pack-destination", str(dest), "--loglevel=error"],
        capture_output=True,
        text=True,
        cwd=dest,
    )
    tgz = next(dest.glob("pyodide-*.tgz"), None)
    if r.returncode != 0 or tgz is None:
        shutil.rmtree(dest, ignore_errors=True)
        sys.exit(f"forecast_pyodide.py: `npm pack pyodide@{version}` failed (exit {r.returncode}):\n{r.stderr or r.stdout}")
    with tarfile.open(tgz) as t:
        t.extractall(dest, filter="data")
    return dest / "package"


# ------------------------------------------------------------------------------------------------
# The match and the site


def make_match(events: int, seed: int) -> dict[str, Any]:
    request, _, entries, _ = generate_match(events, seed)
    setup_data = json.loads(json.dumps(MatchSchema().load(request)))
    log = [[seq, ev.type, ev.fields(), now] for seq, ev, now in entries]
    return {"setup": setup_data, "log": log}


def rules_zip() -> bytes:
    """qalisball/rules/*.py (as in this tree), an empty qalisball/__init__.py, and the bridge."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("qalisball/__init__.py", "")
        for f in sorted((ROOT / "qalisball" / "rules").glob("*.py")):
            z.write(f, f"qalisball/rules/{f.name}")
        z.writestr("forecast_bridge.py", BRIDGE)
    return buf.getvalue()


def build_site(site: Path, pkg: Path, match: dict[str, Any]) -> dict[str, tuple[int, int]]:
    """Lay out the site; returns each file's size, raw and gzipped (the gzip server sends the latter)."""
    (site / "pyodide").mkdir(parents=True)
    for name in CORE_FILES:
        shutil.copyfile(pkg / name, site / "pyodide" / name)
    (site / "rules.zip").write_bytes(rules_zip())
    (site / "match.json").write_text(json.dumps(match, ensure_ascii=False), encoding="utf-8")
    assets = ["/bench.html", *(f"/pyodide/{n}" for n in CORE_FILES), "/rules.zip", "/match.json"]
    page = PAGE.replace("__SW_CACHE__", SW_CACHE).replace("__SW_COUNT__", str(len(assets)))
    (site / "bench.html").write_text(page, encoding="utf-8")
    (site / "sw.js").write_text(
        SW.replace("__SW_CACHE__", SW_CACHE).replace("__SW_ASSETS__", json.dumps(assets)), encoding="utf-8"
    )
    sizes = {}
    for f in sorted(site.rglob("*")):
        if f.is_file() and f.suffix != ".gz":
            data = f.read_bytes()
            packed = gzip.compress(data, 6)
            (f.parent / (f.name + ".gz")).write_bytes(packed)
            sizes["/" + f.relative_to(site).as_posix()] = (len(data), len(packed))
    return sizes


# ------------------------------------------------------------------------------------------------
# A local static server that counts what it sends

TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".wasm": "application/wasm",
    ".json": "application/json",
    ".zip": "application/zip",
}


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, site: Path, use_gzip: bool) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.site, self.use_gzip = site, use_gzip
        self.lock = threading.Lock()
        self.sent = 0
        self.requests: list[tuple[str, int, int]] = []  # (path, status, bytes)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def take(self) -> tuple[int, list[tuple[str, int, int]]]:
        """Bytes sent and requests served since the last call."""
        with self.lock:
            sent, reqs = self.sent, self.requests
            self.sent, self.requests = 0, []
        return sent, reqs


class _Counting(io.RawIOBase):
    def __init__(self, raw: Any, server: Server) -> None:
        self.raw, self.server = raw, server
        self.count = 0

    def writable(self) -> bool:
        return True

    def write(self, b: Any) -> int:
        n: int = self.raw.write(b)
        self.count += len(b)
        with self.server.lock:
            self.server.sent += len(b)
        return n

    def flush(self) -> None:
        self.raw.flush()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as every browser-facing server speaks
    server: Server

    def setup(self) -> None:
        super().setup()
        self.wfile = _Counting(self.wfile, self.server)  # type: ignore[assignment]

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        path = "/bench.html" if path == "/" else path
        f = (self.server.site / path.lstrip("/")).resolve()
        if self.server.site.resolve() not in f.parents or not f.is_file() or f.suffix == ".gz":
            self._send(404, b"not found", "text/plain", "no-store", path)
            return
        immutable = path.startswith("/pyodide/") or path == "/rules.zip"
        cache = "public, max-age=31536000, immutable" if immutable else "no-cache"
        etag = '"' + hashlib.sha1(f.read_bytes()).hexdigest()[:16] + '"'
        if self.headers.get("If-None-Match") == etag:
            self._send(304, b"", None, cache, path, etag=etag)
            return
        body, encoding = f.read_bytes(), None
        if self.server.use_gzip and "gzip" in self.headers.get("Accept-Encoding", ""):
            body, encoding = (f.parent / (f.name + ".gz")).read_bytes(), "gzip"
        self._send(200, body, TYPES.get(f.suffix, "application/octet-stream"), cache, path, etag=etag, encoding=encoding)

    def _send(
        self,
        code: int,
        body: bytes,
        ctype: str | None,
        cache: str,
        path: str,
        etag: str | None = None,
        encoding: str | None = None,
    ) -> None:
        start = self.wfile.count  # type: ignore[attr-defined]
        self.send_response(code)
        if ctype:
            self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", cache)
        if etag:
            self.send_header("ETag", etag)
        if encoding:
            self.send_header("Content-Encoding", encoding)
        self.send_header("Vary", "Accept-Encoding")
        # Cross-origin isolation: 5 µs performance.now() (100 µs otherwise); all files are same-origin.
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        self.end_headers()
        if body:
            self.wfile.write(body)
        self.wfile.flush()
        with self.server.lock:
            self.server.requests.append((path, code, self.wfile.count - start))  # type: ignore[attr-defined]


@contextmanager
def serving(site: Path, use_gzip: bool) -> Iterator[Server]:
    srv = Server(site, use_gzip)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        yield srv
    finally:
        srv.shutdown()
        srv.server_close()


# ------------------------------------------------------------------------------------------------
# The browser


class Tablet:
    """Fresh tablets: each context is a new Chromium profile with its own on-disk cache, as a real tablet has.

    (Playwright's ordinary contexts keep their HTTP cache in memory and, measured, do not keep the 9.6 MB
    wasm there: every "warm" load fetched it again. A persistent profile has the disk cache a tablet has.)
    Every page is throttled before it navigates.
    """

    def __init__(self, args: argparse.Namespace) -> None:
        try:
            from playwright.sync_api import sync_playwright
        except ImportError:
            sys.exit("forecast_pyodide.py: Playwright is missing (pip install -r requirements-dev.txt)")
        if not os.path.exists(CHROMIUM):
            sys.exit(f"forecast_pyodide.py: {CHROMIUM} is missing (apt-get install chromium)")
        self.args = args
        self.pw = sync_playwright().start()
        self.profiles = tempfile.TemporaryDirectory(prefix="forecast-bench-profiles-")
        self.count = 0

    def context(self) -> Any:
        self.count += 1
        return self.pw.chromium.launch_persistent_context(
            os.path.join(self.profiles.name, str(self.count)),
            executable_path=CHROMIUM,
            args=CHROMIUM_ARGS,
            viewport=TABLET,
            locale="en-GB",
            device_scale_factor=1,
        )

    def run(self, ctx: Any, url: str, cpu: float | None = None, timeout_s: float = 600) -> dict[str, Any]:
        a = self.args
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        cdp = ctx.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send(
            "Network.emulateNetworkConditions",
            {
                "offline": False,
                "latency": a.latency_ms,
                "downloadThroughput": a.down_mbit * 1e6 / 8,
                "uploadThroughput": a.up_mbit * 1e6 / 8,
            },
        )
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": a.cpu if cpu is None else cpu})
        t0 = time.perf_counter()
        page.goto(url, wait_until="commit", timeout=timeout_s * 1000)
        page.wait_for_function("window.__bench && window.__bench.done", timeout=timeout_s * 1000, polling=200)
        result: dict[str, Any] = page.evaluate("window.__bench")
        result["wall_s"] = time.perf_counter() - t0
        if result.get("error") or errors:
            raise RuntimeError(f"the bench page failed at {url}: {result.get('error')} {errors}")
        if "sw=1" in url:
            page.wait_for_function(
                "window.__bench.sw === 'cached' || String(window.__bench.sw).startsWith('failed')", timeout=120_000
            )
            result["sw"] = page.evaluate("window.__bench.sw")
        cdp.detach()
        page.close()
        return result

    def close(self) -> None:
        self.pw.stop()
        self.profiles.cleanup()


# ------------------------------------------------------------------------------------------------
# CPython reference and helpers


def cpython_forecast(match: dict[str, Any], passes: int) -> tuple[list[dict[str, Any]], list[float]]:
    """The same forecast calls in this interpreter: the expected outputs, and ms per call."""
    setup = build_setup(match["setup"])
    entries = [(seq, from_fields(t, dict(f)), now) for seq, t, f, now in match["log"]]
    before = []
    s = initial_state(setup)
    for _, ev, now in entries:
        before.append(s)
        s = engine.apply(s, ev, now)
    bodies = [(json.dumps({"type": t, **f}), now) for _, t, f, now in match["log"]]

    def call(i: int) -> str:
        body = json.loads(bodies[i][0])
        ev = from_fields(body.pop("type"), body)
        return json.dumps(public_state(engine.apply(before[i], ev, bodies[i][1]), bodies[i][1], "m", i + 1), ensure_ascii=False)

    expected = [json.loads(call(i)) for i in range(len(bodies))]
    times = []
    for _ in range(passes):
        for i in range(len(bodies)):
            t0 = time.perf_counter()
            json.loads(call(i))
            times.append((time.perf_counter() - t0) * 1e3)
    return expected, times


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1))))]


def load_average() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "load " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def mb(n: float) -> str:
    return f"{n / 1e6:.2f} MB"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--events", type=int, default=200)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--passes", type=int, default=5, help="timed passes of forecast calls over the match's events")
    ap.add_argument("--warm", type=int, default=3, help="warm starts per cache kind")
    ap.add_argument("--cpu", type=float, default=4, help="CPU throttling rate (CDP)")
    ap.add_argument("--down-mbit", type=float, default=10)
    ap.add_argument("--up-mbit", type=float, default=5)
    ap.add_argument("--latency-ms", type=float, default=40)
    ap.add_argument("--pyodide-version", default=PYODIDE_VERSION)
    args = ap.parse_args()

    print(f"start: {load_average()}")
    pkg = fetch_pyodide(args.pyodide_version)
    match = make_match(args.events, args.seed)
    expected, cpy_times = cpython_forecast(match, args.passes)
    n_events = len(match["log"])

    rows: list[tuple[str, str]] = []
    with tempfile.TemporaryDirectory(prefix="forecast-bench-") as tmp:
        site = Path(tmp)
        sizes = build_site(site, pkg, match)
        tablet = Tablet(args)
        try:
            results = run_scenarios(tablet, site, args)
        finally:
            tablet.close()

    cold, cold_gz = results["cold"], results["cold_gzip"]
    # The forecast must be the server's: the first pass's outputs against CPython's.
    same = sum(1 for a, b in zip(cold["outputs"], expected, strict=True) if a == b)

    print()
    print(
        f"Pyodide {cold['pyodide']} (Python {cold['python']}), {cold['ua'].split(') ')[-1]}; "
        f"match: {n_events} events (seed {args.seed}); tablet: {TABLET['width']}×{TABLET['height']}, "
        f"CPU ×{args.cpu:g}, network {args.down_mbit:g}/{args.up_mbit:g} Mbit/s, {args.latency_ms:g} ms; "
        f"cross-origin isolated: {cold['isolated']}"
    )
    print()
    print(f"{'file':<30} {'bytes':>12} {'gzip -6':>12}")
    for path, (size, gz) in sizes.items():
        if path not in ("/bench.html", "/sw.js"):
            print(f"{path:<30} {size:>12,} {gz:>12,}")
    total = sum(v[0] for k, v in sizes.items() if k not in ("/bench.html", "/sw.js"))
    total_gz = sum(v[1] for k, v in sizes.items() if k not in ("/bench.html", "/sw.js"))
    print(f"{'total':<30} {total:>12,} {total_gz:>12,}")
    print()

    # The loads: one row each.
    loads = [("cold, no compression", cold), ("cold, gzip", cold_gz)]
    loads += [(f"warm {i}, HTTP cache", r) for i, r in enumerate(results["warm_http"], 1)]
    loads += [("warm, HTTP cache, CPU ×1", results["cpu1"])]
    loads += [("service worker 1st visit (+precache)", results["sw_install"])]
    loads += [(f"warm {i}, service worker, server down", r) for i, r in enumerate(results["warm_sw"], 1)]
    head = ("load", "bytes", "req", "ready s", "mjs", "loadPyodide", "rules", "import", "replay", "UI frozen")
    fmt = "{:<38} {:>12} {:>4} {:>8} {:>6} {:>12} {:>6} {:>7} {:>7} {:>10}"
    print(
        f"Loads (ms unless noted; ready = from navigation to Pyodide loaded + rules imported; replay = the {n_events}-event"
        " log after that; UI frozen = the longest main-thread block)"
    )
    print(fmt.format(*head))
    for name, r in loads:
        t = r["t"]
        print(
            fmt.format(
                name,
                f"{r['bytes']:,}",
                r["requests"],
                f"{t['engine_ready'] / 1e3:.2f}",
                f"{t['pyodide_js']:.0f}",
                f"{t['pyodide_ready'] - t['pyodide_js']:.0f}",
                f"{t['rules_fetched'] - t['pyodide_ready']:.0f}",
                f"{t['engine_ready'] - t['rules_fetched']:.0f}",
                f"{t['replayed'] - t['engine_ready']:.0f}",
                f"{r['max_gap']:.0f}",
            )
        )
    print()
    print(f"memory after replay (cold page): wasm heap {cold['wasm_mb'] or 0:.0f} MiB, JS heap {cold['js_heap_mb'] or 0:.1f} MiB")
    print()

    for key, label in (("cold", f"CPU ×{args.cpu:g}"), ("cpu1", "CPU ×1")):
        r = results[key]
        calls = r["call_ms"]
        rows.append(
            (
                f"forecast call in Pyodide, {label} ({len(calls)} calls)",
                f"median {statistics.median(calls):.2f} ms, p90 {pct(calls, 90):.2f}, p99 {pct(calls, 99):.2f}, "
                f"max {max(calls):.2f} ms",
            )
        )
        rows.append(
            (
                f"  of which inside Python, {label}",
                f"engine.apply {r['pieces']['apply_us']:.0f} µs, public_state + json.dumps {r['pieces']['render_us']:.0f} µs"
                " (means)",
            )
        )
    rows.append(
        (
            f"forecast call in CPython {sys.version.split()[0]}, unthrottled",
            f"median {statistics.median(cpy_times):.3f} ms, p99 {pct(cpy_times, 99):.3f} ms",
        )
    )
    rows.append(
        (
            f"bare JS forecast, CPU ×{args.cpu:g}",
            f"score only {cold['js_score_us']:.3f} µs; cut back (clone the public state, score/cards/clock) "
            f"{cold['js_cutback_us']:.1f} µs",
        )
    )
    rows.append(("Pyodide forecast equals CPython's (first pass)", f"{same} / {n_events}"))

    width = max(len(r[0]) for r in rows)
    print(f"{'measurement':<{width}}  value")
    print("-" * (width + 60))
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    print()
    print(f"end: {load_average()}")
    if same != n_events:
        sys.exit("the Pyodide forecast disagreed with CPython: see above")


def run_scenarios(tablet: Tablet, site: Path, args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    passes = args.passes

    def measured(srv: Server, ctx: Any, query: str, cpu: float | None = None) -> dict[str, Any]:
        srv.take()
        r = tablet.run(ctx, f"{srv.base}/bench.html?{query}", cpu=cpu)
        r["bytes"], reqs = srv.take()
        r["requests"] = len(reqs)
        r["log"] = reqs
        return r

    # 1. Served as the app serves static files (no compression): cold, then warm from the HTTP cache.
    with serving(site, use_gzip=False) as srv:
        ctx = tablet.context()
        print("cold load (no compression) + forecast calls …", flush=True)
        out["cold"] = measured(srv, ctx, f"passes={passes}")
        served = {p for p, code, _ in out["cold"]["log"] if code == 200}
        missing = {f"/pyodide/{n}" for n in CORE_FILES} - served
        if missing:
            print(f"  note: Pyodide did not fetch {sorted(missing)}")
        extra = served - {f"/pyodide/{n}" for n in CORE_FILES} - {"/bench.html", "/rules.zip", "/match.json"}
        if extra:
            print(f"  note: Pyodide also fetched {sorted(extra)} (not in the service worker's list)")
        out["warm_http"] = []
        for i in range(args.warm):
            print(f"warm load {i + 1} (HTTP cache) …", flush=True)
            out["warm_http"].append(measured(srv, ctx, ""))
        print("forecast calls at CPU ×1 (warm) …", flush=True)
        out["cpu1"] = measured(srv, ctx, f"passes={passes}", cpu=1)
        ctx.close()

    # 2. The same with gzip (a compressing proxy in front, or a compressing static handler).
    with serving(site, use_gzip=True) as srv:
        ctx = tablet.context()
        print("cold load (gzip) …", flush=True)
        out["cold_gzip"] = measured(srv, ctx, "")
        ctx.close()

    # 3. Service worker: first visit caches everything; then the server goes away (the venue Wi-Fi is down).
    ctx = tablet.context()
    with serving(site, use_gzip=False) as srv:
        print("service worker: first visit …", flush=True)
        out["sw_install"] = measured(srv, ctx, "sw=1")
        if out["sw_install"].get("sw") != "cached":
            raise RuntimeError(f"the service worker did not cache the engine: {out['sw_install'].get('sw')}")
        url = srv.base
    out["warm_sw"] = []
    for i in range(args.warm):
        print(f"warm load {i + 1} (service worker, server down) …", flush=True)
        r = tablet.run(ctx, f"{url}/bench.html?sw=1")
        r["bytes"], r["requests"] = 0, 0  # the server is shut down: nothing can have come from the network
        out["warm_sw"].append(r)
    ctx.close()
    return out


if __name__ == "__main__":
    main()
