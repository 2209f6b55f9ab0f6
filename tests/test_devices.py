"""The officials' consoles connected to a match (API.md "Match day", Devices), over Socket.IO's test client.

A console joins with ``{"match", "token", "device"}`` and reports its unsent queue with ``status``
``{"queued"}`` (docs/api-extras.md); ``GET /api/matches/<id>/devices`` (organiser or referee token)
lists the consoles connected now; ``Live.revoke_role`` tells a role's consoles that their token was
replaced (``token_revoked``) and forgets them.
"""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from flask_socketio import SocketIOTestClient

from qalisball import socketio
from tests.conftest import ADMIN, FakeClock, MatchDriver, auth


def _received(sio: SocketIOTestClient) -> list[tuple[str, Any]]:
    return [(m["name"], m["args"][0] if m["args"] else None) for m in sio.get_received()]


def _console(app: Flask, match: MatchDriver, role: str, device: str, **extra: Any) -> SocketIOTestClient:
    sio = socketio.test_client(app)
    sio.emit("join", {"match": match.id, "token": match.tokens[role], "device": device, **extra})
    return sio


def _devices(client: FlaskClient, match: MatchDriver, token: str | None = None, expect: int = 200) -> Any:
    headers = auth(token) if token is not None else {}
    r = client.get(f"/api/matches/{match.id}/devices", headers=headers if token is not None else {})
    assert r.status_code == expect, r.get_json()
    return r.get_json()


def test_devices_a_console_joined_with_its_token_is_listed_with_role_label_and_times(
    app: Flask, client: FlaskClient, match: MatchDriver, clock: FakeClock
) -> None:
    sio = _console(app, match, "assistant1", "Tablet A")
    assert [name for name, _ in _received(sio)] == ["state"]  # joined as before: the state at once
    listed = _devices(client, match, match.tokens["referee"])
    assert listed == [
        {
            "role": "assistant1",
            "device": "Tablet A",
            "connected_at": "2027-01-15T08:00:00+00:00",
            "last_seen": "2027-01-15T08:00:00+00:00",
            "queued": 0,
        }
    ]
    assert _devices(client, match, ADMIN) == listed  # the organiser sees the same


def test_devices_status_reports_the_unsent_queue_and_refreshes_last_seen(
    app: Flask, client: FlaskClient, match: MatchDriver, clock: FakeClock
) -> None:
    sio = _console(app, match, "scorer", "Scorer's tablet", queued=2)
    assert _devices(client, match, ADMIN)[0]["queued"] == 2
    clock.advance(61_000)
    sio.emit("status", {"queued": 5})
    [entry] = _devices(client, match, ADMIN)
    assert entry["queued"] == 5
    assert entry["connected_at"] == "2027-01-15T08:00:00+00:00" and entry["last_seen"] == "2027-01-15T08:01:01+00:00"
    assert [name for name, _ in _received(sio)] == ["state"]  # the join's state; status is not answered
    # A console joins again every 30 s (to re-anchor its clock): still one entry, first join time kept.
    clock.advance(30_000)
    sio.emit("join", {"match": match.id, "token": match.tokens["scorer"], "device": "Scorer B"})
    [entry] = _devices(client, match, ADMIN)
    assert (entry["device"], entry["queued"], entry["connected_at"]) == ("Scorer B", 5, "2027-01-15T08:00:00+00:00")
    assert entry["last_seen"] == "2027-01-15T08:01:31+00:00"


def test_devices_two_consoles_on_one_role_are_both_listed_in_role_order(
    app: Flask, client: FlaskClient, match: MatchDriver, clock: FakeClock
) -> None:
    _console(app, match, "scorer", "S")
    clock.advance(1000)
    _console(app, match, "assistant1", "A1 first")
    clock.advance(1000)
    _console(app, match, "referee", "R")
    clock.advance(1000)
    _console(app, match, "assistant1", "A1 second")
    listed = _devices(client, match, match.tokens["referee"])
    assert [(d["role"], d["device"]) for d in listed] == [
        ("referee", "R"),
        ("assistant1", "A1 first"),
        ("assistant1", "A1 second"),
        ("scorer", "S"),
    ]


def test_devices_a_console_that_disconnects_or_leaves_is_no_longer_listed(
    app: Flask, client: FlaskClient, match: MatchDriver
) -> None:
    gone, leaving, staying = (_console(app, match, r, r) for r in ("assistant1", "assistant2", "scorer"))
    gone.disconnect()
    leaving.emit("leave", {"match": match.id})
    assert [d["role"] for d in _devices(client, match, ADMIN)] == ["scorer"]
    assert staying.is_connected()


