"""Webhooks (issue 30 item 3, API.md "The feed"; D330–D332): signed POSTs of the feed's messages, in order per
subscription, retried on the app's clock, surviving a restart; no private addresses unless allowed.

The endpoints are real HTTP servers on 127.0.0.1 (hence ``WEBHOOK_ALLOW_PRIVATE`` in most tests); the retry
schedule runs on the test's clock (``FakeClock``, started at the real time so that ``standardwebhooks``'
five-minute tolerance accepts the timestamps): a test moves it and calls ``Webhooks.tick``. Waits are on
conditions (a request arrived, a try was recorded), never sleeps.
"""

from __future__ import annotations

import http.server
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from standardwebhooks import Webhook

from qalisball.feed import webhooks
from qalisball.feed.webhooks import Webhooks
from tests.conftest import ADMIN, FakeClock, MatchDriver, auth

WAIT_S = 15.0  # the most a condition is waited for before the test fails


class Endpoint:
    """A webhook receiver: answers each request as ``script`` says (a status, or "hang" until released)."""

    def __init__(self, script: Callable[[int], int | str] = lambda n: 204) -> None:
        self.script = script
        self.requests: list[tuple[str, dict[str, str], str]] = []  # (path, headers, body)
        self.cond = threading.Condition()
        self.release = threading.Event()
        endpoint = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"])).decode()
                with endpoint.cond:
                    n = len(endpoint.requests)
                    endpoint.requests.append((self.path, dict(self.headers.items()), body))
                    endpoint.cond.notify_all()
                answer = endpoint.script(n)
                if answer == "hang":
                    endpoint.release.wait(60)
                    answer = 200
                self.send_response(int(answer))
                if 300 <= int(answer) < 400:
                    self.send_header("Location", "/elsewhere")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook?x=1"

    def wait(self, n: int) -> list[tuple[str, dict[str, str], str]]:
        with self.cond:
            assert self.cond.wait_for(lambda: len(self.requests) >= n, WAIT_S), (n, len(self.requests))
            return list(self.requests)

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def endpoints() -> Iterator[list[Endpoint]]:
    made: list[Endpoint] = []
    yield made
    for e in made:
        e.close()


def endpoint(endpoints: list[Endpoint], script: Callable[[int], int | str] = lambda n: 204) -> Endpoint:
    e = Endpoint(script)
    endpoints.append(e)
    return e


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(int(time.time() * 1000))  # standardwebhooks checks timestamps against the real time


def make_app(path: str, clock: FakeClock, **config: Any) -> Flask:
    from qalisball import create_app

    return create_app({"TESTING": True, "DATABASE": path, "ADMIN_TOKEN": ADMIN, "CLOCK": clock,
                       "WEBHOOK_ALLOW_PRIVATE": True, **config})  # fmt: skip


def close_app(app: Flask) -> None:
    app.extensions["qalisball"].store.close()  # its webhooks' workers stop first (Store.on_close)


@pytest.fixture
def app(tmp_path: Any, clock: FakeClock) -> Iterator[Flask]:
    app = make_app(str(tmp_path / "test.db"), clock)
    yield app
    close_app(app)


def hooks_of(app: Flask) -> Webhooks:
    hooks: Webhooks = app.extensions["qalisball_webhooks"]
    return hooks


def subscribe(client: FlaskClient, url: str, **body: Any) -> tuple[str, str]:
    r = client.post("/api/webhooks", json={"url": url, **body}, headers=auth(ADMIN))
    assert r.status_code == 201, r.get_json()
    data = r.get_json()
    assert set(data) == {"id", "secret"} and data["secret"].startswith("whsec_")
    return data["id"], data["secret"]


def deliveries(client: FlaskClient, sub_id: str) -> list[dict[str, Any]]:
    r = client.get(f"/api/webhooks/{sub_id}/deliveries", headers=auth(ADMIN))
    assert r.status_code == 200, r.get_json()
    out: list[dict[str, Any]] = r.get_json()
    return out


def feed(client: FlaskClient) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = client.get("/api/feed.json?since=0&limit=1000").get_json()["messages"]
    return messages


def verified(secret: str, request: tuple[str, dict[str, str], str]) -> dict[str, Any]:
    """The body of a request, after ``standardwebhooks`` verified its signature (and timestamp)."""
    _, headers, body = request
    data: dict[str, Any] = Webhook(secret).verify(body, headers)
    assert headers["webhook-id"] == data["cursor"] and headers["Content-Type"] == "application/json"
    return data


