"""Tested as an attacker would (issue 14): input that cannot crash anything, secrets kept secret,
pages that cannot be framed, wrong tokens throttled, live connections bounded, CSV that cannot run.

Each test is named after the decision it proves (docs/decisions.md, D44–D59).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import pty
import re
import sqlite3
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qalisball.server.demo import demo_request
from tests.ports import free_port
from tests.waiting import wait_until

from .conftest import ADMIN, MatchDriver, auth

ROOT = Path(__file__).resolve().parent.parent
FUZZ_EXAMPLES = int(os.environ.get("QALISBALL_FUZZ_EXAMPLES", "1000"))
RANDOMISE = "QALISBALL_FUZZ_EXAMPLES" in os.environ


def _stored(app: Flask) -> tuple[Any, ...]:
    """Everything a request could change, read from the database itself."""
    db = app.extensions["qalisball"].store.db
    return (
        tuple(tuple(r) for r in db.execute("SELECT id, tokens, setup FROM matches ORDER BY id").fetchall()),
        tuple(tuple(r) for r in db.execute("SELECT match_id, seq, fields, voided_by, hash FROM events ORDER BY 1, 2").fetchall()),
    )


def _raw(client: FlaskClient, path: str, data: bytes | str, token: str | None = None, **kw: Any) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    kw.setdefault("content_type", "application/json")
    return client.post(path, data=data, headers=headers, **kw)


def _refused(app: Flask, response: Any, status: int, error: str) -> dict[str, Any]:
    body: dict[str, Any] = response.get_json()
    assert response.status_code == status, (response.status_code, body)
    assert body["error"] == error and isinstance(body["message"], str) and body["message"], body
    return body


# ---------------------------------------------------------------------------------------------
# D44: strict JSON, bounded in size and depth


@pytest.mark.parametrize(
    ("data", "status"),
    [
        ("[" * 100_000 + "]" * 100_000, 413),  # a 100k-deep array: 200 KB, refused on its size
        ("[" * 30_000 + "]" * 30_000, 400),  # 30k deep within 64 KB: refused on its depth
        ('{"type": "violation", "kind": "ball_out_end", "team": "home", "spot": ' + '{"x": ' * 2000 + "1" + "}" * 2001, 400),
        ('{"type": "goal", "team": "home", "player": ' + "[" * 13 + "]" * 13 + "}", 400),  # 14 levels
    ],
    ids=["array-100k-deep", "array-30k-deep", "spot-2000-deep", "14-levels"],
)
def test_D44_deeply_nested_json_is_a_400_not_a_500(app: Flask, match: MatchDriver, data: str, status: int) -> None:
    before = _stored(app)
    for path, token in ((f"/api/matches/{match.id}/events", match.tokens["referee"]), ("/api/matches", ADMIN)):
        body = _refused(app, _raw(match.client, path, data, token), status, "invalid" if status == 400 else "too_large")
        assert status == 413 or "nested too deeply" in body["message"]
    assert _stored(app) == before


@pytest.mark.parametrize(
    "data",
    [
        '{"type": "abandon", "reason": "rain \\ud800"}',
        '{"type": "abandon", "reason": "x", "\\udfff": 1}',
        '{"type": "abandon", "reason": "\\udc00\\ud800"}',
    ],
    ids=["in-a-reason", "in-a-key", "reversed-pair"],
)
def test_D44_a_lone_surrogate_anywhere_is_a_400(app: Flask, match: MatchDriver, data: str) -> None:
    before = _stored(app)
    body = _refused(app, _raw(match.client, f"/api/matches/{match.id}/events", data, match.tokens["referee"]), 400, "invalid")
    assert "lone surrogate" in body["message"]
    name = json.dumps(demo_request(), ensure_ascii=False).replace('"李华"', '"\\ud83d"')
    assert "lone surrogate" in _refused(app, _raw(match.client, "/api/matches", name, ADMIN), 400, "invalid")["message"]
    assert _stored(app) == before


def test_D44_an_escaped_surrogate_pair_is_one_character_and_accepted(match: MatchDriver) -> None:
    body = json.dumps(demo_request(), ensure_ascii=True).replace("Alex Chen", "Alex \\ud83c\\udfd0")  # 🏐, escaped
    r = _raw(match.client, "/api/matches", body, ADMIN)
    assert r.status_code == 201, r.get_json()


@pytest.mark.parametrize(
    ("data", "content_type", "words"),
    [
        (b'{"type": "clock", "action": "pause", "action": "resume"}', "application/json", "appears twice"),
        (b'\xef\xbb\xbf{"type": "period_start"}', "application/json", "byte-order mark"),
        ('{"type": "period_start"}'.encode("utf-16"), "application/json", "byte-order mark"),
        ('{"type": "period_start"}'.encode("utf-16-le"), "application/json", "not valid JSON"),
        ('{"type": "abandon", "reason": "pluie é"}'.encode("latin-1"), "application/json", "not UTF-8"),
        (b'{"type": "period_start"}', "application/json; charset=utf-16", "must be UTF-8"),
        (b'{"type": "period_start"}', "application/json; charset=latin-1", "must be UTF-8"),
        (b'{"type": "period_start"}', "text/plain", "Content-Type: application/json"),
        (b'{"type": "clock", "action": "set", "elapsed_ms": ' + b"9" * 5000 + b"}", "application/json", "not valid JSON"),
        (b'{"type": "clock", "action": "set", "elapsed_ms": Infinity}', "application/json", "Infinity is not a JSON number"),
    ],
    ids=[
        "duplicate-key",
        "utf8-bom",
        "utf16-bom",
        "utf16-no-bom",
        "latin1",
        "charset-utf16",
        "charset-latin1",
        "text-plain",
        "5000-digits",
        "infinity",
    ],
)
def test_D44_only_strict_utf8_json_is_read(app: Flask, match: MatchDriver, data: bytes, content_type: str, words: str) -> None:
    match.kickoff()
    before = _stored(app)
    r = _raw(match.client, f"/api/matches/{match.id}/events", data, match.tokens["referee"], content_type=content_type)
    body = _refused(app, r, 400, "invalid")
    assert words in body["message"], body
    assert body["fields"] == {"_schema": [body["message"]]}
    assert _stored(app) == before


class _CountingStream(io.RawIOBase):
    """A request body of ``size`` bytes that counts what the server reads of it."""

    def __init__(self, size: int) -> None:
        self.size, self.pos, self.read_bytes = size, 0, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.pos

    def seek(self, offset: int, whence: int = 0) -> int:
        self.pos = offset if whence == 0 else self.size + offset if whence == 2 else self.pos + offset
        return self.pos

    def readinto(self, buffer: Any) -> int:
        n = max(0, min(len(buffer), self.size - self.pos))
        buffer[:n] = b" " * n
        self.pos += n
        self.read_bytes += n
        return n


def test_D44_a_50_mb_body_is_a_413_and_is_never_read(app: Flask, match: MatchDriver) -> None:
    before = _stored(app)
    for path, token in ((f"/api/matches/{match.id}/events", match.tokens["referee"]), ("/api/matches", ADMIN)):
        stream = _CountingStream(50 * 1024 * 1024)
        r = match.client.post(
            path, input_stream=stream, content_length=stream.size, content_type="application/json", headers=auth(token)
        )
        body = _refused(app, r, 413, "too_large")
        assert "larger than" in body["message"]
        assert stream.read_bytes == 0, "refused on its Content-Length, before reading it"
    assert _stored(app) == before


def test_D44_a_chunked_body_is_read_only_up_to_the_limit(app: Flask, match: MatchDriver) -> None:
    stream = _CountingStream(50 * 1024 * 1024)
    r = match.client.post(
        "/api/matches",
        input_stream=stream,
        content_type="application/json",
        headers={**auth(ADMIN), "Transfer-Encoding": "chunked"},
        environ_base={"wsgi.input_terminated": True},
    )
    _refused(app, r, 413, "too_large")
    assert stream.read_bytes <= 256 * 1024 + 64 * 1024


def test_D44_64_kb_for_every_body_and_192_kb_for_an_event_with_a_signature(app: Flask, match: MatchDriver) -> None:
    url, token = f"/api/matches/{match.id}/events", match.tokens["referee"]
    big_reason = json.dumps({"type": "abandon", "reason": "x" * (65 * 1024)})
    _refused(app, _raw(match.client, url, big_reason, token), 413, "too_large")
    big_match = demo_request()
    big_match["venue"] = "v" * (65 * 1024)
    _refused(app, _raw(match.client, "/api/matches", json.dumps(big_match), ADMIN), 413, "too_large")
    # A signature (API.md "Match day": ≤ 100 KB of PNG, ~137 KB in base64) gets past the size check …
    png = "data:image/png;base64," + "A" * (137 * 1024)
    signed = json.dumps({"type": "sign", "as": "referee", "name": "Wang", "signature": png})
    r = _raw(match.client, url, signed, token)
    assert r.status_code != 413, r.get_json()  # (400 here: this tree has no "sign" event yet)
    # … but not past 192 KB, and not to the organiser's endpoints.
    _refused(app, _raw(match.client, url, signed.replace("A" * 1024, "A" * 2048), token), 413, "too_large")


# ---------------------------------------------------------------------------------------------
# D45: text fields refuse control characters and blank names


@pytest.mark.parametrize(
    ("where", "value", "words"),
    [
        ("player", "Li\x00Hua", "control characters (U+0000)"),
        ("player", "\x1b[31mLi Hua", "control characters (U+001B)"),
        ("player", "   ", "must not be blank"),
        ("team", "\u3000", "must not be blank"),
        ("team", "Renmin\u202e", "control characters (U+202E)"),
        ("team", "Ren\nmin", "control characters (U+000A)"),
        ("venue", "Field\x072", "control characters (U+0007)"),
        ("official", "Wang\x85", "control characters (U+0085)"),
    ],
)
def test_D45_names_with_control_characters_or_blank_are_400(
    app: Flask, client: FlaskClient, where: str, value: str, words: str
) -> None:
    body = demo_request()
    if where == "player":
        body["home"]["players"][0]["name"] = value
    elif where == "team":
        body["away"]["name"] = value
    elif where == "venue":
        body["venue"] = value
    else:
        body["officials"] = {"referee": value}
    before = _stored(app)
    r = client.post("/api/matches", json=body, headers=auth(ADMIN))
    answer = _refused(app, r, 400, "invalid")
    assert words in json.dumps(answer["fields"], ensure_ascii=False), answer
    assert _stored(app) == before


@pytest.mark.parametrize(
    ("event", "field", "words"),
    [
        ({"type": "abandon", "reason": "   "}, "reason", "must not be blank"),
        ({"type": "abandon", "reason": "storm\x1b"}, "reason", "control characters"),
        ({"type": "void", "target": 1, "reason": "typo\x00"}, "reason", "control characters"),
        ({"type": "period_start", "id": "key\x00"}, "id", "control characters"),
    ],
)
def test_D45_every_text_field_of_every_event_refuses_control_characters(
    app: Flask, match: MatchDriver, event: dict[str, Any], field: str, words: str
) -> None:
    match.kickoff()
    before = _stored(app)
    answer = match.post(event, expect=400)
    assert words in " ".join(answer["fields"][field]), answer
    assert _stored(app) == before
    # Several lines are fine in a reason.
    match.post({"type": "void", "target": 2, "reason": "started too early\nby the scorer"}, expect=201)


# ---------------------------------------------------------------------------------------------
# D46: tokens that are not ASCII are no tokens (401, never a 500)


@pytest.mark.parametrize("token", ["令牌", "tök€n", "\udcff", "x" * 5000, "é"])
def test_D46_a_token_that_is_not_ascii_is_a_401_not_a_500(app: Flask, match: MatchDriver, token: str) -> None:
    before = _stored(app)
    q = quote(token.encode("utf-8", "surrogatepass"))
    for path in ("/", f"/matches/{match.id}/referee", f"/matches/{match.id}/officials"):
        r = match.client.get(f"{path}?token={q}", follow_redirects=True)  # refused, and out of the address (D154)
        assert r.status_code in (200, 401) and "token" not in r.request.url, (path, r.status_code)
    header = token.encode("utf-8", "surrogatepass").decode("latin-1")  # the bytes a client sends, as WSGI sees them
    r = match.client.post(f"/api/matches/{match.id}/events", json={"type": "period_start"}, headers=auth(header))
    _refused(app, r, 401, "unauthorized")
    _refused(app, match.client.post("/api/matches", json=demo_request(), headers=auth(header)), 401, "unauthorized")
    assert _stored(app) == before


# ---------------------------------------------------------------------------------------------
# The fuzz test: every endpoint, never a 500, never a stored change on a 4xx


ROLES = ("referee", "assistant1", "assistant2", "scorer")
VALID_EVENTS: list[dict[str, Any]] = [
    {"type": "coin_toss", "kickoff": "home", "home_end": "x0"},
    {"type": "period_start"},
    {"type": "restart_taken", "team": "home", "player": 1},
    {"type": "goal", "team": "home", "player": 3, "direct": False},
    {"type": "violation", "kind": "ball_out_end", "team": "away", "player": 2, "spot": {"x": 41, "y": 3}},
    {"type": "foul", "team": "home", "player": 2, "spot": {"x": 10, "y": 10}, "card": "yellow"},
    {"type": "card", "team": "away", "player": 4, "color": "red"},
    {"type": "substitution", "team": "away", "out": 2, "in": 8},
    {"type": "clock", "action": "set", "elapsed_ms": 60_000},
    {"type": "shootout_start", "first": "home", "takers": {"home": [1, 2, 3, 4], "away": [1, 2, 3, 4]}},
    {"type": "abandon", "reason": "storm"},
    {"type": "void", "target": 1, "reason": "typo"},
]
TRICKY_TEXT = ["", " ", "\x00", "\x1b[2J", "\ud800", "\u202e", "\ufeff", "令牌", "=1+1", "<script>", "a" * 300, "%s%n"]
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
    | st.sampled_from(TRICKY_TEXT)
)
json_values = st.recursive(
    scalars, lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=8), c, max_size=4), max_leaves=12
)


@st.composite
def mutated(draw: st.DrawFn, base: dict[str, Any]) -> dict[str, Any]:
    """A valid body with a few of its values (at any depth) replaced, removed or added."""
    body = json.loads(json.dumps(base))
    for _ in range(draw(st.integers(0, 3))):
        node: Any = body
        while isinstance(node, dict | list) and node and draw(st.booleans()):
            key = draw(st.sampled_from(sorted(node) if isinstance(node, dict) else list(range(len(node)))))
            if not isinstance(node[key], dict | list):
                break
            node = node[key]
        if isinstance(node, dict):
            action = draw(st.sampled_from(["set", "delete", "add"]))
            if action == "add" or not node:
                node[draw(st.text(max_size=8) | st.sampled_from(TRICKY_TEXT))] = draw(json_values)
            elif action == "delete":
                del node[draw(st.sampled_from(sorted(node)))]
            else:
                node[draw(st.sampled_from(sorted(node)))] = draw(json_values)
        elif isinstance(node, list) and node:
            node[draw(st.integers(0, len(node) - 1))] = draw(json_values)
    return body


def _encode(draw: st.DrawFn, body: Any) -> bytes:
    """The body as JSON, sometimes damaged on the way (cut, a stray byte, another encoding)."""
    text = json.dumps(body, ensure_ascii=draw(st.booleans()))
    how = draw(st.sampled_from(["plain", "plain", "plain", "cut", "byte", "utf16", "bom"]))
    raw = text.encode("utf-8", "surrogatepass")
    if how == "cut":
        return raw[: draw(st.integers(0, max(0, len(raw) - 1)))]
    if how == "byte":
        i = draw(st.integers(0, len(raw)))
        return raw[:i] + bytes([draw(st.integers(0, 255))]) + raw[i:]
    if how == "utf16":
        return text.encode("utf-16", "surrogatepass")
    if how == "bom":
        return b"\xef\xbb\xbf" + raw
    return raw


@st.composite
def requests_(draw: st.DrawFn, match_id: str, tokens: dict[str, str]) -> dict[str, Any]:
    """One request to one of the endpoints, with a credential from the matrix and a body from the above."""
    # Mostly the real match and real credentials, so that bodies get past the door and reach the schemas.
    any_id = match_id if draw(st.integers(0, 9)) < 8 else draw(st.sampled_from(["nosuchmatch", "?"]) | st.text(max_size=12))
    mid = quote(any_id.encode("utf-8", "surrogatepass"), safe="") or "x"
    if draw(st.integers(0, 3)):
        token = draw(st.sampled_from([ADMIN, *tokens.values(), tokens["referee"], tokens["referee"]]))
    else:
        token = draw(
            st.none() | st.text(max_size=30) | st.sampled_from(["令牌", "\udcff", "Bearer", ADMIN + "x", tokens["referee"][:-1]])
        )
    query = draw(
        st.sampled_from(["", "?lang=zh", "?overlay=1", "?dry_run=1"])
        | st.builds(lambda t: "?token=" + quote(t.encode("utf-8", "surrogatepass")), st.text(max_size=20))
        | st.just("?token=" + quote((token or "").encode("utf-8", "surrogatepass")))
    )
    endpoint = draw(
        st.sampled_from(
            [
                ("POST", "/api/matches"),
                ("GET", "/api/matches"),
                ("GET", "/api/matches/{id}"),
                ("GET", "/api/matches/{id}/events"),
                *[("POST", "/api/matches/{id}/events")] * 8,
                *[("POST", "/api/matches")] * 3,
                ("POST", "/api/matches/{id}/tokens/{role}"),
                ("GET", "/"),
                ("GET", "/matches/{id}"),
                ("GET", "/matches/{id}/scoreboard"),
                ("GET", "/matches/{id}/referee"),
                ("GET", "/matches/{id}/officials"),
                ("POST", "/matches/{id}/officials"),
                ("GET", "/matches/{id}/report"),
                ("GET", "/matches/{id}/report.json"),
                ("GET", "/matches/{id}/report.csv"),
                ("GET", "/lang/{role}"),
            ]
        )
    )
    method, template = endpoint
    role = draw(st.sampled_from([*ROLES, "organiser", "zh", ""]) | st.text(max_size=6))
    path = template.format(id=mid, role=quote(role.encode("utf-8", "surrogatepass"), safe="") or "x") + query
    headers: dict[str, str] = {}
    if token is not None:  # as the bytes a client sends arrive in WSGI (no line breaks: HTTP cannot carry them)
        header = token.encode("utf-8", "surrogatepass").decode("latin-1")
        headers["Authorization"] = "Bearer " + header.replace("\r", "").replace("\n", "")
    data: bytes = b""
    content_type = draw(
        st.sampled_from(["application/json", "application/json", "application/json; charset=utf-8", "text/plain"])
    )
    if method == "POST":
        if template == "/api/matches":
            body: Any = draw(mutated(demo_request()) | json_values)
        elif template.endswith("/officials"):
            content_type = "application/x-www-form-urlencoded"
            form = {"token": draw(st.sampled_from([ADMIN, "", "令牌"])), "role": draw(st.sampled_from([*ROLES, "x"]))}
            data = "&".join(f"{k}={quote(v)}" for k, v in form.items()).encode()
            return {"method": method, "path": path, "headers": headers, "data": data, "content_type": content_type}
        else:
            body = draw(st.sampled_from(VALID_EVENTS).flatmap(lambda e: mutated(e)) | json_values)
        data = _encode(draw, body)
    return {"method": method, "path": path, "headers": headers, "data": data, "content_type": content_type}


def test_D44_fuzz_every_endpoint_never_answers_500_and_a_4xx_never_changes_anything(app: Flask, match: MatchDriver) -> None:
    """Hypothesis sends bodies, credentials, ids and queries at every endpoint (pages, API, reports)."""
    match.kickoff()
    match.take()
    app.extensions["qalisball_throttle"].burst = 10**9  # wrong tokens are the point here (throttling: D50's test)
    seen: dict[int, int] = {}

    @settings(
        max_examples=FUZZ_EXAMPLES,
        deadline=None,
        derandomize=not RANDOMISE,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(request=requests_(match.id, match.tokens))
    def one(request: dict[str, Any]) -> None:
        before = _stored(app)
        r = match.client.open(
            request["path"],
            method=request["method"],
            data=request["data"],
            headers=request["headers"],
            content_type=request["content_type"],
        )
        seen[r.status_code] = seen.get(r.status_code, 0) + 1
        assert r.status_code < 500, (r.status_code, request, r.get_data(as_text=True)[:500])
        if r.status_code >= 400:
            assert _stored(app) == before, (r.status_code, request)
        if r.status_code >= 400 and request["path"].startswith("/api/"):
            body = r.get_json()
            assert body["error"] and body["message"], body

    one()
    print("fuzz: status codes seen", dict(sorted(seen.items())))
    # The fuzzer reached past the front door: refusals of every kind, and some accepted writes.
    assert {400, 401, 404}.issubset(seen), seen
    assert any(code in seen for code in (201, 409)), seen


def test_D44_fuzz_harness_can_fail(app: Flask) -> None:
    """The check above is honest: a handler that crashes is seen as a 500 by this client."""
    app.config["PROPAGATE_EXCEPTIONS"] = False

    @app.get("/api/crash")
    def crash() -> str:
        raise RuntimeError("boom")

    assert app.test_client().get("/api/crash").status_code == 500


def test_stored_snapshot_sees_a_changed_row(app: Flask, match: MatchDriver) -> None:
    """``_stored`` notices a change anywhere a request could make one."""
    match.kickoff()
    before = _stored(app)
    with sqlite3.connect(app.extensions["qalisball"].store.path) as conn:
        conn.execute("UPDATE events SET voided_by = 2 WHERE seq = 1")
    conn.close()
    assert _stored(app) != before


def test_D46_idempotency_keys_are_scoped_to_the_role_that_sent_them(app: Flask, match: MatchDriver) -> None:
    match.kickoff()
    by_referee = match.post({"type": "clock", "action": "pause", "id": "tablet-1"})
    by_scorer = match.post({"type": "clock", "action": "resume", "id": "tablet-1"}, role="scorer")
    assert by_scorer["seq"] == by_referee["seq"] + 1, "the same key from another role is another call"
    again = match.post({"type": "clock", "action": "resume", "id": "tablet-1"}, role="scorer", expect=200)
    assert again["seq"] == by_scorer["seq"]
    # The scorer cannot read the referee's answer by replaying its key with the referee's body.
    other = match.post({"type": "clock", "action": "pause", "id": "tablet-1"}, role="scorer", expect=409)
    assert other["error"] == "conflict"


# ---------------------------------------------------------------------------------------------
# D47: role tokens stored hashed; new ones issued when the organiser asks


def _restarted(app: Flask, clock: Any) -> Flask:
    from qalisball import create_app

    path = app.extensions["qalisball"].store.path
    app.extensions["qalisball"].store.close()
    return create_app({"TESTING": True, "DATABASE": path, "ADMIN_TOKEN": ADMIN, "CLOCK": clock})


def test_D47_role_tokens_are_stored_hashed_never_in_clear(app: Flask, match: MatchDriver) -> None:
    match.kickoff()
    store = app.extensions["qalisball"].store
    stored = json.loads(store.db.execute("SELECT tokens FROM matches WHERE id = ?", [match.id]).fetchone()[0])
    assert sorted(stored) == sorted(ROLES) and all(v.startswith("sha256:") for v in stored.values())
    raw = b"".join(Path(store.path + suffix).read_bytes() for suffix in ("", "-wal") if Path(store.path + suffix).exists())
    for token in match.tokens.values():
        assert token.encode() not in raw


def test_D47_tokens_from_creation_still_work_after_a_restart_and_the_officials_page_issues_new_ones(
    app: Flask, match: MatchDriver, clock: Any
) -> None:
    app = _restarted(app, clock)
    client = app.test_client()
    ref = match.tokens["referee"]
    assert (
        client.post(
            f"/api/matches/{match.id}/events", json={"type": "coin_toss", "kickoff": "home", "home_end": "x0"}, headers=auth(ref)
        ).status_code
        == 201
    )
    # After a restart the clear tokens are gone: the page offers new codes instead of QR codes.
    html = client.get(f"/matches/{match.id}/officials?token={ADMIN}&lang=en", follow_redirects=True).get_data(as_text=True)
    assert html.count('class="qr"') == 1  # the spectators' code only
    assert html.count("New code (the old one stops working)") == 4
    assert "为下列所有角色生成新二维码" in client.get(f"/matches/{match.id}/officials?lang=zh").get_data(as_text=True)
    # A form post without the organiser's cookie changes nothing (a fresh device, or only a role token).
    assert app.test_client().post(f"/matches/{match.id}/officials", data={"token": ref, "role": "referee"}).status_code == 401
    assert client.post(f"/api/matches/{match.id}/events", json={"type": "period_start"}, headers=auth(ref)).status_code == 201
    csrf = re.search(r'name="csrf" value="([0-9a-f]{32})"', html)
    assert csrf and ADMIN not in html
    r = client.post(f"/matches/{match.id}/officials", data={"csrf": csrf.group(1), "role": "referee"})
    assert r.status_code == 303 and r.headers["Location"].endswith(f"/matches/{match.id}/officials")
    html = client.get(r.headers["Location"] + "?lang=en").get_data(as_text=True)
    new = html.split(f"/matches/{match.id}/referee?token=")[1].split('"')[0]
    assert new != ref and html.count("New code (the old one stops working)") == 3
    assert (
        client.post(f"/api/matches/{match.id}/events", json={"type": "clock", "action": "pause"}, headers=auth(ref)).status_code
        == 401
    )
    assert (
        client.post(f"/api/matches/{match.id}/events", json={"type": "clock", "action": "pause"}, headers=auth(new)).status_code
        == 201
    )
    app.extensions["qalisball"].store.close()


def test_D47_the_organiser_issues_a_new_token_for_a_role_over_the_api(app: Flask, match: MatchDriver) -> None:
    from qalisball import socketio

    url = f"/api/matches/{match.id}/tokens/scorer"
    before = _stored(app)
    _refused(app, match.client.post(url), 401, "unauthorized")
    _refused(app, match.client.post(url, headers=auth(match.tokens["referee"])), 403, "forbidden")
    _refused(app, match.client.post("/api/matches/nosuch/tokens/scorer", headers=auth(ADMIN)), 404, "not_found")
    _refused(app, match.client.post(f"/api/matches/{match.id}/tokens/captain", headers=auth(ADMIN)), 404, "not_found")
    assert _stored(app) == before
    console = socketio.test_client(app)
    console.emit("join", {"match": match.id, "token": match.tokens["scorer"], "device": "scorer's tablet"})
    console.get_received()
    r = match.client.post(url, headers=auth(ADMIN))
    assert r.status_code == 200 and sorted(r.get_json()) == ["token"]
    new = r.get_json()["token"]
    assert [(m["name"], m["args"][0]) for m in console.get_received()] == [("token_revoked", {"role": "scorer"})]
    pause = {"type": "clock", "action": "pause"}
    match.kickoff()
    old = match.client.post(f"/api/matches/{match.id}/events", json=pause, headers=auth(match.tokens["scorer"]))
    _refused(app, old, 401, "unauthorized")
    assert match.client.post(f"/api/matches/{match.id}/events", json=pause, headers=auth(new)).status_code == 201
    assert new not in json.dumps(match.client.get(f"/api/matches/{match.id}").get_json())


# ---------------------------------------------------------------------------------------------
# D48: the organiser token; the token file; what start-up prints


def test_D48_an_organiser_token_from_the_environment_shorter_than_24_characters_is_refused_at_start_up(tmp_path: Any) -> None:
    env = {
        **os.environ,
        "QALISBALL_DB": str(tmp_path / "x.db"),
        "QALISBALL_ADMIN_TOKEN": "short-token-23-characters"[:23],
        "PORT": "1",
    }
    done = subprocess.run([sys.executable, "app.py"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "QALISBALL_ADMIN_TOKEN is 23 characters long: use at least 24" in done.stderr
    assert not (tmp_path / "x.db").exists(), "nothing was served or created"
    from qalisball import ConfigError, create_app

    for weak in ("x" * 23, "令" * 30, " " + "x" * 30):
        os.environ["QALISBALL_ADMIN_TOKEN"] = weak
        try:
            with pytest.raises(ConfigError):
                create_app({"DATABASE": str(tmp_path / "y.db")})
        finally:
            del os.environ["QALISBALL_ADMIN_TOKEN"]


def test_D48_the_token_file_is_created_0600_atomically_and_tightened_when_older(tmp_path: Any) -> None:
    from qalisball.server.factory import _instance_admin_token

    old = os.umask(0)  # even with a permissive umask
    try:
        tokens: list[str] = []
        threads = [threading.Thread(target=lambda: tokens.append(_instance_admin_token(tmp_path))) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        os.umask(old)
    path = tmp_path / "admin_token"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(set(tokens)) == 1 and len(tokens[0]) >= 24, "every process uses the one token that won"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["admin_token"], "no temporary file left behind"
    path.chmod(0o666)  # as an older version left it
    assert _instance_admin_token(tmp_path) == tokens[0]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def _start_app(tmp_path: Any, stdout: Any) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "QALISBALL_DB": str(tmp_path / "x.db"),
        "QALISBALL_ADMIN_TOKEN": "printed-organiser-token-0123456",
        "PORT": str(free_port()),
        "PYTHONUNBUFFERED": "1",
    }
    return subprocess.Popen([sys.executable, "app.py"], cwd=ROOT, env=env, stdout=stdout, stderr=subprocess.STDOUT)


def _read_until(read: Any, marker: bytes, limit_s: float = 60) -> bytes:
    out = b""
    deadline = time.monotonic() + limit_s
    while marker not in out and time.monotonic() < deadline:
        out += read()
    return out


def test_D48_start_up_prints_the_links_with_tokens_to_a_terminal_never_into_a_log_file(tmp_path: Any) -> None:
    log = tmp_path / "server.log"
    with log.open("wb") as out:
        proc = _start_app(tmp_path, out)
    try:
        wait_until(lambda: b"  report " in log.read_bytes(), "the start-up links in the log", timeout=60)
    finally:
        proc.kill()
        proc.wait()
    text = log.read_bytes()
    assert b"Qalisball Live on" in text and b"/scoreboard" in text
    assert not re.search(rb"token=[\w-]", text) and b"printed-organiser-token" not in text, text.decode()
    assert b"not printed (this output is not a terminal); it is the QALISBALL_ADMIN_TOKEN you set" in text
    # To a terminal (make run): the organiser's links and the demo match's consoles, once.
    master, slave = pty.openpty()
    (tmp_path / "tty").mkdir()
    proc = _start_app(tmp_path / "tty", slave)
    os.close(slave)
    try:
        text = _read_until(lambda: os.read(master, 65536), b"scorer ")
    finally:
        proc.kill()
        proc.wait()
        os.close(master)
    assert b"?token=printed-organiser-token-0123456" in text
    assert text.count(b"/referee?token=") == 4 and text.count(b"Organiser token:") == 1


# ---------------------------------------------------------------------------------------------
# D49: security headers (the Chromium test of framing is tests/browser/test_security_headers.py)


def test_D49_every_page_has_a_csp_without_inline_script_nosniff_and_no_referrer(app: Flask, match: MatchDriver) -> None:
    pages = [
        "/",
        f"/matches/{match.id}",
        f"/matches/{match.id}/scoreboard",
        f"/matches/{match.id}/referee?token={match.tokens['referee']}",
        f"/matches/{match.id}/referee",
        f"/matches/{match.id}/officials?token={ADMIN}",
        f"/matches/{match.id}/report",
    ]
    for path in pages:
        r = match.client.get(path)
        csp = r.headers["Content-Security-Policy"]
        assert "script-src 'self'" in csp and "'unsafe-inline'" not in csp.split("script-src")[1].split(";")[0], path
        if path.endswith("/scoreboard"):  # a venue screen frames it from this site (issue 13): no one else may
            assert "frame-ancestors 'self'" in csp and r.headers["X-Frame-Options"] == "SAMEORIGIN", path
        else:
            assert "frame-ancestors 'none'" in csp and r.headers["X-Frame-Options"] == "DENY", path
        assert r.headers["X-Content-Type-Options"] == "nosniff" and r.headers["Referrer-Policy"] == "no-referrer", path
        html = r.get_data(as_text=True)
        # An inline script runs only with this answer's nonce (templates that still have one: officials, token).
        for tag in re.findall(r"<script(?![^>]*\bsrc=)[^>]*>", html):
            assert 'type="application/json"' in tag or f'nonce="{csp.split("nonce-")[1].split(chr(39))[0]}"' in tag, (path, tag)
    api = match.client.get(f"/api/matches/{match.id}")
    assert api.headers["X-Content-Type-Options"] == "nosniff" and "Content-Security-Policy" not in api.headers


def test_D49_the_overlay_alone_may_be_framed_by_others(app: Flask, match: MatchDriver) -> None:
    overlay = match.client.get(f"/matches/{match.id}/scoreboard?overlay=1")
    assert "frame-ancestors" not in overlay.headers["Content-Security-Policy"] and "X-Frame-Options" not in overlay.headers
    assert "script-src 'self';" in overlay.headers["Content-Security-Policy"]
    board = match.client.get(f"/matches/{match.id}/scoreboard?overlay=0")
    assert "frame-ancestors 'self'" in board.headers["Content-Security-Policy"]  # a venue screen of this site only
    console = match.client.get(f"/matches/{match.id}/referee?token={match.tokens['referee']}")
    assert "frame-ancestors 'none'" in console.headers["Content-Security-Policy"]


def test_D49_an_answer_to_a_request_with_a_token_is_never_cached(app: Flask, match: MatchDriver) -> None:
    """The link's exchange (D53), and the pages its cookie then opens, are never kept by a cache."""
    for url in (f"/matches/{match.id}/referee?token={match.tokens['referee']}", f"/matches/{match.id}/officials?token={ADMIN}"):
        r = match.client.get(url)
        assert r.status_code == 303 and r.headers["Cache-Control"] == "no-store"
        assert match.client.get(r.headers["Location"]).headers["Cache-Control"] == "no-store"
    spectator = app.test_client()  # no token, no cookie
    assert "no-store" not in spectator.get(f"/matches/{match.id}/scoreboard").headers.get("Cache-Control", "")


