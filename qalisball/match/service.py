"""Matches in memory, kept equal to the replay of their logs.

The API's handlers call ``MatchService``; it checks idempotency keys and ``expected_seq``, asks the
rule engine, commits the event to the store, and only then changes the in-memory state. At start-up
every match is rebuilt from its log, so a killed server loses nothing it answered.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from qalisball.match.envelope import ParsedEvent
from qalisball.rules import engine
from qalisball.rules.catalogue import ROLES, may_log
from qalisball.rules.corrections import struck
from qalisball.rules.errors import N_, InvalidEvent
from qalisball.rules.legal import duplicate_windows
from qalisball.rules.replay import fold_appended
from qalisball.rules.setup import build_setup
from qalisball.rules.state import MatchSetup, MatchState, initial_state
from qalisball.rules.view import public_state
from qalisball.storage import integrity
from qalisball.storage import tokens as role_tokens
from qalisball.storage.engine import DatabaseError
from qalisball.storage.integrity import Damage
from qalisball.storage.journal import Row
from qalisball.storage.store import LogEntry, StorageError, Store

# Called after an event is committed, outside the write lock, as a reader of the journal (D300):
# (match id, the log entry as API.md shows it, the new public state).
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
    # Stored calls the engine running now would rule otherwise (seq, why): folded as they were ruled all the
    # same (issue 28), reported by ``python -m qalisball verify``, never applied.
    overruled: list[tuple[int, str]] = field(default_factory=list)

    @property
    def seq(self) -> int:
        return self.log[-1].seq if self.log else 0

    def role_of(self, token: str | None) -> str | None:
        for role, stored in self.token_hashes.items():
            if role_tokens.matches(token, stored):
                return role
        return None


@dataclass(frozen=True)
class RuledStep:
    """A log with one more entry as another server stored it, and the state its stored rulings fold to (L2)."""

    log: list[LogEntry]
    state: MatchState
    public: dict[str, Any]  # the entry as GET .../events lists it when stored
    state_json: dict[str, Any]  # the public state right after it, as its writer answered it


@dataclass(frozen=True)
class _Decided:
    """A call the rules accepted, not stored yet: the entry, its journal message and local hand-over, the answer."""

    entry: LogEntry
    message: Any
    local: Any
    answer: dict[str, Any]
    state: MatchState
    log: list[LogEntry]
    state_json: dict[str, Any]


_MATCH_ID = re.compile(r"[0-9A-Za-z_-]{1,64}")


class _Matches(dict[str, "Match"]):
    """The matches held in memory; on a database several processes write (D396), ``get`` of a match not held loads it
    from the database (made by another process), so every feature finds it as it finds its own."""

    def __init__(self, loader: Callable[[str], Match | None] | None) -> None:
        super().__init__()
        self._loader = loader

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        found = super().get(key)
        if found is None and self._loader is not None and isinstance(key, str) and _MATCH_ID.fullmatch(key):
            found = self._loader(key)
        return default if found is None else found


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
        self._lock = threading.RLock()
        # Several server processes write this (PostgreSQL) database (D396): every decision is made under the match's
        # lock in the database, on the copy brought up to date first; a match made by another is loaded when asked for.
        self.shared = bool(getattr(store, "shared", False))
        self.matches: dict[str, Match] = _Matches(self._load_one if self.shared else None)
        self._load()

    def subscribe(self, publisher: Publisher) -> None:
        """Call ``publisher`` after every committed event, outside the write lock: a reader of the journal
        (D300; the server's own readers are wired in ``server/factory.py``)."""
        journal = self.store.journal
        if journal is not None:
            journal.follow(f"publisher {len(journal.readers) + 1}", match_reader(publisher))

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
        except DatabaseError as exc:
            rows = []
            self.problem = self.problem or Damage(
                N_("the list of matches cannot be read ({error}): restore the latest backup"), {"error": str(exc)}
            )
        read: list[tuple[Match, str, list[LogEntry], Damage | None]] = []
        for row in rows:
            try:
                read.append(self._read(row))
            except (*DatabaseError, ValueError, TypeError, KeyError) as exc:
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
        except (*DatabaseError, ValueError) as exc:
            return m, genesis, [], Damage(N_("the match's events cannot be read ({error})"), {"error": str(exc)})

    def _replay(self, m: Match, genesis: str) -> None:
        """The state of the proven log, folded from the rulings stored with it (issue 28): a stored call is never
        decided again, so today's engine changes no stored match; only a row stored without rulings that the
        rules refuse (a log written by other software) cuts the log there."""
        while True:
            try:
                state, m.overruled = initial_state(m.setup), []
                for step in engine.replay_steps(m.setup, m.log, keep_states=False):  # folds the stored rulings
                    state = step.after
                    if step.overruled is not None:
                        m.overruled.append((step.entry.seq, step.overruled))
                m.state = state
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
        m = self.matches.get(match_id)  # on a shared database, also one another process made (D396)
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
        if self.shared:
            return self._submit_shared(m, role, body_hash, parsed, dry_run)
        engine.check_references(m.state, parsed.event)  # API.md's order: 400 before 409 conflict (decide checks again)
        self._refuse_if_damaged(m)
        with self._lock:
            got = self._decide(m, role, body_hash, parsed, dry_run)
            if isinstance(got, Accepted):
                return got
            # Committed (and chained) before anything answers; this process's readers get the whole entry (D300).
            entry = self.store.append(got.entry, got.message, local=got.local)
            accepted = self._took(m, role, got, entry)
        self.store.followed()  # the journal's readers follow outside the lock (D300): the broadcast, the competitions
        return accepted

    def _submit_shared(self, m: Match, role: str, body_hash: str, parsed: ParsedEvent, dry_run: bool) -> Accepted:
        """Several server processes on one PostgreSQL database (D396): the same checks and decision as ``submit``,
        made inside the append's transaction under the match's lock, on the copy brought up to date first with what
        the other processes stored (their rulings folded, never decided again): a stale copy never decides, and the
        idempotency keys, ``expected_seq`` and M4 see every process's calls."""
        self._refuse_if_damaged(m)  # before anything is folded: a damaged match's rows past its proven prefix are never adopted
        with self._lock:
            outcome: list[Accepted | _Decided] = []

            def decide(newer: list[LogEntry]) -> tuple[LogEntry, Any, Any] | None:
                self._refuse_if_damaged(m)
                self._fold_stored(m, newer)
                assert m.state is not None
                engine.check_references(m.state, parsed.event)  # API.md's order, on the copy brought up to date
                self._refuse_if_damaged(m)
                got = self._decide(m, role, body_hash, parsed, dry_run)
                outcome.append(got)
                return None if isinstance(got, Accepted) else (got.entry, got.message, got.local)

            entry = self.store.append_decided(m.id, m.seq, decide)
            got = outcome[-1]
            if isinstance(got, Accepted) or entry is None:
                assert isinstance(got, Accepted)
                return got
            accepted = self._took(m, role, got, entry)
        self.store.followed()
        return accepted

    def _decide(self, m: Match, role: str, body_hash: str, parsed: ParsedEvent, dry_run: bool) -> Accepted | _Decided:
        """Under the service's lock: the answer given without storing (a repeated key, M4's duplicate, a dry run), or
        the entry to store with its journal message and answer; raises what refuses the call (404, 409)."""
        assert m.state is not None
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
        # The one road into the rules (issue 28): the rosters, M1's game time, M4, corrections (D8), the call.
        decision = engine.decide(state, parsed.event, now, parsed.at_ms, log=m.log, by=role)
        first = decision.duplicate_of
        if first is not None:  # M4: the same call from a second official: not an error, nothing stored
            current = self.state(m)
            return Accepted(200, {"duplicate_of": first.seq, "by": first.by, "state": current}, None, current)
        at_ms = decision.at_ms
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
        new_state, log = decision.state, decision.log
        state_json = _with_duplicates(public_state(new_state, now, m.id, seq), [*log, entry])
        if dry_run:
            return Accepted(200, {"dry_run": True, "state": state_json}, None, state_json)
        answer = {"seq": seq, "state": state_json}
        entry = _replace(entry, rulings=decision.rulings)  # what was decided, stored and sealed with the call (issue 28)
        if parsed.key is not None:
            entry = _replace(entry, body_hash=body_hash, response=json.dumps(answer, ensure_ascii=False))
        # The journal's message (the feed, D281), written in the same transaction as the event.
        public = {**entry.public(), "struck": False}  # as GET .../events lists it when stored: it counts (D344)
        message = ("match", m.id, {"match": m.id, "seq": seq, "event": feed_entry(public), "state": state_json})
        return _Decided(entry, message, (public, state_json), answer, new_state, log, state_json)

    @staticmethod
    def _took(m: Match, role: str, got: _Decided, entry: LogEntry) -> Accepted:
        """Once ``entry`` is committed: the copy in memory takes it."""
        m.log = [*got.log, entry]
        m.state = got.state
        m.head = entry.hash or m.head
        if entry.key is not None:
            m.by_key[(role, entry.key)] = entry
        return Accepted(201, got.answer, entry, got.state_json)

    # -- several server processes on one PostgreSQL database (D396, D397) ----------------------------

    def _fold_stored(self, m: Match, entries: list[LogEntry]) -> None:
        """Under the service's lock: the copy in memory takes the entries other processes stored after it, folded from
        their stored rulings (issue 28, L2): the engine decides nothing here. A row that does not continue the copy
        (a match loaded while it was written) reloads the match from the database."""
        for entry in entries:
            if entry.seq <= m.seq:
                continue
            if entry.seq != m.seq + 1 or entry.prev_hash != m.head or m.state is None:
                self._reload(m)
                return
            try:
                m.log, m.state = _folded(m.setup, m.log, entry, m.state)
            except ValueError:
                self._reload(m)
                return
            m.head = entry.hash or m.head
            if entry.key is not None:
                m.by_key[(entry.by, entry.key)] = entry

    def _reload(self, m: Match) -> None:
        """The match read again from its stored log, as at start-up (inside the store's thread or transaction)."""
        genesis = integrity.genesis_hash(m.id, m.created_at, m.data)
        log = self.store.events(m.id)
        check = integrity.check_chain(m.id, genesis, log, None)
        m.damaged = check.damage
        m.log, m.head = _prefix(log, check.proven), check.head
        self._replay(m, genesis)

    def catch_up(self, m: Match) -> None:
        """The copy in memory brought up to date with what other processes stored (the journal's listener, D397)."""
        if not self.shared or m.damaged is not None:
            return
        with self._lock:  # read and folded where the store's writes run (``Store.read``): a reload reads there too
            self.store.read(lambda: self._fold_stored(m, self.store.events_after(m.id, m.seq)))

    def on_stored(self, row: Row) -> None:
        """The journal's listener, before this process's readers get ``row`` (D397): a match's copy takes the entries
        stored by another process; a match not held here is loaded."""
        if row.kind != "match":
            return
        m = self.matches.get(row.subject)  # loaded when not held (_Matches)
        if m is None:
            return
        seq = row.data().get("seq")
        if isinstance(seq, int) and seq > m.seq:
            self.catch_up(m)

    def on_notice(self, payload: str) -> None:
        """``match <id>`` from another process (D397): a match made there is loaded; a role's token issued there
        replaces the one held here, so the old token stops working in every process."""
        kind, _, match_id = payload.partition(" ")
        if kind != "match" or not match_id:
            return
        m = dict.get(self.matches, match_id)
        if m is None:
            self._load_one(match_id)
            return
        found = self.store.read(lambda: self.store.db.execute("SELECT tokens FROM matches WHERE id = ?", [match_id]).fetchone())
        if found is None:
            return
        hashes = json.loads(found[0])
        with self._lock:
            if hashes != m.token_hashes:
                m.tokens = {r: t for r, t in m.tokens.items() if hashes.get(r) == m.token_hashes.get(r)}
                m.token_hashes = hashes

    def _load_one(self, match_id: str) -> Match | None:
        """A match made by another process, read from the database when first asked for (D396); None if none."""
        with self._lock:
            held = dict.get(self.matches, match_id)
            if held is not None:
                return held

            def read() -> tuple[Match, str, list[LogEntry], Damage | None] | None:
                rows = list(self.store.db.query("SELECT * FROM matches WHERE id = ?", [match_id]))
                return self._read(rows[0]) if rows else None

            got = self.store.read(read)
            if got is None:
                return None
            m, genesis, log, unreadable = got
            check = integrity.check_chain(m.id, genesis, log, None)
            m.damaged = unreadable or check.damage
            m.log, m.head = _prefix(log, check.proven), check.head
            self._replay(m, genesis)
            self.matches[m.id] = m
            return m

    # -- a match another server writes (the league, SPEC L1, L2) -------------------------------------

    def adopt(self, match_id: str, created_at: str, setup_data: dict[str, Any]) -> Match:
        """The read-only copy of a match another server writes (SPEC L1): stored without role tokens, so no console
        or role opens it here; its genesis hash is the writer's (its id, creation time and setup)."""
        with self._lock:
            held = self.matches.get(match_id)
            if held is not None:
                return held
            self._refuse_if_damaged()
            setup = build_setup(setup_data)
            genesis = self.store.add_match(match_id, setup_data, {}, created_at)
            m = Match(match_id, setup_data, setup, {}, created_at, state=initial_state(setup), head=genesis)
            self.matches[match_id] = m
            return m

    @staticmethod
    def ruled_step(
        match_id: str,
        setup: MatchSetup,
        log: list[LogEntry],
        entry: LogEntry,
        state: MatchState | None = None,
        stored: dict[str, Any] | None = None,
    ) -> RuledStep:
        """``log`` with ``entry`` appended as its writer stored it, and the state the stored rulings fold to (SPEC L2):
        the engine decides nothing here (every entry carries its rulings). ``state``: what ``log`` folds to, so that
        a plain entry is folded alone (``replay.fold_appended``), else the whole log is; ``stored``: the journal's
        message its writer stored with it, whose state is kept when its event is this entry's. Changes nothing;
        raises ``ValueError`` when the entry cannot be folded (no rulings, fields the rules cannot read) or the
        writer's message is not of this entry."""
        new_log, after = _folded(setup, log, entry, state)
        public = {**entry.public(), "struck": False}
        if stored is not None:
            if stored.get("match") != match_id or stored.get("seq") != entry.seq or stored.get("event") != feed_entry(public):
                raise ValueError(f"entry {entry.seq}'s message is not the one its writer stored with it")
            state_json = stored.get("state")
            if not isinstance(state_json, dict):
                raise ValueError(f"entry {entry.seq}'s message has no state")
        else:
            state_json = _with_duplicates(public_state(after, entry.received_ms, match_id, entry.seq), new_log)
        return RuledStep(new_log, after, public, state_json)

    def store_ruled(self, m: Match, step: RuledStep, also: Callable[[Any, LogEntry], None] | None = None) -> LogEntry:
        """Store the last entry of ``step`` (``ruled_step``) as its writer stored it: its hash as the writer computed
        it (the chain here is the writer's), its rulings as ruled there; the journal's message as the writer's
        (the feed, Socket.IO). ``also``: the caller's own rows, in the same transaction."""
        entry = step.log[-1]
        with self._lock:
            if entry.seq != m.seq + 1 or entry.prev_hash != m.head:
                raise Conflict(f"entry {entry.seq} does not continue match {m.id} (held: seq {m.seq})")
            claimed = entry.hash, entry.seal
            public, state_json = step.public, step.state_json
            message = ("match", m.id, {"match": m.id, "seq": entry.seq, "event": feed_entry(public), "state": state_json})
            bare = _replace(entry, prev_hash=None, hash=None, seal=None, voided_by=None)

            def checked(db: Any, chained: LogEntry) -> None:
                if (chained.hash, chained.seal) != claimed:  # the chains here are the writer's, or nothing is stored
                    raise Conflict(f"entry {entry.seq} of match {m.id} does not hash as its writer said")
                if also is not None:
                    also(db, chained)

            stored = self.store.append(bare, message, local=(public, state_json), also=checked)
            m.log = [*step.log[:-1], stored]
            m.state = step.state
            m.head = stored.hash or m.head
        self.store.followed()
        return stored

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
        """API.md's log, each entry marked ``struck`` where it no longer counts (the rules' answer, D344)."""
        out = struck(m.log)
        return [{**e.public(), "struck": e.seq in out} for e in m.log]


def match_reader(publisher: Publisher) -> Callable[[Row], None]:
    """A journal reader handing ``publisher`` each match event: its log entry as API.md shows it and the state
    after it (the officials', ``legal`` included), as the writer had them, or as stored for a row read back."""

    def read(row: Row) -> None:
        if row.kind == "match":
            publisher(row.subject, *match_event(row))

    return read


def match_event(row: Row) -> tuple[dict[str, Any], dict[str, Any]]:
    """A match row's (log entry, state): the writer's own (``local``), or the stored message's (D300)."""
    if row.local is not None:
        entry, state = row.local
        return entry, state
    data = row.data()
    return data["event"], data["state"]


# What a spectator never sees of a log entry (API.md "The feed"): a signature's image, a note's text.
PRIVATE_FIELDS = {"sign": ("signature",), "note": ("text",)}


def feed_entry(public: dict[str, Any]) -> dict[str, Any]:
    """A log entry as the feed carries it (D281): as ``GET .../events`` lists it when stored, without what only the
    officials and the report see (``PRIVATE_FIELDS``, also inside an ``amend``'s or ``insert``'s event)."""
    out = {k: v for k, v in public.items() if k not in PRIVATE_FIELDS.get(str(public.get("type")), ())}
    inner = out.get("event")
    if isinstance(inner, dict):
        out["event"] = {k: v for k, v in inner.items() if k not in PRIVATE_FIELDS.get(str(inner.get("type")), ())}
    return out


def _with_duplicates(state: dict[str, Any], log: list[LogEntry]) -> dict[str, Any]:
    """An official's state carries M4's open call (D167): the consoles of the other officials keep it offered."""
    if "legal" in state:
        state["legal"]["duplicates"] = duplicate_windows(log)
    return state


def _folded(
    setup: MatchSetup, log: list[LogEntry], entry: LogEntry, state: MatchState | None
) -> tuple[list[LogEntry], MatchState]:
    """``log`` with ``entry`` appended as its writer stored it, and the state its stored rulings fold to (L2): a plain
    entry folded alone onto ``state`` (``replay.fold_appended``), else the whole log. Raises ``ValueError`` when it
    cannot be folded (no rulings, fields the rules cannot read)."""
    if entry.rulings is None:
        raise ValueError(f"entry {entry.seq} carries no rulings: a copy never decides a call again (L2)")
    new_log = list(log)
    if entry.type in ("void", "amend"):  # the mark its writer's store made on the target (as Store.append does)
        target = entry.fields.get("target")
        new_log = [_replace(e, voided_by=entry.seq) if e.seq == target else e for e in new_log]
    new_log.append(entry)
    try:
        after = fold_appended(state, entry) if state is not None else None
        if after is None:
            after = initial_state(setup)
            for step in engine.replay_steps(setup, new_log, keep_states=False):
                after = step.after
    except engine.ReplayError as exc:
        raise ValueError(f"entry {exc.seq} cannot be folded ({exc.cause})") from exc
    except (KeyError, TypeError, InvalidEvent) as exc:
        raise ValueError(f"entry {entry.seq} cannot be read ({exc})") from exc
    return new_log, after


def _prefix(log: list[LogEntry], n: int) -> list[LogEntry]:
    """The first ``n`` entries, without the marks of voids that are not among them."""
    return [_replace(e, voided_by=None) if e.voided_by is not None and e.voided_by > n else e for e in log[:n]]


def _replace(e: LogEntry, **changes: Any) -> LogEntry:
    from dataclasses import replace

    return replace(e, **changes)
