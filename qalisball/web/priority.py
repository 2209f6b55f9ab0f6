"""The officials' writes come first (issue 33, D240): readers are bounded, and wait while a write is under way.

Every request is served by the one event loop (gevent) that also carries the officials' writes; a read
that takes the loop for milliseconds is harmless alone, but 16 of them in a row stand between a referee's
POST and each point where that POST waits (its body, the write's thread, its answer): 1.0–1.4 s measured
(bench/officials_under_load.py). ``ReaderGate`` wraps the whole WSGI app:

- at most ``readers`` reads (``GET``/``HEAD``/``OPTIONS``) run at once; the others wait, parked, costing
  the loop nothing, and are woken one per place freed (D292), never all to let one in;
- while a write (any other method) is under way, no read starts: the write then shares the loop with at
  most the ``readers`` reads already running. A read waits for writes at most ``patience_s``, so a flood of
  writes slows reads but never stops them;
- writes are never held, and the live connections (``/socket.io/``) and health checks pass untouched.

Which requests are the officials' (D290, the review of issue 33): with ``official`` (the app's
``officials_of``: a valid organiser or role token in the ``Authorization`` header or a cookie), only an
official's write holds reads, and only once its body is in (a body trickled a byte a second by anyone held
every read for the patience); an official's read never waits behind the crowd's; everything else (reads, and
writes without an official's token, their bodies read first) shares the ``readers`` places.

``threading.Condition`` is gevent's own once app.py has patched the standard library, so a waiting read is a
parked greenlet; under the threading server it is a parked thread.
"""

from __future__ import annotations

import hmac
import io
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from werkzeug.http import parse_cookie

from qalisball.storage.tokens import hash_token, usable
from qalisball.web.credentials import HOST_PREFIX, ORGANISER_COOKIE, ROLE_COOKIE_PREFIX

READERS = 2  # reads at once (bench/officials_under_load.py: the referee's POST under 16 readers)
PATIENCE_S = 1.0  # the longest a read waits for writes to finish before it starts anyway
READS = frozenset({"GET", "HEAD", "OPTIONS"})
UNGATED = ("/socket.io", "/healthz")
YIELD_S = 0.0005  # a read let in after waiting first goes back to the loop this long (a timer: see enter_read)
BODY_READ_MAX = 256 * 1024  # a write's body the gate reads before counting it (the app's MAX_CONTENT_LENGTH)


class ReaderGate:
    """WSGI middleware: reads bounded to ``readers`` at once, and held while a write is under way."""

    def __init__(self, app: Callable[..., Iterable[bytes]], readers: int = READERS, patience_s: float = PATIENCE_S,
                 clock: Callable[[], float] = time.monotonic,
                 official: Callable[[dict[str, Any]], bool] | None = None) -> None:  # fmt: skip
        self.app, self.readers, self.patience_s, self.clock = app, readers, patience_s, clock
        self.official = official  # None: every write is an official's, every read anyone's
        self.cond = threading.Condition()
        self.reading = 0  # reads running now
        self.writing = 0  # writes running now
        self.writes: list[float] = []  # when each of them started (D291)
        self.waited = 0  # reads that had to wait (for tests and benchmarks)

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path = str(environ.get("PATH_INFO") or "")
        if self.readers <= 0 or path.startswith(UNGATED):
            return self.app(environ, start_response)
        read = str(environ.get("REQUEST_METHOD") or "GET").upper() in READS
        official = not read if self.official is None else self.official(environ)
        if not read and not _read_body(environ):
            return self.app(environ, start_response)  # a body too long or chunked: the app refuses it, never held
        if not official:  # the crowd's reads and writes share the places, and wait while an official writes
            self.enter_read()
            try:
                return self.app(environ, start_response)
            finally:
                self.leave_read()
        if read:  # an official's read: never behind the crowd's (D290)
            return self.app(environ, start_response)
        with self.cond:
            self.writing += 1
            started = self.clock()
            self.writes.append(started)
        try:
            return self.app(environ, start_response)
        finally:
            with self.cond:
                self.writing -= 1
                self.writes.remove(started)
                self.cond.notify(max(0, self.readers - self.reading))  # as many as there are places (D292)

    def holding_until(self) -> float:
        """Until when the writes under way hold reads: each for ``patience_s`` from its start (D291), so a
        write that waits long (a locked database: 2 s, then 503) does not hold every read a patience anew."""
        return max(self.writes) + self.patience_s if self.writes else 0.0

    def enter_read(self) -> None:
        with self.cond:
            deadline = self.clock() + self.patience_s
            held = self.reading >= self.readers or self.clock() < min(deadline, self.holding_until())
            if held:
                self.waited += 1
            while self.reading >= self.readers or self.clock() < min(deadline, self.holding_until()):
                left = min(deadline, self.holding_until()) - self.clock()
                self.cond.wait(left if left > 0 else None)
            self.reading += 1
        if held:
            # Woken by a read that ended, as a callback of the loop: gevent runs up to 50 such callbacks
            # before it looks at its sockets again, so reads handing their place on to each other would keep
            # a referee's request unread for seconds. A timer resumes this read after the loop has looked.
            time.sleep(YIELD_S)

    def leave_read(self) -> None:
        # One place freed, one parked read woken (D292): notify_all switched to every parked greenlet per read
        # to let one in. A woken read that finds the place taken (a read that came meanwhile) or reads held
        # parks again; whoever took the place wakes the next one when it leaves, and a held read wakes itself
        # when its wait for the writes runs out.
        with self.cond:
            self.reading -= 1
            self.cond.notify(1)