def tried(hooks: Webhooks, n: int) -> None:
    assert hooks.wait_until(lambda: hooks.tries >= n, WAIT_S), (n, hooks.tries)


def test_issue30_item3_D330_an_endpoint_that_fails_the_first_tries_still_receives_everything_in_order_signed(
    app: Flask, client: FlaskClient, clock: FakeClock, endpoints: list[Endpoint]
) -> None:
    hooks = hooks_of(app)
    e = endpoint(endpoints, lambda n: 500 if n < 2 else 204)  # the first two tries fail
    sub_id, secret = subscribe(client, e.url)
    match = MatchDriver(client, clock)
    match.kickoff()  # two messages: the coin toss and the half's start
    tried(hooks, 1)
    [log] = deliveries(client, sub_id)
    assert log["status"] == "pending" and log["attempts"] == 1 and log["last_status"] == 500
    assert hooks.store.get(sub_id).next_at == clock.now + 5_000  # type: ignore[union-attr]  # D330: 5 s
    match.take()  # a third message, behind the pending one
    clock.advance(5_000)
    hooks.tick()
    tried(hooks, 2)
    assert hooks.store.get(sub_id).next_at == clock.now + 25_000  # type: ignore[union-attr]  # then 25 s
    clock.advance(25_000)
    hooks.tick()
    got = e.wait(5)  # the third try delivers the first message; the other two follow at once
    tried(hooks, 5)
    bodies = [verified(secret, r) for r in got]
    cursors = [b["cursor"] for b in bodies]
    messages = feed(client)
    assert cursors == [messages[0]["cursor"]] * 3 + [messages[1]["cursor"], messages[2]["cursor"]]
    assert bodies[2:] == messages  # the same JSON as the feed's, in order, each delivered once
    assert [r[0] for r in got] == ["/hook?x=1"] * 5
    stamps = [int(r[1]["webhook-timestamp"]) for r in got]
    assert stamps[1] - stamps[0] == 5 and stamps[2] - stamps[1] == 25  # on the app's clock
    logs = deliveries(client, sub_id)  # newest first
    assert [(d["cursor"], d["status"], d["attempts"], d["last_status"]) for d in logs] == [
        (messages[2]["cursor"], "delivered", 1, 204),
        (messages[1]["cursor"], "delivered", 1, 204),
        (messages[0]["cursor"], "delivered", 3, 204),
    ]
    listed = client.get("/api/webhooks", headers=auth(ADMIN)).get_json()
    assert listed == [client.get(f"/api/webhooks/{sub_id}", headers=auth(ADMIN)).get_json()]
    assert listed[0]["cursor"] == messages[2]["cursor"] and listed[0]["status"] == "active"
    assert "secret" not in listed[0] and secret not in json.dumps(listed)
    assert len(e.requests) == 5


def test_issue30_item3_a_server_restart_between_a_failure_and_its_retry_loses_nothing(
    tmp_path: Any, clock: FakeClock, endpoints: list[Endpoint]
) -> None:
    path = str(tmp_path / "restart.db")
    e = endpoint(endpoints, lambda n: 503 if n == 0 else 200)
    first = make_app(path, clock)
    client = first.test_client()
    sub_id, secret = subscribe(client, e.url)
    match = MatchDriver(client, clock)
    match.post({"type": "coin_toss", "kickoff": "home", "home_end": "x0"})
    tried(hooks_of(first), 1)
    close_app(first)  # the server stops with the message pending

    again = make_app(path, clock)  # the same database
    try:
        hooks = hooks_of(again)
        assert hooks.running() == [sub_id]  # its worker started with the server
        client = again.test_client()
        [log] = deliveries(client, sub_id)
        assert (log["status"], log["attempts"], log["last_status"]) == ("pending", 1, 503)
        match.client = client
        match.post({"type": "period_start"})  # a change while the first message waits
        clock.advance(5_000)  # its retry's time
        hooks.tick()
        got = e.wait(3)
        tried(hooks, 2)
        messages = feed(client)
        assert [verified(secret, r) for r in got[1:]] == messages  # nothing lost, in order
        assert [d["status"] for d in deliveries(client, sub_id)] == ["delivered", "delivered"]
        assert deliveries(client, sub_id)[1]["attempts"] == 2
    finally:
        close_app(again)


