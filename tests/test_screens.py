"""Screens at the field and on stream (issue 13), on the server (Flask test client and Socket.IO test client).

Venue screens under the organiser's control, uploaded images and team logos (migration 5), restarts
explained to spectators, the start time before kickoff, the phone timeline's half markers and paused
sign, overlay options, the officials' QR cards. The live behaviour is proved in a browser in
tests/browser/test_screens_live.py and test_scoreboard_layout.py.
"""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from PIL import Image
from werkzeug.datastructures import FileStorage
from werkzeug.test import encode_multipart

from qalisball.match import pages
from qalisball.server.demo import demo_request
from tests.conftest import ADMIN, FakeClock, MatchDriver, auth
from tests.test_pages import element, get, page_data, text


def png(size: tuple[int, int] = (60, 40), color: str = "#c62828", fmt: str = "PNG") -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, fmt)
    return buf.getvalue()


def upload(client: FlaskClient, url: str, data: bytes, token: str = ADMIN, **fields: str) -> Any:
    """A multipart upload, its body built in memory (the test client would spool a large one to an unclosed file)."""
    boundary, body = encode_multipart({**fields, "file": FileStorage(io.BytesIO(data), "f.png")})
    return client.post(url, data=body, content_type=f"multipart/form-data; boundary={boundary}", headers=auth(token))


def put_screen(client: FlaskClient, name: str, body: Any, token: str | None = ADMIN) -> Any:
    return client.put(f"/api/screens/{name}", json=body, headers=auth(token) if token else {})


# ---------------------------------------------------------------------------------------------
# Venue screens


def test_screen_follows_the_organisers_choice_and_refuses_bad_input_in_api_order(client: FlaskClient, match: MatchDriver) -> None:
    body = {"show": "scoreboard", "match": match.id}
    assert put_screen(client, "field-1", body, token=None).status_code == 401
    r = put_screen(client, "field-1", body, token=match.tokens["referee"])
    assert r.status_code == 403 and r.get_json()["error"] == "forbidden"
    for bad, field in (
        ({"show": "fireworks"}, "show"),
        ({"show": "scoreboard"}, "match"),
        ({"show": "scoreboard", "match": "nope"}, "match"),
        ({"show": "slide", "image": "nope"}, "image"),
        ({"show": "competition", "competition": "nope"}, "competition"),
        ({"show": "blank", "extra": 1}, "extra"),
    ):
        r = put_screen(client, "field-1", bad)
        assert r.status_code == 400 and field in r.get_json()["fields"], (bad, r.get_json())
    assert put_screen(client, "Field 1!", {"show": "blank"}).get_json()["fields"] == {
        "name": ["a screen's name is 1 to 40 lower-case letters, digits, '-' or '_'"]
    }
    assert client.get("/api/screens").get_json() == [], "a refused choice changes nothing"

    r = put_screen(client, "field-1", {**body, "caption": "ignored"})
    assert r.status_code == 201
    screen = r.get_json()
    assert screen["show"] == "scoreboard" and screen["match"] == match.id and "caption" not in screen
    assert screen["src"] == f"/matches/{match.id}/scoreboard"
    r = put_screen(client, "field-1", {"show": "lineups", "match": match.id})
    assert r.status_code == 200 and r.get_json()["src"] == f"/matches/{match.id}/lineups"
    assert client.get("/api/screens/field-1").get_json()["show"] == "lineups"
    assert client.delete("/api/screens/field-1").status_code == 401
    assert client.delete("/api/screens/field-1", headers=auth(ADMIN)).status_code == 204
    assert client.get("/api/screens/field-1").status_code == 404
    assert client.delete("/api/screens/field-1", headers=auth(ADMIN)).status_code == 404


def test_venue_screen_page_renders_its_choice_without_waiting_for_its_script(client: FlaskClient, match: MatchDriver) -> None:
    image = upload(client, "/api/images?kind=slide", png((800, 450)), title="Sponsor").get_json()
    put_screen(client, "hall", {"show": "slide", "image": image["id"], "caption": "Thanks to our sponsor 赞助商"})
    html = text(get(client, "/screens/hall", "en"))
    assert f'<img id="slide-img" alt="" src="/images/{image["id"]}">' in html
    assert "Thanks to our sponsor 赞助商" in html
    put_screen(client, "hall", {"show": "scoreboard", "match": match.id})
    html = text(get(client, "/screens/hall", "zh"))
    assert f'src="/matches/{match.id}/scoreboard?lang=zh"' in html
    # A screen nobody has set up yet waits, black, for the organiser's choice.
    html = text(get(client, "/screens/new-one", "en"))
    assert page_data(html)["current"]["show"] == "blank"
    assert get(client, "/screens/Not A Name").status_code == 404


