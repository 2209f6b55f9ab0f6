"""The pages, rendered on the server (Flask test client): names, score, languages, QR codes, weight.

The live behaviour (Socket.IO, taps, offline queue) is proved in a real browser in tests/browser/.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import qrcode
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po
from flask.testing import FlaskClient

from qalisball.match import pages
from qalisball.rules import engine
from qalisball.rules.catalogue import BY_TYPE
from qalisball.server.demo import demo_request
from qalisball.web import rulebook
from tests.conftest import ADMIN, FakeClock, MatchDriver, auth
from tests.console_script import console_view

ROOT = Path(__file__).resolve().parent.parent
ROLES = ("referee", "assistant1", "assistant2", "scorer")


def get(client: FlaskClient, url: str, lang: str | None = None, **headers: str) -> Any:
    """A page as a browser opens it: a link's ``?token=`` is exchanged for a cookie on the way (D53)."""
    if lang:
        client.set_cookie("lang", lang)
    return client.get(url, headers=headers, follow_redirects=True)


def text(resp: Any) -> str:
    return str(resp.get_data(as_text=True))


def page_data(html: str) -> dict[str, Any]:
    m = re.search(r'<script id="page-data" type="application/json">(.*?)</script>', html, re.S)
    assert m, "the page hands its data to its script"
    data: dict[str, Any] = json.loads(m.group(1))
    return data


def element(html: str, element_id: str) -> str:
    m = re.search(rf'id="{element_id}"[^>]*>(.*?)</', html, re.S)
    assert m, element_id
    return m.group(1).strip()


def qr_payload_matches(svg: str, data: str) -> bool:
    """Whether the compact SVG QR code draws exactly qrcode's matrix for ``data``."""
    code = qrcode.QRCode(border=2, error_correction=qrcode.constants.ERROR_CORRECT_M)
    code.add_data(data)
    code.make(fit=True)
    matrix = code.get_matrix()
    drawn = [[False] * len(matrix) for _ in matrix]
    path = re.search(r'<path fill="#000" d="([^"]*)"', svg)
    assert path
    for x, y, w in re.findall(r"M(\d+) (\d+)h(\d+)", path.group(1)):
        for i in range(int(w)):
            drawn[int(y)][int(x) + i] = True
    return drawn == [list(map(bool, row)) for row in matrix]


def qr_svgs(html: str) -> list[str]:
    return re.findall(r'<svg class="qr".*?</svg>', html, re.S)


def played(match: MatchDriver) -> MatchDriver:
    """Kickoff taken, a goal by home #3, a yellow card to away #2, an away substitution."""
    match.kickoff("home", "x0")
    match.take(1)
    match.post({"type": "goal", "team": "home", "player": 3})
    match.post({"type": "card", "team": "away", "player": 2, "color": "yellow"})
    match.post({"type": "substitution", "team": "away", "out": 6, "in": 9})
    return match


# ---------------------------------------------------------------------------------------------
# The matches page


def test_index_lists_matches_with_names_as_entered_in_both_languages(client: FlaskClient, match: MatchDriver) -> None:
    played(match)
    for lang, heading, phase in (("en", "Matches", "1st half"), ("zh", "比赛", "上半场")):
        html = text(get(client, "/", lang))
        assert f"<h2>{heading}</h2>" in html
        assert "人大 Renmin" in html and "Tsinghua 清华" in html
        assert "1 – 0" in html and phase in html
        assert f'lang="{"zh-CN" if lang == "zh" else "en"}"' in html


def test_index_offers_the_new_match_form_only_to_the_organiser(client: FlaskClient, match: MatchDriver) -> None:
    anonymous = text(get(client, "/"))
    assert re.search(r'<section id="organiser" class="organiser-only" hidden>', anonymous)
    wrong = text(get(client, "/?token=not-it"))
    assert "The organiser token was not accepted" in wrong and "officials?token=not-it" not in wrong
    assert re.search(r'<section id="organiser" class="organiser-only" hidden>', wrong)
    # The organiser token opens the form through its cookie (D53): no page link carries it.
    organiser = text(get(client, f"/?token={ADMIN}"))
    assert re.search(r'<section id="organiser" class="organiser-only" >', organiser)
    assert f'href="/matches/{match.id}/officials"' in organiser and ADMIN not in organiser


# ---------------------------------------------------------------------------------------------
# Spectators and the big screen