def _read_body(environ: dict[str, Any]) -> bool:
    """Read a write's whole body before the gate counts it (D290): False (nothing read) when it is chunked or
    longer than ``BODY_READ_MAX`` (the app answers 413 or reads nothing); a client gone half-way leaves a
    short body, which the app answers 400."""
    raw = str(environ.get("CONTENT_LENGTH") or "").strip()
    if not raw:
        return "chunked" not in str(environ.get("HTTP_TRANSFER_ENCODING") or "").lower()
    if not raw.isdigit() or int(raw) > BODY_READ_MAX:
        return False
    stream = environ.get("wsgi.input")
    try:
        body = stream.read(int(raw)) if stream is not None and int(raw) else b""
    except (OSError, ValueError):
        body = b""
    environ["wsgi.input"] = io.BytesIO(body)
    return True


TOKENS_LOOKED_AT = 8  # the most tokens of one request ``officials_of`` checks (a request may send many cookies)


def officials_of(app: Any) -> Callable[[dict[str, Any]], bool]:
    """Whether a request carries a valid organiser or match role token, in its ``Authorization`` header or a
    cookie (``credentials.py``'s names): the gate's ``official`` (D290). A cookie counts without its CSRF
    token (the gate only orders requests; the routes still check them)."""

    def official(environ: dict[str, Any]) -> bool:
        found: list[str] = []
        header = str(environ.get("HTTP_AUTHORIZATION") or "")
        if header.startswith("Bearer "):
            found.append(header[len("Bearer ") :].strip())
        cookies = str(environ.get("HTTP_COOKIE") or "")
        if cookies and (ORGANISER_COOKIE in cookies or ROLE_COOKIE_PREFIX in cookies):
            for name, value in parse_cookie(cookies).items(multi=True):
                name = name.removeprefix(HOST_PREFIX)
                if name == ORGANISER_COOKIE or name.startswith(ROLE_COOKIE_PREFIX):
                    found.append(value)
        tokens = [t for t in (usable(v) for v in found[:TOKENS_LOOKED_AT]) if t is not None]
        if not tokens:
            return False
        admin = str(app.config.get("ADMIN_TOKEN") or "").encode("utf-8")
        if admin and any(hmac.compare_digest(t.encode(), admin) for t in tokens):
            return True
        hashes = {hash_token(t) for t in tokens}
        svc = app.extensions.get("qalisball")
        for m in list(svc.matches.values()) if svc is not None else []:
            if any(stored in hashes for stored in m.token_hashes.values()):
                return True
        return False

    return official