# ---------------------------------------------------------------------------------------------
# D50: wrong tokens throttled per client address


def test_D50_wrong_tokens_are_throttled_per_address_with_retry_after(app: Flask, match: MatchDriver, clock: Any) -> None:
    url = f"/api/matches/{match.id}/events"
    guess = {"REMOTE_ADDR": "192.0.2.66"}
    before = _stored(app)
    for i in range(10):
        r = match.client.post(url, json={"type": "period_start"}, headers=auth(f"guess-{i}"), environ_base=guess)
        assert r.status_code == 401, i
    r = match.client.post(url, json={"type": "period_start"}, headers=auth("guess-10"), environ_base=guess)
    body = _refused(app, r, 429, "too_many_requests")
    assert int(r.headers["Retry-After"]) == 6 and "try again in 6 s" in body["message"]
    # While throttled even the right token is refused, before it is looked at: guessing learns nothing.
    right = match.client.post(
        url,
        json={"type": "coin_toss", "kickoff": "home", "home_end": "x0"},
        headers=auth(match.tokens["referee"]),
        environ_base=guess,
    )
    assert right.status_code == 429
    for page in (f"/matches/{match.id}/referee?token=x", "/?token=x", f"/matches/{match.id}/officials?token={ADMIN}"):
        assert match.client.get(page, environ_base=guess).status_code == 429, page
    # Spectators from that address, and officials from other addresses, are not affected.
    assert match.client.get(f"/matches/{match.id}", environ_base=guess).status_code == 200
    other = match.client.post(
        url,
        json={"type": "coin_toss", "kickoff": "home", "home_end": "x0"},
        headers=auth(match.tokens["referee"]),
        environ_base={"REMOTE_ADDR": "192.0.2.7"},
    )
    assert other.status_code == 201
    assert _stored(app) != before
    # The bucket drains: one more try every 6 s.
    clock.advance(6_000)
    assert match.client.post(url, json={"type": "period_start"}, headers=auth("guess-11"), environ_base=guess).status_code == 401
    assert match.client.post(url, json={"type": "period_start"}, headers=auth("guess-12"), environ_base=guess).status_code == 429
    clock.advance(60_000)
    ok = match.client.post(url, json={"type": "period_start"}, headers=auth(match.tokens["referee"]), environ_base=guess)
    assert ok.status_code == 201


