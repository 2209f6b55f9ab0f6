"""The Flask application factory and the Socket.IO object (``from qalisball import create_app``)."""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask
from flask_socketio import SocketIO

from qalisball.competitions import api as competition_api
from qalisball.live.fanout import LocalManager, PreEncodedPacket, QueueManager
from qalisball.live.rooms import JoinGate
from qalisball.match.devices import DeviceRegistry
from qalisball.match.live import MatchRoom
from qalisball.match.service import MatchService, now_ms
from qalisball.server import tables  # noqa: F401  (every feature's tables join the migrations before a Store opens)
from qalisball.storage.store import DatabaseInUse, Store
from qalisball.web import errors, services

ROOT = Path(__file__).resolve().parents[2]
socketio = SocketIO()


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """Build the app. ``test_config`` overrides the environment (tests pass DATABASE, CLOCK, …)."""
    app = Flask(
        __name__,
        instance_path=str(ROOT / "instance"),
        template_folder=str(ROOT / "templates"),
        static_folder=str(ROOT / "static"),
    )
    app.config.update(
        DATABASE=os.environ.get("QALISBALL_DB", str(ROOT / "instance" / "qalisball.db")),
        ADMIN_TOKEN=os.environ.get("QALISBALL_ADMIN_TOKEN") or None,
        MESSAGE_QUEUE=os.environ.get("QALISBALL_MESSAGE_QUEUE") or None,
        ASYNC_MODE=os.environ.get("QALISBALL_ASYNC_MODE", "threading"),
        # The address QR codes carry (e.g. http://192.168.1.20:5000); else the address the page was opened with.
        PUBLIC_URL=os.environ.get("QALISBALL_PUBLIC_URL") or None,
        # Behind a reverse proxy: how many proxies' X-Forwarded-For/-Proto to believe, so that throttling
        # (D50) sees the client's address, not the proxy's. 0: none (clients connect directly).
        PROXY_HOPS=int(os.environ.get("QALISBALL_PROXY_HOPS", "0")),
        # Live connections bounded (D52): Engine.IO pings every PING_INTERVAL s and drops a client that
        # has not answered PING_TIMEOUT s later; app.py closes a socket idle (or unable to take data)
        # for longer than both; at most MAX_CONNECTIONS_PER_ADDRESS connections per client address (0: no cap).
        PING_INTERVAL=float(os.environ.get("QALISBALL_PING_INTERVAL", "10")),
        PING_TIMEOUT=float(os.environ.get("QALISBALL_PING_TIMEOUT", "10")),
        MAX_CONNECTIONS_PER_ADDRESS=int(os.environ.get("QALISBALL_MAX_CONNECTIONS_PER_ADDRESS", "100")),
        CLOCK=now_ms,
        JSON_SORT_KEYS=False,
        # No request body is read past this (the API's own limits are smaller: strict_json.py); 413 above it.
        MAX_CONTENT_LENGTH=256 * 1024,
    )
    if test_config:
        app.config.update(test_config)
    if not (test_config and "ADMIN_TOKEN" in test_config) and app.config["ADMIN_TOKEN"]:
        _check_admin_token(app.config["ADMIN_TOKEN"])  # from the environment: refused when weak
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)
    if not app.config["ADMIN_TOKEN"]:
        app.config["ADMIN_TOKEN"] = _instance_admin_token(Path(app.instance_path))
    app.json.sort_keys = False  # type: ignore[attr-defined]
    from qalisball.web import i18n

    i18n.init_app(app)  # Flask-Babel: zh-CN / English per device

    try:
        store = Store(app.config["DATABASE"])
    except DatabaseInUse as exc:  # another server writes this database (D148): refuse to start, naming it
        raise ConfigError(str(exc)) from exc
    if app.config["ASYNC_MODE"] == "gevent":
        store.run_writes_off_loop()  # a write waiting on SQLite never freezes reads and spectators
    svc = services.MATCHES.install(app, MatchService(store, clock=app.config["CLOCK"]))

    socketio.init_app(
        app,
        async_mode=app.config["ASYNC_MODE"],
        client_manager=client_manager(app.config["MESSAGE_QUEUE"], app.config["ASYNC_MODE"]),
        cors_allowed_origins=app.config.get("CORS_ORIGINS", []),
        ping_interval=app.config["PING_INTERVAL"],
        ping_timeout=app.config["PING_TIMEOUT"],
        serializer=PreEncodedPacket,  # broadcasts are encoded once for every socket (fanout.py)
    )
    devices = services.DEVICES.install(app, DeviceRegistry())  # the officials' consoles connected now (API.md "Match day")
    gate = JoinGate(socketio, svc.clock)  # joins bounded per connection, in every feature's room (D156)
    live = services.LIVE.install(app, MatchRoom(socketio, svc, gate, devices))
    svc.subscribe(live.broadcast)  # the service publishes once the event is on disk
    errors.init_app(app)  # the API's error answers every feature shares (web/errors.py)

    from qalisball.match import api

    app.register_blueprint(api.bp)
    from qalisball.match import pages

    app.register_blueprint(pages.bp)
    from qalisball.reports import pages as report_pages

    app.register_blueprint(report_pages.bp)
    competition_api.init_app(app, socketio, gate)  # teams, officials, competitions: API, pages, live room
    from qalisball.web import hardening

    hardening.init_app(app)  # integrity notices, security headers, throttling (issue 14)
    from qalisball.web import token_links

    token_links.init_app(app)  # a link's token becomes an HttpOnly cookie; cookie writes need CSRF (D53–D55)
    if app.config["PROXY_HOPS"]:
        from werkzeug.middleware.proxy_fix import ProxyFix

        hops = app.config["PROXY_HOPS"]
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops)  # type: ignore[method-assign]
    from qalisball.venue import api as venue_api

    venue_api.init_app(app, socketio)  # venue screens, images, team logos: API, pages, live room
    from qalisball.server import api_docs

    api_docs.init_app(app)  # /api/catalogue, /api/openapi.json and its viewer /api/docs (issue 23)
    from qalisball.competitions import whatif_api
    from qalisball.training import api as training_api

    whatif_api.init_app(app)  # the arbitration committee's what-if (issue 24)
    training_api.init_app(app)  # referee training: API and pages (issue 24)
    from qalisball.server import docs_site

    docs_site.init_app(app, ROOT / "instance" / "docs-site")  # the MkDocs site `make docs` builds, under /docs
    return app


