"""One writer for every live feed stream (issue 30 item 1, D363): 1,000 readers must not slow the officials.

A stream (``GET /api/feed``, api.py) first catches up by itself from its client's cursor, reading the journal as
before. Once it holds everything the hub has handled, it hands its connection to the hub and waits; the hub, one
journal reader (``Journal.follow``), encodes each message once (its SSE text and its HTTP chunk) and writes the
same bytes to every live stream whose filter keeps it, with one non-blocking ``send`` each: no greenlet per
stream wakes, no per-stream copy of the message, and the writer's commit wakes one waiter (the hub) instead of
a thousand (``threading.Condition.notify_all`` costs ~8 µs a waiter: 8 ms of every referee's POST with 1,000
streams, measured in bench/feed_bench.py).

A stream whose socket would block (a reader that stopped reading, a slow link) is handed back at once: its
greenlet writes the rest of the chunk (blocking, under the connection's timeout) and catches up from the
journal by itself from its cursor, as a stream resuming would, then joins again. The hub never waits for a
reader. A connection that is gone (the send fails) ends its stream. Keep-alive comments come from one timer for
every live stream (``keepalive_s``): a stream that got nothing since the last tick gets one.

Only under gevent (the server ``make run`` starts): streams and the hub run in one OS thread, so a stream's
check "I hold everything the hub has handled" and its joining happen with no switch between them. Elsewhere (the
threading server of tests) every stream keeps the catch-up loop of api.py.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import Any

import gevent
from gevent.event import Event

from qalisball.storage.journal import Row

log = logging.getLogger("qalisball.feed")


def chunk(text: str) -> bytes:
    """``text`` as one chunk of HTTP/1.1's chunked transfer coding (RFC 9112 7.1), as pywsgi writes a yield."""
    data = text.encode("utf-8")
    return b"%x\r\n%s\r\n" % (len(data), data)


KEEPALIVE = chunk(": keep-alive\n\n")


class Stream:
    """One live stream: its connection, its filter, the last cursor it was given."""

    __slots__ = ("raw", "keep", "cursor", "back", "rest", "gone", "quiet")

    def __init__(self, raw: Any, keep: Callable[[Row], bool], cursor: int) -> None:
        self.raw = raw  # the OS socket (non-blocking under gevent)
        self.keep = keep
        self.cursor = cursor
        self.back = Event()  # set when the hub hands the stream back
        self.rest = b""  # what the hub could not write of its last chunk
        self.gone = False  # the connection failed
        self.quiet = True  # nothing written since the last keep-alive tick

    def send(self, data: bytes) -> int:
        """Write ``data`` without blocking; how much was written (-1: the connection is gone)."""
        try:
            return int(self.raw.send(data))
        except BlockingIOError:
            return 0
        except OSError:
            return -1


class Hub:
    """The live streams of one server and the journal reader that writes to them."""

    def __init__(self, text: Callable[[Row], str], cursor: int, keepalive_s: float) -> None:
        self.text = text  # a row's SSE text (api.py's ``_text``: the same as a catching-up stream writes)
        self.cursor = cursor  # the last row handled
        self.keepalive_s = keepalive_s
        self.streams: list[Stream] = []
        self._ticker: Any = None

    def join(self, raw: Any, keep: Callable[[Row], bool], cursor: int) -> Stream | None:
        """A stream that holds every row up to ``cursor`` goes live; None: the hub is ahead of it (read on)."""
        if cursor < self.cursor:
            return None
        stream = Stream(raw, keep, cursor)
        self.streams.append(stream)
        if self._ticker is None:
            self._ticker = gevent.spawn(self._keepalives)
        return stream

    def leave(self, stream: Stream) -> None:
        """The stream's request ends (its client went away while it waited, a server stopping)."""
        with contextlib.suppress(ValueError):
            self.streams.remove(stream)
        stream.back.set()

    def deliver(self, row: Row) -> None:
        """A journal reader's callback: ``row`` to every live stream that keeps it, encoded once."""
        self.cursor = row.cursor
        data: bytes | None = None
        handed: list[Stream] = []
        for stream in self.streams:
            if row.cursor <= stream.cursor or not stream.keep(row):
                continue
            if data is None:
                data = chunk(self.text(row))
            sent = stream.send(data)
            stream.cursor = row.cursor
            if sent == len(data):
                stream.quiet = False
                continue
            if sent < 0:
                stream.gone = True
            else:
                stream.rest = data[sent:]
            handed.append(stream)
        for stream in handed:
            self.leave(stream)

    def _keepalives(self) -> None:
        while True:
            gevent.sleep(self.keepalive_s)
            handed = []
            for stream in self.streams:
                if stream.quiet:
                    sent = stream.send(KEEPALIVE)
                    if sent != len(KEEPALIVE):
                        stream.gone = sent < 0
                        stream.rest = KEEPALIVE[sent:] if sent >= 0 else b""
                        handed.append(stream)
                stream.quiet = True
            for stream in handed:
                self.leave(stream)
