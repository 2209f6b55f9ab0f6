"""A token in a link becomes an HttpOnly cookie and leaves the address bar; a cookie writes nothing without
its CSRF token (issue 14, "Pages hardened"; D53–D55 in docs/decisions.md).

The attacker's side, in Chromium (another site's form and fetch carry no cookie and no CSRF token), is in
``tests/browser/test_token_links.py``.
"""

from __future__ import annotations

import re
from http.cookies import SimpleCookie
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from qalisball import socketio
from qalisball.server.demo import demo_request
from qalisball.web.credentials import ORGANISER_COOKIE, role_cookie
from tests.conftest import ADMIN, MatchDriver, auth
from tests.test_pages import page_data

ROLES = ("referee", "assistant1", "assistant2", "scorer")


def _set_cookie(response: Any) -> SimpleCookie:
    jar: SimpleCookie = SimpleCookie()
    for header in response.headers.getlist("Set-Cookie"):
        jar.load(header)
    return jar


def _csrf(client: FlaskClient, path: str) -> str:
    data = page_data(client.get(path).get_data(as_text=True))
    assert re.fullmatch(r"[0-9a-f]{32}", data["csrf"] or ""), data.get("csrf")
    return str(data["csrf"])


@pytest.mark.parametrize("role", ROLES)
def test_D53_a_role_token_in_a_link_becomes_an_httponly_lax_cookie_and_leaves_the_address(
    client: FlaskClient, match: MatchDriver, role: str
) -> None:
    token = match.tokens[role]
    r = client.get(f"/matches/{match.id}/referee?token={token}&lang=zh")
    assert r.status_code == 303
    assert r.headers["Location"] == f"/matches/{match.id}/referee?lang=zh&role={role}"  # no token, the role named
    assert r.headers["Cache-Control"] == "no-store" and r.headers["Referrer-Policy"] == "no-referrer"
    morsel = _set_cookie(r)[role_cookie(match.id, role)]
    assert morsel.value == token and morsel["httponly"] and morsel["samesite"] == "Lax" and morsel["path"] == "/"
    assert int(morsel["max-age"]) == 7 * 86_400 and not morsel["secure"]  # plain HTTP on the field's LAN
    page = client.get(r.headers["Location"])
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and token not in html  # the page carries the CSRF token, never the token
    assert page_data(html)["role"] == role and page.headers["Cache-Control"] == "no-store"


def test_D53_over_https_the_cookie_is_secure_and_host_only(client: FlaskClient, match: MatchDriver) -> None:
    """``__Host-``: a browser takes it only from this host, so a sibling subdomain cannot shadow it."""
    https = "https://live.example.org"
    r = client.get(f"/matches/{match.id}/referee?token={match.tokens['scorer']}", base_url=https)
    morsel = _set_cookie(r)["__Host-" + role_cookie(match.id, "scorer")]
    assert morsel["secure"] and morsel["path"] == "/" and not morsel["domain"]
    page = client.get(r.headers["Location"], base_url=https)
    assert page.status_code == 200 and page_data(page.get_data(as_text=True))["role"] == "scorer"


def test_D53_the_redirect_is_built_from_the_route_never_from_the_raw_path(client: FlaskClient) -> None:
    """An encoded line break in the address cannot reach the ``Location`` header (no 500, no injection)."""
    r = client.get(f"/matches/%0d%0aSet-Cookie:x=1/officials?token={ADMIN}&lang=en")
    assert r.status_code == 303 and "\n" not in r.headers["Location"] and "%0D%0ASet-Cookie" in r.headers["Location"]
    assert not [c for c in r.headers.getlist("Set-Cookie") if c.startswith("x=")]


def test_D53_a_console_address_naming_a_role_the_tablet_does_not_hold_opens_nothing(
    client: FlaskClient, match: MatchDriver
) -> None:
    client.get(f"/matches/{match.id}/referee?token={match.tokens['scorer']}")
    assert client.get(f"/matches/{match.id}/referee?role=scorer").status_code == 200
    assert client.get(f"/matches/{match.id}/referee?role=referee").status_code == 401  # not the scorer's console
    assert page_data(client.get(f"/matches/{match.id}/referee").get_data(as_text=True))["role"] == "scorer"