def test_D50_wrong_organiser_tokens_on_pages_count_too(app: Flask, match: MatchDriver) -> None:
    guess = {"REMOTE_ADDR": "192.0.2.67"}
    for i in range(5):
        for page in ("/", f"/matches/{match.id}/officials"):  # each answers "not accepted" without the token (D154)
            r = match.client.get(f"{page}?token=wrong-{i}", environ_base=guess)
            assert r.status_code == 303 and r.headers["Location"].endswith("signin=refused"), (page, r.headers)
    r = match.client.get(f"/?token={ADMIN}&lang=zh", environ_base=guess)
    assert r.status_code == 429 and int(r.headers["Retry-After"]) == 6
    assert r.get_data(as_text=True) == "此设备输入错误令牌的次数过多：请 6 秒后再试。\n"
    en = match.client.get(f"/matches/{match.id}/officials?token={ADMIN}&lang=en", environ_base=guess)
    assert en.get_data(as_text=True) == "Too many wrong tokens from this device: try again in 6 s.\n"


# ---------------------------------------------------------------------------------------------
# D51: CSV cells that a spreadsheet would run are escaped


def test_D51_csv_cells_starting_with_a_formula_character_are_escaped(client: FlaskClient, clock: Any) -> None:
    import csv as csvlib

    body = demo_request()
    body["home"]["name"] = '=HYPERLINK("http://evil.example","Renmin")'
    names = ["=1+1", "+SUM(A1)", "-2+3", "@cmd", "Li Hua", "- dash", "陈静", "杨帆", "赵磊", "周敏"]
    for player, name in zip(body["home"]["players"], names, strict=True):
        player["name"] = name
    match = MatchDriver(client, clock, body)
    match.kickoff()
    text = client.get(f"/matches/{match.id}/report.csv").get_data(as_text=True)
    rows = list(csvlib.reader(io.StringIO(text.lstrip("\ufeff"))))
    cells = [c for row in rows for c in row]
    assert not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")], "no cell starts a formula"
    off = next(i for i, h in enumerate(rows[0]) if h.startswith("Side"))  # after the match's own columns (M-CSV)
    home = [r for r in rows[1:] if r[off] == "home"]
    assert home[0][off + 1] == '\'=HYPERLINK("http://evil.example","Renmin")'
    assert [r[off + 3] for r in home[:6]] == ["'=1+1", "'+SUM(A1)", "'-2+3", "'@cmd", "Li Hua", "'- dash"]
    assert home[0][rows[0].index(next(h for h in rows[0] if h.startswith("Home")))].startswith("'=HYPERLINK")
    from qalisball.reports.render import csv_safe

    assert [csv_safe(v) for v in ("\tx", "\rx", -3, 2.5, None, "a=b")] == ["'\tx", "'\rx", -3, 2.5, None, "a=b"]