def install(app: Any, readers: int = READERS) -> ReaderGate:
    """Wrap ``app``'s WSGI app (Socket.IO's middleware inside) in a ``HandshakeBudget`` (D243), then outermost
    in a ``ReaderGate`` (D240) that knows the officials' requests (D290); returns the gate."""
    hops = int(app.config.get("PROXY_HOPS") or 0)
    # One address's handshakes at once: as many as it may hold connections (D52's cap, 100 by default), so
    # 0 (no cap: behind a proxy that caps, or a load test from one address) bounds no handshake either.
    burst = int(app.config.get("HANDSHAKE_BURST", app.config.get("MAX_CONNECTIONS_PER_ADDRESS", HANDSHAKE_BURST)))
    if burst > 0:
        app.wsgi_app = HandshakeBudget(app.wsgi_app, burst, hops=hops)
    gate = ReaderGate(app.wsgi_app, readers, official=officials_of(app))
    app.wsgi_app = gate
    return gate


# ---------------------------------------------------------------------------------------------
# Engine.IO handshakes per address (issue 33.13, D243)

HANDSHAKE_BURST = 100  # handshakes one address may open at once (D52's connections per address)
HANDSHAKE_EVERY_S = 0.25  # then one more this often: each session lives a ping cycle (~25 s) unless used
_HANDSHAKE_REFUSAL = b"too many new live connections from this address: try again in a few seconds\n"


class HandshakeBudget:
    """WSGI middleware: Engine.IO handshakes (a ``/socket.io/`` request without ``sid``) per client address.

    Each handshake makes a session the server keeps for a ping cycle even if the client never comes back
    (6,000 polling handshakes in 10 s took the memory from 120 to 201 MB): an address gets a bucket of
    ``burst`` handshakes that refills one every ``every_s``; past it, 429 before Engine.IO sees the request.
    Behind ``hops`` proxies the address is the one they forwarded (as D50's throttle sees it).
    """

    def __init__(self, app: Callable[..., Iterable[bytes]], burst: int = HANDSHAKE_BURST, every_s: float = HANDSHAKE_EVERY_S,
                 hops: int = 0, clock: Callable[[], float] = time.monotonic) -> None:  # fmt: skip
        self.app, self.burst, self.every_s, self.hops, self.clock = app, burst, every_s, hops, clock
        self._level: dict[str, tuple[float, float]] = {}  # address -> (handshakes in the bucket, at)
        self._lock = threading.Lock()
        self.refused = 0

    def address(self, environ: dict[str, Any]) -> str:
        forwarded = [a.strip() for a in str(environ.get("HTTP_X_FORWARDED_FOR") or "").split(",") if a.strip()]
        if self.hops and len(forwarded) >= self.hops:
            return forwarded[-self.hops]
        return str(environ.get("REMOTE_ADDR") or "?")

    def take(self, address: str) -> bool:
        now = self.clock()
        with self._lock:
            level, at = self._level.get(address, (0.0, now))
            level = max(0.0, level - max(0.0, now - at) / self.every_s)
            if level + 1 > self.burst:
                self._level[address] = (level, now)
                self.refused += 1
                return False
            self._level[address] = (level + 1, now)
            if len(self._level) > 10_000:  # forget the addresses whose bucket has drained
                drained = self.burst * self.every_s
                self._level = {a: v for a, v in self._level.items() if now - v[1] < drained}
            return True

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if (
            str(environ.get("PATH_INFO") or "").startswith("/socket.io")
            and "sid=" not in str(environ.get("QUERY_STRING") or "")
            and not self.take(self.address(environ))
        ):
            headers = [("Content-Type", "text/plain; charset=utf-8"), ("Retry-After", "5"),
                       ("Content-Length", str(len(_HANDSHAKE_REFUSAL)))]  # fmt: skip
            start_response("429 Too Many Requests", headers)
            return [_HANDSHAKE_REFUSAL]
        return self.app(environ, start_response)
