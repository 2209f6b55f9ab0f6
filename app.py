"""Run Qalisball Live: ``make run`` (or ``python app.py``). Nothing else lives here.

Serves Flask + Socket.IO with gevent (measured fastest here, PERF-NOTES.md and bench/), on
HOST:PORT, with TCP_NODELAY on the listening socket (gevent issue #1233 adds ~44 ms per request
on kept-alive connections without it), and the soft limit on open files raised towards the hard
limit (every spectator holds a socket: under the usual soft limit of 1024 the 1015th spectator, and any
new HTTP connection after it, waited forever while the log filled with EMFILE; bench/README.md).
"""

from __future__ import annotations

import os

os.environ.setdefault("QALISBALL_ASYNC_MODE", "gevent")
if os.environ["QALISBALL_ASYNC_MODE"] == "gevent":
    from gevent import monkey

    monkey.patch_all()  # before anything imports socket or threading

import socket  # noqa: E402
import sys  # noqa: E402

from flask import Flask  # noqa: E402

from qalisball import ConfigError, create_app  # noqa: E402
from qalisball.match.service import MatchService  # noqa: E402
from qalisball.server import collector  # noqa: E402
from qalisball.server.demo import ensure_demo, ensure_demo_competition  # noqa: E402
from qalisball.server.serving import handler_class, lan_address, startup_text  # noqa: E402


def raise_open_file_limit(want: int = 65536) -> None:
    """Lift the soft RLIMIT_NOFILE towards the hard limit: one socket per spectator (bench/README.md)."""
    try:
        import resource
    except ImportError:  # not on POSIX
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = want if hard == resource.RLIM_INFINITY else min(want, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def main() -> None:
    raise_open_file_limit()
    host = os.environ.get("HOST", "127.0.0.1")
    port = int(os.environ.get("PORT", "5000"))
    if os.environ.get("QALISBALL_ROLE") == "spectators":  # a cluster's spectator process (docs/deploy.md)
        from qalisball.server.follower import create_follower_app

        writer = os.environ.get("QALISBALL_WRITER_URL")
        print(f"Qalisball Live spectator process on {host}:{port}, following {writer}", flush=True)
        follower = create_follower_app()
        collector.install()  # D260: a spectator process holds mostly connections; it keeps no match
        collector.settle("start-up")
        collector.start_janitor(lambda: True)
        serve(follower, host, port, os.environ.get("QALISBALL_ASYNC_MODE", "gevent"))
        return
    try:
        app = create_app()
    except ConfigError as exc:  # a weak organiser token, for example: refuse to serve
        print(f"qalisball: {exc}", file=sys.stderr)
        sys.exit(2)
    matches = app.extensions["qalisball"]
    demo = ensure_demo(matches)
    if demo is not None:  # an empty database: a demo competition too
        ensure_demo_competition(app.extensions["qalisball_competitions"])
        collector.settle("demo data")  # a big load: frozen out of the collector too (D260)
    # Cyclic garbage the freeze keeps (spectators gone) is reclaimed while no match is live (D260).
    collector.start_janitor(lambda: not any_match_live(matches))
    shown = lan_address() if host in ("0.0.0.0", "::") else host
    base = app.config["PUBLIC_URL"] or f"http://{shown}:{port}"
    # Tokens only to a terminal, never into a log file (D48).
    text = startup_text(
        app, base, demo, secrets_shown=sys.stdout.isatty(), admin_from_env=bool(os.environ.get("QALISBALL_ADMIN_TOKEN"))
    )
    print(text, flush=True)
    serve(app, host, port, app.config["ASYNC_MODE"])


def any_match_live(svc: MatchService) -> bool:
    """A match in a half or a shootout: no long collector pause now (D260)."""
    return any(m.state is not None and m.state.phase in ("first_half", "second_half", "shootout") for m in svc.matches.values())


def serve(app: Flask, host: str, port: int, async_mode: str) -> None:
    """Serve ``app`` (the writer's or a spectator process's) until killed."""
    if async_mode == "gevent":
        from gevent import pywsgi

        listener = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        listener.bind((host, port))
        listener.listen(1024)
        # Bounded connections (D52): a socket idle or unable to take data for longer than a ping cycle is
        # closed, a small send buffer per client, at most MAX_CONNECTIONS_PER_ADDRESS per address.
        io_timeout = app.config.get("PING_INTERVAL", 10) + app.config.get("PING_TIMEOUT", 10) + 5
        handler = handler_class(io_timeout, app.config.get("MAX_CONNECTIONS_PER_ADDRESS", 100))
        server = pywsgi.WSGIServer(listener, app, handler_class=handler, log=None)
        server.serve_forever()
    else:
        from qalisball import socketio

        socketio.run(app, host=host, port=port, allow_unsafe_werkzeug=True)


if __name__ == "__main__":
    main()
