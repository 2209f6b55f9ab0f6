"""Webhooks (issue 30 item 3, API.md "The feed"): each journal message POSTed to a subscriber, signed, in order.

Per Standard Webhooks (the ``standardwebhooks`` package signs): the body is the feed's message (the same JSON
as ``GET /api/feed``'s ``data``), with ``webhook-id`` (the message's cursor), ``webhook-timestamp`` (Unix seconds
of the app's clock) and ``webhook-signature`` (``v1,<base64 HMAC-SHA256>``). A 2xx within ``TIMEOUT_S`` (10 s)
delivers it; anything else (another status, a redirect, a timeout, a refused connection, an address not
allowed) is a failed try, tried again after ``SCHEDULE_S`` (D330: 5 s, 25 s, 2 min, 15 min, 1 h, 2 h: seven
tries over 3 h 17 min, the first three within 30 s). After the seventh the message is given up: it is logged
``failed`` and the subscription becomes ``failing`` and sends nothing more until a redelivery (D331).

Each subscription has its own worker (``socketio.start_background_task``: a greenlet under gevent, a thread
under threading), a journal reader from the subscription's own stored cursor, outside any write lock: a slow
or dead endpoint holds only its own worker, never another subscription or a write. Its state (cursor, failed
tries of the next message, when to try again) is in SQLite (``tables.py``, migration 34), written after each
try, so a restart goes on where it was: a pending message is tried again at its time. The worker waits on the
app's clock (``CLOCK``): it sleeps at most until the next try's time by that clock, and ``Webhooks.tick`` (a
test that moved its clock) wakes it to look again.

Addresses (D332): a URL whose host is, or resolves to, an address that is not global unicast (loopback,
private, link-local, multicast, reserved, unspecified, shared) is refused when created (400 naming ``url``)
and again at every try, on the addresses that try resolves, which are the ones it then connects to (a name
re-pointed at 127.0.0.1 after the check gets nothing); unless ``WEBHOOK_ALLOW_PRIVATE``
(``QALISBALL_WEBHOOK_ALLOW_PRIVATE=1``: a venue's own network). Redirects are never followed.
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import ipaddress
import json
import logging
import secrets
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from flask import Flask
from standardwebhooks import Webhook

from qalisball.feed.api import message, row_filter
from qalisball.storage.journal import Journal, Row

if TYPE_CHECKING:
    from qalisball.storage.store import Store

log = logging.getLogger(__name__)

SCHEDULE_S = (5, 25, 120, 900, 3600, 7200)  # D330: the pause after the 1st, 2nd, … failed try of a message
TRIES = len(SCHEDULE_S) + 1  # then it is given up (D331)
TIMEOUT_S = 10.0  # a 2xx within this delivers
IDLE_S = 60.0  # a worker looks again at least this often (real seconds), even when nothing woke it
MAX_URL = 2048
USER_AGENT = "Qalisball-Live-Webhooks/1"


def pause_after(failures: int) -> float | None:
    """Seconds before the next try of a message that failed ``failures`` times; None: it is given up."""
    return float(SCHEDULE_S[failures - 1]) if 1 <= failures <= len(SCHEDULE_S) else None


def new_secret() -> str:
    """A Standard Webhooks secret: ``whsec_`` and 24 random bytes in base64."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()


def signed_headers(secret: str, msg_id: str, timestamp_s: int, body: str) -> dict[str, str]:
    """The Standard Webhooks headers of one try (``standardwebhooks`` signs)."""
    signature = Webhook(secret).sign(msg_id, datetime.fromtimestamp(timestamp_s, UTC), body)
    return {"webhook-id": msg_id, "webhook-timestamp": str(timestamp_s), "webhook-signature": signature}


# -- addresses (D332) ----------------------------------------------------------------------------------------


class Refused(Exception):
    """A URL this server does not send to (its scheme, its form, or the address its host is or resolves to)."""


