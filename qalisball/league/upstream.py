"""A venue's sender to its league's central server (issue 31, API.md "The league", D372).

With ``QALISBALL_UPSTREAM`` (the central's base URL) and ``QALISBALL_UPSTREAM_KEY`` (the venue key the central
issued), one background worker (a greenlet or thread, started by the composition root like the journal's
readers) sends every message of the venue's feed (the journal's ``match`` and ``competition`` rows) to the
central, in cursor order, in batches, from the central's acknowledgement: it first asks the central what it
holds (``GET /api/league/ingest``) and checks that this venue has the very message there (a database restored
from an older copy has not: a fork, L3, said in ``last_error`` and never sent over). Through an outage it tries
again and again, waiting 0.5 s, 1 s, 2 s … up to ``QALISBALL_UPSTREAM_RETRY_MAX`` (30 s); the cursor last
acknowledged is kept in the venue's database (``league_upstream``), so that after a restart ``pending`` is known
before the central answers. Nothing here touches a write: officials never wait for the central.

A competition's message carries, the last of each batch, the competition's records as the venue holds them when
it is sent (``records``: the competition, its fixtures, protests, lots and the kept teams and officials it names;
``LeagueDesk.records``): the central holds that copy, read-only, and shows it as its own (issue 31 item 2, D379).
The records are not part of the message's digest: a message sent again carries the records of its time.

A league competition (issue 31 item 4, D377): whenever the central answers and every message is sent, the
sender also fetches the fixtures the central gave this venue (``GET /api/league/assigned``, every
``QALISBALL_UPSTREAM_FETCH_EVERY`` seconds, 15 by default) into ``venue_fixtures.VenueFixtures``, and tells the
central of each match made here of one of them (``POST /api/league/claims``) until it answers.
"""

from __future__ import annotations

import json
import logging
import socket
import sqlite3
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from qalisball.league.central import KINDS, digest, entry_wire
from qalisball.league.venue_fixtures import VenueFixtures
from qalisball.rules.errors import N_
from qalisball.storage.store import Store, entry_of_row

log = logging.getLogger(__name__)

BATCH = 200
PENDING_MARK_MS = 60_000  # the organiser's pages show a mark once something has been pending this long
TIMEOUT_S = 10.0
MAX_BATCH_BYTES = 2_000_000  # the central takes at most 16 MB a batch (api.py): a batch stops growing past this


@dataclass(frozen=True)
class Said:
    """Why nothing moves, as the organiser's mark says it (D373): an ``N_`` template, translated on the page, and its
    values; ``detail`` (the network's or the central's own words) only in the API's ``last_error``."""

    template: str
    params: Mapping[str, Any] = field(default_factory=dict)
    detail: str | None = None

    @property
    def message(self) -> str:
        text = self.template.format(**self.params)
        return f"{text} ({self.detail})" if self.detail else text


def unreachable(url: str, exc: BaseException) -> Said:
    """The network's error said in words a person reads (translated), its own text kept as the detail."""
    reason = getattr(exc, "reason", exc)
    if isinstance(reason, ConnectionRefusedError):
        template = N_("the central server {url} cannot be reached: nothing answers there (is it running?)")
    elif isinstance(reason, (TimeoutError, socket.timeout)):
        template = N_("the central server {url} cannot be reached: it does not answer in time")
    elif isinstance(reason, socket.gaierror):
        template = N_("the central server {url} cannot be reached: its name is not found (no network, or a wrong address?)")
    elif isinstance(reason, (ConnectionResetError, ConnectionAbortedError)):
        template = N_("the central server {url} cannot be reached: the connection was cut")
    else:
        template = N_("the central server {url} cannot be reached")
    return Said(template, {"url": url}, str(exc))


def answered(status: int, answer: dict[str, Any]) -> Said:
    """The central's refusal said in words a person reads (its own English message kept as the detail)."""
    detail = str(answer.get("message") or "") or None
    if status == 403 and answer.get("revoked_at"):
        return Said(
            N_("the central server revoked this venue's key on {at}: ask the league's organiser for a new one"),
            {"at": str(answer["revoked_at"])},
            detail,
        )
    if status == 401:
        return Said(N_("the central server does not know this venue's key (QALISBALL_UPSTREAM_KEY)"), {}, detail)
    if status == 409:
        return Said(
            N_("the central server refused the messages: it holds this venue's up to cursor {cursor}; nothing more was stored"),
            {"cursor": str(answer.get("cursor", "?"))},
            detail,
        )
    return Said(N_("the central server answered {status}"), {"status": status}, detail)


