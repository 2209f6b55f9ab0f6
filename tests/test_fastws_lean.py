"""Issue 29 item 4: a WebSocket spectator under gevent costs one greenlet (its reader) and no queue of
Engine.IO's; its pings come from one timer per server; what it receives does not change (qalisball/live/fastws.py).

The server runs in a subprocess (gevent's monkey-patching is for the whole process), as app.py serves it
(pywsgi with serving.handler_class), with gevent clients in the same process: the script counts the
running greenlets before and after the spectators join, and reports what each client received.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = r"""
from gevent import monkey

monkey.patch_all()
import gc, json, sys, time, traceback

import gevent
import requests
import websocket
from gevent import pywsgi

from qalisball import create_app
from qalisball.server.demo import ensure_demo
from qalisball.server.serving import handler_class

db, n = sys.argv[1], int(sys.argv[2])
app = create_app({"DATABASE": db, "ASYNC_MODE": "gevent", "ADMIN_TOKEN": "t" * 32, "PING_INTERVAL": 0.3,
                  "PING_TIMEOUT": 5, "TESTING": True, "GC_FREEZE": False})
match = ensure_demo(app.extensions["qalisball"])
server = pywsgi.WSGIServer(("127.0.0.1", 0), app, handler_class=handler_class(30, 0), log=None)
server.start()
url = f"ws://127.0.0.1:{server.server_port}/socket.io/?EIO=4&transport=websocket"


def running():
    # The greenlets that exist, by what they wait in: engineio's writer (``writer``), its per-socket ping
    # sleeper (``_send_ping``), the others (gevent's Greenlets only: not the thread pool's workers).
    kinds = {"all": 0, "writer": 0, "_send_ping": 0}
    for o in gc.get_objects():
        if isinstance(o, gevent.Greenlet) and bool(o):
            kinds["all"] += 1
            names = {f.name for f in traceback.extract_stack(o.gr_frame)} if o.gr_frame is not None else set()
            for name in ("writer", "_send_ping"):
                kinds[name] += name in names
    return kinds


got = [[] for _ in range(n)]
joined = [False] * n
stop = [False]


def spectator(i):
    ws = websocket.create_connection(url, timeout=30)
    got[i].append(ws.recv()[:1])  # 0{...}: OPEN
    ws.send("40")
    while not stop[0]:
        m = ws.recv()
        joined[i] = joined[i] or m.startswith('42["state"')
        if m == "2":
            ws.send("3")
            got[i].append("ping")
        elif m.startswith("40"):
            got[i].append("40")
            ws.send("42" + json.dumps(["join", {"match": match.id}]))
        else:
            got[i].append(json.loads(m[2:])[0])
    ws.close()


def wait(what, cond, limit=60):
    end = time.monotonic() + limit
    while not cond():
        if time.monotonic() > end:
            raise SystemExit(f"waited too long for {what}")
        gevent.sleep(0.02)


gevent.sleep(0.2)
before = running()
clients = [gevent.spawn(spectator, i) for i in range(n)]
wait("the joins", lambda: all(joined))
eio = app.extensions["socketio"].server.eio
queues = sorted({type(s.queue).__name__ for s in eio.sockets.values()})
wait("three pings each", lambda: all(g.count("ping") >= 3 for g in got))
during = running()
token = match.tokens["referee"]
base = f"http://127.0.0.1:{server.server_port}"
for body in ({"type": "coin_toss", "kickoff": "home", "home_end": "x0"}, {"type": "period_start"}):
    r = requests.post(f"{base}/api/matches/{match.id}/events", json=body, headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 201, r.text
wait("the broadcasts", lambda: all(g.count("state") >= 3 for g in got))
stop[0] = True
wait("the goodbyes", lambda: not eio.sockets, 30)
print(json.dumps({"before": before, "during": during, "queues": queues, "got": got}))
"""


def test_issue29_item4_a_websocket_spectator_is_one_greenlet_with_shared_pings_and_the_same_messages(tmp_path: Path) -> None:
    n = 20
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "lean.db"), str(n)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    # The server's greenlets per spectator: its reader only (engineio: the reader, a writer and a ping
    # sleeper, three). The n clients are greenlets of this process too.
    before, during = out["before"], out["during"]
    assert during["writer"] == during["_send_ping"] == 0, during
    assert during["all"] - before["all"] - n <= n + 2, out  # + 2: the server's ping timer, a drain or a handler
    assert out["queues"] == ["Frames"], out  # no Engine.IO queue left on a WebSocket
    for messages in out["got"]:
        # The handshake, then `state` on join, pings answered, then each change's `event` then `state`.
        assert messages[0] == "0", messages
        changes = [m for m in messages[1:] if m != "ping"]
        assert changes == ["40", "state", "event", "state", "event", "state"], messages
        assert messages.count("ping") >= 3