def test_D53_the_sign_in_forms_post_the_token_and_keep_it_like_a_link(client: FlaskClient, match: MatchDriver) -> None:
    """The token goes in a form's body, never into an address (access logs, history)."""
    r = client.post("/sign-in", data={"token": "nope", "next": "/competitions"})
    assert r.status_code == 303 and r.headers["Location"] == "/competitions?signin=refused"
    assert "The organiser token was not accepted" in client.get(r.headers["Location"] + "&lang=en").get_data(as_text=True)
    r = client.post("/sign-in", data={"token": ADMIN, "next": "//evil.example/x"})
    assert r.status_code == 303 and r.headers["Location"] == "/" and ORGANISER_COOKIE in _set_cookie(r)
    assert page_data(client.get("/competitions").get_data(as_text=True))["organiser"] is True
    # A console's token page signs a tablet in to its role.
    tablet = client.application.test_client()
    page = tablet.get(f"/matches/{match.id}/referee?lang=en")
    assert page.status_code == 401 and 'action="/sign-in"' in page.get_data(as_text=True)
    r = tablet.post("/sign-in", data={"token": match.tokens["assistant2"], "match": match.id, "next": "/x"})
    assert r.status_code == 303 and r.headers["Location"] == f"/matches/{match.id}/referee?role=assistant2"
    assert page_data(tablet.get(r.headers["Location"]).get_data(as_text=True))["role"] == "assistant2"
    r = tablet.post(
        "/sign-in", data={"token": match.tokens["assistant2"], "match": "other", "next": f"/matches/{match.id}/referee"}
    )
    assert r.headers["Location"].endswith("signin=refused")  # a role token is for its own match only


@pytest.mark.parametrize(
    "path",
    ["/", "/matches/{id}/officials", "/competitions", "/screens"],
)
def test_D53_the_organiser_token_in_a_link_becomes_the_organiser_cookie(
    client: FlaskClient, match: MatchDriver, path: str
) -> None:
    url = path.format(id=match.id)
    r = client.get(f"{url}?token={ADMIN}")
    assert r.status_code == 303 and r.headers["Location"] == url
    morsel = _set_cookie(r)[ORGANISER_COOKIE]
    assert morsel.value == ADMIN and morsel["httponly"] and morsel["samesite"] == "Lax"
    assert int(morsel["max-age"]) == 30 * 86_400
    page = client.get(url)
    assert page.status_code == 200 and ADMIN not in page.get_data(as_text=True)
    assert re.fullmatch(r"[0-9a-f]{32}", page_data(page.get_data(as_text=True))["csrf"])


def test_D53_a_wrong_token_sets_no_cookie_and_the_page_says_so(client: FlaskClient, match: MatchDriver) -> None:
    for url, status in [
        (f"/matches/{match.id}/referee?token=nope&lang=en", 401),
        (f"/matches/{match.id}/officials?token={match.tokens['referee']}&lang=en", 401),  # a role is not the organiser
        (f"/matches/{match.id}/scoreboard?token={match.tokens['referee']}&lang=en", 200),  # only a console takes a role
        ("/?token=nope&lang=en", 200),
    ]:
        r = client.get(url, follow_redirects=True)  # the token leaves the address first (D154)
        assert r.status_code == status, url
        assert [h.status_code for h in r.history] == [303] and "token" not in r.request.url, url
        assert not [c for c in r.history[0].headers.getlist("Set-Cookie") if c.startswith("qb_")], url
    wrong = client.get(f"/matches/{match.id}/referee?token=nope&lang=en", follow_redirects=True)
    assert "not valid" in wrong.get_data(as_text=True)
    assert "not accepted" in client.get("/?token=nope&lang=en", follow_redirects=True).get_data(as_text=True)
    # The organiser token is exchanged wherever it is given, but the organiser does not officiate.
    r = client.get(f"/matches/{match.id}/referee?token={ADMIN}")
    assert r.status_code == 303 and ORGANISER_COOKIE in _set_cookie(r)
    assert client.get(r.headers["Location"]).status_code == 401
    assert client.get(f"/matches/{match.id}/officials").status_code == 200