def test_devices_spectators_and_bad_tokens_are_not_listed(app: Flask, client: FlaskClient, match: MatchDriver) -> None:
    spectator = socketio.test_client(app)
    spectator.emit("join", {"match": match.id})
    spectator.emit("status", {"queued": 3})  # ignored: not a console
    wrong = socketio.test_client(app)
    wrong.emit("join", {"match": match.id, "token": "not-a-token", "device": "X"})
    got = _received(wrong)
    # A token that is not (or no longer) valid: told so, and still shown the match, as a spectator is.
    assert [name for name, _ in got] == ["error", "state"]
    assert got[0][1]["error"] == "unauthorized"
    assert _devices(client, match, ADMIN) == []
    # A console of another match is that match's, not this one's.
    other = MatchDriver(client, match.clock)
    _console(app, other, "referee", "elsewhere")
    assert _devices(client, match, ADMIN) == []
    assert [d["device"] for d in _devices(client, other, ADMIN)] == ["elsewhere"]


def test_devices_labels_are_one_short_line_and_odd_queue_sizes_are_ignored(
    app: Flask, client: FlaskClient, match: MatchDriver
) -> None:
    sio = _console(app, match, "referee", "  Tablet\n<b>7</b>  " + "x" * 80, queued=-1)
    [entry] = _devices(client, match, ADMIN)
    assert entry["device"] == ("Tablet <b>7</b> " + "x" * 80)[:40] and entry["queued"] == 0
    for bad in ("3", True, 10**9, None, [1]):
        sio.emit("status", {"queued": bad})
    sio.emit("status", "not an object")
    assert _devices(client, match, ADMIN)[0]["queued"] == 0


def test_devices_listing_needs_the_organiser_or_the_referee(client: FlaskClient, match: MatchDriver) -> None:
    for role in ("assistant1", "assistant2", "scorer"):
        assert _devices(client, match, match.tokens[role], expect=403)["error"] == "forbidden"
    assert _devices(client, match, None, expect=401)["error"] == "unauthorized"
    assert _devices(client, match, "nonsense", expect=401)["error"] == "unauthorized"
    other = MatchDriver(client, match.clock)
    assert _devices(client, match, other.tokens["referee"], expect=401)["error"] == "unauthorized"
    # 401/403 before 404 (API.md's order): an unknown match answers 404 only to a token that could see it.
    r = client.get("/api/matches/nosuchmatch/devices", headers=auth(ADMIN))
    assert r.status_code == 404 and r.get_json()["error"] == "not_found"
    assert client.get("/api/matches/nosuchmatch/devices").status_code == 401


def test_devices_revoking_a_role_tells_its_consoles_and_forgets_them(app: Flask, client: FlaskClient, match: MatchDriver) -> None:
    first, second = _console(app, match, "assistant1", "A"), _console(app, match, "assistant1", "B")
    referee = _console(app, match, "referee", "R")
    other = MatchDriver(client, match.clock)
    other_match_console = _console(app, other, "assistant1", "A elsewhere")
    for sio in (first, second, referee, other_match_console):
        sio.get_received()
    live = app.extensions["qalisball_live"]
    assert live.revoke_role(match.id, "assistant1") == 2
    for sio in (first, second):
        assert _received(sio) == [("token_revoked", {"role": "assistant1"})]
    assert _received(referee) == [] and _received(other_match_console) == []
    assert [d["role"] for d in _devices(client, match, ADMIN)] == ["referee"]
    assert [d["role"] for d in _devices(client, other, ADMIN)] == ["assistant1"]
    # What a forgotten console still says is not listed again; it keeps watching as a spectator.
    first.emit("status", {"queued": 4})
    assert [d["role"] for d in _devices(client, match, ADMIN)] == ["referee"]
    match.kickoff()
    assert [name for name, _ in _received(first)] == ["event", "state"] * 2


# ---------------------------------------------------------------------------------------------
# D158: a new code revokes every connection of the old one, by one path for the form and the API


def _officials_form(client: FlaskClient, match: MatchDriver, role: str) -> None:
    """The organiser's "New code" button on the officials' page (the organiser's cookie and its CSRF token)."""
    from qalisball.web.credentials import csrf_for

    client.get(f"/matches/{match.id}/officials?token={ADMIN}")
    r = client.post(f"/matches/{match.id}/officials", data={"csrf": csrf_for(ADMIN), "role": role})
    assert r.status_code == 303, r.get_data(as_text=True)