class Upstream:
    """The sender and what it knows: connected, pending, the last acknowledgement, the last error."""

    def __init__(
        self,
        store: Store,
        url: str,
        key: str,
        clock: Callable[[], int],
        retry_max_s: float = 30.0,
        batch: int = BATCH,
        fixtures: VenueFixtures | None = None,
        fetch_every_s: float = 15.0,
        records_of: Callable[[str], dict[str, Any] | None] | None = None,
    ) -> None:
        self.store, self.url, self.key, self.clock = store, url.rstrip("/"), key, clock
        # A competition's records as the venue holds them now (the competitions', handed by the composition root):
        # sent with the competition's last message of each batch, so that the central holds what it holds (D379).
        self.records_of = records_of
        self.retry_max_s, self.batch = retry_max_s, batch
        self.fixtures, self.fetch_every_s = fixtures, fetch_every_s
        self._fetched_mono: float | None = None  # time.monotonic() of the last fetch of the fixtures
        self.connected = False
        self.last_error: str | None = None
        self.said: Said | None = None  # last_error as the organiser's mark says it (translated, D373)
        self.refused = False  # the last answer was the central's refusal (409): the organiser must settle it
        self.pending_since: int | None = None  # the app's clock when something became pending
        self._stop = threading.Event()
        self._known = False  # whether the central said this run what it holds
        self._conn: sqlite3.Connection | None = None
        self._seen = 0  # the journal's head when the last batch was read
        row = store.db.execute("SELECT cursor, digest FROM league_upstream WHERE upstream = ?", [self.url]).fetchone()
        self.ack, self.ack_digest = (int(row[0]), row[1]) if row else (0, None)

    # -- what the venue's organiser sees ----------------------------------------------------------

    def pending(self) -> int:
        row = (
            self._read()
            .execute("SELECT count(*) FROM journal WHERE cursor > ? AND kind IN (?, ?)", [self.ack, *KINDS])
            .fetchone()
        )
        n = int(row[0])
        if n == 0:
            self.pending_since = None
        elif self.pending_since is None:
            self.pending_since = self.clock()
        return n

    def status(self) -> dict[str, Any]:
        return {
            "upstream": self.url,
            "connected": self.connected,
            "pending": self.pending(),
            "last_ack": str(self.ack) if self._known or self.ack else None,
            "last_error": self.last_error,
        }

    def mark(self) -> dict[str, Any] | None:
        """What the organiser's pages show (D373): something pending for over a minute, and why while refused."""
        n = self.pending()
        late = n > 0 and self.pending_since is not None and self.clock() - self.pending_since > PENDING_MARK_MS
        if not late and not self.refused:
            return None
        return {"pending": n, "late": late, "refused": self.refused, "error": self.last_error, "said": self.said}

    # -- the worker -------------------------------------------------------------------------------

    def run(self) -> None:
        wait = 0.5
        journal = self.store.journal
        while not self._stop.is_set() and journal is not None and not journal.closed:
            try:
                if self._send_some():
                    wait = 0.5
                    continue
                if self.last_error is None:  # all sent: the league's fixtures, then wait for the next message
                    self._league_fixtures()
                    journal.wait(self._seen, min(5.0, self.fetch_every_s))
                    continue
            except (OSError, ValueError, urllib.error.URLError) as exc:
                self.connected = False
                self._fail(unreachable(self.url, exc))
                self._known = False
            except Exception as exc:  # never dies: said, and tried again
                log.exception("the league's sender failed")
                self._fail(Said(N_("the sender to the central server failed; it tries again"), {}, str(exc)))
                self._known = False
            self._stop.wait(wait)
            wait = min(wait * 2, self.retry_max_s)

    def _send_some(self) -> bool:
        """One step: learn what the central holds, or send one batch. True when something moved on."""
        if not self._known:
            status, held = self._call("GET", None)
            if status != 200:
                self.refused = status in (401, 403)  # the key: only the organisers can settle it (D380)
                self._fail(answered(status, held))
                return False
            cursor, held_digest = int(held["cursor"]), held.get("digest")
            if cursor > 0 and self._digest_at(cursor) != held_digest:
                self.refused = True
                self._fail(
                    Said(
                        N_(
                            "fork: the central holds this venue's messages up to cursor {cursor}, and this venue's record "
                            "is not that one there (a database restored from an older copy?): nothing more is sent; "
                            "the organisers settle it (docs/deploy.md)"
                        ),
                        {"cursor": cursor},
                    )
                )
                return False
            self._acknowledged(cursor, held_digest)
            self._known, self.refused = True, False
            self._fail(None)
            return True
        messages = self._messages()
        if not messages:
            self.pending()
            return False
        status, answer = self._call("POST", {"after": str(self.ack), "after_digest": self.ack_digest, "messages": messages})
        if status == 200:
            self._acknowledged(int(answer["cursor"]), answer.get("digest"))
            self.refused = False
            self._fail(None)
            return True
        self.refused = status in (401, 403, 409)
        self._fail(answered(status, answer))
        self._known = False  # ask again what it holds
        return False

    def _fail(self, said: Said | None) -> None:
        """Why nothing moves (None: all is well): ``last_error`` in the API's English, ``said`` for the mark."""
        self.said = said
        self.last_error = None if said is None else said.message

    def _league_fixtures(self) -> None:
        """Tell the central of the matches made here of its fixtures, then fetch them again when due (D377)."""
        if self.fixtures is None:
            return
        for claim in self.fixtures.claims():
            status, answer = self._call("POST", claim, "/api/league/claims")
            if status in (200, 201):
                self.fixtures.answered(claim["fixture"], True, None)
            elif status in (403, 404, 409):  # the central's answer: said with the fixture, not sent again
                self.fixtures.answered(claim["fixture"], False, f"{status} {answer.get('error')}: {answer.get('message', '')}")
            else:
                raise ValueError(f"the central answered the claim of fixture {claim['fixture']} with {status}")
        due = self._fetched_mono is None or time.monotonic() - self._fetched_mono >= self.fetch_every_s
        if not due:
            return
        status, answer = self._call("GET", None, "/api/league/assigned")
        self._fetched_mono = time.monotonic()
        if status != 200:
            self.fixtures.fetch_error = f"the central answered {status}: {answer.get('message', '')}"
            return
        self.fixtures.fetched(answer)

    def _messages(self) -> list[dict[str, Any]]:
        journal = self.store.journal
        assert journal is not None
        self._seen = journal.head  # read first: every row up to it is in what ``after`` reads next
        out, size = [], 0
        for r in journal.after(self.ack, self.batch, lambda r: r.kind in KINDS):
            out.append(self._message(r.cursor, r.kind, r.subject, r.body))
            size += len(r.body)
            if size > MAX_BATCH_BYTES:
                break
        if self.records_of is not None:  # a venue's own competition, as it stands now, with its last message (D379)
            last = {m["subject"]: m for m in out if m["kind"] == "competition"}
            for subject, message in last.items():
                records = self.records_of(subject)
                if records is not None:
                    message["records"] = records
        return out

    def _message(self, cursor: int, kind: str, subject: str, body: str) -> dict[str, Any]:
        message: dict[str, Any] = {"cursor": str(cursor), "kind": kind, "subject": subject, "body": body}
        if kind == "match":
            seq = int(json.loads(body)["seq"])
            conn = self._read()
            conn.row_factory = sqlite3.Row
            row = conn.execute("SELECT * FROM events WHERE match_id = ? AND seq = ?", [subject, seq]).fetchone()
            e = entry_of_row(dict(row))
            message["entry"] = entry_wire(e)
            if seq == 1:
                match = conn.execute("SELECT created_at, setup FROM matches WHERE id = ?", [subject]).fetchone()
                message["match"] = {"created_at": match["created_at"], "setup": json.loads(match["setup"])}
        return message

    def _digest_at(self, cursor: int) -> str | None:
        row = self._read().execute("SELECT cursor, kind, subject, body FROM journal WHERE cursor = ?", [cursor]).fetchone()
        if row is None or row[1] not in KINDS:
            return None
        return digest(self._message(int(row[0]), str(row[1]), str(row[2]), str(row[3])))

    def _acknowledged(self, cursor: int, held_digest: str | None) -> None:
        self.connected = True
        if (cursor, held_digest) == (self.ack, self.ack_digest):
            return
        self.ack, self.ack_digest = cursor, held_digest
        at = datetime.now(UTC).isoformat(timespec="milliseconds")

        def change() -> list[tuple[str, tuple[Any, ...]]]:
            self.store.db.execute(
                "INSERT INTO league_upstream (upstream, cursor, digest, updated_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (upstream) DO UPDATE SET cursor = excluded.cursor, digest = excluded.digest, "
                "updated_at = excluded.updated_at",
                [self.url, cursor, held_digest, at],
            )
            return []

        self.store.write_records("league_acknowledged", change)
        self.pending()

    def _call(self, method: str, body: dict[str, Any] | None, path: str = "/api/league/ingest") -> tuple[int, dict[str, Any]]:
        data = None if body is None else json.dumps(body, ensure_ascii=False).encode()
        request = urllib.request.Request(f"{self.url}{path}", data=data, method=method)
        request.add_header("Authorization", f"Bearer {self.key}")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_S) as answer:
                self.connected = True
                return answer.status, json.loads(answer.read() or b"{}")
        except urllib.error.HTTPError as exc:
            self.connected = True
            try:
                text = json.loads(exc.read() or b"{}")
            except ValueError:
                text = {}
            return exc.code, text if isinstance(text, dict) else {}

    def _read(self) -> sqlite3.Connection:
        if self._conn is None:
            self._conn = sqlite3.connect(f"file:{self.store.path}?mode=ro", uri=True, check_same_thread=False)
        return self._conn

    def stop(self) -> None:
        self._stop.set()
        if self.store.journal is not None:
            self.store.journal.wake()
        if self._conn is not None:
            self._conn.close()
            self._conn = None
