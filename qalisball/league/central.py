"""The central server of a league (issue 31, SPEC L1–L3): venues, and what each sends (``ingest``).

A venue sends its feed's messages (the journal's ``match`` and ``competition`` rows) in cursor order, in
batches: ``{"after": <the cursor the venue believes the central holds>, "after_digest", "messages": [...]}``.
Each message is the journal row as the venue stored it (``cursor``, ``kind``, ``subject``, ``body``); a match
message also carries its log entry as the venue's store holds it (``entry``: every column its hash covers, its
``prev_hash``, ``hash`` and ``rulings``) and, for a match's first entry, the match itself (``match``:
``created_at`` and ``setup``, its chain's genesis).

A batch is stored only if it continues exactly what the central holds from that venue (L3, D371):

- ``after`` is the venue's last message held (or earlier, for messages already held: each must be the one held,
  byte for byte: a re-sent batch is acknowledged, never stored twice), and the venue's own digest of its message
  at ``after`` is the central's: a venue database restored from an older copy that stored new calls is a fork;
- a match message continues that match's chain as held: its seq the next one, its ``prev_hash`` the head held
  (the genesis hash for a match's first entry), its ``hash`` its own (``integrity.row_hash``);
- a match is written by one venue: another venue's match, or the central's own, is refused.

A competition message of the venue's own competitions (created there, not the league's) carries, the last of its
batch, the competition's records as the venue holds them (``records``, ``upstream.py``): the central holds that copy
(``league_competitions``) and its competitions show it as their own, read-only (D379); a venue writes only its own
competitions, teams and officials, and its competition names only its own matches.

Anything else is a 409 ``conflict`` naming the cursor held, checked for the whole batch before anything is
stored: nothing of it is. What is stored is the entry as received, rulings included: the central folds the
stored rulings and never decides a venue's call (L2, ``MatchService.ruled_step``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from qalisball.match.service import LogEntry, Match, MatchService, RuledStep
from qalisball.rules import rulings as ruled
from qalisball.rules.setup import build_setup
from qalisball.rules.state import MatchSetup, MatchState
from qalisball.storage import integrity
from qalisball.storage import tokens as key_tokens

log = logging.getLogger(__name__)

KINDS = ("match", "competition")  # the feed's (API.md "The feed"): what a venue sends
MAX_BATCH = 500
MIN_KEY = 32


class Copies(Protocol):
    """What the central asks of its competitions to hold a venue's own competitions read-only (issue 31 item 2,
    D379): the composition root hands the competitions' ``LeagueDesk`` (D321)."""

    def read_copy(self, comp_id: str, records: Any) -> Any:
        """The venue's competition as it sent it, checked (``ValueError``: not one); ``.names()`` and ``.records``."""
        ...

    def holds(self, kind: str, record_id: str) -> bool: ...

    def competition_of_match(self, match_id: str) -> str | None: ...

    def hold(self, copy: Any) -> None: ...


class Refused(Exception):
    """The batch does not continue what the central holds (409 ``conflict``): nothing of it was stored."""

    def __init__(self, message: str, cursor: int) -> None:
        super().__init__(message)
        self.message, self.cursor = message, cursor


