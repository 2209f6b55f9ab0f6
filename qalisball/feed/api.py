"""``GET /api/feed`` (Server-Sent Events) and ``GET /api/feed.json`` (pages), read from the journal (D281, D283).

Each message is a journal row (``storage/journal.py``) as its writer stored it: a match event (the log entry
as ``GET /api/matches/<id>/events`` listed it when stored, with the public state after it) or a competition's
change (its ``change`` and ``detail``, with ``competition_state`` as ``GET /api/competitions/<id>`` answers
when the message is sent, D282). Filters: ``?match=`` and ``?competition=`` (each may repeat; a
competition's also takes its fixtures' matches). ``Last-Event-ID`` or ``?since=`` resumes after a cursor,
``since=0`` from the beginning, neither from the next change; a cursor never given is a 400 naming ``since``.

The stream is served outside the reader gate (D240 bounds reads that finish; a stream never does): the view
returns at once, and its body, a generator, runs after the gate's slot is given back; open streams are
bounded per address instead (``FEEDS_PER_ADDRESS``, 429 past it). While nothing happens a ``: keep-alive``
comment goes out every ``FEED_KEEPALIVE_S`` (10 s: under the 15 s of API.md and the server's 25 s idle cut).

Under gevent (the server ``make run`` starts) a stream that has caught up hands its connection to the feed's
hub (hub.py, D363): one journal reader writing each message, encoded once, to every live stream.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from flask import Blueprint, Flask, Response, current_app, jsonify, request

from qalisball.competitions import slots as competition_slots
from qalisball.feed.hub import Hub
from qalisball.match import slots as match_slots
from qalisball.storage.journal import Journal, Row
from qalisball.web.errors import ApiError, answer_api_errors, invalid

bp = Blueprint("feed", __name__, url_prefix="/api")
answer_api_errors(bp)

KEEPALIVE_S = 10.0
PAGE = 100
MAX_PAGE = 1000
FEEDS_PER_ADDRESS = 20
BATCH = 200  # messages a stream sends per read of the journal


def init_app(app: Flask) -> None:
    app.config.setdefault("FEED_KEEPALIVE_S", float(os.environ.get("QALISBALL_FEED_KEEPALIVE_S", KEEPALIVE_S)))
    app.config.setdefault("FEEDS_PER_ADDRESS", int(os.environ.get("QALISBALL_FEEDS_PER_ADDRESS", FEEDS_PER_ADDRESS)))
    app.extensions["qalisball_feed_open"] = OpenFeeds()
    app.register_blueprint(bp)


class OpenFeeds:
    """Open streams per client address (D283)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.by_address: dict[str, int] = {}

    def take(self, address: str, cap: int) -> bool:
        with self._lock:
            n = self.by_address.get(address, 0)
            if cap and n >= cap:
                return False
            self.by_address[address] = n + 1
            return True

    def give_back(self, address: str) -> None:
        with self._lock:
            n = self.by_address.get(address, 0) - 1
            if n > 0:
                self.by_address[address] = n
            else:
                self.by_address.pop(address, None)


def go_live(app: Flask, journal: Journal, follow: Callable[[Callable[[Row], None]], Any]) -> Hub:
    """Under gevent, with the journal's readers in the background (the composition root decides): the hub that
    writes to every stream that has caught up, fed by ``follow`` (a journal reader in the app's context)."""
    hub = Hub(text, journal.head, float(app.config["FEED_KEEPALIVE_S"]))
    app.extensions["qalisball_feed_hub"] = hub
    follow(hub.deliver)
    return hub


def _journal() -> Journal:
    journal = match_slots.match_service().store.journal
    if journal is None:
        raise ApiError(503, "unavailable", "the database has no journal (it cannot be read)")
    return journal


def _since(journal: Journal, text: str | None, default: int) -> int:
    if text is None or text == "":
        return default
    if not text.isdigit() or int(text) > journal.head:
        raise invalid("since", f"{text!r} is not a cursor this server gave")
    return int(text)


# The journal's kinds API.md's feed carries; the others (teams, venues, training, D301) are the server's own readers'.
KINDS = ("match", "competition")


def _public(row: Row) -> bool:
    return row.kind in KINDS


def _filter() -> Callable[[Row], bool]:
    return row_filter(request.args.getlist("match"), request.args.getlist("competition"))