def is_public(address: str) -> bool:
    """Whether ``address`` is a global unicast address (no loopback, private, link-local, multicast, reserved…)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


@dataclass(frozen=True)
class Target:
    scheme: str
    host: str
    port: int
    path: str


def parse_url(url: Any) -> Target:
    """``url`` as this server sends to it, or ``Refused`` saying why not (its form only: no lookup)."""
    if not isinstance(url, str) or not url or len(url) > MAX_URL:
        raise Refused(f"an http or https URL of at most {MAX_URL} characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise Refused(f"not a URL: {exc}") from exc
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise Refused("an http:// or https:// URL with a host")
    if parts.username is not None or parts.password is not None:
        raise Refused("no user name or password in the URL (check the signature instead)")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Target(parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80), path)


Address = tuple[int, tuple[Any, ...]]  # (family, sockaddr) as getaddrinfo gives


def addresses(target: Target, allow_private: bool) -> list[Address]:
    """The addresses of ``target``'s host, each checked (D332): ``Refused`` if one is not public or none is found."""
    try:
        found = socket.getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise Refused(f"{target.host} cannot be resolved ({exc})") from exc
    out = [(family, sockaddr) for family, _, _, _, sockaddr in found]
    if not out:
        raise Refused(f"{target.host} has no address")
    if not allow_private:
        for _, sockaddr in out:
            if not is_public(str(sockaddr[0])):
                raise Refused(
                    f"{target.host} is {sockaddr[0]}: not a public address (loopback, private, link-local, multicast "
                    "and reserved addresses are refused unless QALISBALL_WEBHOOK_ALLOW_PRIVATE=1)"
                )
    return out


def check_url(url: Any, allow_private: bool) -> str:
    """``url`` if this server may send to it (its form, and its host's addresses unless ``allow_private``)."""
    target = parse_url(url)
    if not allow_private:
        addresses(target, allow_private)
    return str(url)


# -- one try -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    ok: bool
    status: int | None  # the HTTP status answered (None: no answer)
    error: str | None  # why it failed, in words


def _connect(found: list[Address], timeout: float) -> socket.socket:
    last: OSError = OSError("no address")
    for family, sockaddr in found:
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        try:
            sock.connect(sockaddr)
            return sock
        except OSError as exc:
            sock.close()
            last = exc
    raise last


class _Pinned(http.client.HTTPConnection):
    """HTTP to the addresses checked for this try, never to what the name resolves to a moment later."""

    def __init__(self, host: str, port: int, found: list[Address], timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self._found = found

    def connect(self) -> None:
        self.sock = _connect(self._found, float(self.timeout or TIMEOUT_S))


class _PinnedTLS(http.client.HTTPSConnection):
    def __init__(self, host: str, port: int, found: list[Address], timeout: float) -> None:
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self._found = found

    def connect(self) -> None:
        sock = _connect(self._found, float(self.timeout or TIMEOUT_S))
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)  # type: ignore[attr-defined]


def post(url: str, body: bytes, headers: dict[str, str], timeout: float, allow_private: bool) -> Outcome:
    """One try: POST ``body`` to ``url``; a 2xx within ``timeout`` s is a delivery, anything else a failure."""
    try:
        target = parse_url(url)
        found = addresses(target, allow_private)  # again at every try: DNS may have changed (D332)
    except Refused as exc:
        return Outcome(False, None, str(exc))
    kind = _PinnedTLS if target.scheme == "https" else _Pinned
    conn = kind(target.host, target.port, found, timeout)
    started = time.monotonic()
    try:
        conn.request("POST", target.path, body=body, headers={**headers, "Connection": "close"})
        status = conn.getresponse().status
    except TimeoutError:
        return Outcome(False, None, f"no answer within {timeout:g} s")
    except (OSError, http.client.HTTPException) as exc:
        return Outcome(False, None, f"{type(exc).__name__}: {exc}"[:300])
    finally:
        conn.close()
    if time.monotonic() - started > timeout:
        return Outcome(False, status, f"answered after more than {timeout:g} s")
    if 200 <= status < 300:
        return Outcome(True, status, None)
    if 300 <= status < 400:
        return Outcome(False, status, "a redirect is not followed")
    return Outcome(False, status, f"answered {status}")


