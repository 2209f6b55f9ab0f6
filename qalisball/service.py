"""Matches in memory, kept equal to the replay of their logs.

The API's handlers call ``MatchService``; it checks idempotency keys and ``expected_seq``, asks the
rule engine, commits the event to the store, and only then changes the in-memory state. At start-up
every match is rebuilt from its log, so a killed server loses nothing it answered.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from .envelope import ParsedEvent
from .rules import corrections, engine
from .rules.catalogue import ROLES, may_log
from .rules.setup import build_setup
from .rules.state import MatchSetup, MatchState, initial_state
from .rules.view import public_state
from .store import LogEntry, Store

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
    tokens: dict[str, str]
    created_at: str
    log: list[LogEntry] = field(default_factory=list)
    state: MatchState | None = None
    by_key: dict[str, LogEntry] = field(default_factory=dict)  # idempotency keys already used

    @property
    def seq(self) -> int:
        return self.log[-1].seq if self.log else 0

    def role_of(self, token: str | None) -> str | None:
        if not token:
            return None
        for role, value in self.tokens.items():
            if secrets.compare_digest(value, token):
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
        for row in self.store.matches():
            m = Match(row["id"], row["setup"], build_setup(row["setup"]), row["tokens"], row["created_at"])
            m.log = self.store.events(m.id)
            m.by_key = {e.key: e for e in m.log if e.key is not None}
            m.state = engine.replay(m.setup, m.log)
            self.matches[m.id] = m

    # -- matches -------------------------------------------------------------------------------

    def create(self, data: dict[str, Any]) -> Match:
        match_id = uuid.uuid4().hex[:12]
        tokens = {role: secrets.token_urlsafe(18) for role in ROLES}
        created = datetime.now(UTC).isoformat(timespec="microseconds")  # orders the list, as after a restart
        setup = build_setup(data)
        with self._lock:
            self.store.add_match(match_id, data, tokens, created)
            m = Match(match_id, data, setup, tokens, created, state=initial_state(setup))
            self.matches[match_id] = m
        return m

    def get(self, match_id: str) -> Match:
        m = self.matches.get(match_id)
        if m is None:
            raise NotFound(f"no match {match_id}")
        return m

    def state(self, m: Match) -> dict[str, Any]:
        assert m.state is not None
        return public_state(m.state, self.clock(), m.id, m.seq)

    def summary(self, m: Match) -> dict[str, Any]:
        s = self.state(m)
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
        with self._lock:
            self._check_exists(m, parsed)  # 404 before 409
            seen = m.by_key.get(parsed.key) if parsed.key is not None else None
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
            if parsed.type in corrections.CORRECTIONS:
                new_state, log = engine.correct(state, m.log, entry)
            else:
                new_state, log = engine.apply(state, parsed.event, now, parsed.at_ms), m.log
            state_json = public_state(new_state, now, m.id, seq)
            if dry_run:
                return Accepted(200, {"dry_run": True, "state": state_json}, None, state_json)
            answer = {"seq": seq, "state": state_json}
            if parsed.key is not None:
                entry = _replace(entry, body_hash=body_hash, response=json.dumps(answer, ensure_ascii=False))
            self.store.append(entry)  # committed before anything answers or is published
            m.log = [*log, entry]
            m.state = new_state
            if entry.key is not None:
                m.by_key[entry.key] = entry
            self._publish(m.id, entry, state_json)
            return Accepted(201, answer, entry, state_json)

    @staticmethod
    def _check_exists(m: Match, parsed: ParsedEvent) -> None:
        """The event a void or amend targets, or an insert follows, must be in the log (404)."""
        wanted = parsed.fields.get("target") if parsed.type in ("void", "amend") else None
        if parsed.type == "insert" and parsed.fields["after"] != 0:
            wanted = parsed.fields["after"]
        if wanted is not None and not any(e.seq == wanted for e in m.log):
            raise NotFound(f"no event {wanted} in match {m.id}")

    def log(self, m: Match) -> list[dict[str, Any]]:
        return [e.public() for e in m.log]


def _replace(e: LogEntry, **changes: Any) -> LogEntry:
    from dataclasses import replace

    return replace(e, **changes)
