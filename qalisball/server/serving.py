"""What ``app.py`` needs around the app (issue 14): the start-up text, and a connection handler that bounds
what one client can hold.

**Start-up text** (D48). The links that carry a token (the organiser's pages, the demo match's consoles)
are printed only to a terminal: when the output goes to a file or a service's journal, the same links
are printed without their tokens, and the text says where the organiser token is. Role tokens exist in
clear only when a match is created, so only a demo match created at this start-up has console links.
"""

from __future__ import annotations

import contextlib
import socket

from flask import Flask

from qalisball.competitions import slots as competition_slots
from qalisball.match import slots as match_slots
from qalisball.match.service import Match


def lan_address() -> str:
    """This machine's address on its network, for the printed links when serving on all interfaces."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.255.255.255", 1))  # UDP: nothing is sent
        return str(probe.getsockname()[0])
    except OSError:
        return "127.0.0.1"
    finally:
        probe.close()


def startup_text(app: Flask, base: str, demo: Match | None, secrets_shown: bool, admin_from_env: bool) -> str:
    """The text ``app.py`` prints once at start-up; ``secrets_shown``: the output is a terminal."""
    svc = match_slots.MATCHES.of(app)
    admin = app.config["ADMIN_TOKEN"]
    lines = [f"Qalisball Live on {base}/  (database {app.config['DATABASE']})"]
    for damage in [svc.problem, *svc.lost.values()]:
        if damage is not None:
            lines.append(f"!! {damage.message}")
    for m in svc.matches.values():
        if m.damaged is not None:
            lines.append(f"!! match {m.id} is read-only: {m.damaged.message}")
    if secrets_shown:
        lines.append(f"Organiser token: {admin}")
        lines.append(f"  matches     {base}/?token={admin}")
    else:
        where = "the QALISBALL_ADMIN_TOKEN you set" if admin_from_env else f"{app.instance_path}/admin_token"
        lines.append(f"Organiser token: not printed (this output is not a terminal); it is {where}")
        lines.append(f"  matches     {base}/  (open it once with ?token=<organiser token>)")
    for m in svc.matches.values():
        lines.append("")
        lines.append(f"Match {m.id}: {m.setup.home.name} – {m.setup.away.name}")
        lines.append(f"  spectators  {base}/matches/{m.id}")
        lines.append(f"  scoreboard  {base}/matches/{m.id}/scoreboard")
        officials = f"{base}/matches/{m.id}/officials"
        lines.append(f"  QR codes    {officials}?token={admin}" if secrets_shown else f"  QR codes    {officials}")
        lines.append(f"  report      {base}/matches/{m.id}/report")
        if secrets_shown and demo is not None and m.id == demo.id:
            for role, token in m.tokens.items():
                lines.append(f"  {role:<11} {base}/matches/{m.id}/referee?token={token}")
    comps = competition_slots.COMPETITIONS.find(app)
    for c in comps.competitions.values() if comps is not None else []:
        lines.append("")
        lines.append(f"Competition {c.id}: {c.name}")
        lines.append(f"  public      {base}/competitions/{c.id}")
        lines.append(f"  big screen  {base}/competitions/{c.id}/screen")
        admin_page = f"{base}/competitions/{c.id}/admin"
        lines.append(f"  organiser   {admin_page}?token={admin}" if secrets_shown else f"  organiser   {admin_page}")
        lines.append(f"  standings   {base}/competitions/{c.id}/standings")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# The connection handler (D52)

# The kernel keeps at most this much unsent data per connection (Linux doubles it): a client that does
# not read holds ~256 KB, not the megabytes of an auto-tuned buffer.
SEND_BUFFER = 128 * 1024
_REFUSAL_TEXT = b"too many connections from this address (D52)\n"
REFUSAL = (
    b"HTTP/1.1 429 Too Many Requests\r\nContent-Type: text/plain; charset=utf-8\r\nRetry-After: 10\r\n"
    b"Connection: close\r\nContent-Length: " + str(len(_REFUSAL_TEXT)).encode() + b"\r\n\r\n" + _REFUSAL_TEXT
)


class ConnectionLimits:
    """Open connections per client address, capped (0: no cap). One per server; used from greenlets."""

    def __init__(self, per_address: int) -> None:
        self.per_address = per_address
        self.open: dict[str, int] = {}
        self.refused = 0

    def acquire(self, address: str) -> bool:
        if self.per_address and self.open.get(address, 0) >= self.per_address:
            self.refused += 1
            return False
        self.open[address] = self.open.get(address, 0) + 1
        return True

    def release(self, address: str) -> None:
        left = self.open.get(address, 1) - 1
        if left:
            self.open[address] = left
        else:
            self.open.pop(address, None)


# An over-the-cap connection is read only this long for its request (a health check, D141), then closed.
OVER_CAP_TIMEOUT = 5.0
# The read buffer of each connection (pywsgi's default is io.DEFAULT_BUFFER_SIZE, 8 KB, held for the whole
# life of a websocket): a spectator only ever sends pings and a join, a request's head fits, a larger body is
# read in more chunks (issue 29 item 4, bench/memory_bench.py).
READ_BUFFER = 1024
HEALTH_CHECK = "/healthz"


def handler_class(io_timeout: float, per_address: int) -> type:
    """gevent-websocket's handler, bounded: a per-address cap, a socket timeout, a small send buffer, keepalive.

    The timeout (longer than Engine.IO's ping interval plus its timeout) applies to every read and
    write of the connection: a client that stops reading cannot block a write for longer, a half-open
    socket (a phone gone out of range) is closed, and an idle keep-alive connection too.

    A connection over the cap is not counted; its request is read (for at most ``OVER_CAP_TIMEOUT`` s)
    and answered 429, except a health check (``GET /healthz``), which is never refused (D141): a proxy
    whose checks were refused would take the whole process out of its pool.
    """
    import socket

    from geventwebsocket.handler import WebSocketHandler

    limits = ConnectionLimits(per_address)

    class BoundedHandler(WebSocketHandler):  # type: ignore[misc]
        over_cap = False

        def __init__(self, sock: socket.socket, address: object, server: object) -> None:
            super().__init__(sock, address, server, rfile=sock.makefile("rb", READ_BUFFER))

        def handle(self) -> None:
            address = str(self.client_address[0] if isinstance(self.client_address, tuple) else self.client_address)
            self.over_cap = not limits.acquire(address)
            try:
                _tune(self.socket, OVER_CAP_TIMEOUT if self.over_cap else io_timeout)
                super().handle()
            finally:
                if not self.over_cap:
                    limits.release(address)

        def handle_one_response(self) -> None:
            if self.over_cap:
                self.close_connection = True  # one answer, then closed: an uncounted connection never lingers
                if self.command != "GET" or self.path.split("?", 1)[0] != HEALTH_CHECK:
                    with contextlib.suppress(OSError):
                        self.socket.sendall(REFUSAL)
                    return
            super().handle_one_response()
            if self.over_cap:
                self.close_connection = True

        def run_websocket(self) -> None:
            # The upgrade request's parsed headers (an email Message, ~1 KB) are in the environ by now; nothing
            # reads them again during a websocket's life (issue 29 item 4, bench/memory_bench.py).
            self.headers = None
            try:
                super().run_websocket()
            finally:
                _reset_if_unsent(self.socket)

        def get_environ(self) -> dict[str, object]:
            environ: dict[str, object] = super().get_environ()
            # Live.broadcast closes a websocket client that cannot keep up through this (D52).
            environ["qalisball.connection"] = self.socket
            return environ

    def _tune(sock: socket.socket, timeout: float) -> None:
        sock.settimeout(timeout)
        for level, option, value in (
            (socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER),
            (socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1),
            (socket.IPPROTO_TCP, getattr(socket, "TCP_KEEPIDLE", 0), 30),
            (socket.IPPROTO_TCP, getattr(socket, "TCP_KEEPINTVL", 0), 10),
            (socket.IPPROTO_TCP, getattr(socket, "TCP_KEEPCNT", 0), 3),
        ):
            if option:
                with contextlib.suppress(OSError):
                    sock.setsockopt(level, option, value)

    BoundedHandler.limits = limits
    return BoundedHandler


def _reset_if_unsent(sock: object) -> None:
    """A websocket that ends with data its client never took: let its close reset the connection.

    A plain close would leave the kernel trying to deliver that data (an orphan socket holding its
    buffer for minutes); with SO_LINGER 0 the close sends RST and the memory is freed at once.
    """
    import fcntl
    import socket
    import struct
    import termios

    try:
        fileno = sock.fileno()  # type: ignore[attr-defined]
        unsent = struct.unpack("i", fcntl.ioctl(fileno, termios.TIOCOUTQ, b"\0\0\0\0"))[0]
        if unsent > 0:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # type: ignore[attr-defined]
    except (OSError, ValueError, AttributeError):
        pass