def row_filter(match_ids: Iterable[str], competition_ids: Iterable[str]) -> Callable[[Row], bool]:
    """The feed's filters (a match's messages; a competition's and its fixtures' matches'), else every message of
    the feed's kinds. In an app context (the webhooks' workers use it too)."""
    matches, comps = set(match_ids), set(competition_ids)
    if not matches and not comps:
        return _public
    fixture_of = competition_slots.competition_service().fixture_of

    def keep(row: Row) -> bool:
        if row.kind == "match":
            if row.subject in matches:
                return True
            where = fixture_of(row.subject) if comps else None
            return where is not None and where[0] in comps
        return row.kind == "competition" and row.subject in comps

    return keep


def message(row: Row) -> dict[str, Any]:
    """A journal row as the feed's message: a competition's gets its ``competition_state`` now (D282)."""
    data = row.data()
    if row.kind == "competition":
        svc = competition_slots.competition_service()
        c = svc.competitions.get(row.subject)
        data["competition_state"] = svc.cached_view(c).data if c is not None else None
    return data


def text(row: Row) -> str:
    """A row's SSE message (in an app context: a competition's carries its state now)."""
    body = row.body if row.kind != "competition" else json.dumps(message(row), ensure_ascii=False, separators=(",", ":"))
    return f"id: {row.cursor}\nevent: {row.kind}\ndata: {body}\n\n"


@bp.get("/feed.json")
def feed_json() -> Response:
    journal = _journal()
    since = _since(journal, request.args.get("since"), 0)
    text = request.args.get("limit") or str(PAGE)
    limit = int(text) if text.isdigit() else 0
    if not 1 <= limit <= MAX_PAGE:
        raise invalid("limit", f"a number of messages from 1 to {MAX_PAGE}")
    head = journal.head
    rows = journal.after(since, limit, _filter())
    # ``next``: after the last message given, or (none matched) the head read, so a poller moves on.
    nxt = rows[-1].cursor if len(rows) >= limit else max([since, head, *(r.cursor for r in rows)])
    return jsonify({"messages": [message(r) for r in rows], "next": str(nxt)})


@bp.get("/feed")
def feed() -> Response:
    journal = _journal()
    resume = request.headers.get("Last-Event-ID") or request.args.get("since")
    since = _since(journal, resume, journal.head)
    keep = _filter()
    open_feeds: OpenFeeds = current_app.extensions["qalisball_feed_open"]
    address = str(request.remote_addr or "?")
    if not open_feeds.take(address, int(current_app.config["FEEDS_PER_ADDRESS"])):
        answer = jsonify({"error": "too_many_requests", "message": "too many open feeds from this address"})
        answer.status_code = 429
        answer.headers["Retry-After"] = "10"
        return answer
    keepalive = float(current_app.config["FEED_KEEPALIVE_S"])
    wait = current_app.config.get("FEED_WAIT") or journal.wait  # tests: a clock they move (15 s pass at once)
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    hub: Hub | None = current_app.extensions.get("qalisball_feed_hub")
    connection = request.environ.get("qalisball.connection")  # gevent's socket (server/serving.py)
    raw = getattr(connection, "_sock", None)  # its OS socket, non-blocking

    def stream() -> Iterator[str]:
        cursor = since
        try:
            yield ": feed\n\n"  # the headers and a first line go out at once
            while True:
                seen = journal.head  # read first: every row up to it is in what ``after`` reads next
                rows = journal.after(cursor, BATCH, keep)
                if rows:
                    cursor = rows[-1].cursor
                    with app.app_context():
                        yield "".join(text(r) for r in rows)
                    continue
                cursor = max(cursor, seen)  # the rows up to ``seen`` were not for this reader
                live = hub.join(raw, keep, cursor) if hub is not None and raw is not None else None
                if live is not None:  # caught up: the hub writes from here (D363) until it hands the stream back
                    try:
                        live.back.wait()
                    finally:
                        hub.leave(live)  # type: ignore[union-attr]
                    if live.gone:
                        return
                    if live.rest:  # the rest of a chunk the hub could not write: before anything else
                        try:
                            connection.sendall(live.rest)
                        except OSError:
                            return
                    cursor = live.cursor
                    continue
                if not wait(cursor, keepalive):
                    yield ": keep-alive\n\n"
        finally:
            open_feeds.give_back(address)

    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return Response(stream(), mimetype="text/event-stream", headers=headers)