def test_spectator_page_renders_score_clock_and_timeline_on_the_server(client: FlaskClient, match: MatchDriver) -> None:
    played(match)
    match.clock.advance(125_000)
    html = text(get(client, f"/matches/{match.id}", "en"))
    assert element(html, "home-score") == "1" and element(html, "away-score") == "0"
    assert element(html, "clock") == "02:05"
    assert element(html, "phase") == "1st half"
    timeline = html[html.index('id="timeline"') :]
    assert "Goal · 人大 Renmin #3 张伟" in timeline
    assert "Yellow card · Tsinghua 清华 #2 Bella Wu" in timeline
    assert "#6 Fay He → #9 Ivan Xu" in timeline
    zh = text(get(client, f"/matches/{match.id}", "zh"))
    assert "得分 · 人大 Renmin #3 张伟" in zh and "黄牌" in zh and element(zh, "phase") == "上半场"


def test_D164_a_voided_goal_leaves_the_score_and_stays_struck_out_on_the_timeline_with_the_reason(
    client: FlaskClient, match: MatchDriver
) -> None:
    match.kickoff("home", "x0")
    match.take(1)
    goal = match.post({"type": "goal", "team": "home", "player": 3})
    match.post({"type": "void", "target": goal["seq"], "reason": "bottle not down"})
    html = text(get(client, f"/matches/{match.id}", "en"))
    assert element(html, "home-score") == "0"
    struck = _timeline_item(html, goal["seq"])
    assert "tl-struck" in struck and "Goal cancelled — bottle not down" in struck and "#3 张伟" in struck
    # The console's Undo (reason "undo") reads as a goal logged in error, in the viewer's language.
    match.post({"type": "restart_taken", "team": "away", "player": 2}, expect=None)
    again = match.post({"type": "goal", "team": "home", "player": 4})
    match.post({"type": "void", "target": again["seq"], "reason": "undo"})
    zh = text(get(client, f"/matches/{match.id}", "zh"))
    assert "进球取消 — 误记" in _timeline_item(zh, again["seq"])


def _timeline_item(html: str, seq: int) -> str:
    m = re.search(rf'<li class="([^"]*)" data-seq="{seq}".*?</li>', html[html.index('id="timeline"') :], re.S)
    assert m, f"timeline item {seq}"
    return m.group(0)


def disallowed(match: MatchDriver) -> tuple[int, int]:
    """Home #3 scores, away #2 scores, then the referee disallows home's goal: an attacker in the area
    before the bottle lay flat (7.2 note), as the console's "disallow goal" does (an amend, M3)."""
    match.kickoff("home", "x0")
    match.take(1)
    first = match.post({"type": "goal", "team": "home", "player": 3})
    match.take(2)
    match.post({"type": "goal", "team": "away", "player": 2})
    call = {"type": "violation", "kind": "player_in_area", "team": "home", "player": 3, "spot": {"x": 38, "y": 12}}
    amend = match.post({"type": "amend", "target": first["seq"], "event": call, "reason": "#3 stepped in"}, expect=None)
    assert amend["_status"] == 201, amend
    return first["seq"], amend["seq"]


def test_D163_a_disallowed_goal_stays_on_the_phone_timeline_at_its_place_with_its_call_and_rule(
    client: FlaskClient, match: MatchDriver
) -> None:
    goal, amend = disallowed(match)
    data = client.get(f"/matches/{match.id}/timeline.json?lang=en").get_json()
    kinds = [(e["type"], (e.get("correction") or {}).get("kind")) for e in data["entries"]]
    # At the goal's place: before away's goal, after the half's start.
    assert kinds[-2:] == [("violation", "disallowed"), ("goal", None)]
    c = data["entries"][-2]["correction"]
    assert c["seq"] == amend and c["rule"] == "7.2" and c["reason"] == "#3 stepped in"
    assert c["text"] == "Goal disallowed — Player in area (7.2)"
    assert c["who"] == "人大 Renmin #3 张伟"
    assert [x["seq"] for x in data["corrections"]] == [amend]
    html = text(get(client, f"/matches/{match.id}", "en"))
    assert element(html, "home-score") == "0" and element(html, "away-score") == "1"
    item = _timeline_item(html, amend)
    assert "Goal disallowed — Player in area (7.2)" in item and "Reason: #3 stepped in" in item and "#3 张伟" in item
    zh = text(get(client, f"/matches/{match.id}", "zh"))
    assert "进球无效 — 球员进入禁区（7.2）" in _timeline_item(zh, amend)
    assert goal not in [e["seq"] for e in data["entries"]]