def test_a_screen_in_the_room_receives_each_new_choice_at_once(app: Flask, client: FlaskClient, match: MatchDriver) -> None:
    from qalisball import socketio

    screen = socketio.test_client(app, flask_test_client=client)
    screen.emit("join_screen", {"screen": "field-2"})
    [first] = screen.get_received()
    assert first["name"] == "screen" and first["args"][0]["show"] == "blank"
    other = socketio.test_client(app, flask_test_client=client)
    other.emit("join_screen", {"screen": "field-3"})
    other.get_received()
    put_screen(client, "field-2", {"show": "scoreboard", "match": match.id})
    [switched] = screen.get_received()
    assert switched["args"][0]["src"] == f"/matches/{match.id}/scoreboard"
    assert other.get_received() == [], "only that screen's room hears it"
    screen.emit("join_screen", {"screen": "../x"})
    assert screen.get_received()[0]["name"] == "error"


# ---------------------------------------------------------------------------------------------
# Images and team logos


def test_images_are_checked_by_decoding_them_and_stored_once(client: FlaskClient) -> None:
    assert upload(client, "/api/images", png(), token="").status_code == 401
    svg = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
    for data, why in (
        (b"", "empty"),
        (b"GIF89a not really", "not a PNG, JPEG, WebP or GIF image"),
        (svg, "not a PNG, JPEG, WebP or GIF image"),
        (png(fmt="BMP"), "a BMP image"),
        (png((5000, 10)), "at most 4096"),
        (png() + b"\0" * 1_000_000, "at most 1 MB"),
    ):
        r = upload(client, "/api/images?kind=logo", data)
        assert r.status_code == 400 and why in r.get_json()["fields"]["file"][0], (why, r.get_json())
    # Too long to be read at all: refused on its Content-Length.
    r = upload(client, "/api/images?kind=slide", png() + b"\0" * 6_000_000)
    assert r.status_code == 400 and "the upload has 6" in r.get_json()["fields"]["file"][0]
    assert upload(client, "/api/images?kind=poster", png()).get_json()["fields"] == {"kind": ["kind is 'slide' or 'logo'"]}
    assert client.get("/api/images").get_json() == []

    first = upload(client, "/api/images", png(), title="Logo").get_json()
    again = upload(client, "/api/images", png(), title="Logo again").get_json()
    assert first["id"] == again["id"] and first["width"] == 60 and first["content_type"] == "image/png"
    jpeg = upload(client, "/api/images", png(fmt="JPEG")).get_json()
    assert jpeg["content_type"] == "image/jpeg" and len(client.get("/api/images").get_json()) == 2
    with client.get(first["url"]) as r:
        assert r.status_code == 200 and r.mimetype == "image/png" and r.get_data() == png()
        assert "immutable" in r.headers["Cache-Control"] and r.headers["X-Content-Type-Options"] == "nosniff"
    assert client.get("/images/nope").status_code == 404


def test_an_image_in_use_cannot_be_deleted(client: FlaskClient) -> None:
    image = upload(client, "/api/images", png()).get_json()
    put_screen(client, "hall", {"show": "slide", "image": image["id"]})
    r = client.delete(f"/api/images/{image['id']}", headers=auth(ADMIN))
    assert r.status_code == 409 and "screen hall" in r.get_json()["message"]
    put_screen(client, "hall", {"show": "blank"})
    assert client.delete(f"/api/images/{image['id']}", headers=auth(ADMIN)).status_code == 204
    assert client.get(image["url"]).status_code == 404


