"""Shared fixtures: an app on a temporary database with a hand-driven clock (tests never sleep).

Flask and the app are imported inside the fixtures that need them, not here: pytest loads this file
for every test, and the rule story tests (tests/test_rules_*.py) run on the rule core alone, without
Flask or a database (tests/test_story_isolation.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from flask import Flask
    from flask.testing import FlaskClient

ADMIN = "test-organiser-token"


class FakeClock:
    """Server time in ms, advanced by hand."""

    def __init__(self, start: int = 1_800_000_000_000) -> None:
        self.now = start

    def __call__(self) -> int:
        return self.now

    def advance(self, ms: int) -> None:
        self.now += ms


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def app(tmp_path: Any, clock: FakeClock) -> Iterator[Flask]:
    from qalisball import create_app

    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "test.db"), "ADMIN_TOKEN": ADMIN, "CLOCK": clock})
    yield app
    app.extensions["qalisball"].store.close()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


class MatchDriver:
    """Officiates one match through the HTTP API, as a tablet would."""

    def __init__(self, client: FlaskClient, clock: FakeClock, body: dict[str, Any] | None = None) -> None:
        from qalisball.server.demo import demo_request

        self.client, self.clock = client, clock
        r = client.post("/api/matches", json=body or demo_request(), headers=auth(ADMIN))
        assert r.status_code == 201, r.get_json()
        self.id: str = r.get_json()["id"]
        self.tokens: dict[str, str] = r.get_json()["tokens"]

    def post(self, event: dict[str, Any], role: str = "referee", expect: int | None = 201) -> dict[str, Any]:
        r = self.client.post(f"/api/matches/{self.id}/events", json=event, headers=auth(self.tokens[role]))
        body: dict[str, Any] = r.get_json()
        if expect is not None:
            assert r.status_code == expect, body
        body["_status"] = r.status_code
        return body

    def refused(self, event: dict[str, Any], rule: str, role: str = "referee") -> dict[str, Any]:
        before = self.state()
        body = self.post(event, role, expect=409)
        assert body["error"] == "rule" and body["rule"] == rule, body
        assert self.state()["seq"] == before["seq"], "a refusal changes nothing"
        return body

    def state(self) -> dict[str, Any]:
        r = self.client.get(f"/api/matches/{self.id}")
        assert r.status_code == 200
        data: dict[str, Any] = r.get_json()
        return data

    def events(self) -> list[dict[str, Any]]:
        data: list[dict[str, Any]] = self.client.get(f"/api/matches/{self.id}/events").get_json()
        return data

    def kickoff(self, kickoff: str = "home", home_end: str = "x0") -> dict[str, Any]:
        """Coin toss and first half started: the kickoff is pending."""
        self.post({"type": "coin_toss", "kickoff": kickoff, "home_end": home_end})
        return self.post({"type": "period_start"})["state"]

    def take(self, player: int | None = None) -> dict[str, Any]:
        """The pending restart taken by its team (first on-field player unless named)."""
        s = self.state()
        team = s["restart"]["team"]
        if player is None:
            player = s["teams"][team]["on_field"][0]
        return self.post({"type": "restart_taken", "team": team, "player": player})["state"]

    def run_out_half(self) -> dict[str, Any]:
        s = self.state()
        self.clock.advance(s["clock"]["length_ms"] - s["clock"]["elapsed_ms"])
        return self.post({"type": "period_end"})["state"]


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def match(client: FlaskClient, clock: FakeClock) -> MatchDriver:
    return MatchDriver(client, clock)


# -- PostgreSQL (issue 32): one throw-away cluster for the session, a fresh database per test ----------------


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Any]:
    """The session's PostgreSQL (tests/pg.py): started on first use; a failure to start fails the test."""
    from .pg import Cluster

    cluster = Cluster()
    yield cluster
    cluster.stop()


@pytest.fixture
def pg_url(pg_cluster: Any) -> Iterator[str]:
    """A fresh, empty PostgreSQL database of the session's cluster."""
    from qalisball.storage.integrity import acks_path

    url = pg_cluster.new_database()
    yield url
    pg_cluster.drop(url)
    acks = acks_path(url)
    if acks is not None:
        acks.unlink(missing_ok=True)  # the app's acknowledgement journal of that database (D392)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db(request: pytest.FixtureRequest, tmp_path: Any) -> str:
    """Where a test's database is, on each engine (D390): a SQLite file, or a fresh PostgreSQL database's URL."""
    if request.param == "postgres":
        return str(request.getfixturevalue("pg_url"))
    return str(tmp_path / "test.db")