class BadBatch(Exception):
    """The batch is not one (400 ``invalid``), naming the field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field, self.message = field, message


def digest(message: dict[str, Any]) -> str:
    """What a message is, to compare it with one held: its cursor, kind, subject, body and entry (not the header,
    which the entry's chain proves)."""
    keep = {k: message.get(k) for k in ("cursor", "kind", "subject", "body", "entry")}
    return hashlib.sha256(integrity.canonical(keep)).hexdigest()


def entry_wire(e: LogEntry) -> dict[str, Any]:
    """A log entry as a venue sends it: what its hash covers, its chain, its rulings (never its stored answer)."""
    return {
        "match_id": e.match_id,
        "seq": e.seq,
        "type": e.type,
        "fields": e.fields,
        "by": e.by,
        "at_ms": e.at_ms,
        "received_at": e.received_at,
        "received_ms": e.received_ms,
        "id": e.key,
        "prev_hash": e.prev_hash,
        "hash": e.hash,
        "body_hash": e.body_hash,
        "response": e.response,
        "seal": e.seal,
        "rulings": None if e.rulings is None else [ruled.to_json(r) for r in e.rulings],
    }


def entry_of_wire(d: Any) -> LogEntry:
    """The log entry a venue sent (``BadBatch`` when it is not one)."""
    if not isinstance(d, dict):
        raise BadBatch("entry", "a match message carries its log entry")
    try:
        rulings = d["rulings"]
        return LogEntry(
            match_id=str(d["match_id"]),
            seq=_int(d["seq"]),
            type=str(d["type"]),
            fields=dict(d["fields"]),
            by=str(d["by"]),
            at_ms=None if d["at_ms"] is None else _int(d["at_ms"]),
            received_at=str(d["received_at"]),
            received_ms=_int(d["received_ms"]),
            key=None if d["id"] is None else str(d["id"]),
            prev_hash=str(d["prev_hash"]),
            hash=str(d["hash"]),
            body_hash=None if d["body_hash"] is None else str(d["body_hash"]),
            response=None if d["response"] is None else str(d["response"]),
            seal=str(d["seal"]),
            rulings=None if rulings is None else tuple(ruled.from_json(r) for r in rulings),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise BadBatch("entry", f"not a log entry ({exc})") from exc


def _int(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ValueError(f"{v!r} is not an integer")
    return v


@dataclass
class Venue:
    id: str
    name: str
    key_hash: str
    created_at: str
    cursor: int = 0  # the venue's feed cursor of the last message held
    digest: str | None = None
    last_seen: str | None = None
    last_message_ms: int | None = None

    def public(self, matches: int, now_ms: int) -> dict[str, Any]:
        behind = None if self.last_message_ms is None else max(0, (now_ms - self.last_message_ms) // 1000)
        out = {"id": self.id, "name": self.name, "last_seen": self.last_seen, "matches": matches, "behind_s": behind}
        if not self.key_hash:  # its key revoked and none issued since (D380)
            out["key_revoked"] = True
        return out


@dataclass
class _Planned:
    """One new message of a batch, checked, with what storing it needs."""

    message: dict[str, Any]
    cursor: int
    digest: str
    header: tuple[str, dict[str, Any]] | None = None  # (created_at, setup): a match new here
    step: RuledStep | None = None
    copy: Any = None  # a venue's own competition as it sent it (D379): held read-only once stored
    journal: tuple[str, str, dict[str, Any]] | None = None  # the competition's message in the central's own journal


@dataclass
class _Chain:
    """A match's chain as it stands while a batch is checked (before anything is stored)."""

    setup: MatchSetup
    log: list[LogEntry]
    head: str
    seal: str  # the stored answers' chain (integrity.seal_hash): rulings included
    state: MatchState | None = None  # what the log folds to (None: a match new here, folded from its start)


class Central:
    """The central's side of the league: venues (keys hashed), what they sent, the matches they write."""

    def __init__(self, svc: MatchService, copies: Copies | None = None) -> None:
        self.svc, self.store, self.copies = svc, svc.store, copies
        self._lock = threading.RLock()  # one batch at a time: each is checked against what is held, then stored
        self.venues: dict[str, Venue] = {}
        self.match_venue: dict[str, str] = {}  # match id -> the venue that writes it (L1)
        # A venue's own competitions held here (D379): competition id -> its venue; ("team" | "official", id) -> venue.
        self.competition_venue: dict[str, str] = {}
        self.record_venue: dict[tuple[str, str], str] = {}
        self.revoked: dict[str, tuple[str, str]] = {}  # a revoked key's hash -> (its venue, when) (D380)
        self.adopted: list[Callable[[str], None]] = []  # told of each venue's match newly held (a league fixture's, L4)
        self._reader: sqlite3.Connection | None = None

    def load(self) -> None:
        """Read the venues, their matches and competitions (at start-up, under the composition root's D42 guard)."""
        if "league_venues" not in self.store.db.table_names():
            return  # a database that cannot be read: nothing of the league either
        for r in self.store.db.query("SELECT * FROM league_venues ORDER BY created_at"):
            last_ms = _ms(r["last_message_at"]) if r["last_message_at"] else None
            v = Venue(r["id"], r["name"], r["key_hash"], r["created_at"], r["cursor"], r["digest"], r["last_seen"], last_ms)
            self.venues[v.id] = v
        for r in self.store.db.query("SELECT match_id, venue_id FROM league_matches"):
            self.match_venue[r["match_id"]] = r["venue_id"]
        if "league_revoked_keys" in self.store.db.table_names():
            for r in self.store.db.query("SELECT key_hash, venue_id, revoked_at FROM league_revoked_keys"):
                self.revoked[r["key_hash"]] = (r["venue_id"], r["revoked_at"])
        if self.copies is None or "league_competitions" not in self.store.db.table_names():
            return
        for r in self.store.db.query(
            "SELECT competition_id, venue_id, records FROM league_competitions ORDER BY venue_id, cursor"
        ):
            try:
                copy = self.copies.read_copy(r["competition_id"], json.loads(r["records"]))
            except ValueError as exc:  # checked when it arrived: only another version's reading could refuse it now
                log.error("venue %s's competition %s cannot be shown: %s", r["venue_id"], r["competition_id"], exc)
                continue
            self._held_copy(r["venue_id"], copy)

    def forget(self) -> None:
        """Nothing of the league is held (its tables could not be read: D42)."""
        self.venues.clear()
        self.match_venue.clear()
        self.competition_venue.clear()
        self.record_venue.clear()
        self.revoked.clear()

    def _held_copy(self, venue_id: str, copy: Any) -> None:
        assert self.copies is not None
        names = copy.names()
        self.competition_venue[copy.competition.id] = venue_id
        for kind in ("team", "official"):
            for record_id in names[kind]:
                self.record_venue[(kind, record_id)] = venue_id
        self.copies.hold(copy)

    # -- venues -----------------------------------------------------------------------------------

    def add_venue(self, name: str) -> tuple[Venue, str]:
        """A new venue and its key (shown once: only its hash is kept)."""
        key = "qlv_" + secrets.token_urlsafe(32)
        v = Venue("v_" + secrets.token_hex(6), name, key_tokens.hash_token(key), _iso(self.svc.clock()))

        def change() -> list[tuple[str, tuple[Any, ...]]]:
            self.store.db.execute(
                "INSERT INTO league_venues (id, name, key_hash, created_at) VALUES (?, ?, ?, ?)",
                [v.id, v.name, v.key_hash, v.created_at],
            )
            return [("league_venues", (v.id,))]

        with self._lock:
            self.store.write_records("league_venue_created", change)
            self.venues[v.id] = v
        return v, key

    def venue_of_key(self, key: str | None) -> Venue | None:
        for v in self.venues.values():
            if v.key_hash and key_tokens.matches(key, v.key_hash):
                return v
        return None

    def revoked_key(self, key: str | None) -> tuple[Venue, str] | None:
        """The venue whose key ``key`` was, and when it was revoked (D380), or None."""
        for key_hash, (venue_id, at) in self.revoked.items():
            if key_tokens.matches(key, key_hash) and venue_id in self.venues:
                return self.venues[venue_id], at
        return None

    def revoke_key(self, v: Venue, reissue: bool) -> str | None:
        """Revoke the venue's key (D380): from now on it writes and reads nothing here and is told why; with
        ``reissue`` a new key (shown once, its hash kept) takes its place. What the venue sent stays as it is."""
        at = _iso(self.svc.clock())
        key = "qlv_" + secrets.token_urlsafe(32) if reissue else None
        new_hash = key_tokens.hash_token(key) if key is not None else ""
        old_hash = v.key_hash

        def change() -> list[tuple[str, tuple[Any, ...]]]:
            if old_hash:
                self.store.db.execute(
                    "INSERT INTO league_revoked_keys (key_hash, venue_id, revoked_at) VALUES (?, ?, ?)", [old_hash, v.id, at]
                )
            self.store.db.execute("UPDATE league_venues SET key_hash = ? WHERE id = ?", [new_hash, v.id])
            return [("league_venues", (v.id,)), *([("league_revoked_keys", (old_hash,))] if old_hash else [])]

        with self._lock:
            self.store.write_records("league_venue_key_revoked", change)
            if old_hash:
                self.revoked[old_hash] = (v.id, at)
            v.key_hash = new_hash
        return key

    def listing(self) -> list[dict[str, Any]]:
        counts: dict[str, int] = {}
        for venue_id in self.match_venue.values():
            counts[venue_id] = counts.get(venue_id, 0) + 1
        now = self.svc.clock()
        return [v.public(counts.get(v.id, 0), now) for v in self.venues.values()]

    def seen(self, v: Venue) -> None:
        v.last_seen = _iso(self.svc.clock())  # kept in memory per request; stored with each batch that stores something

    def held(self, v: Venue) -> dict[str, Any]:
        return {"cursor": str(v.cursor), "digest": v.digest}

    # -- ingest (L3) ------------------------------------------------------------------------------

    def ingest(self, v: Venue, batch: Any) -> dict[str, Any]:
        """Check a venue's batch whole, then store its new messages in order; what is held afterwards."""
        if not isinstance(batch, dict):
            raise BadBatch("_schema", "a batch is an object {after, after_digest, messages}")
        after = _cursor(batch.get("after"), "after")
        messages = batch.get("messages")
        if not isinstance(messages, list) or len(messages) > MAX_BATCH:
            raise BadBatch("messages", f"a list of at most {MAX_BATCH} messages")
        with self._lock:
            self.seen(v)
            planned = self._check(v, after, batch.get("after_digest"), messages)
            for p in planned:
                self._store(v, p)
            for p in planned:
                if p.header is not None:  # a match new here: a league fixture may count it now (L4)
                    for told in self.adopted:
                        try:
                            told(str(p.message["subject"]))
                        except Exception:  # the batch is stored; the fixture counts it at the venue's next claim
                            log.exception("a league fixture could not count match %s", p.message["subject"])
            return {**self.held(v), "stored": len(planned)}

    def _check(self, v: Venue, after: int, after_digest: Any, messages: list[Any]) -> list[_Planned]:
        held = v.cursor
        if after > held:
            raise Refused(f"the batch continues cursor {after}; the central holds this venue's messages up to {held}", held)
        if after > 0 and after_digest != self._digest_at(v.id, after):
            raise Refused(
                f"the venue's message at cursor {after} is not the one the central holds: the venue's record forked "
                "(a database restored from an older copy?); nothing was stored",
                held,
            )
        prev = after
        chains: dict[str, _Chain] = {}
        # The venue's competitions this batch brings records of (D379): each of their messages joins the central's journal.
        copied = {
            str(m.get("subject"))
            for m in messages
            if isinstance(m, dict) and m.get("kind") == "competition" and m.get("records") is not None
        }
        planned: list[_Planned] = []
        for i, message in enumerate(messages):
            if not isinstance(message, dict):
                raise BadBatch(f"messages.{i}", "a message is an object")
            cursor = _cursor(message.get("cursor"), f"messages.{i}.cursor")
            if cursor <= prev:
                raise BadBatch(f"messages.{i}.cursor", "cursors only grow within a batch")
            prev = cursor
            kind, subject, body = message.get("kind"), message.get("subject"), message.get("body")
            if kind not in KINDS or not isinstance(subject, str) or not isinstance(body, str):
                raise BadBatch(f"messages.{i}", "a message has a kind (match, competition), a subject and a body")
            d = digest(message)
            if cursor <= held:  # sent before: it must be the one held (an acknowledged batch sent again)
                if self._digest_at(v.id, cursor) != d:
                    raise Refused(f"the message at cursor {cursor} is not the one the central holds: nothing was stored", held)
                continue
            p = _Planned(message, cursor, d)
            if kind == "match":
                self._plan_match(v, p, subject, chains)
            else:
                self._plan_competition(v, p, i, subject, copied)
            planned.append(p)
        return planned

    def _plan_competition(self, v: Venue, p: _Planned, i: int, subject: str, copied: set[str]) -> None:
        """A venue's own competition (D379): written by that venue only; with its records, held read-only here."""
        held = v.cursor
        if self.copies is None:
            return
        self._owned_by(v, "competition", subject, self.competition_venue.get(subject))
        records = p.message.get("records")
        if records is not None:
            try:
                p.copy = self.copies.read_copy(subject, records)
            except ValueError as exc:
                raise BadBatch(f"messages.{i}.records", str(exc)) from exc
            names = p.copy.names()
            for kind in ("team", "official"):
                for record_id in names[kind]:
                    self._owned_by(v, kind, record_id, self.record_venue.get((kind, record_id)))
            for match_id in names["match"]:
                owner = self.match_venue.get(match_id)
                if (owner is not None and owner != v.id) or (owner is None and match_id in self.svc.matches):
                    raise Refused(f"competition {subject} names match {match_id}, which is not this venue's", held)
        if subject in copied or self.competition_venue.get(subject) == v.id:
            body = json.loads(str(p.message["body"]))
            if isinstance(body, dict):  # the venue's message, in the central's journal under the central's cursor
                p.journal = ("competition", subject, {k: x for k, x in body.items() if k not in ("v", "cursor")})

    def _owned_by(self, v: Venue, kind: str, record_id: str, owner: str | None) -> None:
        """A record a venue's batch writes is that venue's: never the central's own, nor another venue's (L1)."""
        assert self.copies is not None
        if owner is not None and owner != v.id:
            raise Refused(f"{kind} {record_id} is another venue's: a venue key writes only its own", v.cursor)
        if owner is None and self.copies.holds(kind, record_id):
            raise Refused(f"{kind} {record_id} is the central's own: a venue key writes only its own", v.cursor)

    def _plan_match(self, v: Venue, p: _Planned, subject: str, chains: dict[str, _Chain]) -> None:
        held = v.cursor
        entry = entry_of_wire(p.message.get("entry"))
        if entry.match_id != subject:
            raise BadBatch("entry", "the entry's match is the message's subject")
        owner = self.match_venue.get(subject)
        if owner is not None and owner != v.id:
            raise Refused(f"match {subject} is another venue's: a venue key writes only its own matches", held)
        named_by = self.copies.competition_of_match(subject) if self.copies is not None else None
        if named_by is not None and self.competition_venue.get(named_by, v.id) != v.id:
            raise Refused(f"match {subject} is another venue's competition's: a venue key writes only its own", held)
        chain = chains.get(subject)
        if chain is None:
            m = self.svc.matches.get(subject)
            if m is not None and owner is None:
                raise Refused(f"match {subject} is the central's own: a venue key writes only its own matches", held)
            if m is not None:
                chain = _Chain(m.setup, list(m.log), m.head, (m.log[-1].seal or "") if m.log else m.head, m.state)
            else:
                header = p.message.get("match")
                if entry.seq != 1 or not isinstance(header, dict):
                    raise Refused(f"match {subject} is not held here: its messages from its first entry on are missing", held)
                created_at, setup_data = header.get("created_at"), header.get("setup")
                if not isinstance(created_at, str) or not isinstance(setup_data, dict):
                    raise BadBatch("match", "a match's first entry comes with its created_at and setup")
                try:
                    setup = build_setup(setup_data)
                except (KeyError, TypeError, ValueError) as exc:
                    raise BadBatch("match.setup", f"not a match's setup ({exc})") from exc
                genesis = integrity.genesis_hash(subject, created_at, setup_data)
                chain = _Chain(setup, [], genesis, genesis)
                p.header = (created_at, setup_data)
            chains[subject] = chain
        seq = chain.log[-1].seq if chain.log else 0
        if entry.seq != seq + 1:
            raise Refused(f"match {subject}: entry {entry.seq} does not follow seq {seq} held: nothing was stored", held)
        if entry.prev_hash != chain.head or integrity.row_hash(entry, chain.head) != entry.hash:
            raise Refused(
                f"match {subject}: entry {entry.seq} does not continue the chain held (altered, or a fork): nothing was stored",
                held,
            )
        if integrity.seal_hash(chain.seal, entry) != entry.seal:
            raise Refused(
                f"match {subject}: entry {entry.seq}'s rulings or answer are not what its venue sealed: nothing was stored",
                held,
            )
        try:
            body = json.loads(str(p.message["body"]))
            stored = body if isinstance(body, dict) else {}
            p.step = self.svc.ruled_step(subject, chain.setup, chain.log, entry, chain.state, stored)
        except ValueError as exc:
            raise Refused(f"match {subject}: {exc}", held) from exc
        chain.log, chain.head, chain.seal, chain.state = p.step.log, str(entry.hash), str(entry.seal), p.step.state

    def _store(self, v: Venue, p: _Planned) -> None:
        """One checked message, in one transaction with the venue's cursor (the match's entry with it)."""
        at = _iso(self.svc.clock())
        kind, subject = str(p.message["kind"]), str(p.message["subject"])

        def rows(db: Any, *_: Any) -> None:
            db.execute(
                "INSERT INTO league_messages (venue_id, cursor, kind, subject, digest, body, received_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [v.id, p.cursor, kind, subject, p.digest, json.dumps(p.message, ensure_ascii=False), at],
            )
            db.execute(
                "UPDATE league_venues SET cursor = ?, digest = ?, last_seen = ?, last_message_at = ? WHERE id = ?",
                [p.cursor, p.digest, v.last_seen, at, v.id],
            )

        if kind == "match":
            assert p.step is not None
            m = self._match_of(v, subject, p.header)
            self.svc.store_ruled(m, p.step, also=rows)
        else:

            def change() -> list[tuple[str, tuple[Any, ...]]]:
                rows(self.store.db)
                if p.copy is None:
                    return []
                self.store.db.execute(
                    "INSERT INTO league_competitions (competition_id, venue_id, records, cursor) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (competition_id) DO UPDATE SET records = excluded.records, cursor = excluded.cursor",
                    [subject, v.id, json.dumps(p.copy.records, ensure_ascii=False), p.cursor],
                )
                return [("league_competitions", (subject,))]

            self.store.write_records("league_message", change, p.journal)
            if p.copy is not None:
                self._held_copy(v.id, p.copy)
        v.cursor, v.digest, v.last_message_ms = p.cursor, p.digest, _ms(at)

    def _match_of(self, v: Venue, match_id: str, header: tuple[str, dict[str, Any]] | None) -> Match:
        if match_id not in self.match_venue:

            def change() -> list[tuple[str, tuple[Any, ...]]]:
                self.store.db.execute("INSERT INTO league_matches (match_id, venue_id) VALUES (?, ?)", [match_id, v.id])
                return [("league_matches", (match_id,))]

            self.store.write_records("league_match_adopted", change)  # first: a match here is never taken for the central's own
            self.match_venue[match_id] = v.id
        m = self.svc.matches.get(match_id)
        if m is None:
            assert header is not None
            m = self.svc.adopt(match_id, header[0], header[1])
        return m

    def _digest_at(self, venue_id: str, cursor: int) -> str | None:
        row = (
            self._read()
            .execute("SELECT digest FROM league_messages WHERE venue_id = ? AND cursor = ?", [venue_id, cursor])
            .fetchone()
        )
        return None if row is None else str(row[0])

    def _read(self) -> Any:
        """A connection of our own to read what was committed (the store's may be inside another write)."""
        path = self.store.path
        if path == ":memory:" or path.startswith("file:"):
            return self.store.db.conn
        if self._reader is None:
            self._reader = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        return self._reader

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None


def _cursor(value: Any, field: str) -> int:
    if isinstance(value, str) and value.isdigit() and len(value) < 19:
        return int(value)
    raise BadBatch(field, "a cursor (a string of digits)")


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds")


def _ms(iso: str) -> int:
    return int(datetime.fromisoformat(iso).timestamp() * 1000)