def test_D53_a_tablet_keeps_two_roles_of_a_match_apart(client: FlaskClient, match: MatchDriver) -> None:
    """Two consoles in one browser (a scorer who also runs the assistant's tablet): ``?role=`` picks one, and
    each page's CSRF token makes its calls as its own role."""
    for role in ("assistant1", "scorer"):
        client.get(f"/matches/{match.id}/referee?token={match.tokens[role]}")
    scorer = _csrf(client, f"/matches/{match.id}/referee?role=scorer")
    assistant = _csrf(client, f"/matches/{match.id}/referee?role=assistant1")
    assert scorer != assistant
    match.post({"type": "coin_toss", "kickoff": "home", "home_end": "x0"})
    match.post({"type": "period_start"})
    # A shootout is the scorer's, never an assistant's (the catalogue's "who"): the role follows the CSRF token.
    note = {"type": "note", "text": "weather: rain"}
    r = client.post(f"/api/matches/{match.id}/events", json=note, headers={"X-CSRF-Token": assistant})
    assert r.status_code == 201
    r = client.post(f"/api/matches/{match.id}/events", json=note, headers={"X-CSRF-Token": scorer})
    assert r.status_code == 201
    assert [e["by"] for e in match.events()[-2:]] == ["assistant1", "scorer"]


def test_D54_a_cookie_alone_writes_nothing(client: FlaskClient, match: MatchDriver) -> None:
    """A browser sends the cookie with any request, another site's too: a write needs its CSRF token."""
    client.get(f"/matches/{match.id}/referee?token={match.tokens['referee']}")
    csrf = _csrf(client, f"/matches/{match.id}/referee?role=referee")
    toss = {"type": "coin_toss", "kickoff": "home", "home_end": "x0"}
    for headers in ({}, {"X-CSRF-Token": "0" * 32}, {"X-CSRF-Token": csrf.upper()}, {"X-CSRF-Token": "令牌"}):
        r = client.post(f"/api/matches/{match.id}/events", json=toss, headers=headers)
        assert r.status_code == 403 and r.get_json()["error"] == "forbidden", (headers, r.get_json())
        assert "CSRF" in r.get_json()["message"]
    assert match.events() == []  # nothing stored
    r = client.post(f"/api/matches/{match.id}/events", json=toss, headers={"X-CSRF-Token": csrf})
    assert r.status_code == 201 and match.events()[-1]["by"] == "referee"
    # A Bearer header needs no CSRF token (browsers never add one by themselves), cookie or not.
    assert (
        client.post(
            f"/api/matches/{match.id}/events", json={"type": "period_start"}, headers=auth(match.tokens["referee"])
        ).status_code
        == 201
    )


def test_D54_the_organiser_cookie_writes_with_its_csrf_token_only(app: Flask, client: FlaskClient, match: MatchDriver) -> None:
    client.get(f"/?token={ADMIN}")
    csrf = _csrf(client, "/")
    before = len(client.get("/api/matches").get_json())
    body = demo_request()
    assert client.post("/api/matches", json=body).status_code == 403
    assert client.post("/api/teams", json={"name": "Kept"}).status_code == 403
    assert len(client.get("/api/matches").get_json()) == before
    # A read with the cookie alone is a read by anyone: the devices list needs the CSRF token too.
    assert client.get(f"/api/matches/{match.id}/devices").status_code == 401
    assert client.get(f"/api/matches/{match.id}/devices", headers={"X-CSRF-Token": csrf}).status_code == 200
    r = client.post("/api/matches", json=body, headers={"X-CSRF-Token": csrf})
    assert r.status_code == 201, r.get_json()
    # A role's CSRF token does not unlock the organiser's cookie.
    client.get(f"/matches/{match.id}/referee?token={match.tokens['referee']}")
    referee = _csrf(client, f"/matches/{match.id}/referee?role=referee")
    r = client.post("/api/teams", json={"name": "Kept"}, headers={"X-CSRF-Token": referee})
    assert r.status_code == 403 and r.get_json()["error"] == "forbidden"  # a match official's token cannot do this


def test_D54_the_officials_form_without_its_csrf_field_changes_no_code(client: FlaskClient, match: MatchDriver) -> None:
    client.get(f"/matches/{match.id}/officials?token={ADMIN}")
    for lang, words in (("en", "did not come from this site"), ("zh", "并非来自本站")):
        r = client.post(f"/matches/{match.id}/officials?lang={lang}", data={"role": "referee"})
        assert r.status_code == 403 and words in r.get_data(as_text=True)
    r = client.post(f"/matches/{match.id}/officials", data={"role": "referee", "csrf": "f" * 32})
    assert r.status_code == 403
    match.post({"type": "coin_toss", "kickoff": "home", "home_end": "x0"})  # the referee's token still works
    html = client.get(f"/matches/{match.id}/officials").get_data(as_text=True)
    csrf = re.search(r'name="csrf" value="([0-9a-f]{32})"', html)
    assert csrf is None  # every code is shown (this process knows them): no form to issue new ones …
    r = client.post(f"/matches/{match.id}/officials", data={"role": "referee", "csrf": page_data(html)["csrf"]})
    assert r.status_code == 303  # … but the form's address still takes the page's CSRF token
    match.post({"type": "period_start"}, expect=401)  # the old referee token was replaced