# An organiser token from the environment shorter than this is refused at start-up (issue 14): it guards
# every match of the installation, and wrong guesses are only throttled, not impossible.
MIN_ADMIN_TOKEN = 24


class ConfigError(Exception):
    """The configuration cannot be served safely: ``app.py`` prints it and exits."""


def _check_admin_token(token: str) -> None:
    if len(token) < MIN_ADMIN_TOKEN:
        raise ConfigError(
            f"QALISBALL_ADMIN_TOKEN is {len(token)} characters long: use at least {MIN_ADMIN_TOKEN} "
            "(for example: python -c 'import secrets; print(secrets.token_urlsafe(24))'), or unset it to "
            "have one generated into instance/admin_token"
        )
    if not token.isascii() or not token.isprintable() or token != token.strip():
        raise ConfigError("QALISBALL_ADMIN_TOKEN must be printable ASCII without spaces around it")


def client_manager(message_queue: str | None, async_mode: str) -> LocalManager | QueueManager:
    """python-socketio's client manager: Redis between processes when ``message_queue`` is set (docs/deploy.md);
    under gevent, broadcasts bypass the per-socket queues (fastws.py)."""
    manager: LocalManager | QueueManager
    if message_queue:
        if not str(message_queue).startswith(("redis://", "rediss://", "unix://")):
            raise SystemExit("QALISBALL_MESSAGE_QUEUE must be a redis:// URL")
        manager = QueueManager(message_queue)
    else:
        manager = LocalManager()
    if async_mode == "gevent" and os.environ.get("QALISBALL_FASTWS", "1") != "0":
        from qalisball.live import fastws

        fastws.install()
        manager.fast = True
    return manager


def _instance_admin_token(instance: Path) -> str:
    """The organiser token, generated once into the instance folder when the environment has none.

    The file is created 0600 and complete before it has its name (written to a private temporary
    file, then linked into place), so no other user can ever read it and no process sees half a token;
    when two processes start at once, the first link wins and both use its token.
    """
    path = instance / "admin_token"
    if not path.exists():
        token = secrets.token_urlsafe(24)
        tmp = instance / f".admin_token.{os.getpid()}.{secrets.token_hex(4)}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, (token + "\n").encode())
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass  # another process made it first: use that one
        finally:
            os.unlink(tmp)
    if path.stat().st_mode & 0o077:
        path.chmod(0o600)  # made by an older version (0666, then chmod-ed): close it now
    return path.read_text().strip()