def test_D163_a_corrected_scorer_reads_scorer_7_to_9_and_undoing_a_disallow_gives_the_goal_back(
    client: FlaskClient, match: MatchDriver
) -> None:
    match.kickoff("home", "x0")
    match.take(1)
    goal = match.post({"type": "goal", "team": "home", "player": 3})
    fix = match.post(
        {"type": "amend", "target": goal["seq"], "event": {"type": "goal", "team": "home", "player": 4}, "reason": "wrong shirt"}
    )
    data = client.get(f"/matches/{match.id}/timeline.json?lang=en").get_json()
    c = data["entries"][-1]["correction"]
    assert (c["kind"], c["text"], c["rule"]) == ("corrected", "Goal corrected — scorer #3 → #4", "M3")
    assert c["who"].startswith("人大 Renmin #4 ")
    assert "进球更正 — 进球者 #3 → #4" in text(get(client, f"/matches/{match.id}", "zh"))
    call = {"type": "violation", "kind": "player_in_area", "team": "home", "player": 4, "spot": {"x": 38, "y": 12}}
    off = match.post({"type": "amend", "target": fix["seq"], "event": call, "reason": "area"})
    back = match.post({"type": "void", "target": off["seq"], "reason": "the bottle was down"})
    data = client.get(f"/matches/{match.id}/timeline.json?lang=en").get_json()
    assert match.state()["score"]["home"] == 1
    c = data["entries"][-1]["correction"]
    assert (c["seq"], c["kind"], c["text"]) == (back["seq"], "given", "Goal given — the bottle was down")
    assert [x["kind"] for x in data["corrections"]] == ["corrected", "disallowed", "given"]


def test_scoreboard_renders_names_score_phase_restart_cards_and_a_qr_code(client: FlaskClient, match: MatchDriver) -> None:
    played(match)
    for lang, phase, restart in (("en", "1st half", "Kickoff · Tsinghua 清华"), ("zh", "上半场", "中圈开球 · Tsinghua 清华")):
        html = text(get(client, f"/matches/{match.id}/scoreboard", lang))
        assert element(html, "home-name") == "人大 Renmin" and element(html, "away-name") == "Tsinghua 清华"
        assert element(html, "home-score") == "1" and element(html, "away-score") == "0"
        assert element(html, "phase") == phase
        assert element(html, "restart") == restart
        assert '<span class="card yellow"' in html[html.index('id="away-cards"') :]
        [svg] = qr_svgs(html)
        assert qr_payload_matches(svg, f"http://localhost/matches/{match.id}")


def test_7_2_scoreboard_shows_the_return_countdown_after_a_goal(client: FlaskClient, match: MatchDriver) -> None:
    played(match)
    match.clock.advance(5_000)
    html = text(get(client, f"/matches/{match.id}/scoreboard", "en"))
    assert re.search(r'<div class="return" id="return" >', html)
    assert element(html, "return-time") == "00:25"


def test_overlay_variant_is_transparent_and_has_no_qr_code(client: FlaskClient, match: MatchDriver) -> None:
    html = text(get(client, f"/matches/{match.id}/scoreboard?overlay=1"))
    assert re.search(r'<body class="scoreboard overlay ', html)
    assert not qr_svgs(html)
    with client.get("/static/css/scoreboard.css") as r:
        assert "body.overlay { background: transparent; }" in text(r)


def test_scoreboard_with_its_scripts_and_styles_weighs_under_150_kb(client: FlaskClient, match: MatchDriver) -> None:
    played(match)
    html = get(client, f"/matches/{match.id}/scoreboard").get_data()
    assets = re.findall(rb'<(?:script src|link rel="stylesheet" href)="([^"]+)"', html)
    assert any(a.endswith(b"socket.io.min.js") for a in assets) and any(a.endswith(b".css") for a in assets)
    total = len(html)
    for url in assets:
        with client.get(url.decode()) as r:
            assert r.status_code == 200, url
            total += len(r.get_data())
    assert total < 150_000, f"scoreboard weighs {total} bytes"