def test_issue30_item3_D331_seven_tries_over_more_than_an_hour_then_given_up_until_a_redelivery(
    app: Flask, client: FlaskClient, clock: FakeClock, endpoints: list[Endpoint]
) -> None:
    hooks = hooks_of(app)
    answers = {"ok": False}
    e = endpoint(endpoints, lambda n: 204 if answers["ok"] else 500)
    sub_id, secret = subscribe(client, e.url)
    match = MatchDriver(client, clock)
    match.kickoff()
    for n in range(1, webhooks.TRIES):
        tried(hooks, n)
        sub = hooks.store.get(sub_id)
        assert sub is not None and sub.next_at == clock.now + webhooks.SCHEDULE_S[n - 1] * 1000
        clock.advance(webhooks.SCHEDULE_S[n - 1] * 1000)
        hooks.tick()
    tried(hooks, webhooks.TRIES)
    stamps = [int(r[1]["webhook-timestamp"]) for r in e.wait(webhooks.TRIES)]
    offsets = [s - stamps[0] for s in stamps]
    assert len(offsets) == 7 and offsets[1] <= 10 and offsets[2] <= 60 and offsets[5] >= 3600  # issue 30 item 3
    assert hooks.wait_until(lambda: sub_id not in hooks.running(), WAIT_S)  # given up: its worker stopped
    sub = client.get(f"/api/webhooks/{sub_id}", headers=auth(ADMIN)).get_json()
    assert sub["status"] == "failing" and sub["cursor"] == "0"
    [log] = deliveries(client, sub_id)
    assert (log["status"], log["attempts"], log["last_status"]) == ("failed", 7, 500)
    assert len(e.requests) == 7  # and the second message was never sent before the first
    assert {r[1]["webhook-id"] for r in e.requests} == {feed(client)[0]["cursor"]}
    # The organiser redelivers from the last cursor delivered: both messages go, in order.
    answers["ok"] = True
    clock.now = int(time.time() * 1000)  # back to the real time, for standardwebhooks' tolerance
    r = client.post(f"/api/webhooks/{sub_id}/redeliver", json={"since": sub["cursor"]}, headers=auth(ADMIN))
    assert r.status_code == 202 and r.get_json()["status"] == "active"
    got = e.wait(9)
    tried(hooks, 9)
    assert [verified(secret, x) for x in got[7:]] == feed(client)


def test_issue30_item3_one_dead_endpoint_delays_neither_another_subscription_nor_a_write(
    app: Flask, client: FlaskClient, clock: FakeClock, endpoints: list[Endpoint]
) -> None:
    hooks_of(app).timeout = 60.0  # the dead endpoint's try stays under way however slow this machine is
    dead = endpoint(endpoints, lambda n: "hang")  # takes the connection and never answers (until released)
    alive = endpoint(endpoints)
    dead_id, _ = subscribe(client, dead.url)
    alive_id, secret = subscribe(client, alive.url)
    match = MatchDriver(client, clock)
    match.kickoff()
    dead.wait(1)  # the dead endpoint holds its worker's first try
    got = alive.wait(2)
    match.take()  # a write while the dead endpoint hangs: stored, and delivered to the other subscription
    got = alive.wait(3)
    assert [verified(secret, r) for r in got] == feed(client)
    assert len(dead.requests) == 1 and deliveries(client, dead_id) == []  # still its first try, unanswered
    # The worker logs a delivery once the endpoint's answer is read, just after the endpoint counted the request.
    hooks_of(app).wait_until(lambda: len(deliveries(client, alive_id)) == 3, WAIT_S)
    assert [d["status"] for d in deliveries(client, alive_id)] == ["delivered"] * 3
    dead.release.set()  # it answers at last: the rest follows in order
    assert [r[1]["webhook-id"] for r in dead.wait(3)] == [m["cursor"] for m in feed(client)]


def test_issue30_item3_deletion_stops_deliveries(
    app: Flask, client: FlaskClient, clock: FakeClock, endpoints: list[Endpoint]
) -> None:
    hooks = hooks_of(app)
    e = endpoint(endpoints, lambda n: 500)
    sub_id, _ = subscribe(client, e.url)
    match = MatchDriver(client, clock)
    match.kickoff()
    tried(hooks, 1)
    assert client.delete(f"/api/webhooks/{sub_id}").status_code == 401  # the organiser's only
    assert client.delete(f"/api/webhooks/{sub_id}", headers=auth(ADMIN)).status_code == 204
    assert hooks.wait_until(lambda: sub_id not in hooks.running(), WAIT_S)
    match.take()
    clock.advance(3_600_000)  # past every try's time
    hooks.tick()
    assert hooks.running() == [] and len(e.requests) == 1 and hooks.tries == 1
    for url in (f"/api/webhooks/{sub_id}", f"/api/webhooks/{sub_id}/deliveries"):
        r = client.get(url, headers=auth(ADMIN))
        assert r.status_code == 404 and r.get_json()["error"] == "not_found"
    assert client.delete(f"/api/webhooks/{sub_id}", headers=auth(ADMIN)).status_code == 404
    assert client.get("/api/webhooks", headers=auth(ADMIN)).get_json() == []