def test_S4_a_team_logo_uploaded_once_shows_in_every_match_of_that_team(client: FlaskClient, match: MatchDriver) -> None:
    assert upload(client, "/api/logos", png(), team="").get_json()["fields"] == {
        "team": ["name the team (1 to 80 characters), as its matches name it"]
    }
    r = upload(client, "/api/logos", png(), team="  人大  RENMIN ")
    assert r.status_code == 201
    logo = r.get_json()["url"]
    assert client.get("/api/logos").get_json() == {"人大 RENMIN": logo}
    # The demo match's home team is "人大 Renmin": the same team, compared as D72 compares names.
    for url in (f"/matches/{match.id}/scoreboard", f"/matches/{match.id}/scoreboard?overlay=1", f"/matches/{match.id}/lineups"):
        html = text(get(client, url, "en"))
        assert f'src="{logo}"' in html, url
        assert page_data(html)["logos"] == {"home": logo, "away": None}
    report = client.get(f"/matches/{match.id}/report.json").get_json()
    assert report["teams"]["home"]["logo"] == logo and report["teams"]["away"]["logo"] is None
    other = MatchDriver(client, match.clock, {**demo_request(), "home": {**demo_request()["away"], "name": "人大 renmin"}})
    assert f'src="{logo}"' in text(get(client, f"/matches/{other.id}/scoreboard"))
    # Replacing the logo replaces it everywhere; removing it leaves the name alone.
    new = upload(client, "/api/logos", png(color="#1565c0"), team="人大 Renmin").get_json()["url"]
    assert new != logo and f'src="{new}"' in text(get(client, f"/matches/{match.id}/scoreboard"))
    assert client.delete("/api/logos?team=人大 renmin", headers=auth(ADMIN)).status_code == 204
    assert 'class="logo"' not in text(get(client, f"/matches/{match.id}/scoreboard"))
    assert client.delete("/api/logos?team=人大 renmin", headers=auth(ADMIN)).status_code == 404


def test_S4_a_logo_set_or_removed_tells_the_live_rooms_of_that_teams_matches(
    app: Any, client: FlaskClient, match: MatchDriver
) -> None:
    """A logo uploaded mid-match reaches the scoreboards and line-up screens already open (they draw
    themselves again); matches of other teams hear nothing."""
    from qalisball import socketio

    other = MatchDriver(client, match.clock, {**demo_request(), "home": {**demo_request()["away"], "name": "Beida 北大"}})
    board = socketio.test_client(app)
    board.emit("join", {"match": match.id, "updates": True})
    elsewhere = socketio.test_client(app)
    elsewhere.emit("join", {"match": other.id})
    board.get_received(), elsewhere.get_received()
    upload(client, "/api/logos", png(), team="人大 renmin")
    assert [(m["name"], m["args"][0]) for m in board.get_received()] == [("logos", {"match": match.id, "team": "人大 renmin"})]
    assert client.delete("/api/logos?team=人大 Renmin", headers=auth(ADMIN)).status_code == 204
    assert [m["name"] for m in board.get_received()] == ["logos"]
    upload(client, "/api/logos", png(), team="Somebody Else")
    assert board.get_received() == [] and [m["name"] for m in elsewhere.get_received()] == []


def test_migration_5_keeps_screens_images_and_logos_across_a_restart(tmp_path: Any, clock: FakeClock) -> None:
    from qalisball import create_app

    config = {"TESTING": True, "DATABASE": str(tmp_path / "t.db"), "ADMIN_TOKEN": ADMIN, "CLOCK": clock}
    app = create_app(config)
    client = app.test_client()
    image = upload(client, "/api/images", png()).get_json()
    upload(client, "/api/logos", png(color="#000"), team="Tsinghua 清华")
    put_screen(client, "hall", {"show": "slide", "image": image["id"], "caption": "欢迎"})
    store = app.extensions["qalisball"].store
    assert 5 in {row["version"] for row in store.db["migrations"].rows}
    store.close()

    again = create_app(config).test_client()
    assert again.get("/api/screens/hall").get_json()["caption"] == "欢迎"
    assert again.get(image["url"]).get_data() == png()
    assert list(again.get("/api/logos").get_json()) == ["Tsinghua 清华"]


def test_organiser_page_lists_screens_matches_images_and_teams(client: FlaskClient, match: MatchDriver) -> None:
    image = upload(client, "/api/images", png(), title="Sponsor 赞助").get_json()
    put_screen(client, "field-1", {"show": "scoreboard", "match": match.id})
    for lang, word in (("en", "Venue screens"), ("zh", "场地大屏")):
        html = text(get(client, "/screens", lang))
        assert f"<h1>{word}</h1>" in html
        assert 'href="/screens/field-1"' in html and f'<option value="{match.id}" selected>' in html
        assert f'<option value="{image["id"]}"' in html and "Sponsor 赞助" in html
        assert '<option value="人大 Renmin">' in html  # the team names known, for the logo form
    assert "<script>" not in html.replace('<script id="page-data" type="application/json">', "")