def test_D54_a_console_joins_the_live_room_with_its_csrf_token(app: Flask, client: FlaskClient, match: MatchDriver) -> None:
    client.get(f"/matches/{match.id}/referee?token={match.tokens['assistant2']}")
    csrf = _csrf(client, f"/matches/{match.id}/referee?role=assistant2")
    sio = socketio.test_client(app, flask_test_client=client)  # the handshake carries the tablet's cookies
    sio.emit("join", {"match": match.id, "csrf": csrf, "device": "Tablet B"})
    state = [m["args"][0] for m in sio.get_received() if m["name"] == "state"][-1]
    assert "legal" in state  # joined as an official
    devices = client.get(f"/api/matches/{match.id}/devices", headers=auth(ADMIN)).get_json()
    assert [(d["role"], d["device"]) for d in devices] == [("assistant2", "Tablet B")]
    # Without the cookie (another device), the CSRF token alone is nothing: a spectator, told so.
    stranger = socketio.test_client(app)
    stranger.emit("join", {"match": match.id, "csrf": csrf, "device": "Thief"})
    received = stranger.get_received()
    assert ("error", "unauthorized") in [(m["name"], (m["args"][0] or {}).get("error")) for m in received]
    assert "legal" not in [m["args"][0] for m in received if m["name"] == "state"][-1]
    assert len(client.get(f"/api/matches/{match.id}/devices", headers=auth(ADMIN)).get_json()) == 1


def test_D55_forgetting_the_organiser_token_clears_its_cookie(client: FlaskClient, match: MatchDriver) -> None:
    client.get(f"/?token={ADMIN}")
    csrf = _csrf(client, "/")
    assert client.post("/forget-token").status_code == 403  # a cookie write like any other
    other_site = client.application.test_client()  # another site's form: the browser sends no cookie (Lax)
    r = other_site.post("/forget-token")
    assert r.status_code == 403 and not r.headers.getlist("Set-Cookie")
    r = client.post("/forget-token", data={"csrf": csrf})
    assert r.status_code == 303 and r.headers["Location"] == "/"
    assert _set_cookie(r)[ORGANISER_COOKIE].value == ""
    assert page_data(client.get("/").get_data(as_text=True))["organiser"] is False
    assert client.get(f"/matches/{match.id}/officials").status_code == 401


def test_D50_guesses_on_any_page_and_in_cookies_are_throttled(app: Flask, client: FlaskClient, match: MatchDriver) -> None:
    """A page that does not exchange a link's token refused it; a cookie is a client's choice, so a guess
    can come as a cookie with its own CSRF token: both count towards the throttle."""
    from qalisball.web.credentials import csrf_for

    guess = {"REMOTE_ADDR": "192.0.2.90"}
    for i in range(10):
        assert client.get(f"/competitions?token=guess-{i}", environ_base=guess).status_code == 303  # signin=refused (D154)
    assert client.get(f"/screens?token={ADMIN}", environ_base=guess).status_code == 429
    cookie_guesser = app.test_client()
    addr = {"REMOTE_ADDR": "192.0.2.91"}
    url = f"/api/matches/{match.id}/events"
    for i in range(10):
        cookie_guesser.set_cookie(ORGANISER_COOKIE, f"guess-{i}")
        r = cookie_guesser.post(
            url, json={"type": "period_start"}, headers={"X-CSRF-Token": csrf_for(f"guess-{i}")}, environ_base=addr
        )
        assert r.status_code == 401, i
    r = cookie_guesser.post(url, json={"type": "period_start"}, headers={"X-CSRF-Token": csrf_for("guess-9")}, environ_base=addr)
    assert r.status_code == 429 and r.headers["Retry-After"]
    signer = app.test_client()
    for i in range(10):
        signer.post("/sign-in", data={"token": f"guess-{i}"}, environ_base={"REMOTE_ADDR": "192.0.2.92"})
    assert signer.post("/sign-in", data={"token": ADMIN}, environ_base={"REMOTE_ADDR": "192.0.2.92"}).status_code == 429