# -- state in SQLite -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Subscription:
    id: str
    url: str
    secret: str
    matches: tuple[str, ...]
    competitions: tuple[str, ...]
    created_at: str
    cursor: int
    attempts: int
    next_at: int
    status: str
    generation: int

    def public(self) -> dict[str, Any]:
        """What ``GET /api/webhooks`` shows: never the secret."""
        return {
            "id": self.id,
            "url": self.url,
            "match": list(self.matches),
            "competition": list(self.competitions),
            "status": self.status,
            "cursor": str(self.cursor),
            "created_at": self.created_at,
        }


_COLUMNS = "id, url, secret, filters, created_at, cursor, attempts, next_at, status, generation"
_DELIVERY = ("cursor", "status", "attempts", "last_status", "last_error", "last_at")


def _subscription(row: tuple[Any, ...]) -> Subscription:
    filters = json.loads(row[3])
    return Subscription(
        str(row[0]), str(row[1]), str(row[2]), tuple(filters.get("match", ())), tuple(filters.get("competition", ())),
        str(row[4]), int(row[5]), int(row[6]), int(row[7]), str(row[8]), int(row[9]),
    )  # fmt: skip


def iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class WebhookStore:
    """The webhook tables of one ``Store`` (its connection, its write path: ``write_records``, nothing sealed)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def _write(self, action: str, sql: list[tuple[str, list[Any]]], counted: bool = False) -> int:
        """Run ``sql`` in one transaction; ``counted``: stop (and answer 0) when the first statement changes no row."""
        changed = [0]

        def change() -> list[tuple[str, tuple[Any, ...]]]:
            for i, (text, params) in enumerate(sql):
                n = self.store.db.execute(text, params).rowcount
                if i == 0:
                    changed[0] = n
                    if counted and n == 0:
                        break
            return []

        self.store.write_records(action, change)
        return changed[0]

    def create(self, sub_id: str, url: str, secret: str, filters: dict[str, list[str]], created_at: str, cursor: int) -> None:
        self._write(
            "webhook_created",
            [(
                f"INSERT INTO webhooks ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, 0, 0, 'active', 0)",
                [sub_id, url, secret, json.dumps(filters, ensure_ascii=False), created_at, cursor],
            )],
        )  # fmt: skip

    def get(self, sub_id: str) -> Subscription | None:
        row = self.store.db.execute(f"SELECT {_COLUMNS} FROM webhooks WHERE id = ?", [sub_id]).fetchone()
        return _subscription(row) if row else None

    def all(self) -> list[Subscription]:
        rows = self.store.db.execute(f"SELECT {_COLUMNS} FROM webhooks ORDER BY created_at, id").fetchall()
        return [_subscription(r) for r in rows]

    def delete(self, sub_id: str) -> bool:
        gone: list[tuple[str, list[Any]]] = [
            ("DELETE FROM webhooks WHERE id = ?", [sub_id]),
            ("DELETE FROM webhook_deliveries WHERE webhook_id = ?", [sub_id]),
        ]
        return bool(self._write("webhook_deleted", gone))

    def redeliver(self, sub_id: str, since: int, at: str) -> bool:
        """From the message after ``since``, again: active, no failed try, a new generation (a try under way
        records nothing); the deliveries still pending are closed as ``failed``."""
        return bool(
            self._write(
                "webhook_redeliver",
                [
                    ("UPDATE webhooks SET cursor = ?, attempts = 0, next_at = 0, status = 'active', "
                     "generation = generation + 1 WHERE id = ?", [since, sub_id]),
                    ("UPDATE webhook_deliveries SET status = 'failed', last_error = ?, last_at = ? "
                     "WHERE webhook_id = ? AND status = 'pending'", [f"redelivery asked from {since}", at, sub_id]),
                ],
                counted=True,
            )
        )  # fmt: skip

    def record(self, sub: Subscription, cursor: int, outcome: Outcome, now_ms: int) -> None:
        """One try of the message at ``cursor``: the subscription's state and its deliveries log, in one
        transaction; nothing if the subscription was deleted or redelivered meanwhile (its generation)."""
        at = iso(now_ms)
        tries = sub.attempts + 1
        pause = None if outcome.ok else pause_after(tries)
        if outcome.ok:
            state = ("UPDATE webhooks SET cursor = ?, attempts = 0, next_at = 0 WHERE id = ? AND generation = ?",
                     [cursor, sub.id, sub.generation])  # fmt: skip
            status = "delivered"
        elif pause is not None:
            state = ("UPDATE webhooks SET attempts = ?, next_at = ? WHERE id = ? AND generation = ?",
                     [tries, now_ms + int(pause * 1000), sub.id, sub.generation])  # fmt: skip
            status = "pending"
        else:  # given up (D331): the subscription stops at the last message it delivered
            state = ("UPDATE webhooks SET attempts = 0, next_at = 0, status = 'failing' WHERE id = ? AND generation = ?",
                     [sub.id, sub.generation])  # fmt: skip
            status = "failed"
        values = [status, tries, outcome.status, outcome.error, at]
        first = sub.attempts == 0
        log_row = (
            ("INSERT INTO webhook_deliveries (status, attempts, last_status, last_error, last_at, webhook_id, cursor) "
             "VALUES (?, ?, ?, ?, ?, ?, ?)", [*values, sub.id, cursor])
            if first
            else ("UPDATE webhook_deliveries SET status = ?, attempts = ?, last_status = ?, last_error = ?, last_at = ? "
                  "WHERE id = (SELECT max(id) FROM webhook_deliveries WHERE webhook_id = ? AND cursor = ? "
                  "AND status = 'pending')", [*values, sub.id, cursor])
        )  # fmt: skip
        self._write("webhook_try", [state, log_row], counted=True)

    def deliveries(self, sub_id: str, limit: int) -> list[dict[str, Any]]:
        rows = self.store.db.execute(
            f"SELECT {', '.join(_DELIVERY)} FROM webhook_deliveries WHERE webhook_id = ? ORDER BY id DESC LIMIT ?",
            [sub_id, limit],
        ).fetchall()
        return [{**dict(zip(_DELIVERY, r, strict=True)), "cursor": str(r[0])} for r in rows]


# -- the workers ---------------------------------------------------------------------------------------------


class Webhooks:
    """The app's subscriptions and their workers: one per active subscription."""

    def __init__(self, app: Flask, store: Store, journal: Journal, clock: Callable[[], int],
                 start_task: Callable[..., Any], allow_private: bool, timeout: float = TIMEOUT_S) -> None:  # fmt: skip
        self.app, self.store, self.journal, self.clock = app, WebhookStore(store), journal, clock
        self.start_task, self.allow_private, self.timeout = start_task, allow_private, timeout
        self.stopped = False
        # Held by a worker for each use of the database (its state, the journal): ``stop`` takes it to set
        # ``stopped``, so once it returns no worker is inside the database or will enter it (store.close follows).
        self._db = threading.Lock()
        self._lock = threading.Lock()
        self._workers: dict[str, Worker] = {}
        self._tasks: list[Any] = []
        self.tries = 0  # tries recorded (tests wait on ``changed`` for them)
        self.changed = threading.Condition()  # notified after each try recorded and each worker stopped
        journal.listen(self._committed)
        store.on_close(self.stop)

    def start(self) -> None:
        """A worker for every active subscription (the server starting: pending tries go on at their time)."""
        for sub in self.store.all():
            if sub.status == "active":
                self.ensure(sub.id)

    def ensure(self, sub_id: str) -> None:
        """The subscription's worker running (started if it was not), and looking again now."""
        with self._lock:
            if self.stopped:
                return
            worker = self._workers.get(sub_id)
            if worker is None:
                worker = self._workers[sub_id] = Worker(self, sub_id)
                self._tasks.append(self.start_task(worker.run))
        worker.event.set()

    def gone(self, worker: Worker, look_again: bool) -> None:
        """``worker`` stopped; ``look_again``: it found its subscription inactive, so if a redelivery made it
        active again meanwhile (its ``ensure`` may have woken this worker as it left), a new one starts."""
        with self._lock:
            if self._workers.get(worker.sub_id) is worker:
                del self._workers[worker.sub_id]
        self._notify()
        if not look_again:
            return
        try:
            with self.database():
                sub = self.store.get(worker.sub_id)
        except Stopped:
            return
        if sub is not None and sub.status == "active":
            self.ensure(sub.id)

    def _notify(self) -> None:
        with self.changed:
            self.changed.notify_all()

    def wait_until(self, done: Callable[[], bool], timeout: float) -> bool:
        """Until ``done()`` holds, looked at after each try recorded and each worker stopped (tests)."""
        with self.changed:
            return self.changed.wait_for(done, timeout)

    def recorded(self) -> None:
        with self.changed:
            self.tries += 1
            self.changed.notify_all()

    def running(self) -> list[str]:
        with self._lock:
            return sorted(self._workers)

    def tick(self) -> None:
        """Every worker looks again now (a test moved the app's clock)."""
        with self._lock:
            workers = list(self._workers.values())
        for worker in workers:
            worker.event.set()

    def _committed(self, row: Row) -> None:
        self.tick()  # a new message: each worker reads the journal from its own cursor

    @contextlib.contextmanager
    def database(self) -> Iterator[None]:
        """A worker's use of the database, never once ``stop`` has returned (``Stopped`` then)."""
        with self._db:
            if self.stopped:
                raise Stopped
            yield

    def stop(self, join_s: float = 0.0) -> None:
        """Stop every worker (the store closing): none uses the database after this returns; a try under way
        records nothing. ``join_s``: wait that long for each worker's end too."""
        with self._db, self._lock:
            self.stopped = True
            tasks = list(self._tasks)
        self.tick()
        for task in tasks if join_s else ():
            with contextlib.suppress(Exception):
                task.join(join_s)

    def body(self, row: Row) -> str:
        """The message's JSON as the feed sends it (a competition's with its state now, D282)."""
        if row.kind != "competition":
            return row.body
        return json.dumps(message(row), ensure_ascii=False, separators=(",", ":"))

    def send(self, sub: Subscription, row: Row, body: str) -> Outcome:
        headers = {
            **signed_headers(sub.secret, str(row.cursor), int(self.clock()) // 1000, body),
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
        }
        return post(sub.url, body.encode(), headers, self.timeout, self.allow_private)


class Stopped(Exception):
    """The workers were stopped: the database is no longer theirs."""


class Worker:
    """One subscription's deliveries: the next message after its cursor, tried until delivered or given up."""

    def __init__(self, hooks: Webhooks, sub_id: str) -> None:
        self.hooks, self.sub_id = hooks, sub_id
        self.event = threading.Event()

    def run(self) -> None:
        done = False
        try:
            with self.hooks.app.app_context():
                self._loop()
            done = True
        except Stopped:
            pass
        except Exception:  # a database damaged: stop, say so once
            if not self.hooks.stopped:
                log.exception("webhook %s: its worker stopped", self.sub_id)
        finally:
            self.hooks.gone(self, look_again=done)

    def _loop(self) -> None:
        hooks, journal = self.hooks, self.hooks.journal
        scanned: tuple[tuple[int, int], int] = ((-1, -1), 0)  # (generation, cursor) -> read past up to here
        while not hooks.stopped:
            self.event.clear()
            with hooks.database():
                sub = hooks.store.get(self.sub_id)
                if sub is None or sub.status != "active":
                    return  # deleted, or given up (D331): a redelivery starts a worker again
                key = (sub.generation, sub.cursor)
                start = scanned[1] if scanned[0] == key else sub.cursor
                seen = journal.head  # read first: every row up to it is in what ``after`` reads next
                rows = journal.after(start, 1, row_filter(sub.matches, sub.competitions))
            if not rows:
                scanned = (key, max(start, seen))
                self.event.wait(IDLE_S)
                continue
            row = rows[0]
            scanned = (key, row.cursor - 1)
            wait_ms = sub.next_at - int(hooks.clock())
            if wait_ms > 0:  # the next try's time, by the app's clock
                self.event.wait(min(wait_ms / 1000, IDLE_S))
                continue
            with hooks.database():
                body = hooks.body(row)  # a competition's message reads its state now (D282)
            outcome = hooks.send(sub, row, body)  # outside the database: a slow endpoint holds only this worker
            with hooks.database():
                hooks.store.record(sub, row.cursor, outcome, int(hooks.clock()))
            hooks.recorded()
