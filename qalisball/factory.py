"""The Flask application factory and the Socket.IO object (``from qalisball import create_app``)."""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask
from flask_socketio import SocketIO

from . import competition_api
from .live import Live
from .service import MatchService, now_ms
from .store import Store

ROOT = Path(__file__).resolve().parent.parent
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
        CLOCK=now_ms,
        JSON_SORT_KEYS=False,
    )
    if test_config:
        app.config.update(test_config)
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)
    if not app.config["ADMIN_TOKEN"]:
        app.config["ADMIN_TOKEN"] = _instance_admin_token(Path(app.instance_path))
    app.json.sort_keys = False  # type: ignore[attr-defined]
    from . import i18n

    i18n.init_app(app)  # Flask-Babel: zh-CN / English per device

    store = Store(app.config["DATABASE"])
    if app.config["ASYNC_MODE"] == "gevent":
        store.run_writes_off_loop()  # a write waiting on SQLite never freezes reads and spectators
    svc = MatchService(store, clock=app.config["CLOCK"])
    app.extensions["qalisball"] = svc

    socketio.init_app(
        app,
        async_mode=app.config["ASYNC_MODE"],
        message_queue=app.config["MESSAGE_QUEUE"],
        cors_allowed_origins=app.config.get("CORS_ORIGINS", []),
    )
    live = Live(socketio, svc)
    app.extensions["qalisball_live"] = live
    svc.subscribe(live.broadcast)  # the service publishes once the event is on disk

    from . import api

    app.register_blueprint(api.bp)
    from . import pages

    app.register_blueprint(pages.bp)
    from . import reports

    app.register_blueprint(reports.bp)
    competition_api.init_app(app, socketio)  # teams, officials, competitions: API, pages, live room
    from . import screens

    screens.init_app(app, socketio)  # venue screens, images, team logos: API, pages, live room
    return app


def _instance_admin_token(instance: Path) -> str:
    """The organiser token, generated once into the instance folder when the environment has none."""
    path = instance / "admin_token"
    if path.exists():
        return path.read_text().strip()
    token = secrets.token_urlsafe(24)
    path.write_text(token + "\n")
    path.chmod(0o600)
    return token