def test_issue30_item3_redelivery_from_a_cursor_and_filters_as_the_feeds(
    app: Flask, client: FlaskClient, clock: FakeClock, endpoints: list[Endpoint]
) -> None:
    hooks = hooks_of(app)
    other = MatchDriver(client, clock)
    other.kickoff()  # before the subscription: not sent (it starts with the next change)
    match = MatchDriver(client, clock)
    e = endpoint(endpoints)
    sub_id, secret = subscribe(client, e.url, match=[match.id])
    match.kickoff()
    other.take()  # another match's: not for this subscription
    match.take()
    got = e.wait(3)
    tried(hooks, 3)
    mine = [m for m in feed(client) if m.get("match") == match.id]
    assert [verified(secret, r) for r in got] == mine
    r = client.post(f"/api/webhooks/{sub_id}/redeliver", json={"since": mine[0]["cursor"]}, headers=auth(ADMIN))
    assert r.status_code == 202, r.get_json()
    got = e.wait(5)
    assert [verified(secret, x)["cursor"] for x in got[3:]] == [m["cursor"] for m in mine[1:]]
    for bad in ({"since": "99999"}, {"since": "x"}, {}, {"since": "1", "url": "http://a"}):
        r = client.post(f"/api/webhooks/{sub_id}/redeliver", json=bad, headers=auth(ADMIN))
        assert r.status_code == 400 and "since" in r.get_json()["fields"], bad
    # From the beginning: ``since`` 0 at creation.
    e2 = endpoint(endpoints)
    _, secret2 = subscribe(client, e2.url, since="0", competition=[])
    assert [verified(secret2, x) for x in e2.wait(len(feed(client)))] == feed(client)


PRIVATE = [
    "http://127.0.0.1:5000/hook",
    "http://10.1.2.3/hook",
    "http://192.168.1.20/hook",
    "http://169.254.169.254/latest/meta-data",
    "http://[::1]:8080/hook",
    "http://[::ffff:127.0.0.1]/hook",
    "http://[fe80::1]/hook",
    "http://224.0.0.1/hook",
    "http://0.0.0.0/hook",
    "http://localhost:5000/hook",  # a name that resolves to loopback
    "http://2130706433/hook",  # 127.0.0.1 written as a number
]


@pytest.fixture
def strict_app(tmp_path: Any, clock: FakeClock) -> Iterator[Flask]:
    app = make_app(str(tmp_path / "strict.db"), clock, WEBHOOK_ALLOW_PRIVATE=False)
    yield app
    close_app(app)


def test_issue30_item3_D332_private_addresses_are_refused_unless_allowed(strict_app: Flask) -> None:
    client = strict_app.test_client()
    for url in PRIVATE + ["ftp://example.com/x", "http:///nohost", "http://user:pw@93.184.216.34/", "not a url", 7]:
        r = client.post("/api/webhooks", json={"url": url}, headers=auth(ADMIN))
        body = r.get_json()
        assert r.status_code == 400 and body["error"] == "invalid" and list(body["fields"]) == ["url"], (url, body)
    assert client.get("/api/webhooks", headers=auth(ADMIN)).get_json() == []  # nothing stored
    assert client.post("/api/webhooks", json={"url": "http://93.184.216.34/"}).status_code == 401
    r = client.post("/api/webhooks", json={"url": "http://93.184.216.34/", "match": "m"}, headers=auth(ADMIN))
    assert r.status_code == 400 and "match" in r.get_json()["fields"]
    r = client.post("/api/webhooks", json={"url": "http://93.184.216.34/", "colour": 1}, headers=auth(ADMIN))
    assert r.status_code == 400 and "colour" in r.get_json()["fields"]
    for url in PRIVATE[:-1]:
        assert webhooks.check_url(url, allow_private=True) == url  # QALISBALL_WEBHOOK_ALLOW_PRIVATE=1