# ---------------------------------------------------------------------------------------------
# What spectators read


def test_S3_10_8_phone_and_overlay_explain_a_free_kick_moved_by_the_3_m_rule_in_both_languages(
    client: FlaskClient, match: MatchDriver
) -> None:
    match.kickoff("home", "x0")
    match.take(1)
    match.post({"type": "foul", "team": "away", "player": 4, "spot": {"x": 38.5, "y": 12.5}})  # inside away's area
    restart = match.state()["restart"]
    assert restart["origin"] == {"x": 38.5, "y": 12.5} and restart["why"]["rule"] == "10.6"
    expected = {
        "en": "foul by Tsinghua 清华 #4 (10.6); moved 3 m out of the area (10.8)",
        "zh": "Tsinghua 清华4号犯规（10.6）；依 3 米规则移出禁区外（10.8）",
    }
    for lang, why in expected.items():
        for url in (f"/matches/{match.id}", f"/matches/{match.id}/scoreboard?overlay=1&layout=third"):
            html = text(get(client, url, lang))
            assert element(html, "why") == why, (lang, url)
            data = page_data(html)
            # The script renders later restarts from the same templates (common.js, Q.whyText).
            assert data["rule_templates"]["foul by {team} #{player}"] in ("foul by {team} #{player}", "{team}{player}号犯规")
            assert data["strings"]["moved_3m"] in why


def test_S3_8_2_a_restart_without_a_3_m_move_names_the_call_and_its_rule(client: FlaskClient, match: MatchDriver) -> None:
    match.kickoff("home", "x0")
    match.take(1)
    match.post({"type": "violation", "kind": "ball_out_side", "team": "home", "player": 2, "spot": {"x": 20, "y": 0}})
    assert element(text(get(client, f"/matches/{match.id}", "en")), "why") == "Ball out: side line by 人大 Renmin #2 (8.2)"
    assert element(text(get(client, f"/matches/{match.id}", "zh")), "why") == "人大 Renmin2号被判球出边线（8.2）"
    match.take()
    assert 'id="why" hidden' in text(get(client, f"/matches/{match.id}", "en")), "no restart pending: nothing to explain"


def test_tv_and_phone_show_the_start_time_before_kickoff(client: FlaskClient, clock: FakeClock) -> None:
    # The fake clock is 2027-01-15 08:00 UTC: 16:00 in Beijing.
    body = {**demo_request(), "starts_at": "2027-01-15T18:30:00+08:00"}
    m = MatchDriver(client, clock, body)
    for url in (f"/matches/{m.id}", f"/matches/{m.id}/scoreboard"):
        assert element(text(get(client, url, "en")), "starts") == "Starts at 18:30"
        assert element(text(get(client, url, "zh")), "starts") == "18:30 开赛"
    tomorrow = MatchDriver(client, clock, {**demo_request(), "starts_at": "2027-01-16T09:00:00+08:00"})
    assert element(text(get(client, f"/matches/{tomorrow.id}/scoreboard", "en")), "starts") == "Starts tomorrow at 09:00"
    later = MatchDriver(client, clock, {**demo_request(), "starts_at": "2027-03-01T09:00:00+01:00"})
    assert element(text(get(client, f"/matches/{later.id}", "en")), "starts") == "Starts on 2027-03-01 at 09:00"
    m.kickoff()
    html = text(get(client, f"/matches/{m.id}/scoreboard", "en"))
    assert re.search(r'id="starts"\s+hidden', html) and 'id="clock">00:00' in html
    # No start time given: the clock shows, nothing else.
    plain = MatchDriver(client, clock)
    assert re.search(r'id="starts"\s+hidden', text(get(client, f"/matches/{plain.id}", "en")))


def test_3_1_phone_timeline_marks_each_half_and_says_when_the_clock_is_paused(
    client: FlaskClient, match: MatchDriver, clock: FakeClock
) -> None:
    match.kickoff()
    match.take(1)
    clock.advance(65_000)
    match.post({"type": "clock", "action": "pause"}, role="scorer")
    html = text(get(client, f"/matches/{match.id}", "en"))
    assert element(html, "tl-paused-text") == "Clock paused at 01:05"
    assert re.search(r'<div class="paused-label" id="paused">Paused</div>', html)
    match.post({"type": "clock", "action": "resume"}, role="scorer")
    match.run_out_half()
    match.post({"type": "period_start"})
    html = text(get(client, f"/matches/{match.id}", "en"))
    assert re.search(r'id="tl-paused"\s+hidden', html)
    halves = re.findall(r'data-half="(\d)">.*?<span class="tl-what">\s*(.*?)\s*</span>', html, re.S)
    assert halves == [("2", "▶ 2nd half begins"), ("1", "■ 1st half ends"), ("1", "▶ 1st half begins")]
    zh = text(get(client, f"/matches/{match.id}", "zh"))
    assert "▶ 下半场开始" in zh and "■ 上半场结束" in zh


