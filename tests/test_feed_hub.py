"""Issue 30 item 1, D363: under gevent a feed stream that has caught up is written by the feed's hub (one
journal reader, each message encoded once); a reader that stops reading is handed back and catches up from
the journal by itself; every reader gets every message once, in order (qalisball/feed/hub.py).

The server runs in a subprocess as app.py serves it (gevent, pywsgi with serving.handler_class), with gevent
clients on raw sockets in the same process; the script reports what each reader received and what the hub
did.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = r"""
from gevent import monkey

monkey.patch_all()
import json, re, socket, sys, time

import gevent
import requests
from gevent import pywsgi

from qalisball import create_app
from qalisball.feed import hub as feed_hub
from qalisball.server.demo import ensure_demo
from qalisball.server.serving import handler_class

db, n, posts = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
app = create_app({"DATABASE": db, "ASYNC_MODE": "gevent", "ADMIN_TOKEN": "t" * 32, "TESTING": True,
                  "GC_FREEZE": False, "JOURNAL_READERS": "background", "FEED_KEEPALIVE_S": 0.2,
                  "FEEDS_PER_ADDRESS": 0})
match = ensure_demo(app.extensions["qalisball"])
hub = app.extensions["qalisball_feed_hub"]
handed = {"rest": 0, "gone": 0}
leave = feed_hub.Hub.leave


def counting_leave(self, stream):
    if stream in self.streams:
        handed["rest"] += bool(stream.rest)
        handed["gone"] += stream.gone
    leave(self, stream)


feed_hub.Hub.leave = counting_leave
server = pywsgi.WSGIServer(("127.0.0.1", 0), app, handler_class=handler_class(30, 0), log=None)
server.start()
port = server.server_port
base = f"http://127.0.0.1:{port}"
token = match.tokens["referee"]
H = {"Authorization": f"Bearer {token}"}


def wait(what, cond, limit=120):
    end = time.monotonic() + limit
    while not cond():
        if time.monotonic() > end:
            raise SystemExit(f"waited too long for {what}: {len(hub.streams)} live, {handed}")
        gevent.sleep(0.02)


def open_feed(query="", headers="", rcvbuf=None):
    s = socket.socket()
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.connect(("127.0.0.1", port))
    s.sendall(f"GET /api/feed{query} HTTP/1.1\r\nHost: x\r\n{headers}\r\n".encode())
    return s


got = {}
stop = {"now": False}


def reader(name, s):
    data = bytearray()
    s.settimeout(0.2)
    while not stop["now"]:
        try:
            part = s.recv(65536)
        except socket.timeout:
            continue
        if not part:
            break
        data += part
        got[name] = bytes(data)


def post(body):
    r = requests.post(f"{base}/api/matches/{match.id}/events", json=body, headers=H, timeout=30)
    assert r.status_code == 201, r.text
    return r.json()["seq"]


post({"type": "coin_toss", "kickoff": "home", "home_end": "x0"})
post({"type": "period_start"})
fast = [open_feed() for _ in range(n)]
slow = open_feed(rcvbuf=4096)  # never read until the end: its buffers fill, the hub hands it back
for i, s in enumerate(fast):
    gevent.spawn(reader, f"fast{i}", s)
wait("every stream live", lambda: len(hub.streams) == n + 1)
first = None
middle = None
for i in range(posts):
    seq = post({"type": "clock", "action": "pause" if i % 2 == 0 else "resume"})
    first = first or seq
    if i == posts // 2:
        middle = seq
last = seq
wait("the fast readers", lambda: all(got.get(f"fast{i}", b"").count(b'"seq":%d,"event"' % last) for i in range(n)))
slow_handed = handed["rest"]
# A reader resuming from the middle: what it missed from the journal, then live.
cursor = int(re.search(rb'id: (\d+)\n[^\n]*\n[^\n]*"seq":%d,"event"' % middle, got["fast0"]).group(1))
resumed = open_feed(headers=f"Last-Event-ID: {cursor}\r\n")
gevent.spawn(reader, "resumed", resumed)
wait("the resumed reader caught up", lambda: got.get("resumed", b"").count(b'"seq":%d,"event"' % last) == 1)
wait("the resumed reader live", lambda: len(hub.streams) >= n + 1)
after = post({"type": "clock", "action": "resume" if posts % 2 else "pause"})
gevent.spawn(reader, "slow", slow)  # it reads at last: what the hub handed back, then the journal, then live
wait("every reader", lambda: all(got.get(k, b"").count(b'"seq":%d,"event"' % after) == 1 for k in [*got, "slow"]))
wait("keep-alives from the hub", lambda: all(v.count(b": keep-alive") >= 2 for v in got.values()))
for s in fast[: n // 2]:
    s.close()
gone_before = handed["gone"]
wait("the closed streams dropped", lambda: len(hub.streams) <= n + 2 - n // 2)
stop["now"] = True
print(json.dumps({"first": first, "middle": middle, "last": last, "after": after, "slow_handed": slow_handed,
                  "gone": handed["gone"] - gone_before, "live_left": len(hub.streams),
                  "got": {k: v.decode() for k, v in got.items()}}))
"""

SEQ = re.compile(r'"seq":(\d+),"event"')


def _seqs(stream: str) -> list[int]:
    return [int(m.group(1)) for m in SEQ.finditer(stream)]


def test_issue30_D363_the_hub_writes_every_live_stream_and_a_reader_that_stops_reading_catches_up_by_itself(
    tmp_path: Path,
) -> None:
    n, posts = 6, 260
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "hub.db"), str(n), str(posts)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    first, middle, after = out["first"], out["middle"], out["after"]
    # The slow reader's socket filled up while it did not read: the hub handed it back (never waited for it).
    assert out["slow_handed"] >= 1, out["slow_handed"]
    everything = list(range(first, after + 1))
    for name, stream in out["got"].items():
        seqs = _seqs(stream)
        if name == "resumed":  # Last-Event-ID: every message after the cursor, once, in order
            assert seqs == list(range(middle + 1, after + 1)), (name, seqs[:5], seqs[-5:])
        else:
            assert seqs == everything, (name, len(seqs), len(everything))
        assert stream.count(": keep-alive") >= 2, name  # one timer for every live stream
    # The closed connections were noticed by the hub's writes (a failed send ends the stream).
    assert out["gone"] >= n // 2