def test_issue30_item3_D332_a_name_re_pointed_at_a_private_address_after_the_check_gets_nothing(
    strict_app: Flask, clock: FakeClock, endpoints: list[Endpoint], monkeypatch: pytest.MonkeyPatch
) -> None:
    """DNS rebinding: the name is public when the subscription is made, 127.0.0.1 when a try resolves it."""
    e = endpoint(endpoints)
    port = e.server.server_address[1]
    real = socket.getaddrinfo
    answers = ["93.184.216.34"]

    def getaddrinfo(host: str, *args: Any, **kw: Any) -> Any:
        if host == "hooks.example.test":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (answers[0], port))]
        return real(host, *args, **kw)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    client = strict_app.test_client()
    hooks = hooks_of(strict_app)
    sub_id, _ = subscribe(client, f"http://hooks.example.test:{port}/hook")
    answers[0] = "127.0.0.1"  # re-pointed
    MatchDriver(client, clock).kickoff()
    tried(hooks, 1)
    [log] = deliveries(client, sub_id)
    assert log["status"] == "pending" and log["last_status"] is None and "127.0.0.1" in log["last_error"]
    assert e.requests == []


def test_issue30_item3_D332_a_redirect_is_a_failure_never_followed(
    app: Flask, client: FlaskClient, clock: FakeClock, endpoints: list[Endpoint]
) -> None:
    hooks = hooks_of(app)
    e = endpoint(endpoints, lambda n: 307)
    sub_id, _ = subscribe(client, e.url)
    MatchDriver(client, clock).kickoff()
    tried(hooks, 1)
    [log] = deliveries(client, sub_id)
    assert (log["status"], log["last_status"]) == ("pending", 307) and "redirect" in log["last_error"]
    assert [r[0] for r in e.requests] == ["/hook?x=1"]  # /elsewhere never asked


def _python_blocks(page: str) -> list[str]:
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / page).read_text(encoding="utf-8")
    return [b for b in text.split("```python\n")[1:] for b in [b.split("```", 1)[0]]]


@pytest.mark.parametrize("page", ["feed.md", "feed.zh.md"])
def test_issue30_item5_the_docs_receiver_verifies_a_signed_delivery_and_refuses_an_altered_one(
    page: str, app: Flask, client: FlaskClient, clock: FakeClock, endpoints: list[Endpoint]
) -> None:
    """docs/feed.md's receiver (Flask + standardwebhooks), run as written, on a try this server really sent."""
    e = endpoint(endpoints)
    _, secret = subscribe(client, e.url)
    MatchDriver(client, clock).post({"type": "coin_toss", "kickoff": "home", "home_end": "x0"})
    [(_, headers, body)] = e.wait(1)
    [code] = [b for b in _python_blocks(page) if "standardwebhooks" in b]
    assert code.count('"whsec_…"') == 1 and len(code.splitlines()) <= 25
    printed: list[tuple[Any, ...]] = []
    scope: dict[str, Any] = {"__name__": "receiver", "print": lambda *a: printed.append(a)}
    exec(code.replace('"whsec_…"', repr(secret)), scope)  # noqa: S102  (the page's own code)
    receiver = scope["app"].test_client()
    sent = {k: v for k, v in headers.items() if k.lower().startswith("webhook-") or k == "Content-Type"}
    assert receiver.post("/qalisball", data=body, headers=sent).status_code == 204
    assert receiver.post("/qalisball", data=body, headers=sent).status_code == 204  # again: handled once
    assert printed == [(feed(client)[0]["match"], 1)]
    assert receiver.post("/qalisball", data=body.replace('"home"', '"away"'), headers=sent).status_code == 400
    other = webhooks.signed_headers(webhooks.new_secret(), sent["webhook-id"], int(time.time()), body)
    assert receiver.post("/qalisball", data=body, headers={**sent, **other}).status_code == 400


class Done(Exception):
    pass


@pytest.mark.parametrize("page", ["feed.md", "feed.zh.md"])
def test_issue30_item5_the_docs_python_consumer_reads_the_feed_of_a_running_server(
    page: str, app: Flask, client: FlaskClient, clock: FakeClock
) -> None:
    """docs/feed.md's 20-line SSE consumer (requests), run as written against the app on a real socket."""
    from werkzeug.serving import make_server

    match = MatchDriver(client, clock)
    match.kickoff()
    match.take()
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        [code] = [b for b in _python_blocks(page) if "/api/feed" in b]
        assert len([line for line in code.splitlines() if line.strip()]) <= 22
        got: list[tuple[Any, ...]] = []

        def collect(*args: Any) -> None:
            got.append(args)
            if len(got) == 3:
                raise Done

        base = f'BASE = "http://127.0.0.1:{server.server_port}"'
        with pytest.raises(Done):
            exec(code.replace('BASE = "http://127.0.0.1:5000"', base), {"print": collect})  # noqa: S102
        assert got == [("match", match.id, 1), ("match", match.id, 2), ("match", match.id, 3)]
    finally:
        server.shutdown()
