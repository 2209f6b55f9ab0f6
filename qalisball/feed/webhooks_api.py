"""The webhooks' HTTP API (issue 30 item 3, API.md "The feed"), organiser only: subscriptions, their deliveries
log, redelivery from a cursor, deletion. The deliveries themselves are ``webhooks.py``'s workers.

- ``POST /api/webhooks`` ``{"url", "match"?: [ids], "competition"?: [ids], "since"?: cursor}`` → 201
  ``{"id", "secret"}`` (the secret shown this once). Without ``since`` the subscription starts with the next
  change (as ``GET /api/feed`` without a cursor); ``"0"``: every message from the beginning.
- ``GET /api/webhooks``, ``GET /api/webhooks/<id>``: ``{"id", "url", "match", "competition", "status", "cursor",
  "created_at"}`` (``status`` ``active`` or ``failing``, ``cursor`` the last message delivered), never the secret.
- ``GET /api/webhooks/<id>/deliveries`` (``?limit=`` ≤ 1000, default 100): ``[{"cursor", "status", "attempts",
  "last_status", "last_error", "last_at"}]``, newest first.
- ``POST /api/webhooks/<id>/redeliver`` ``{"since"}`` → 202: every message after it again, in order (a
  ``failing`` subscription becomes active); ``DELETE /api/webhooks/<id>`` → 204: nothing more is sent.
"""

from __future__ import annotations

import os
import secrets
from typing import Any

from flask import Blueprint, Flask, Response, current_app, jsonify, request
from flask_socketio import SocketIO

from qalisball.feed import webhooks
from qalisball.feed.webhooks import Refused, Subscription, Webhooks
from qalisball.web import services
from qalisball.web.errors import ApiError, answer_api_errors, invalid
from qalisball.web.guards import organiser_required
from qalisball.web.strict_json import read_json

bp = Blueprint("webhooks", __name__, url_prefix="/api")
answer_api_errors(bp)

KEY = "qalisball_webhooks"
FIELDS = ("url", "match", "competition", "since")
MAX_IDS = 100
MAX_LOG = 1000


def init_app(app: Flask, socketio: SocketIO) -> None:
    """Serve the API and start a worker per active subscription (pending tries go on at their time)."""
    app.config.setdefault("WEBHOOK_ALLOW_PRIVATE", os.environ.get("QALISBALL_WEBHOOK_ALLOW_PRIVATE", "") == "1")
    app.config.setdefault("WEBHOOK_TIMEOUT_S", webhooks.TIMEOUT_S)
    app.register_blueprint(bp)
    store = services.MATCHES.of(app).store
    if store.journal is None or "webhooks" not in store.db.table_names():
        return  # a database that cannot be read (it says so on every screen): nothing to deliver
    hooks = Webhooks(
        app, store, store.journal, app.config["CLOCK"], socketio.start_background_task,
        bool(app.config["WEBHOOK_ALLOW_PRIVATE"]), float(app.config["WEBHOOK_TIMEOUT_S"]),
    )  # fmt: skip
    app.extensions[KEY] = hooks
    hooks.start()


def _hooks() -> Webhooks:
    hooks: Webhooks | None = current_app.extensions.get(KEY)
    if hooks is None:
        raise ApiError(503, "unavailable", "the database cannot be read: no webhooks")
    return hooks


def _subscription(hooks: Webhooks, sub_id: str) -> Subscription:
    sub = hooks.store.get(sub_id)
    if sub is None:
        raise ApiError(404, "not_found", f"no webhook {sub_id}")
    return sub


def _cursor(hooks: Webhooks, value: Any, field: str = "since") -> int:
    text = str(value) if isinstance(value, str | int) and not isinstance(value, bool) else ""
    if not text.isdigit() or int(text) > hooks.journal.head:
        raise invalid(field, f"{value!r} is not a cursor this server gave")
    return int(text)


def _ids(body: dict[str, Any], field: str) -> list[str]:
    value = body.get(field, [])
    if not isinstance(value, list) or len(value) > MAX_IDS or not all(isinstance(i, str) and 0 < len(i) <= 100 for i in value):
        raise invalid(field, f"a list of at most {MAX_IDS} ids")
    return list(dict.fromkeys(value))


@bp.post("/webhooks")
@organiser_required
def create() -> tuple[Response, int]:
    hooks = _hooks()
    body = read_json(request)
    if not isinstance(body, dict):
        raise invalid("_schema", "a JSON object")
    for key in body:
        if key not in FIELDS:
            raise invalid(key, "unknown field")
    if "url" not in body:
        raise invalid("url", "missing")
    try:
        url = webhooks.check_url(body["url"], hooks.allow_private)
    except Refused as exc:
        raise invalid("url", str(exc)) from exc
    filters = {"match": _ids(body, "match"), "competition": _ids(body, "competition")}
    since = _cursor(hooks, body["since"]) if "since" in body else hooks.journal.head
    sub_id = "wh_" + secrets.token_hex(8)
    secret = webhooks.new_secret()
    hooks.store.create(sub_id, url, secret, filters, webhooks.iso(int(hooks.clock())), since)
    hooks.ensure(sub_id)
    return jsonify({"id": sub_id, "secret": secret}), 201


@bp.get("/webhooks")
@organiser_required
def list_all() -> Response:
    return jsonify([s.public() for s in _hooks().store.all()])


@bp.get("/webhooks/<sub_id>")
@organiser_required
def get_one(sub_id: str) -> Response:
    return jsonify(_subscription(_hooks(), sub_id).public())


@bp.delete("/webhooks/<sub_id>")
@organiser_required
def delete(sub_id: str) -> tuple[str, int]:
    hooks = _hooks()
    if not hooks.store.delete(sub_id):
        raise ApiError(404, "not_found", f"no webhook {sub_id}")
    hooks.tick()  # its worker sees it gone and stops
    return "", 204


@bp.get("/webhooks/<sub_id>/deliveries")
@organiser_required
def deliveries(sub_id: str) -> Response:
    hooks = _hooks()
    _subscription(hooks, sub_id)
    text = request.args.get("limit") or "100"
    limit = int(text) if text.isdigit() else 0
    if not 1 <= limit <= MAX_LOG:
        raise invalid("limit", f"a number of deliveries from 1 to {MAX_LOG}")
    return jsonify(hooks.store.deliveries(sub_id, limit))


@bp.post("/webhooks/<sub_id>/redeliver")
@organiser_required
def redeliver(sub_id: str) -> tuple[Response, int]:
    hooks = _hooks()
    _subscription(hooks, sub_id)
    body = read_json(request)
    if not isinstance(body, dict) or set(body) != {"since"}:
        raise invalid("since", 'send {"since": "<cursor>"}')
    since = _cursor(hooks, body["since"])
    if not hooks.store.redeliver(sub_id, since, webhooks.iso(int(hooks.clock()))):
        raise ApiError(404, "not_found", f"no webhook {sub_id}")
    hooks.ensure(sub_id)
    return jsonify(_subscription(hooks, sub_id).public()), 202