# ---------------------------------------------------------------------------------------------
# D52: live connections bounded (the real server: app.py, gevent)


def _closed_by_server(sock: Any, limit_s: float = 90) -> bool:
    """Drain ``sock`` until the server closes it (EOF or reset); False if it is still open at the limit."""
    sock.settimeout(1)
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        try:
            if sock.recv(1 << 20) == b"":
                return True
        except TimeoutError:
            continue
        except OSError:  # reset by the server
            return True
    return False


class _Spectator:
    """A well-behaved Socket.IO client over a raw websocket: reads everything, answers pings."""

    def __init__(self, url: str, match_id: str) -> None:
        import websocket

        self.ws = websocket.create_connection(url, timeout=30)
        self.states: list[dict[str, Any]] = []
        self.ws.send("40")
        self.ws.send("42" + json.dumps(["join", {"match": match_id}]))
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            while True:
                message = self.ws.recv()
                if message == "2":
                    self.ws.send("3")
                elif isinstance(message, str) and message.startswith('42["state"'):
                    self.states.append(json.loads(message[2:])[1])
        except Exception:  # closed at the end of the test
            return

    def close(self) -> None:
        self.ws.close()


def test_D52_clients_that_never_read_are_dropped_and_the_others_keep_up(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    import requests
    import websocket

    from .test_durability import Server, _create, _post

    monkeypatch.setenv("QALISBALL_PING_INTERVAL", "2")
    monkeypatch.setenv("QALISBALL_PING_TIMEOUT", "2")
    srv = Server(tmp_path / "live.db", tmp_path / "server.log")
    srv.start()
    stop = threading.Event()
    slow: list[Any] = []
    try:
        match_id, tokens = _create(srv)
        url = srv.base.replace("http://", "ws://") + "/socket.io/?EIO=4&transport=websocket"
        good = _Spectator(url, match_id)
        # Five clients join and never read a byte (a tiny receive buffer, as a phone that froze):
        # three keep answering pings blindly (alive for Engine.IO: only the bounded queue can drop them),
        # two say nothing at all (half-open: the ping timeout drops them).
        slow = [
            websocket.create_connection(url, timeout=30, sockopt=[(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)]) for _ in range(5)
        ]
        for ws in slow:
            ws.send("40")
            ws.send("42" + json.dumps(["join", {"match": match_id}]))

        def blind_pongs() -> None:
            while not stop.wait(1):
                for ws in slow[:3]:
                    with contextlib.suppress(Exception):
                        ws.send("3")

        threading.Thread(target=blind_pongs, daemon=True).start()
        session = requests.Session()
        assert _post(session, srv, match_id, tokens["referee"], {"type": "coin_toss", "kickoff": "home", "home_end": "x0"}).ok
        assert _post(session, srv, match_id, tokens["referee"], {"type": "period_start"}).ok
        for i in range(200):
            action = "pause" if i % 2 == 0 else "resume"
            r = _post(session, srv, match_id, tokens["scorer"], {"type": "clock", "action": action})
            assert r.status_code == 201, r.text
        last = r.json()["seq"]
        dropped = [_closed_by_server(ws.sock) for ws in slow]
        stop.set()
        assert dropped == [True] * 5, dropped
        # The reader kept up: it has every state, the last one included.
        wait_until(lambda: good.states and good.states[-1]["seq"] == last, "the reader's last state")
        assert [s["seq"] for s in good.states] == sorted({s["seq"] for s in good.states})
        # A dropped client that comes back gets the present at once.
        back = _Spectator(url, match_id)
        wait_until(lambda: back.states, "the state of the client that came back")
        assert back.states[0]["seq"] == last
        # A half-open client (joined, then silent: no reads, no pongs) is dropped with no event to send.
        silent = websocket.create_connection(url, timeout=30)
        silent.send("40")
        silent.send("42" + json.dumps(["join", {"match": match_id}]))
        assert _closed_by_server(silent.sock), "the ping timeout closes a half-open socket"
        good.close()
        back.close()
        session.close()
    finally:
        stop.set()
        for ws in [*slow, *([silent] if "silent" in locals() else [])]:
            ws.close()
        srv.stop()


def _server_side_connections(port: int) -> int:
    """The server's open ends of connections to ``port`` (Linux's /proc/net/tcp: ESTABLISHED or CLOSE_WAIT,
    i.e. not yet closed by the server; TCP_ESTABLISHED is 01, TCP_CLOSE_WAIT 08)."""
    rows = [line.split() for line in Path("/proc/net/tcp").read_text().splitlines()[1:]]
    return sum(1 for r in rows if int(r[1].rsplit(":", 1)[1], 16) == port and r[3] in ("01", "08"))


def test_D52_connections_per_address_are_capped(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    from .test_durability import Server

    monkeypatch.setenv("QALISBALL_MAX_CONNECTIONS_PER_ADDRESS", "6")
    srv = Server(tmp_path / "live.db", tmp_path / "server.log")
    srv.start()
    host, port = "127.0.0.1", int(srv.base.rsplit(":", 1)[1])
    held: list[socket.socket] = []
    try:
        # The start-up probe's connection is closed and no longer counted (the server closes a connection once
        # its handler, which releases it, has returned).
        wait_until(lambda: _server_side_connections(port) == 0, "the start-up probe's connection closed")
        for _ in range(6):
            held.append(socket.create_connection((host, port), timeout=10))
        extra = socket.create_connection((host, port), timeout=10)
        extra.sendall(b"GET /api/matches HTTP/1.1\r\nHost: x\r\n\r\n")
        answer = _read_all(extra)
        assert answer.startswith(b"HTTP/1.1 429") and b"Retry-After: 10" in answer, answer[:200]
        held.pop().close()
        wait_until(lambda: _server_side_connections(port) == len(held), "the closed connection released")
        again = socket.create_connection((host, port), timeout=10)
        again.sendall(b"GET /api/matches HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert _read_all(again).startswith(b"HTTP/1.1 200")
    finally:
        for s in held:
            s.close()
        srv.stop()


def _read_all(sock: Any) -> bytes:
    out = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    sock.close()
    return out