def test_the_lock_is_an_svg_icon_with_a_label_not_an_emoji_that_needs_an_emoji_font(
    client: FlaskClient, match: MatchDriver
) -> None:
    # Issue 19.7: 🔒 shows as an empty box on a tablet or screen without an emoji font.
    for folder in ("templates", "static"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in (".html", ".js", ".css"):
                assert "\U0001f512" not in path.read_text(encoding="utf-8"), path
    for lang, label in (("en", "Locked"), ("zh", "已锁定")):
        html = text(get(client, f"/matches/{match.id}/referee?token={match.tokens['referee']}", lang))
        banner = html[html.index('id="lock-banner"') :]
        banner = banner[: banner.index("</div>")]
        assert re.search(rf'<svg class="icon-lock" role="img" aria-label="{label}"', banner), banner


def test_scoreboard_of_a_shootout_shows_each_kick_and_the_next_taker(client: FlaskClient, match: MatchDriver) -> None:
    match.kickoff()
    match.run_out_half()
    match.post({"type": "period_start"})
    match.run_out_half()
    match.post({"type": "shootout_start", "first": "away", "takers": {"home": [1, 2, 3, 4], "away": [5, 6, 7, 8]}})
    match.post({"type": "shootout_kick", "team": "away", "scored": True})
    match.post({"type": "shootout_kick", "team": "home", "scored": False})
    html = text(get(client, f"/matches/{match.id}/scoreboard", "en"))
    board = html[html.index('id="shootout"') :]
    assert '<b id="so-score">0–1</b>' in board
    assert board.count('class="kick scored') == 1 and board.count('class="kick missed') == 1
    assert "Next: Tsinghua 清华 #5 Eli Sun · 2 pt" in board


# ---------------------------------------------------------------------------------------------
# The officials' console and their QR codes


def test_4_3_console_needs_a_role_token(client: FlaskClient, match: MatchDriver) -> None:
    assert get(client, f"/matches/{match.id}/referee").status_code == 401
    wrong = get(client, f"/matches/{match.id}/referee?token=nope")
    assert wrong.status_code == 401 and "not valid for this match" in text(wrong)
    assert get(client, f"/matches/{match.id}/referee?token={ADMIN}").status_code == 401  # the organiser does not officiate
    assert get(client, "/matches/nosuchmatch/referee?token=x").status_code == 404


@pytest.mark.parametrize("role", ROLES)
def test_4_3_console_shows_only_what_the_role_may_do(client: FlaskClient, match: MatchDriver, role: str) -> None:
    html = text(get(client, f"/matches/{match.id}/referee?token={match.tokens[role]}", "en"))
    data = console_view(page_data(html))  # what the script builds from the embedded catalogue (issue 23)
    assert data["role"] == role
    expected = {"clock" if c["type"] == "clock" else c["call"] for c in pages.console_calls(role)}
    assert set(data["allowed"]) == expected
    shown = set(re.findall(r'data-action="(\w+)"', html))
    clock = {"pause", "resume", "set"} if role in BY_TYPE["clock"].who else set()
    screens = (expected - {"clock", "void", "shootout_start", "shootout_kick"}) | clock
    assert shown == screens
    if role == "referee":
        assert 'id="undo"' in html and {"foul", "yellow", "coin_toss", "shootout_start"} <= expected
    if role.startswith("assistant"):
        assert expected == {"goal", "shot_missed", "ball_out_side", "ball_out_end", "ball_in_area", "player_in_area"}
        assert 'id="undo"' not in html
    if role == "scorer":
        assert expected == {"clock", "substitution"}


def test_console_renders_the_match_and_hands_over_the_log_and_rule_titles(client: FlaskClient, match: MatchDriver) -> None:
    played(match)
    html = text(get(client, f"/matches/{match.id}/referee?token={match.tokens['referee']}", "zh"))
    assert element(html, "home-score") == "1" and element(html, "phase") == "上半场"
    assert '<svg id="field"' in html and 'viewBox="-3.0 -3.0 46.0 31.0"' in html
    data = console_view(page_data(html))
    assert [e["type"] for e in data["log"]] == ["coin_toss", "period_start", "restart_taken", "goal", "card", "substitution"]
    assert data["rules"]["11.1"] == "换人的基本原则" and data["rules"]["D9"].startswith("进入本方禁区")
    assert data["strings"]["offline_queued"] == "离线，{n} 条待发送"
    assert data["vocab"]["violation"]["player_in_area"] == "球员进入禁区"
    en = page_data(text(get(client, f"/matches/{match.id}/referee?token={match.tokens['referee']}", "en")))
    assert en["rules"]["11.1"] == "Substitutions: the basic principle"
    assert en["strings"]["offline_queued"] == "Offline, {n} queued"


def test_officials_page_shows_one_qr_code_per_role(client: FlaskClient, match: MatchDriver) -> None:
    assert get(client, f"/matches/{match.id}/officials").status_code == 401
    assert get(client, f"/matches/{match.id}/officials?token={match.tokens['referee']}").status_code == 401
    html = text(get(client, f"/matches/{match.id}/officials?token={ADMIN}", "en"))
    svgs = qr_svgs(html)
    assert len(svgs) == len(ROLES) + 1  # one per role, and one for spectators
    for role, svg in zip(ROLES, svgs, strict=False):
        url = f"http://localhost/matches/{match.id}/referee?token={match.tokens[role]}"
        assert qr_payload_matches(svg, url), role
        assert f'href="{url}"' in html
    assert qr_payload_matches(svgs[-1], f"http://localhost/matches/{match.id}")
    assert "Assistant referee 2" in html
    assert "助理裁判二" in text(get(client, f"/matches/{match.id}/officials?token={ADMIN}", "zh"))


def test_officials_page_warns_when_its_codes_point_at_this_computer_only(client: FlaskClient, match: MatchDriver) -> None:
    """HOST=127.0.0.1: the QR codes carry the request's host, which no tablet can reach."""
    url = f"/matches/{match.id}/officials?token={ADMIN}"
    html = text(client.get(url + "&lang=en", base_url="http://127.0.0.1:5000", follow_redirects=True))
    assert re.search(r'id="loopback"[^>]*>These codes point to this computer only \(127\.0\.0\.1:5000\)', html)
    zh = text(client.get(url + "&lang=zh", base_url="http://localhost:5000", follow_redirects=True))
    assert "这些二维码只指向本机（localhost:5000）" in zh
    assert 'id="loopback"' not in text(client.get(url, base_url="http://192.168.1.20:5000", follow_redirects=True))
    client.application.config["PUBLIC_URL"] = "https://live.example.org"
    assert 'id="loopback"' not in text(client.get(url, base_url="http://127.0.0.1:5000", follow_redirects=True))


def test_qr_codes_use_the_public_url_behind_a_proxy(client: FlaskClient, match: MatchDriver) -> None:
    client.application.config["PUBLIC_URL"] = "https://live.example.org/"
    html = text(get(client, f"/matches/{match.id}/scoreboard"))
    assert qr_payload_matches(qr_svgs(html)[0], f"https://live.example.org/matches/{match.id}")


# ---------------------------------------------------------------------------------------------
# Languages


def test_language_follows_the_browser_then_the_devices_choice(client: FlaskClient, match: MatchDriver) -> None:
    url = f"/matches/{match.id}"
    assert element(text(client.get(url, headers={"Accept-Language": "zh-CN,zh;q=0.9"})), "phase") == "未开始"
    assert element(text(client.get(url, headers={"Accept-Language": "en-US,en;q=0.9"})), "phase") == "Not started"
    assert element(text(client.get(url, headers={"Accept-Language": "fr"})), "phase") == "Not started"
    # The switch: remembered in a cookie for this device, and back to the page it was used on.
    r = client.get(f"/lang/zh?next={url}%3Fx%3D1")
    assert r.status_code == 302 and r.headers["Location"] == f"{url}?x=1"
    assert "lang=zh" in r.headers["Set-Cookie"] and "Max-Age" in r.headers["Set-Cookie"]
    assert element(text(client.get(url, headers={"Accept-Language": "en"})), "phase") == "未开始"
    # A scoreboard PC without a keyboard: ?lang= once in its URL.
    r = client.get(url + "?lang=en")
    assert element(text(r), "phase") == "Not started" and "lang=en" in r.headers["Set-Cookie"]
    assert element(text(client.get(url)), "phase") == "Not started"


def test_language_switch_never_redirects_off_site(client: FlaskClient) -> None:
    for target in ("https://evil.example/", "//evil.example/", "javascript:alert(1)"):
        r = client.get("/lang/en", query_string={"next": target})
        assert r.status_code == 302 and r.headers["Location"] == "/"
    assert client.get("/lang/fr").status_code == 404


def test_language_switch_links_keep_the_role_and_never_the_token(client: FlaskClient, match: MatchDriver) -> None:
    """D53: the console's address names its role once the link's token became a cookie; switching the
    language comes back to that address, and the token is in neither."""
    token = match.tokens["scorer"]
    html = text(get(client, f"/matches/{match.id}/referee?token={token}", "en"))
    link = re.search(r'<a href="([^"]+)" lang="zh-CN" data-lang="zh">', html)
    assert link and token not in link.group(1)
    r = client.get(link.group(1).replace("&amp;", "&"))
    assert r.headers["Location"] == f"/matches/{match.id}/referee?role=scorer"
    assert page_data(text(get(client, r.headers["Location"])))["role"] == "scorer"


def _my_messages() -> set[str]:
    """Every message of the screens' templates and Python (the report's templates have their own owner)."""
    method_map = [("qalisball/**.py", "python"), ("templates/**.html", "jinja2")]
    found = set()
    for filename, _lineno, message, _comments, _context in extract_from_dir(
        str(ROOT), method_map, keywords={"_": None, "gettext": None, "_l": None, "lazy_gettext": None}
    ):
        if Path(filename).name.startswith("report") or filename.startswith("qalisball/reports"):
            continue
        found.add(message if isinstance(message, str) else message[0])
    return found


def test_every_word_on_the_screens_has_a_chinese_translation() -> None:
    with (ROOT / "translations" / "zh" / "LC_MESSAGES" / "messages.po").open("rb") as f:
        catalog = read_po(f)
    translated = {m.id: m.string for m in catalog if m.id and m.string and not m.fuzzy}
    messages = _my_messages()
    assert len(messages) > 150
    missing = sorted(m for m in messages if m not in translated)
    assert not missing, f"untranslated: {missing}"
    for msgid, msgstr in translated.items():
        # The placeholders the scripts fill in must survive translation.
        assert sorted(re.findall(r"\{\w+\}", msgid)) == sorted(re.findall(r"\{\w+\}", str(msgstr))), msgid


def test_catalogs_are_compiled_when_the_app_starts(app: Any) -> None:
    directory = Path(app.config["BABEL_TRANSLATION_DIRECTORIES"])
    mo = directory / "zh" / "LC_MESSAGES" / "messages.mo"
    assert mo.exists()
    assert mo.stat().st_mtime >= (ROOT / "translations" / "zh" / "LC_MESSAGES" / "messages.po").stat().st_mtime


# ---------------------------------------------------------------------------------------------
# The rule book's titles


def _cited_rules() -> set[str]:
    """Every rule-like literal in the rule core ("11.1", "D5"), and the rules of the restart table."""
    source = "\n".join(p.read_text() for p in (ROOT / "qalisball" / "rules").glob("*.py"))
    # Sections are numbered from x.1: "1.0" and "2.0" are the rule sets' names (SPEC §11.2), not rules.
    literals = set(re.findall(r'"(\d{1,2}\.[1-9]|D\d+)"', source))
    return literals | set(re.findall(r'RuleViolation\(\s*"([^"]+)"', source)) | set(engine.RESTART_RULE.values())


def test_every_rule_the_engine_cites_has_a_title_in_both_languages() -> None:
    cited = _cited_rules()
    assert {"11.1", "8.5", "10.4", "3.1"} <= cited
    for rule in sorted(cited):
        zh, en = rulebook.title(rule, "zh"), rulebook.title(rule, "en")
        assert zh and en and zh != en, rule
        assert rule in rulebook.RULES, f"{rule} is cited but only its chapter has a title"


def test_rulebook_has_every_section_of_the_book_and_every_decision() -> None:
    sections = {1: 3, 2: 3, 3: 2, 4: 3, 5: 3, 6: 2, 7: 2, 8: 7, 9: 3, 10: 8, 11: 3, 12: 2, 13: 2}
    numbered = [f"{c}.{s}" for c, n in sections.items() for s in range(1, n + 1)]
    assert all(rule in rulebook.SECTIONS for rule in numbered)
    assert [f"D{i}" for i in range(1, 12)] == [d for d in rulebook.DECISIONS if d[1:].isdigit() and int(d[1:]) <= 11]
    assert rulebook.title("10.8", "zh") == "任意球的发球位置；罚球"  # the book numbers two sections 10.8
    assert rulebook.title("8.4", "en") == "Ball landing in the restricted area"
    assert rulebook.title("99.1", "en") is None


def test_issue21_rule_book_titles_are_english_msgids_translated_by_the_catalogue(app: Any) -> None:
    """One word store: a title is its English in rulebook.py (or decision_titles.py, rendered from
    docs/decisions.toml) and its Chinese in translations/zh under msgctxt "rule book"; nothing is read from
    docs/ at run time, so rewording a document does not change the console."""
    assert all(isinstance(en, str) for en in rulebook.RULES.values())
    with app.app_context():
        assert rulebook.titles("zh")["11.1"] == "换人的基本原则"
        assert rulebook.titles("en")["11.1"] == "Substitutions: the basic principle"
        assert rulebook.title("D27", "zh") == "任何阶段均可出牌；撤销不可再撤销"
        # The context keeps the rule book's words apart from the same English elsewhere on the screens.
        assert rulebook.title("C4", "zh") == "停赛" and rulebook.title("C4", "en") == "Suspensions"


# ---------------------------------------------------------------------------------------------
# Small pieces


def test_clock_text_counts_up_in_a_half_and_down_at_half_time(client: FlaskClient, match: MatchDriver, clock: FakeClock) -> None:
    match.kickoff()
    clock.advance(61_500)
    assert element(text(get(client, f"/matches/{match.id}/scoreboard")), "clock") == "01:01"
    match.run_out_half()
    clock.advance(90_000)
    assert element(text(get(client, f"/matches/{match.id}/scoreboard")), "clock") == "08:30"  # 10 min half-time


def test_qr_svg_is_compact_and_scalable() -> None:
    svg = pages.qr_svg("http://192.168.1.20:5000/matches/abcdef123456/referee?token=" + "x" * 24, label="Referee")
    assert svg.startswith('<svg class="qr"') and 'viewBox="0 0 ' in svg and "width=" not in svg.split(">")[0]
    assert len(svg) < 6000
    assert "<title>Referee</title>" in svg


def test_7_2_d30_return_countdown_ends_once_the_kickoff_is_taken(match: MatchDriver) -> None:
    """The 30 s are for returning to one's half before the kickoff (7.2, D30): a stoppage just after the
    kickoff was taken must not bring the countdown back. (The screens also show the countdown only while
    a kickoff is pending, static/js/common.js returnLeft.)"""
    match.kickoff("home", "x0")
    match.take(1)
    match.post({"type": "goal", "team": "home", "player": 3})
    assert match.state()["return_countdown_ms"] == 30_000
    match.clock.advance(10_000)
    match.take(1)  # away kicks off
    out = {"type": "violation", "kind": "ball_out_side", "team": "away", "player": 1, "spot": {"x": 20, "y": -1}}
    s = match.post(out)["state"]
    assert s["restart"]["type"] == "side_line"
    assert s["return_countdown_ms"] is None


# ---------------------------------------------------------------------------------------------
# A reviewer's walkthrough: the report reachable, results on the index, officials' names, key help,
# a paused clock said in words, English punctuation in a Latin font.


def shootout_won_by_home(match: MatchDriver) -> None:
    """0–0 after two halves; home scores every kick, away misses every kick, until it is decided."""
    match.kickoff()
    match.run_out_half()
    match.post({"type": "period_start"})
    match.run_out_half()
    match.post({"type": "shootout_start", "first": "home", "takers": {"home": [1, 2, 3, 4], "away": [5, 6, 7, 8]}})
    while (nxt := match.state()["shootout"]["next"]) is not None:
        match.post({"type": "shootout_kick", "team": nxt["team"], "scored": nxt["team"] == "home"})


def report_links(html: str, match_id: str) -> list[tuple[str, str]]:
    """Each link to the match's report: (attributes, label)."""
    return re.findall(rf'<a([^>]*href="/matches/{match_id}/report"[^>]*)>([^<]*)</a>', html)


def test_report_is_linked_from_the_spectator_page_scoreboard_and_index_once_play_began(
    client: FlaskClient, match: MatchDriver
) -> None:
    # Before the kickoff there is nothing to report: the links wait, hidden, for the match to begin.
    assert "hidden" in report_links(text(get(client, f"/matches/{match.id}", "en")), match.id)[0][0]
    assert not report_links(text(get(client, "/", "en")), match.id)
    played(match)
    for lang, label in (("en", "Report"), ("zh", "报告")):
        for url in (f"/matches/{match.id}", f"/matches/{match.id}/scoreboard", "/"):
            [(attrs, shown)] = report_links(text(get(client, url, lang)), match.id)
            assert shown == label and "hidden" not in attrs, url
    assert not report_links(text(get(client, f"/matches/{match.id}/scoreboard?overlay=1")), match.id)
    assert client.get(f"/matches/{match.id}/report").status_code == 200


def test_12_2_console_links_the_report_once_the_match_is_finished(client: FlaskClient, match: MatchDriver) -> None:
    url = f"/matches/{match.id}/referee?token={match.tokens['scorer']}"
    played(match)
    [(attrs, _)] = report_links(text(get(client, url, "en")), match.id)
    assert "hidden" in attrs  # not a tap away from leaving the console during play
    match.run_out_half()
    match.post({"type": "period_start"})
    match.take()
    match.run_out_half()  # 1–0: finished
    for lang, label in (("en", "Report"), ("zh", "报告")):
        [(attrs, shown)] = report_links(text(get(client, url, lang)), match.id)
        assert shown == label and "hidden" not in attrs and 'target="_blank"' in attrs


def test_12_2_index_shows_the_shootout_score_and_the_winner_of_a_finished_match(client: FlaskClient, match: MatchDriver) -> None:
    shootout_won_by_home(match)
    so = match.state()["shootout"]["score"]
    assert so["away"] == 0 and so["home"] > 0
    for lang, phase, winner in (("en", "Full time", "Winner: 人大 Renmin"), ("zh", "全场结束", "胜方：人大 Renmin")):
        html = text(get(client, "/", lang))
        card = html[html.index(f'data-match="{match.id}"') :]
        card = card[: card.index("</li>")]
        assert re.search(rf'<span class="sc">0 – 0 <small class="so"[^>]*>\({so["home"]} – 0\)</small></span>', card)
        assert phase in card and winner in card


def test_create_form_has_optional_officials_names_that_the_api_keeps(client: FlaskClient) -> None:
    html = text(get(client, f"/?token={ADMIN}", "zh"))
    for role in ROLES:
        assert re.search(rf'<input name="officials\.{role}" maxlength="80"', html), role
    assert "裁判员（选填）" in html and "助理裁判一" in html
    # The shape index.js sends (only the names given) is the one the API accepts.
    body = {**demo_request(), "officials": {"referee": "王裁判 Wang", "scorer": "Li Na"}}
    r = client.post("/api/matches", json=body, headers=auth(ADMIN))
    assert r.status_code == 201, r.get_json()
    report = client.get(f"/matches/{r.get_json()['id']}/report.json").get_json()
    assert report["officials"] == {"referee": "王裁判 Wang", "scorer": "Li Na"}


@pytest.mark.parametrize("role", ROLES)
def test_4_3_keyboard_help_lists_only_the_roles_shortcuts(client: FlaskClient, match: MatchDriver, role: str) -> None:
    url = f"/matches/{match.id}/referee?token={match.tokens[role]}"
    en = element(text(get(client, url, "en")), "keys-help")
    zh = element(text(get(client, url, "zh")), "keys-help")
    assert en.startswith("Keys: letters on the buttons start a call") and zh.startswith("快捷键：按钮上的字母")
    assert ("Space pauses" in en) == ("空格" in zh) == (role in BY_TYPE["clock"].who)
    assert ("Ctrl+Z" in en) == ("Ctrl+Z" in zh) == (role in BY_TYPE["void"].who)


def test_3_1_scoreboard_says_paused_in_words_not_only_in_colour(client: FlaskClient, match: MatchDriver) -> None:
    match.kickoff()
    html = text(get(client, f"/matches/{match.id}/scoreboard", "en"))
    assert re.search(r'<div class="paused-label" id="paused" hidden>Paused</div>', html)
    match.post({"type": "clock", "action": "pause"}, role="scorer")
    for lang, word in (("en", "Paused"), ("zh", "暂停")):
        html = text(get(client, f"/matches/{match.id}/scoreboard", lang))
        assert f'<div class="paused-label" id="paused" >{word}</div>' in html
        assert '<div class="clock paused" id="clock">' in html


def test_screens_set_english_punctuation_in_a_latin_font_before_the_cjk_one(client: FlaskClient) -> None:
    """A curly apostrophe (Officials’) in the CJK font is a full-width glyph: a Latin font must come first."""
    for sheet in ("site", "console", "scoreboard"):
        with client.get(f"/static/css/{sheet}.css") as r:
            css = text(r)
        stacks = re.findall(r"font(?:-family)?:[^;]*Noto Sans CJK SC[^;]*;", css)
        assert stacks, sheet
        for stack in stacks:
            assert stack.index("Liberation Sans") < stack.index("DejaVu Sans") < stack.index("Noto Sans CJK SC"), sheet


# ---------------------------------------------------------------------------------------------
# The venue's competition screen


def test_D166_the_venue_screen_has_a_latest_results_slide_with_the_shootout(client: FlaskClient) -> None:
    from tests.test_competitions import START, Api

    api = Api(client)
    teams = [api.team(n) for n in ("Tsinghua 清华", "人大 Renmin", "Beida 北大", "Beihang 北航")]
    body = {"name": "Cup", "format": "round_robin", "teams": teams, "fields": [{"name": "Field 1"}], "starts_at": START}
    comp = api.competition(body)["id"]
    first, second = api.view(comp)["fixtures"][:2]
    # Nothing finished: the slide is left out of the rotation.
    html = text(get(client, f"/competitions/{comp}/screen", "en"))
    assert re.search(r'<section class="panel" data-panel="results" data-empty="1"', html)
    api.play(api.match(comp, first["id"]), goals=["home"])
    api.play(api.match(comp, second["id"]), goals=["home"], second_half_goals=["away"], shootout_winner="away")
    html = text(get(client, f"/competitions/{comp}/screen", "en"))
    panels = re.findall(r'data-panel="(\w+)"( data-empty)?', html)
    assert [p for p, _ in panels][:2] == ["live", "results"], "the results come right after the live matches"
    assert ("results", "") in panels
    slide = html[html.index('data-panel="results"') : html.index('data-panel="standings"')]
    assert "Latest results" in slide
    rows = re.findall(r'<tr data-fixture="([^"]+)"', slide)
    assert rows == [second["id"], first["id"]], "the last played first"
    assert "1–0" in slide and "1–1" in slide and re.search(r"\(\d–\d\)", slide), "the shootout's score too"
    assert "最新赛果" in text(get(client, f"/competitions/{comp}/screen", "zh"))
