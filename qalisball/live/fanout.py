"""What one committed event sends over Socket.IO, encoded once for everyone (issue 15, bench/README.md).

Four audiences per match, each a Socket.IO room (``room``):

- spectators as API.md describes them (``join`` with ``{"match": id}``): ``event`` then ``state``;
- spectators that opt in (``"updates": true``): one ``update`` message, usually a small patch of the
  previous state (docs/api-extras.md "One message per change");
- officials (``join`` with their match token) in either form, with the state's ``legal``, which
  spectators do not get (~6 KB of a ~7.5 KB state: only the consoles grey calls with it).

Every message's JSON is made once per change (``Encoded``), and the Socket.IO packet around it by
string concatenation (``PreEncodedPacket``), so nothing is encoded per socket; across processes the
same ``Encoded`` objects travel through Redis (Flask-SocketIO's ``message_queue``) as they are.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import logging
import os
import secrets
from collections import deque
from collections.abc import Iterator
from typing import Any

import socketio as python_socketio
from socketio import packet as sio_packet

# A patch is sent instead of the whole state when it is at most this share of the state's size.
PATCH_AT_MOST = 0.5

Patch = list[list[Any]]  # [[path (list of keys), new value], ...]


def room(match_id: str, *, official: bool = False, updates: bool = False) -> str:
    """The Socket.IO room of one audience of a match (the bare id is API.md's spectators)."""
    return match_id + ("/officials" if official else "") + ("/updates" if updates else "")


def dumps(data: Any) -> str:
    """JSON as python-socketio writes it (compact), UTF-8 left as is (fewer bytes for Chinese names)."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def public_view(state: dict[str, Any]) -> dict[str, Any]:
    """The state as spectators get it: without ``legal`` (only officials' consoles use it)."""
    return {k: v for k, v in state.items() if k != "legal"}


class Encoded:
    """A Socket.IO message's argument, already JSON: emitted as ``socketio.emit(name, Encoded(...))``.

    ``kind``/``match_id``/``seq`` let a spectator process (qalisball/server/follower.py) keep the latest public
    state it has relayed, to answer ``join`` without asking the writer. Picklable (Redis carries it).
    """

    __slots__ = ("text", "kind", "match_id", "seq")

    def __init__(self, text: str, kind: str = "", match_id: str = "", seq: int = 0) -> None:
        self.text, self.kind, self.match_id, self.seq = text, kind, match_id, seq

    def __getstate__(self) -> tuple[str, str, str, int]:
        return (self.text, self.kind, self.match_id, self.seq)

    def __setstate__(self, st: tuple[str, str, str, int]) -> None:
        self.text, self.kind, self.match_id, self.seq = st

    def __repr__(self) -> str:
        return f"Encoded({self.kind or 'message'} {self.match_id}#{self.seq}, {len(self.text)} chars)"


class PreEncodedPacket(sio_packet.Packet):
    """python-socketio's packet class (``SocketIO(serializer=…)``) that writes an ``Encoded`` argument as is.

    python-socketio already encodes a room's packet once; this takes the JSON out of it as well
    (and out of every process behind the message queue). Other packets encode as usual.
    """

    def encode(self) -> Any:
        data = self.data
        if (
            self.packet_type == sio_packet.EVENT
            and self.id is None
            and isinstance(data, list)
            and len(data) == 2
            and isinstance(data[1], Encoded)
        ):
            ns = "" if self.namespace in (None, "/") else self.namespace + ","
            return "2" + ns + "[" + json.dumps(data[0]) + "," + data[1].text + "]"
        return super().encode()


class QueueJSON:
    """The JSON of the messages between processes (python-socketio's Redis manager): ``Encoded`` travels as is."""

    @staticmethod
    def dumps(data: Any) -> str:
        return json.dumps(data, default=_encoded_to_json, separators=(",", ":"), ensure_ascii=False)

    @staticmethod
    def loads(text: str | bytes) -> Any:
        return json.loads(text, object_hook=_encoded_from_json)


def _encoded_to_json(o: Any) -> Any:
    if isinstance(o, Encoded):
        return {"__qalisball_encoded__": [o.text, o.kind, o.match_id, o.seq]}
    raise TypeError(f"{type(o).__name__} is not JSON serialisable")


def _encoded_from_json(d: dict[str, Any]) -> Any:
    if len(d) == 1 and "__qalisball_encoded__" in d:
        return Encoded(*d["__qalisball_encoded__"])
    return d


CHANNEL = "flask-socketio"  # Flask-SocketIO's default channel name
KEY_ENV = "QALISBALL_CLUSTER_KEY"
KEY_MIN_CHARS = 32
REPLAY_WINDOW = 100_000  # a sender's messages remembered (by number) to refuse one sent again

_log = logging.getLogger("qalisball.queue")


class SignedQueueJSON:
    """The messages between processes, signed (D143): what a process cannot verify is dropped unread.

    Each message goes out as ``<HMAC-SHA256 hex>.<JSON>``, the JSON being ``{"from": sender, "n": number,
    "m": message}``: the key is the cluster's (``QALISBALL_CLUSTER_KEY``, shared by its processes), the
    sender a random id of this process, ``n`` counts its messages. A message with a wrong or missing
    signature, or one of a sender's numbers seen before (a replay), or far below its newest (an old one),
    is refused: python-socketio's listener then ignores it (it drops what ``loads`` cannot read).
    """

    def __init__(self, key: str) -> None:
        self._key = key.encode()
        self.sender = secrets.token_hex(8)
        self._numbers = itertools.count(1)
        self._seen: dict[str, tuple[int, set[int], deque[int]]] = {}  # sender -> (newest, recent set, their order)
        self.refused = 0

    def _mac(self, body: bytes) -> str:
        return hmac.new(self._key, body, hashlib.sha256).hexdigest()

    def dumps(self, data: Any) -> str:
        body = QueueJSON.dumps({"from": self.sender, "n": next(self._numbers), "m": data})
        return self._mac(body.encode()) + "." + body

    def loads(self, text: str | bytes) -> Any:
        raw = text if isinstance(text, bytes) else text.encode()
        mac, dot, body = raw.partition(b".")
        if not dot or not hmac.compare_digest(mac, self._mac(body).encode()):
            return self._refuse("a message without a valid signature")
        envelope = QueueJSON.loads(body)
        if not self._first_time(str(envelope["from"]), int(envelope["n"])):
            return self._refuse("a signed message sent again")
        return envelope["m"]

    def _first_time(self, sender: str, n: int) -> bool:
        newest, recent, order = self._seen.setdefault(sender, (0, set(), deque()))
        if n in recent or n <= newest - REPLAY_WINDOW:
            return False
        recent.add(n)
        order.append(n)
        while len(order) > REPLAY_WINDOW:
            recent.discard(order.popleft())
        self._seen[sender] = (max(newest, n), recent, order)
        return True

    def _refuse(self, what: str) -> Any:
        self.refused += 1
        if self.refused == 1 or self.refused % 1000 == 0:
            _log.warning("message queue: dropped %s (%d so far): another process on the channel?", what, self.refused)
        raise ValueError(what)


def cluster_key(key: str | None = None) -> str:
    """The cluster's signing key (``QALISBALL_CLUSTER_KEY``): at least 32 characters, or the process refuses to start."""
    key = key if key is not None else os.environ.get(KEY_ENV, "")
    if len(key) < KEY_MIN_CHARS:
        raise SystemExit(
            f"a message queue needs {KEY_ENV}: the same secret of at least {KEY_MIN_CHARS} characters in every process"
            " of the cluster (`make run-cluster` generates one); messages that do not carry its signature are dropped (D143)"
        )
    return key


def _fast(manager: Any, event: str, data: Any, namespace: str | None, room: Any, skip_sid: Any, callback: Any) -> bool:
    """Send an ``Encoded`` room message with fastws (gevent) when the manager may; False: the usual way."""
    if not manager.fast or not isinstance(data, Encoded) or not isinstance(room, str) or callback or skip_sid:
        return False
    from qalisball.live import fastws

    namespace = namespace or "/"
    if namespace in manager.rooms:
        fastws.fan_out(manager, event, data, namespace, room)
    return True


class LocalManager(python_socketio.Manager):  # type: ignore[misc]
    """python-socketio's manager for one process; under gevent, ``Encoded`` room messages go by fastws."""

    fast = False  # set by the app factory once fastws is installed (gevent)

    def emit(self, event: str, data: Any, namespace: str, room: Any = None, skip_sid: Any = None, callback: Any = None,
             to: Any = None, **kwargs: Any) -> Any:  # fmt: skip
        if _fast(self, event, data, namespace, to or room, skip_sid, callback):
            return None
        return super().emit(event, data, namespace, room=room, skip_sid=skip_sid, callback=callback, to=to, **kwargs)


class QueueManager(python_socketio.RedisManager):  # type: ignore[misc]
    """Flask-SocketIO's ``message_queue`` on Redis, carrying ``Encoded`` messages (several processes, D92)."""

    fast = False

    def __init__(self, url: str, key: str | None = None, **kwargs: Any) -> None:
        self.signed = SignedQueueJSON(cluster_key(key))
        super().__init__(url, channel=CHANNEL, json=self.signed, **kwargs)

    def set_server(self, server: Any) -> None:
        super().set_server(server)
        self.json = self.signed  # python-socketio puts its packets' JSON module here: keep ours (signed, D143)

    def _handle_emit(self, message: dict[str, Any]) -> None:
        """A message from any process (this one included) to this process's clients."""
        data = message.get("data")
        if isinstance(data, list) and len(data) == 1:
            cb = message.get("callback")
            if _fast(self, message["event"], data[0], message.get("namespace"), message.get("room"), message.get("skip_sid"), cb):
                return
        super()._handle_emit(message)


def diff(old: Any, new: Any, path: tuple[Any, ...] = ()) -> Iterator[list[Any]]:
    """[path, value] for every value of ``new`` that differs from ``old``.

    Goes into objects that have the same keys in both; anything else (a list, a value, an object that
    gained or lost keys) is replaced whole at its path, so applying a patch never deletes a key.
    """
    if isinstance(old, dict) and isinstance(new, dict) and old.keys() == new.keys():
        for k, v in new.items():
            if old[k] != v or type(old[k]) is not type(v):  # 1 == True in Python, not in JSON
                yield from diff(old[k], v, (*path, k))
    elif old != new or type(old) is not type(new):
        yield [list(path), new]


def apply_patch(state: dict[str, Any], patch: Patch) -> dict[str, Any]:
    """``state`` with ``patch`` applied (a new object; ``state`` is not changed). Clients do the same in JS."""
    out: dict[str, Any] = json.loads(json.dumps(state))
    for path, value in patch:
        if not path:
            return dict(value)
        node = out
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return out


class Fanout:
    """Makes the messages of one change; remembers the last public state of each match for patches."""

    def __init__(self) -> None:
        self._last: dict[str, dict[str, Any]] = {}

    def forget(self, match_id: str) -> None:
        self._last.pop(match_id, None)

    def messages(
        self, match_id: str, entry: dict[str, Any], state: dict[str, Any], officials: bool = True
    ) -> Iterator[tuple[str, Encoded, str, bool]]:
        """(event name, argument, room, to every process) to emit, in order, for the committed ``entry`` and its ``state``.

        The spectators' messages come first and are made from the state without ``legal``; the officials'
        (the whole state, ~7.5 KB of JSON) are only encoded once those are out, and only when ``officials``
        (someone is in the match's officials' rooms here): the spectators never wait for it (issue 29 item 5).
        Officials' messages stay in the writer's process (the last element is False): in a cluster the
        consoles are connected to it (docs/deploy.md), so the ~7 KB states with ``legal`` need not cross Redis.
        """
        seq = int(state["seq"])
        public = public_view(state)
        entry_text = dumps(entry)
        public_text = dumps(public)
        update_text = '{"seq":' + str(seq) + ',"event":' + entry_text
        prev = self._last.get(match_id)
        self._last[match_id] = public
        patch_text = None
        if prev is not None and prev.get("seq") == seq - 1:
            patch_text = dumps(list(diff(prev, public)))
            if len(patch_text) > PATCH_AT_MOST * len(public_text):
                patch_text = None
        if patch_text:
            public_update = update_text + ',"base":' + str(seq - 1) + ',"patch":' + patch_text + "}"
        else:
            public_update = update_text + ',"state":' + public_text + "}"
        event = Encoded(entry_text, "event", match_id, seq)
        # API.md's spectators: the entry, then the state (without `legal`).
        yield ("event", event, room(match_id), True)
        yield ("state", Encoded(public_text, "public_state", match_id, seq), room(match_id), True)
        # Spectators that take one message per change.
        yield ("update", Encoded(public_update, "public_update", match_id, seq), room(match_id, updates=True), True)
        if not officials:
            return
        # Officials: the whole state, `legal` included (a handful of consoles: no patches).
        full_text = dumps(state)
        official_update = update_text + ',"state":' + full_text + "}"
        yield ("event", event, room(match_id, official=True), False)
        yield ("state", Encoded(full_text, "state", match_id, seq), room(match_id, official=True), False)
        yield ("update", Encoded(official_update, "update", match_id, seq), room(match_id, official=True, updates=True), False)
