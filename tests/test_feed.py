"""The feed (issue 30 items 1-2, API.md "The feed"): Server-Sent Events and pages read from the journal."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.conftest import ADMIN, FakeClock, MatchDriver
from tests.test_api_match_day import PNG


class Waits:
    """The stream's wait for the next change, on the test's clock: each call is 15 s passing with nothing new."""

    def __init__(self) -> None:
        self.asked: list[float] = []

    def __call__(self, cursor: int, timeout: float) -> bool:
        self.asked.append(timeout)
        return False


@pytest.fixture
def waits() -> Waits:
    return Waits()


@pytest.fixture
def app(tmp_path: Any, clock: FakeClock, waits: Waits) -> Iterator[Flask]:
    from qalisball import create_app

    config = {"TESTING": True, "DATABASE": str(tmp_path / "test.db"), "ADMIN_TOKEN": ADMIN, "CLOCK": clock}
    app = create_app({**config, "FEED_WAIT": waits, "FEEDS_PER_ADDRESS": 3})
    yield app
    app.extensions["qalisball"].store.close()


class Stream:
    """An open ``GET /api/feed``, read message by message as an EventSource would."""

    def __init__(self, client: FlaskClient, url: str, headers: dict[str, str] | None = None) -> None:
        self.r = client.get(url, headers=headers or {}, buffered=False)
        assert self.r.status_code == 200 and self.r.mimetype == "text/event-stream", self.r.get_data()
        self.chunks = iter(self.r.response)
        self.pending: list[str] = []
        self.buffer = ""

    def next(self) -> dict[str, Any] | str:
        """The next message (``{"id", "event", "data"}``) or comment (``": keep-alive"``)."""
        while not self.pending:
            chunk = next(self.chunks)
            self.buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
            *done, self.buffer = self.buffer.split("\n\n")
            self.pending.extend(done)
        block = self.pending.pop(0)
        if block.startswith(":"):
            return block
        fields = dict(line.split(": ", 1) for line in block.split("\n"))
        return {"id": fields["id"], "event": fields["event"], "data": json.loads(fields["data"])}

    def messages(self, n: int) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        while len(out) < n:
            item = self.next()
            if isinstance(item, dict):
                out.append(item)
        return out

    def close(self) -> None:
        self.r.close()


def _all(client: FlaskClient, query: str = "") -> list[dict[str, Any]]:
    r = client.get(f"/api/feed.json?since=0&limit=1000{query}")
    assert r.status_code == 200, r.get_json()
    messages: list[dict[str, Any]] = r.get_json()["messages"]
    return messages


def test_issue30_item1_a_consumer_dropped_mid_match_reconnects_with_last_event_id_and_gets_every_message_once(
    client: FlaskClient, match: MatchDriver, waits: Waits
) -> None:
    match.kickoff()
    match.take()
    match.post({"type": "goal", "team": "home", "player": 3})
    first = Stream(client, "/api/feed?since=0")
    got = first.messages(2)
    first.close()  # dropped after two messages
    match.post({"type": "void", "target": 4, "reason": "hand"})  # a correction is a message of its own
    match.run_out_half()
    again = Stream(client, "/api/feed", {"Last-Event-ID": got[-1]["id"]})
    got += again.messages(4)
    assert again.next() == ": keep-alive"  # nothing more: 15 s pass on the test's clock
    again.close()
    log = match.events()
    assert [m["data"]["seq"] for m in got] == [e["seq"] for e in log] == [1, 2, 3, 4, 5, 6]  # each once, in order
    assert [m["event"] for m in got] == ["match"] * 6
    cursors = [int(m["id"]) for m in got]
    assert cursors == sorted(cursors) and len(set(cursors)) == 6
    for m, entry in zip(got, log, strict=True):
        assert m["data"]["v"] == 1 and m["data"]["cursor"] == m["id"] and m["data"]["match"] == match.id
        assert m["data"]["event"] == {**entry, "voided_by": None, "struck": False}  # as it was when stored
        assert m["data"]["state"]["seq"] == entry["seq"]
    assert log[3]["voided_by"] == 5 and got[3]["data"]["state"]["score"] == {"home": 1, "away": 0}
    assert got[4]["data"]["state"]["score"] == {"home": 0, "away": 0}
    assert got[-1]["data"]["state"]["score"] == match.state()["score"]
    # The pages carry the same messages; ``next`` goes on from the last one.
    assert [m["cursor"] for m in _all(client)] == [m["id"] for m in got]
    page = client.get("/api/feed.json?since=0&limit=4").get_json()
    assert len(page["messages"]) == 4 and page["next"] == got[3]["id"]
    rest = client.get(f"/api/feed.json?since={page['next']}").get_json()
    assert [m["seq"] for m in rest["messages"]] == [5, 6] and rest["next"] == got[-1]["id"]
    assert all(t <= 15 for t in waits.asked)


def test_issue30_item1_without_a_cursor_the_stream_starts_with_the_next_change(client: FlaskClient, match: MatchDriver) -> None:
    match.kickoff()
    s = Stream(client, "/api/feed")
    assert s.next() == ": feed"
    match.take()
    [m] = s.messages(1)
    s.close()
    assert m["data"]["seq"] == 3


def test_issue30_item1_a_cursor_the_server_never_gave_is_a_400_naming_since(client: FlaskClient, match: MatchDriver) -> None:
    match.kickoff()
    head = _all(client)[-1]["cursor"]
    for bad in ("99", "abc", "-1", str(int(head) + 1)):
        for url in (f"/api/feed?since={bad}", f"/api/feed.json?since={bad}"):
            r = client.get(url)
            assert r.status_code == 400 and r.get_json()["error"] == "invalid" and "since" in r.get_json()["fields"], url
        r = client.get("/api/feed", headers={"Last-Event-ID": bad})
        assert r.status_code == 400 and "since" in r.get_json()["fields"]
    for bad in ("0", "1001", "x"):
        r = client.get(f"/api/feed.json?limit={bad}")
        assert r.status_code == 400 and "limit" in r.get_json()["fields"]


def test_issue30_item1_filters_by_match_and_by_competition_with_its_fixtures_matches(
    client: FlaskClient, clock: FakeClock
) -> None:
    from tests.test_competitions import Api, _league, _six

    api = Api(client)
    lone = MatchDriver(client, clock)
    ids, _ = _six(api)
    comp = _league(api, ids)["id"]
    fixture = api.view(comp)["fixtures"][0]
    made = api.match(comp, fixture["id"])
    fx = MatchDriver.__new__(MatchDriver)
    fx.client, fx.clock, fx.id, fx.tokens = client, clock, made["id"], made["tokens"]
    lone.kickoff()
    fx.kickoff()
    assert {m["match"] for m in _all(client, f"&match={lone.id}")} == {lone.id}
    assert len(_all(client, f"&match={lone.id}&match={fx.id}")) == 4
    mine = _all(client, f"&competition={comp}")
    changes = [m["change"] for m in mine if "competition" in m]
    assert changes == ["competition_created", "match_created"]
    assert [m["seq"] for m in mine if "match" in m and "seq" in m] == [1, 2] and all(
        m["match"] == fx.id for m in mine if "seq" in m
    )
    shown = next(m for m in mine if m.get("change") == "match_created")
    assert shown["competition_state"]["id"] == comp and shown["detail"]["match"] == fx.id
    # The stream filters as the pages do.
    s = Stream(client, f"/api/feed?since=0&competition={comp}")
    assert [m["event"] for m in s.messages(4)] == ["competition", "competition", "match", "match"]
    s.close()


def test_issue30_item1_public_only_no_token_no_hidden_note_no_signature_image(client: FlaskClient, match: MatchDriver) -> None:
    match.kickoff()
    match.post({"type": "note", "text": "secret word for the report", "about": 1})
    match.take()
    match.post({"type": "goal", "team": "home", "player": 3})
    match.run_out_half()
    match.post({"type": "period_start"})
    match.run_out_half()
    match.post({"type": "sign", "as": "home_captain", "name": "李华", "signature": PNG})
    text = client.get("/api/feed.json?since=0&limit=1000").get_data(as_text=True)
    assert "secret word" not in text and "data:image" not in text and PNG[:40] not in text
    for token in [*match.tokens.values(), ADMIN]:
        assert token not in text
    messages = json.loads(text)["messages"]
    note = next(m for m in messages if m["event"]["type"] == "note")
    sign = next(m for m in messages if m["event"]["type"] == "sign")
    assert "text" not in note["event"] and sign["event"]["name"] == "李华" and "signature" not in sign["event"]


def test_issue30_item1_D283_an_open_stream_holds_no_reader_slot_and_streams_are_bounded_per_address(
    app: Flask, client: FlaskClient, match: MatchDriver
) -> None:
    gate = app.extensions["qalisball_readers"]
    streams = [Stream(client, "/api/feed?since=0") for _ in range(3)]
    for s in streams:
        s.next()
    assert gate.reading == 0  # the streams are open, the gate's slots free
    r = client.get("/api/feed")
    assert r.status_code == 429 and r.get_json()["error"] == "too_many_requests"
    streams.pop().close()
    streams.append(Stream(client, "/api/feed"))  # a place was given back
    for s in streams:
        s.close()
    assert app.extensions["qalisball_feed_open"].by_address == {}


def test_issue30_item1_the_journal_survives_a_restart_and_cursors_go_on(tmp_path: Any, clock: FakeClock) -> None:
    from qalisball import create_app

    config = {"TESTING": True, "DATABASE": str(tmp_path / "r.db"), "ADMIN_TOKEN": ADMIN, "CLOCK": clock}
    app = create_app(config)
    m = MatchDriver(app.test_client(), clock)
    m.kickoff()
    before = _all(app.test_client())
    app.extensions["qalisball"].store.close()
    app = create_app(config)
    try:
        c = app.test_client()
        assert _all(c) == before
        m.client = c
        m.take()
        after = _all(c)
        assert after[:2] == before and len(after) == 3 and int(after[-1]["cursor"]) > int(before[-1]["cursor"])
    finally:
        app.extensions["qalisball"].store.close()