# ---------------------------------------------------------------------------------------------
# Overlays and the officials' page


def test_S5_overlay_options_come_from_the_url_and_bad_values_fall_back_to_defaults() -> None:
    assert pages.overlay_options({}) is None
    bar = pages.overlay_options({"overlay": "1"})
    assert bar is not None and bar["layout"] == "bar" and bar["pos"] == "tl" and bar["hidden"] == []
    assert bar["delay_ms"] == 0 and bar["popup_ms"] == 6000 and bar["sound"] is False
    bug = pages.overlay_options({"overlay": "bug", "show": "cards,nonsense", "pos": "br", "delay": "2.5", "sound": "1"})
    assert bug is not None and bug["layout"] == "bug" and "cards" in bug["parts"] and "phase" in bug["hidden"]
    assert bug["pos"] == "br" and bug["delay_ms"] == 2500 and bug["sound"] is True
    third = pages.overlay_options({"overlay": "yes", "layout": "third", "hide": "why, shootout", "delay": "900", "popup": "x"})
    assert third is not None and third["hidden"] == ["why", "shootout"] and third["pos"] == "bc"
    assert third["delay_ms"] == 120_000 and third["popup_ms"] == 6000
    odd = pages.overlay_options({"overlay": "1", "layout": "tv", "pos": "middle", "delay": "nan"})
    assert odd == {**bar, "delay_ms": 0}


def test_overlay_url_sets_its_layout_position_and_hidden_parts(client: FlaskClient, match: MatchDriver) -> None:
    html = text(get(client, f"/matches/{match.id}/scoreboard?overlay=1&layout=third&hide=cards,why&delay=3"))
    assert re.search(r'<body class="scoreboard overlay layout-third pos-bc no-cards no-why phase-scheduled">', html)
    assert page_data(html)["overlay"]["delay_ms"] == 3000
    assert 'id="popup"' in html and 'id="follow"' not in html
    # The big screen pops up goals and corrections of goals too (D165), but has no overlay classes.
    assert 'class="scoreboard overlay' not in text(get(client, f"/matches/{match.id}/scoreboard"))


def test_officials_qr_cards_name_each_official_and_the_warning_names_the_setting(client: FlaskClient) -> None:
    body = {**demo_request(), "officials": {"referee": "王强", "scorer": "Sun Yan"}}
    m = MatchDriver(client, FakeClock(), body)
    html = text(
        client.get(f"/matches/{m.id}/officials?token={ADMIN}&lang=en", base_url="http://127.0.0.1:5000", follow_redirects=True)
    )
    cards = dict(re.findall(r'data-role="(\w+)">.*?<figcaption>(.*?)</figcaption>', html, re.S))
    assert '<span class="official-name">王强</span>' in cards["referee"]
    assert '<span class="official-name">Sun Yan</span>' in cards["scorer"]
    assert "official-name" not in cards["assistant1"]
    assert "or set QALISBALL_PUBLIC_URL." in html
    zh = text(
        client.get(f"/matches/{m.id}/officials?token={ADMIN}&lang=zh", base_url="http://127.0.0.1:5000", follow_redirects=True)
    )
    assert "或设置 QALISBALL_PUBLIC_URL。" in zh


@pytest.mark.parametrize("url", ["/matches/{id}", "/matches/{id}/scoreboard", "/matches/{id}/lineups", "/screens/x", "/screens"])
def test_public_screens_keep_their_scripts_in_static_files(client: FlaskClient, match: MatchDriver, url: str) -> None:
    """Ready for a Content-Security-Policy without 'unsafe-inline': no inline script, no on… handler."""
    html = text(get(client, url.format(id=match.id)))
    scripts = re.findall(r"<script(?![^>]*\bsrc=)([^>]*)>", html)
    assert scripts == [' id="page-data" type="application/json"'], scripts
    assert not re.search(r"\son[a-z]+=", html)
