"""Matches in memory, kept equal to the replay of their logs.

The API's handlers call ``MatchService``; it checks idempotency keys and ``expected_seq``, asks the
rule engine, commits the event to the store, and only then changes the in-memory state. At start-up
every match is rebuilt from its log, so a killed server loses nothing it answered.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from qalisball.match.envelope import ParsedEvent
from qalisball.rules import corrections, engine
from qalisball.rules.catalogue import ROLES, may_log
from qalisball.rules.errors import N_, RuleViolation
from qalisball.rules.legal import duplicate_windows
from qalisball.rules.setup import build_setup
from qalisball.rules.state import MatchSetup, MatchState, initial_state
from qalisball.rules.view import public_state
from qalisball.storage import integrity
from qalisball.storage import tokens as role_tokens
from qalisball.storage.integrity import Damage
from qalisball.storage.store import LogEntry, StorageError, Store

# Called after an event is committed: (match id, the log entry as API.md shows it, the new public state).
Publisher = Callable[[str, dict[str, Any], dict[str, Any]], None]


class NotFound(Exception):
    """No such match or event (404)."""


class Forbidden(Exception):
    """The role may not log this event (403, API.md's "who" column)."""


class Conflict(Exception):
    """An idempotency key reused with another body, or a stale ``expected_seq`` (409 conflict)."""


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass
class Match:
    id: str
    data: dict[str, Any]  # the validated creation request, defaults filled in
    setup: MatchSetup
    token_hashes: dict[str, str]  # what the database keeps of the role tokens (tokens.py)
    created_at: str
    log: list[LogEntry] = field(default_factory=list)
    state: MatchState | None = None
    by_key: dict[tuple[str, str], LogEntry] = field(default_factory=dict)  # (role, idempotency key) already used
    # The role tokens this process made (at creation, or issued again): the officials' page shows these;
    # after a restart it offers to issue new ones (D47).
    tokens: dict[str, str] = field(default_factory=dict)
    head: str = ""  # the hash chain's head: the last row's hash (the genesis hash before any event)
    damaged: Damage | None = None  # why this match's log cannot be trusted: shown read-only (D42)

    @property
    def seq(self) -> int:
        return self.log[-1].seq if self.log else 0

    def role_of(self, token: str | None) -> str | None:
        for role, stored in self.token_hashes.items():
            if role_tokens.matches(token, stored):
                return role
        return None


@dataclass
class Accepted:
    status: int  # 201, or 200 for a repeated idempotency key
    body: dict[str, Any]
    entry: LogEntry | None  # None when nothing new was stored
    state: dict[str, Any]


class MatchService:
    def __init__(self, store: Store, clock: Callable[[], int] = now_ms) -> None:
        self.store = store
        self.clock = clock
        self.matches: dict[str, Match] = {}
        self._lock = threading.RLock()
        self._publishers: list[Publisher] = []
        self._load()

    def subscribe(self, publisher: Publisher) -> None:
        """Call ``publisher`` after every committed event (Socket.IO, competitions, tests listening)."""
        self._publishers.append(publisher)

    def _publish(self, match_id: str, entry: LogEntry, state: dict[str, Any]) -> None:
        public = entry.public()
        for publisher in self._publishers:
            publisher(match_id, public, state)

    def role_for_any_match(self, token: str) -> str | None:
        """The role this token officiates in some match, if any (to answer 403 rather than 401)."""
        for m in self.matches.values():
            role = m.role_of(token)
            if role is not None:
                return role
        return None

    @staticmethod
    def authorise(role: str, body: Any) -> None:
        """API.md's "who" column, from the event catalogue; raises ``Forbidden`` (403).

        Runs on the raw body, before validation, as API.md orders the checks; unknown types pass
        (the schema refuses them with a 400).
        """
        if not isinstance(body, dict) or not isinstance(body.get("type"), str):
            return
        kind = body["type"]
        variant = body.get("kind") if kind == "violation" else body.get("color") if kind == "card" else body.get("action")
        if not may_log(role, kind, variant):
            raise Forbidden(f"the {role} may not log a {kind}")

    def _load(self) -> None:
        """Rebuild every match from its log, checking the database, each chain and the acknowledgements (D40–D42).

        Nothing here stops the server: a damaged match is served read-only, as far as its log is
        proven, with the reason on every screen; a match the database lost is listed in ``lost``.
        """
        self.problem: Damage | None = self.store.problem  # the whole database is read-only
        self.lost: dict[str, Damage] = {}  # acknowledged matches the database no longer has (or cannot read)
        try:
            rows = self.store.match_rows()
        except sqlite3.DatabaseError as exc:
            rows = []
            self.problem = self.problem or Damage(
                N_("the list of matches cannot be read ({error}): restore the latest backup"), {"error": str(exc)}
            )
        read: list[tuple[Match, str, list[LogEntry], Damage | None]] = []
        for row in rows:
            try:
                read.append(self._read(row))
            except (sqlite3.DatabaseError, ValueError, TypeError, KeyError) as exc:
                self.lost[str(row.get("id"))] = Damage(
                    N_("match {match} cannot be read from the database ({error}): restore the latest backup"),
                    {"match": row.get("id"), "error": str(exc)},
                )
        found = self.store.acks.scan({m.id: [genesis, *(e.hash or "" for e in log)] for m, genesis, log, _ in read})
        for m, genesis, log, unreadable in read:
            check = integrity.check_chain(m.id, genesis, log, found.get(m.id))
            m.damaged = unreadable or check.damage
            m.log, m.head = _prefix(log, check.proven), check.head
            self._replay(m, genesis)
            self.matches[m.id] = m
        self.lost.update(integrity.missing_matches(found, [str(r.get("id")) for r in rows]))

    def _read(self, row: dict[str, Any]) -> tuple[Match, str, list[LogEntry], Damage | None]:
        """A match as stored, its genesis hash and its rows (or why they cannot be read)."""
        setup_data = json.loads(row["setup"])
        m = Match(row["id"], setup_data, build_setup(setup_data), json.loads(row["tokens"]), row["created_at"])
        genesis = integrity.genesis_hash(m.id, m.created_at, setup_data)
        try:
            return m, genesis, self.store.events(m.id), None
        except (sqlite3.DatabaseError, ValueError) as exc:
            return m, genesis, [], Damage(N_("the match's events cannot be read ({error})"), {"error": str(exc)})

    def _replay(self, m: Match, genesis: str) -> None:
        """The state of the proven log; a sound chain the rules refuse (a log written by other software) is cut there."""
        while True:
            try:
                m.state = engine.replay(m.setup, m.log)
                break
            except engine.ReplayError as exc:
                m.damaged = m.damaged or Damage(
                    N_("event {seq} of the log breaks the rules ({cause})"), {"seq": exc.seq, "cause": str(exc.cause)}
                )
                m.log = _prefix(m.log, exc.seq - 1)
                m.head = (m.log[-1].hash or "") if m.log else genesis
        m.by_key = {(e.by, e.key): e for e in m.log if e.key is not None}

    def damage(self, m: Match) -> Damage | None:
        """Why writes to ``m`` are refused and every screen of it says so (the match's or the database's)."""
        return m.damaged or self.problem

    def _refuse_if_damaged(self, m: Match | None = None) -> None:
        damage = self.damage(m) if m is not None else self.problem
        if damage is not None:
            what = "the match" if m is not None else "the database"
            raise StorageError(503, "damaged", f"nothing was stored: {what} is read-only because {damage.message}")

    # -- matches -------------------------------------------------------------------------------

    def create(self, data: dict[str, Any]) -> Match:
        self._refuse_if_damaged()
        match_id = uuid.uuid4().hex[:12]
        tokens = {role: role_tokens.new_token() for role in ROLES}
        hashes = {role: role_tokens.hash_token(t) for role, t in tokens.items()}
        created = datetime.now(UTC).isoformat(timespec="microseconds")  # orders the list, as after a restart
        setup = build_setup(data)
        with self._lock:
            genesis = self.store.add_match(match_id, data, hashes, created)
            m = Match(match_id, data, setup, hashes, created, state=initial_state(setup), tokens=tokens, head=genesis)
            self.matches[match_id] = m
        return m

    def issue_token(self, m: Match, role: str) -> str:
        """A new token for ``role`` (API.md "Match day"): the old one stops working at once."""
        self._refuse_if_damaged(m)
        token = role_tokens.new_token()
        with self._lock:
            self.store.set_token_hash(m.id, role, role_tokens.hash_token(token))
            m.token_hashes = {**m.token_hashes, role: role_tokens.hash_token(token)}
            m.tokens = {**m.tokens, role: token}
        return token

    def get(self, match_id: str) -> Match:
        m = self.matches.get(match_id)
        if m is None:
            raise NotFound(f"no match {match_id}")
        return m

    def state(self, m: Match, legal: bool = True) -> dict[str, Any]:
        """The public state now (API.md); ``legal=False`` without the officials' ``legal`` (lists, screens)."""
        assert m.state is not None
        state = public_state(m.state, self.clock(), m.id, m.seq, legal=legal)
        _with_duplicates(state, m.log)
        damage = self.damage(m)
        if damage is not None:
            state["damaged"] = damage.message  # only when damaged (docs/api-extras.md)
        return state

    def summary(self, m: Match) -> dict[str, Any]:
        s = self.state(m, legal=False)
        extra = {"damaged": s["damaged"]} if "damaged" in s else {}  # only when damaged
        return {
            "id": m.id,
            "home": m.setup.home.name,
            "away": m.setup.away.name,
            "venue": m.data.get("venue", ""),
            "starts_at": m.data.get("starts_at"),
            "phase": s["phase"],
            "score": s["score"],
            "winner": s["winner"],
            "created_at": m.created_at,
            **extra,
        }

    # -- events --------------------------------------------------------------------------------

    def submit(self, m: Match, role: str, body: dict[str, Any], parsed: ParsedEvent, dry_run: bool = False) -> Accepted:
        """Apply one validated event: conflict checks, rules, commit, then the in-memory state.

        With ``dry_run`` everything is checked and the resulting state answered, but nothing is
        stored or published (SPEC M3).
        """
        body_hash = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
        assert m.state is not None
        engine.check_references(m.state, parsed.event)  # 400 comes before 409 conflict (API.md)
        self._refuse_if_damaged(m)
        with self._lock:
            self._check_exists(m, parsed)  # 404 before 409
            seen = m.by_key.get((role, parsed.key)) if parsed.key is not None else None
            if seen is not None:
                if seen.body_hash != body_hash:
                    raise Conflict(f"idempotency key {parsed.key!r} was used for another event (seq {seen.seq})")
                return Accepted(200, json.loads(seen.response or "{}"), None, self.state(m))
            if parsed.expected_seq is not None and parsed.expected_seq != m.seq:
                raise Conflict(f"expected_seq {parsed.expected_seq} is not the current seq {m.seq}")
            now = self.clock()
            state = m.state
            at_ms = parsed.at_ms if parsed.at_ms is not None else engine.game_time(state, now)
            first = corrections.duplicate_of(m.log, role, parsed.type, parsed.fields, at_ms)
            if first is not None:  # M4: the same call from a second official: not an error, nothing stored
                current = self.state(m)
                return Accepted(200, {"duplicate_of": first.seq, "by": first.by, "state": current}, None, current)
            seq = m.seq + 1
            entry = LogEntry(
                match_id=m.id,
                seq=seq,
                type=parsed.type,
                fields=parsed.event.fields(),
                by=role,
                at_ms=at_ms,
                received_at=datetime.fromtimestamp(now / 1000, UTC).isoformat(timespec="milliseconds"),
                received_ms=now,
                key=parsed.key,
            )
            try:
                if parsed.type in corrections.CORRECTIONS:
                    new_state, log = engine.correct(state, m.log, entry)
                else:
                    new_state, log = engine.apply(state, parsed.event, now, parsed.at_ms), m.log
            except RuleViolation as exc:
                self._say_where_a_late_call_fits(m, exc, parsed.at_ms)
                raise
            state_json = _with_duplicates(public_state(new_state, now, m.id, seq), [*log, entry])
            if dry_run:
                return Accepted(200, {"dry_run": True, "state": state_json}, None, state_json)
            answer = {"seq": seq, "state": state_json}
            if parsed.key is not None:
                entry = _replace(entry, body_hash=body_hash, response=json.dumps(answer, ensure_ascii=False))
            entry = self.store.append(entry)  # committed (and chained) before anything answers or is published
            m.log = [*log, entry]
            m.state = new_state
            m.head = entry.hash or m.head
            if entry.key is not None:
                m.by_key[(role, entry.key)] = entry
            self._publish(m.id, entry, state_json)
            return Accepted(201, answer, entry, state_json)

    @staticmethod
    def _say_where_a_late_call_fits(m: Match, exc: RuleViolation, at_ms: int | None) -> None:
        """M1 with M3: a call stamped before the last one is refused with the seq after which the referee
        may insert it at its own time (``fits_after``, docs/api-extras.md). The engine marks such a refusal
        ``late_call``; the engine also says where it fits, so the web layer needs no road of its own into the rules."""
        if exc.details.pop("late_call", False) and at_ms is not None:
            exc.details["fits_after"] = engine.insert_point(m.setup, m.log, at_ms)

    @staticmethod
    def _check_exists(m: Match, parsed: ParsedEvent) -> None:
        """The event a void or amend targets, an insert follows, or a note is about, must be in the log (404)."""
        wanted = parsed.fields.get("target") if parsed.type in ("void", "amend") else None
        if parsed.type == "insert" and parsed.fields["after"] != 0:
            wanted = parsed.fields["after"]
        if parsed.type == "note":
            wanted = parsed.fields.get("about")  # a note about no event would point at nothing in the report
        if wanted is not None and not any(e.seq == wanted for e in m.log):
            raise NotFound(f"no event {wanted} in match {m.id}")

    def log(self, m: Match) -> list[dict[str, Any]]:
        return [e.public() for e in m.log]


def _with_duplicates(state: dict[str, Any], log: list[LogEntry]) -> dict[str, Any]:
    """An official's state carries M4's open call (D167): the consoles of the other officials keep it offered."""
    if "legal" in state:
        state["legal"]["duplicates"] = duplicate_windows(log)
    return state


def _prefix(log: list[LogEntry], n: int) -> list[LogEntry]:
    """The first ``n`` entries, without the marks of voids that are not among them."""
    return [_replace(e, voided_by=None) if e.voided_by is not None and e.voided_by > n else e for e in log[:n]]


def _replace(e: LogEntry, **changes: Any) -> LogEntry:
    from dataclasses import replace

    return replace(e, **changes)
