"""The officials' consoles connected now, per match (API.md "Match day", Devices).

A console joins its match's Socket.IO room with its role token and a device label the official sets
on the tablet; it then reports how many calls wait unsent in its queue (``status``). The registry
keeps one entry per Socket.IO connection, forgotten when the connection closes or the role's token
is revoked. The referee's console and the organiser's officials page read it
(``GET /api/matches/<id>/devices``) to see who is connected, with what waiting, and to notice two
tablets on one role.

It lives in the memory of this server process: with several processes sharing a message queue,
each lists the consoles connected to it (the Socket.IO server keeps a connection on one process).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from qalisball.rules.catalogue import ROLES
from qalisball.web.services import Slot

DEVICE_MAX = 40  # characters of a device label
QUEUED_MAX = 100_000  # a queue size beyond this is not a console's


@dataclass
class Console:
    """One connected console: its match, role and label, and what it last said."""

    sid: str
    match: str
    role: str
    device: str
    connected_at: int  # server ms
    last_seen: int
    queued: int = 0

    def public(self) -> dict[str, Any]:
        return {
            "role": self.role,
            "device": self.device,
            "connected_at": _iso(self.connected_at),
            "last_seen": _iso(self.last_seen),
            "queued": self.queued,
        }


class DeviceRegistry:
    """Consoles by Socket.IO session id; thread-safe (handlers run on several greenlets or threads)."""

    def __init__(self) -> None:
        self._by_sid: dict[str, Console] = {}
        self._lock = threading.Lock()

    def join(self, sid: str, match: str, role: str, device: str, now: int, queued: int | None = None) -> Console:
        """A console joined (or joined again: the console re-joins every 30 s; its first join time stays)."""
        with self._lock:
            seen = self._by_sid.get(sid)
            if seen is not None and seen.match == match and seen.role == role:
                seen.device, seen.last_seen = device, now
                if queued is not None:
                    seen.queued = queued
                return seen
            entry = Console(sid, match, role, device, now, now, queued or 0)
            self._by_sid[sid] = entry
            return entry

    def status(self, sid: str, now: int, queued: int | None = None, device: str | None = None) -> bool:
        """A console's report (``status``); False when this connection is not a known console."""
        with self._lock:
            entry = self._by_sid.get(sid)
            if entry is None:
                return False
            entry.last_seen = now
            if queued is not None:
                entry.queued = queued
            if device:
                entry.device = device
            return True

    def leave(self, sid: str) -> None:
        with self._lock:
            self._by_sid.pop(sid, None)

    def consoles(self, match: str) -> list[Console]:
        """The consoles of ``match``, by role (the catalogue's order), then by when they connected."""
        with self._lock:
            found = [c for c in self._by_sid.values() if c.match == match]
        order = {r: i for i, r in enumerate(ROLES)}
        return sorted(found, key=lambda c: (order.get(c.role, len(order)), c.connected_at, c.sid))

    def forget_role(self, match: str, role: str) -> list[str]:
        """Forget the consoles of ``role`` in ``match`` (its token was revoked); their session ids."""
        with self._lock:
            gone = [sid for sid, c in self._by_sid.items() if c.match == match and c.role == role]
            for sid in gone:
                del self._by_sid[sid]
        return gone


def listing(registry: DeviceRegistry, match: str) -> list[dict[str, Any]]:
    """API.md's list: ``[{"role", "device", "connected_at", "last_seen", "queued"}]``."""
    return [c.public() for c in registry.consoles(match)]


def clean_device(value: Any) -> str:
    """A device label as shown to others: a short single line (never trusted as markup)."""
    text = " ".join(str(value).split()) if isinstance(value, str) else ""
    return text[:DEVICE_MAX]


def clean_queued(value: Any) -> int | None:
    """A queue size a console reported, or None when it is not a plausible one."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= QUEUED_MAX:
        return None
    return value


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="seconds")


DEVICES: Slot[DeviceRegistry] = Slot("qalisball_devices")


def devices() -> DeviceRegistry:
    """The officials' consoles connected now (API.md "Match day")."""
    return DEVICES()