def _api_reissue(client: FlaskClient, match: MatchDriver, role: str) -> None:
    r = client.post(f"/api/matches/{match.id}/tokens/{role}", headers=auth(ADMIN))
    assert r.status_code == 200, r.get_json()


@pytest.mark.parametrize("reissue", [_officials_form, _api_reissue], ids=["officials_form", "api"])
def test_D158_a_new_code_revokes_the_old_console_it_leaves_the_officials_rooms_and_the_devices_list(
    app: Flask, client: FlaskClient, match: MatchDriver, reissue: Any
) -> None:
    old = _console(app, match, "assistant1", "Old tablet", updates=True)
    plain = _console(app, match, "assistant1", "Old tablet, event + state")  # the API.md form of the room
    referee = _console(app, match, "referee", "R", updates=True)
    for sio in (old, plain, referee):
        sio.get_received()
    reissue(client, match, "assistant1")
    for sio in (old, plain):
        assert _received(sio) == [("token_revoked", {"role": "assistant1"})]
    assert _received(referee) == []  # another role's console is not told: it would stop sending
    assert [d["role"] for d in _devices(client, match, ADMIN)] == ["referee"]
    # What the old console still sends updates nothing; what the match does reaches it as a spectator, without `legal`.
    old.emit("status", {"queued": 7, "device": "still here"})
    assert [d["role"] for d in _devices(client, match, ADMIN)] == ["referee"]
    match.kickoff()
    for sio in (old, plain):
        got = _received(sio)
        assert got and all(not _has_legal(payload) for _, payload in got), got
    assert any(_has_legal(payload) for _, payload in _received(referee))  # the referee's console still has it


def _has_legal(payload: Any) -> bool:
    """Whether a state, an update or its patch carries the officials' ``legal``."""
    if not isinstance(payload, dict):
        return False
    if "legal" in payload or "legal" in (payload.get("state") or {}):
        return True
    return any(
        path[:1] == ["legal"] or path == [] and isinstance(v, dict) and "legal" in v for path, v in payload.get("patch") or []
    )


def test_D158_a_console_listed_elsewhere_is_still_revoked_for_the_match_it_joined_as_official(
    app: Flask, client: FlaskClient, match: MatchDriver
) -> None:
    """One connection, an official of match A, then a spectator of match B: the registry forgot A's entry
    (one per connection), the officials' room of A did not; a new code for A still revokes it."""
    sio = _console(app, match, "scorer", "S")
    other = MatchDriver(client, match.clock)
    sio.emit("join", {"match": other.id})
    sio.get_received()
    _api_reissue(client, match, "scorer")
    assert _received(sio) == [("token_revoked", {"role": "scorer"})]
    match.kickoff()
    assert all(not _has_legal(payload) for _, payload in _received(sio))


# ---------------------------------------------------------------------------------------------
# D168: after a restart the consoles rejoin; the officials' page lists them per role


def test_D168_after_a_restart_the_rejoined_consoles_are_listed_on_the_officials_page(
    app: Flask, client: FlaskClient, match: MatchDriver, clock: FakeClock, tmp_path: Any
) -> None:
    """Issue 19.6: after a restart the page can show no code (the server keeps only their hashes, D47), and it
    showed nothing but "New code" for every role while the referee's console was online."""
    import re

    from qalisball import create_app

    app.extensions["qalisball"].store.close()  # the server stops; the same database opens again
    again = create_app({"TESTING": True, "DATABASE": str(tmp_path / "test.db"), "ADMIN_TOKEN": ADMIN, "CLOCK": clock})
    try:
        web = again.test_client()
        assert _devices(web, match, ADMIN) == []
        _console(again, match, "referee", "Referee's tablet")  # its socket reconnects and joins again
        assert [(d["role"], d["device"]) for d in _devices(web, match, ADMIN)] == [("referee", "Referee's tablet")]
        page = web.get(f"/matches/{match.id}/officials?token={ADMIN}", follow_redirects=True).get_data(as_text=True)
        for role in ("referee", "assistant1", "assistant2", "scorer"):
            card = re.search(rf'<figure class="qr-card no-code" data-role="{role}">(.*?)</figure>', page, re.S)
            assert card, role  # no code to show after the restart …
            assert f'data-devices="{role}"' in card.group(1)  # … but its consoles, drawn by officials.js
            assert '<form method="post" data-new-code>' in card.group(1)  # asks before replacing an online code
    finally:
        again.extensions["qalisball"].store.close()
