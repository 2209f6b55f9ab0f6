"""Run Qalisball Live: ``make run`` (or ``python app.py``). Nothing else lives here.

Serves Flask + Socket.IO with gevent (measured fastest here, PERF-NOTES.md and bench/), on
HOST:PORT, with TCP_NODELAY on the listening socket (gevent issue #1233 adds ~44 ms per request
on kept-alive connections without it).
"""

from __future__ import annotations

import os

os.environ.setdefault("QALISBALL_ASYNC_MODE", "gevent")
if os.environ["QALISBALL_ASYNC_MODE"] == "gevent":
    from gevent import monkey

    monkey.patch_all()  # before anything imports socket or threading

import socket  # noqa: E402

from qalisball import create_app  # noqa: E402
from qalisball.demo import ensure_demo  # noqa: E402


def main() -> None:
    host = os.environ.get("HOST", "127.0.0.1")
    port = int(os.environ.get("PORT", "5000"))
    app = create_app()
    svc = app.extensions["qalisball"]
    ensure_demo(svc)
    base = f"http://{host}:{port}"
    print(f"Qalisball Live on {base}/  (database {app.config['DATABASE']})")
    print(f"Organiser token: {app.config['ADMIN_TOKEN']}")
    for m in svc.matches.values():
        print(f"\nMatch {m.id}: {m.setup.home.name} – {m.setup.away.name}")
        print(f"  spectators  {base}/matches/{m.id}")
        print(f"  scoreboard  {base}/matches/{m.id}/scoreboard")
        for role, token in m.tokens.items():
            print(f"  {role:<11} {base}/matches/{m.id}/referee?token={token}")
    print(flush=True)

    if app.config["ASYNC_MODE"] == "gevent":
        from gevent import pywsgi
        from geventwebsocket.handler import WebSocketHandler

        listener = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        listener.bind((host, port))
        listener.listen(1024)
        server = pywsgi.WSGIServer(listener, app, handler_class=WebSocketHandler, log=None)
        server.serve_forever()
    else:
        from qalisball import socketio

        socketio.run(app, host=host, port=port, allow_unsafe_werkzeug=True)


if __name__ == "__main__":
    main()
