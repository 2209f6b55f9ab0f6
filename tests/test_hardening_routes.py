"""The newer routes attacked as the match routes were (issue 20, items 4, 5 and parts of 9).

Competitions, venue screens, images and logos, and every page: one CSV writer for every export, one
strict JSON reader and one text validator for every route, uploads decoded, bounded and re-encoded,
and no token left in an address. Each test is named after the decision it proves (docs/decisions.md).
"""

from __future__ import annotations

import base64
import csv
import io
import os
import re
import struct
import zlib
from typing import Any
from urllib.parse import quote

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image
from werkzeug.datastructures import FileStorage
from werkzeug.test import encode_multipart

from qalisball.match.schemas import is_blank
from qalisball.server.demo import demo_request

from .conftest import ADMIN, FakeClock, MatchDriver, auth
from .test_security import TRICKY_TEXT, _encode, json_values, mutated

# A cell a spreadsheet program would run (OWASP "CSV injection"); a number (-3) is no formula.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
NUMBER = re.compile(r"^-?\d+(\.\d+)?$")
DANGEROUS = ["=1+2 FC", "@SUM(A1) FC", "+cmd|' /C calc'!A0", "-2+3 FC", '=HYPERLINK("http://evil.example","x")']


def _post(client: FlaskClient, url: str, body: Any, expect: int = 201) -> Any:
    r = client.post(url, json=body, headers=auth(ADMIN))
    assert r.status_code == expect, (r.status_code, r.get_json())
    return r.get_json()


def _dangerous_world(client: FlaskClient, clock: FakeClock) -> dict[str, str]:
    """Every text a CSV export can carry set to a formula: teams, players, genders, clubs, officials,
    the competition, its fields, a match's venue. Returns the route parameters that name them."""
    teams = []
    for i, side in enumerate(("home", "away")):
        players = [
            {"number": n, "name": DANGEROUS[(n + i) % len(DANGEROUS)] + f" {n}", "gender": DANGEROUS[n % len(DANGEROUS)][:20]}
            for n in range(1, 9)
        ]
        body = {"name": DANGEROUS[i] + f" {side}", "short": "=S", "club": "@club", "players": players}
        teams.append(_post(client, "/api/teams", body)["id"])
    _post(client, "/api/teams", {"name": "-lonely FC"})  # a team without players: one line of its own
    _post(client, "/api/officials", {"name": "=official", "club": "+club"})
    comp = _post(
        client,
        "/api/competitions",
        {"name": "=Cup", "format": "round_robin", "teams": teams, "fields": [{"name": "@Field"}]},
    )
    fixture = comp["fixtures"][0]
    starting = {"starting": [1, 2, 3, 4, 5, 6]}
    made = _post(client, f"/api/competitions/{comp['id']}/fixtures/{fixture['id']}/match", {"home": starting, "away": starting})
    tokens = made["tokens"]
    for event in (
        {"type": "coin_toss", "kickoff": "home", "home_end": "x0"},
        {"type": "period_start"},
        {"type": "restart_taken", "team": "home", "player": 1},
        {"type": "goal", "team": "home", "player": 1},
    ):
        r = client.post(f"/api/matches/{made['id']}/events", json=event, headers=auth(tokens["referee"]))
        assert r.status_code == 201, r.get_json()
    body = demo_request()
    body["venue"] = "=venue"
    body["home"]["name"], body["away"]["name"] = "=home", "@away"
    for p, name in zip(body["home"]["players"], DANGEROUS * 3, strict=False):
        p["name"], p["gender"] = name, "-g"
    match = MatchDriver(client, clock, body)
    match.kickoff()
    # Issue 24: a training session's sheet names its trainees, as typed on a phone: one is a formula. The
    # session needs a finished match (every text above stays in it).
    match.take()
    match.post({"type": "goal", "team": "home", "player": 1})
    match.run_out_half()
    match.post({"type": "period_start"})
    match.take()
    match.run_out_half()
    session = _post(client, "/api/training", {"match": match.id})
    joined = _post(client, f"/api/training/{session['id']}/trainees", {"code": session["code"], "name": "=1+2 trainee"})
    answer = {
        "code": session["code"],
        "token": joined["token"],
        "trainee": "=1+2 trainee",
        "n": 1,
        "restart": {"type": "kickoff", "team": "away"},
    }
    assert client.post(f"/api/training/{session['id']}/answers", json=answer).status_code == 200
    return {"comp_id": comp["id"], "match_id": match.id, "session_id": session["id"], "code": session["code"]}


def _csv_routes(app: Flask) -> list[str]:
    return sorted(r.rule for r in app.url_map.iter_rules() if r.rule.endswith(".csv") and "GET" in (r.methods or ()))


def test_D150_every_csv_export_escapes_formulas_in_every_text_column(app: Flask, client: FlaskClient, clock: FakeClock) -> None:
    """D51 for the class: every CSV route of the app (found in its URL map, so a new one is covered at
    once), with a formula in every text column, writes no cell a spreadsheet would run."""
    params = _dangerous_world(client, clock)
    routes = _csv_routes(app)
    assert len(routes) >= 4, routes  # teams, standings, stats, the match report
    escaped: set[str] = set()
    for rule in routes:
        names = re.findall(r"<(?:\w+:)?(\w+)>", rule)
        assert set(names) <= set(params), f"{rule}: give this CSV route's parameters a value with a formula"
        url = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: params[m.group(1)], rule)
        if "session_id" in names:  # a training session's exports take its code, not a token (issue 24)
            url += f"?code={params['code']}"
        r = client.get(url)
        assert r.status_code == 200, (url, r.status_code)
        rows = list(csv.reader(io.StringIO(r.get_data(as_text=True).lstrip("\ufeff"))))
        assert len(rows) > 1, (url, rows)
        bad = [c for row in rows for c in row if c.startswith(FORMULA_START) and not NUMBER.match(c)]
        assert not bad, f"{url}: cells a spreadsheet would run: {bad[:5]}"
        escaped |= {c for row in rows for c in row if c.startswith("'")}
    # Not vacuous: the dangerous names are in the exports, with the leading quote.
    for text in ("'=1+2 FC home", "'@SUM(A1) FC away", "'-lonely FC", "'=home", "'=1+2 trainee"):
        assert text in escaped, (text, sorted(escaped)[:20])


# ---------------------------------------------------------------------------------------------
# D151: every route reads JSON through the strict reader and text through the one validator


def _png_declaring(width: int, height: int) -> bytes:
    """A tiny PNG whose header declares ``width``×``height`` (a decompression bomb's disguise)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b"")


def _gif_screen(width: int, height: int) -> bytes:
    """A one-pixel GIF whose logical screen is ``width``×``height``."""
    frame = b"\x2c" + struct.pack("<HHHH", 0, 0, 1, 1) + b"\x00" + b"\x02\x02\x44\x01\x00"
    return b"GIF89a" + struct.pack("<HH", width, height) + b"\x00\x00\x00" + frame + b"\x3b"


def _upload(client: FlaskClient, url: str, data: bytes, **fields: str) -> Any:
    boundary, body = encode_multipart({**fields, "file": FileStorage(io.BytesIO(data), "f.png")})
    return client.post(url, data=body, content_type=f"multipart/form-data; boundary={boundary}", headers=auth(ADMIN))


def _everything(app: Flask) -> tuple[Any, ...]:
    """Every row of every table: what any request could change."""
    db = app.extensions["qalisball"].store.db
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").fetchall()]
    return tuple((t, tuple(tuple(r) for r in db.execute(f'SELECT * FROM "{t}" ORDER BY 1').fetchall())) for t in tables)


def _refused_400(app: Flask, response: Any, before: tuple[Any, ...], status: int = 400) -> dict[str, Any]:
    body: dict[str, Any] = response.get_json()
    assert response.status_code == status, (response.status_code, body)
    assert body["error"] and isinstance(body["message"], str) and body["message"], body
    assert _everything(app) == before, "a refusal changed something"
    return body


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (_png_declaring(20_000, 20_000), "69-byte PNG declaring 20000x20000"),
        (_gif_screen(20_000, 20_000), "GIF screen of 20000x20000"),
        (_gif_screen(9_000, 9_000), "GIF screen of 9000x9000"),
    ],
    ids=["png-bomb", "gif-screen-bomb", "gif-screen-large"],
)
@pytest.mark.parametrize("url", ["/api/images?kind=slide", "/api/images?kind=logo", "/api/logos"])
def test_D151_an_image_declaring_a_huge_size_is_a_400_not_a_500(
    app: Flask, client: FlaskClient, data: bytes, why: str, url: str
) -> None:
    before = _everything(app)
    body = _refused_400(app, _upload(client, url, data, team="Renmin"), before)
    assert "file" in body["fields"], (why, body)


BAD_TEXT = {
    "nul": "Ren\x00min",
    "esc": "\x1b[2JRenmin",
    "rlo": "Ren\u202emin",
    "spaces": "   ",
    "ideographic-space": "\u3000",
    "zero-width": "\u200b",
}


@pytest.mark.parametrize("text", list(BAD_TEXT.values()), ids=list(BAD_TEXT))
def test_D151_team_official_logo_image_and_caption_names_refuse_control_characters_and_blanks(
    app: Flask, client: FlaskClient, text: str
) -> None:
    """D45 on the newer routes: the match routes' one validator, for every name they take."""
    team = _post(client, "/api/teams", {"name": "Kept"})["id"]
    image = _upload(client, "/api/images?kind=slide", _small_png(), title="Sponsor").get_json()["id"]
    before = _everything(app)
    attempts = [
        ("POST", "/api/teams", {"name": text}),
        ("POST", "/api/teams", {"name": "Fine", "players": [{"number": 1, "name": text}]}),
        ("PATCH", f"/api/teams/{team}", {"name": text}),
        ("POST", "/api/officials", {"name": text}),
        ("POST", "/api/competitions", {"name": text, "format": "round_robin", "teams": [team, team], "fields": [{}]}),
        ("PUT", "/api/screens/field-1", {"show": "slide", "image": image, "caption": "Sponsor " + text + " x"}),
    ]
    blank = is_blank(text)
    for method, url, body in attempts:
        if blank and url == "/api/screens/field-1":
            continue  # a caption may be empty, and one with a space inside is text
        r = client.open(url, method=method, json=body, headers=auth(ADMIN))
        _refused_400(app, r, before)
    _refused_400(app, _upload(client, "/api/logos", _small_png(), team=text), before)  # the form fields
    if not blank:  # an image's title may be left empty
        _refused_400(app, _upload(client, "/api/images?kind=slide", _small_png(1), title=text), before)
    r = client.post(
        "/api/teams/import",
        data=f"team,number,name\n{text},1,Li\nOK,2,{text}\n".encode(),
        content_type="text/csv",
        headers=auth(ADMIN),
    )
    _refused_400(app, r, before)


def _small_png(shade: int = 0) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (20, 10), (200, 40, shade)).save(buf, "PNG")
    return buf.getvalue()


@pytest.mark.parametrize(
    ("method", "url"),
    [("POST", "/api/teams"), ("PUT", "/api/screens/x"), ("POST", "/api/officials"), ("POST", "/api/competitions")],
)
@pytest.mark.parametrize(
    ("raw", "status"),
    [
        (b"[" * 100_000 + b"]" * 100_000, 413),  # 200 KB: over the 64 KB of every JSON body
        (b"[" * 30_000 + b"]" * 30_000, 400),  # within 64 KB, 30,000 deep
        (b'{"name": "\\ud800"}', 400),  # a lone surrogate
        (b'{"name": "A", "name": "B"}', 400),  # duplicate keys
        (b'\xef\xbb\xbf{"name": "A"}', 400),  # a byte-order mark
        (b'{"name": NaN}', 400),
    ],
    ids=["100k-deep", "30k-deep", "surrogate", "duplicate-keys", "bom", "nan"],
)
def test_D151_newer_routes_read_json_through_the_strict_reader(
    app: Flask, client: FlaskClient, method: str, url: str, raw: bytes, status: int
) -> None:
    before = _everything(app)
    r = client.open(url, method=method, data=raw, content_type="application/json", headers=auth(ADMIN))
    body = _refused_400(app, r, before, status)
    assert body["error"] == ("too_large" if status == 413 else "invalid"), body


@pytest.mark.parametrize("number", ["²", "①", "٣", "１", "1.0", "-1", "1000"])
def test_D151_a_csv_shirt_number_is_ascii_digits_only(app: Flask, client: FlaskClient, number: str) -> None:
    before = _everything(app)
    data = f"team,number,name\nRenmin,{number},Li Hua\n".encode()
    r = client.post("/api/teams/import", data=data, content_type="text/csv", headers=auth(ADMIN))
    body = _refused_400(app, r, before)
    assert "line 2" in body["fields"], body


# ---------------------------------------------------------------------------------------------
# D152: uploads are decoded, bounded and encoded again without their metadata


def _photo_with_gps(fmt: str = "JPEG") -> bytes:
    """A phone photo: EXIF with a GPS position and "rotate 90° to show" (orientation 6), a comment."""
    exif = Image.Exif()
    exif[0x8825] = {1: "N", 2: (39.0, 57.0, 30.0), 3: "E", 4: (116.0, 19.0, 12.0)}  # GPS IFD
    exif[0x0112] = 6
    buf = io.BytesIO()
    Image.new("RGB", (40, 20), "#c62828").save(buf, fmt, exif=exif.tobytes(), **({"comment": b"home"} if fmt == "JPEG" else {}))
    return buf.getvalue()


@pytest.mark.parametrize("fmt", ["JPEG", "WEBP", "PNG"])
def test_D152_an_uploaded_photo_loses_its_exif_gps_and_is_turned_upright(client: FlaskClient, fmt: str) -> None:
    data = _photo_with_gps(fmt)
    assert Image.open(io.BytesIO(data)).getexif().get_ifd(0x8825), "the upload carries a GPS position"
    r = _upload(client, "/api/images?kind=slide", data)
    assert r.status_code == 201, r.get_json()
    row = r.get_json()
    stored = client.get(row["url"]).get_data()
    im = Image.open(io.BytesIO(stored))
    assert im.format == fmt and not im.getexif() and "exif" not in im.info and "comment" not in im.info, im.info
    assert b"Exif" not in stored and b"home" not in stored
    assert im.size == (20, 40) and (row["width"], row["height"]) == (20, 40), "turned as its orientation said"
    assert row["bytes"] == len(stored)
    again = _upload(client, "/api/images?kind=slide", data).get_json()
    assert again["id"] == row["id"], "the same upload is the same image"


def test_D152_an_animated_gif_stays_animated_without_its_comment(client: FlaskClient) -> None:
    frames = [Image.new("RGB", (30, 20), c) for c in ("#c62828", "#1565c0", "#2e7d32")]
    buf = io.BytesIO()
    frames[0].save(buf, "GIF", save_all=True, append_images=frames[1:], duration=[100, 200, 300], loop=0, comment=b"at home")
    r = _upload(client, "/api/images?kind=logo", buf.getvalue())
    assert r.status_code == 201, r.get_json()
    stored = client.get(r.get_json()["url"]).get_data()
    im = Image.open(io.BytesIO(stored))
    assert im.n_frames == 3 and "comment" not in im.info and b"at home" not in stored


def test_D152_an_animation_of_too_many_pixels_is_refused_before_it_is_decoded(app: Flask, client: FlaskClient) -> None:
    frames = [Image.new("L", (4000, 4000), i) for i in range(5)]  # 80 million pixels: 320 MB decoded
    buf = io.BytesIO()
    frames[0].save(buf, "GIF", save_all=True, append_images=frames[1:])
    before = _everything(app)
    body = _refused_400(app, _upload(client, "/api/images?kind=slide", buf.getvalue()), before)
    assert "frames" in body["fields"]["file"][0], body


def _noise_png(width: int, height: int) -> bytes:
    """A PNG that does not compress: about 3 bytes a pixel."""
    buf = io.BytesIO()
    Image.frombytes("RGB", (width, height), os.urandom(width * height * 3)).save(buf, "PNG")
    return buf.getvalue()


def test_D152_a_slide_up_to_5_mb_is_accepted_without_kind_in_the_address(client: FlaskClient) -> None:
    """README: 5 MB for a slide. Read as a slide unless the address says logo; the form's kind still counts."""
    slide = _noise_png(600, 400)  # ~720 KB: over the app's 256 KB for other bodies
    assert len(slide) > 256 * 1024
    r = _upload(client, "/api/images", slide)
    assert r.status_code == 201 and r.get_json()["kind"] == "slide", (r.status_code, r.get_json())
    r = _upload(client, "/api/images", _noise_png(600, 401), kind="slide")
    assert r.status_code == 201, r.get_json()
    r = _upload(client, "/api/images", _noise_png(700, 600), kind="logo")  # ~1.26 MB
    assert r.status_code == 400 and "at most 1 MB" in r.get_json()["fields"]["file"][0], r.get_json()
    r = _upload(client, "/api/images", _small_png(), kind="poster")
    assert r.status_code == 400 and r.get_json()["fields"] == {"kind": ["kind is 'slide' or 'logo'"]}


# ---------------------------------------------------------------------------------------------
# D151: the fuzz test of every route of the URL map (the match routes' one is tests/test_security.py)

ROUTE_EXAMPLES = int(os.environ.get("QALISBALL_FUZZ_EXAMPLES", "1200"))


def _world(client: FlaskClient, clock: FakeClock) -> dict[str, Any]:
    """One of everything a route can name: a match under way, kept teams, an official, a competition with
    a protest, an image, a logo and a screen. Returns real values for every route parameter."""
    match = MatchDriver(client, clock)
    match.kickoff()
    teams = [_post(client, "/api/teams", {"name": n, "players": _roster(n)})["id"] for n in ("Renmin", "Tsinghua")]
    official = _post(client, "/api/officials", {"name": "Wang Li"})["id"]
    comp = _post(client, "/api/competitions", {"name": "Cup", "format": "round_robin", "teams": teams, "fields": [{}]})
    fixture = comp["fixtures"][0]["id"]
    protest = _post(client, f"/api/competitions/{comp['id']}/protests", {"fixture": fixture, "team": teams[0], "text": "x"})
    image = _upload(client, "/api/images?kind=slide", _small_png(7)).get_json()["id"]
    _upload(client, "/api/logos", _small_png(8), team="Renmin")
    put = client.put("/api/screens/field-1", json={"show": "slide", "image": image}, headers=auth(ADMIN))
    assert put.status_code == 201, put.get_json()
    return {
        "match": match,
        "teams": teams,
        "params": {
            "match_id": [match.id],
            "comp_id": [comp["id"]],
            "fid": [fixture],
            "pid": [protest["id"]],
            "team_id": teams,
            "image_id": [image],
            "name": ["field-1", "field-2"],
            "role": ["referee", "scorer", "organiser"],
            "language": ["zh", "en"],
            "filename": ["js/common.js", "css/console.css"],
        },
        "official": official,
    }


def _roster(team: str) -> list[dict[str, Any]]:
    return [{"number": n, "name": f"{team} {n}"} for n in range(1, 9)]


def _examples(world: dict[str, Any]) -> dict[str, Any]:
    """A valid body per endpoint, for the fuzzer to damage; an endpoint without one gets random JSON."""
    teams, starting = world["teams"], {"starting": [1, 2, 3, 4, 5, 6]}
    return {
        "api.create_match": demo_request(),
        "api.post_event": {"type": "note", "text": "a note", "about": 1},
        "competition_api.create_team": {"name": "Peking", "short": "PKU", "club": "PKU", "players": _roster("Peking")},
        "competition_api.patch_team": {"name": "Renmin U", "players": _roster("Renmin")},
        "competition_api.create_official": {"name": "Zhao Min", "club": "PKU"},
        "competition_api.create_competition": {"name": "Cup 2", "format": "knockout", "teams": teams, "fields": [{}]},
        "competition_api.patch_fixture": {"field": "Field 1"},
        "competition_api.put_officials": {"referee": world["official"]},
        "competition_api.create_fixture_match": {"home": starting, "away": starting},
        "competition_api.post_forfeit": {"team": teams[0], "reason": "did not come"},
        "competition_api.post_result": {"home": 1, "away": 0, "text": "played on paper"},
        "competition_api.post_protest": {"fixture": "x", "team": teams[0], "text": "a protest"},
        "competition_api.post_decision": {"upheld": False, "text": "rejected"},
        "competition_api.post_lots": {"teams": teams, "text": "drawn"},
        "screens.put_screen": {"show": "slide", "image": world["params"]["image_id"][0], "caption": "Sponsor"},
    }


BOUNDARY = "qalisball-fuzz"


def _multipart(fields: dict[str, str], file: bytes) -> bytes:
    """A multipart body made by hand: its text fields as the raw bytes a client may send (a lone surrogate too)."""
    parts = [
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n'.encode()
        + v.encode("utf-8", "surrogatepass")
        + b"\r\n"
        for k, v in fields.items()
    ]
    head = f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="f.png"\r\n'
    parts.append(head.encode() + b"Content-Type: image/png\r\n\r\n" + file + b"\r\n")
    return b"".join(parts) + f"--{BOUNDARY}--\r\n".encode()


@st.composite
def _route_request(draw: st.DrawFn, routes: list[tuple[str, str, str]], world: dict[str, Any]) -> dict[str, Any]:
    """One request to one route of the URL map: its parameters real or not, a credential, a damaged body."""
    rule, method, endpoint = draw(st.sampled_from(routes))

    def value(m: re.Match[str]) -> str:
        real = world["params"].get(m.group(1), ["x"])
        text = draw(st.sampled_from(real) if draw(st.integers(0, 9)) < 8 else st.text(max_size=12) | st.sampled_from(TRICKY_TEXT))
        return quote(text.encode("utf-8", "surrogatepass"), safe="/" if m.group(1) == "filename" else "") or "x"

    path = re.sub(r"<(?:\w+:)?(\w+)>", value, rule)
    match: MatchDriver = world["match"]
    # Mostly the organiser's token, so that bodies get past the door and reach the readers and schemas.
    token = draw(st.sampled_from([ADMIN] * 5 + [match.tokens["referee"], match.tokens["scorer"], None, "令牌", ADMIN + "x"]))
    query = draw(
        st.sampled_from(
            ["", "?lang=zh", "?kind=logo", "?kind=slide", "?team=Renmin", "?dry_run=1", "?token=" + quote(token or "")]
        )
    )
    headers = {"Authorization": "Bearer " + token.encode("utf-8").decode("latin-1")} if token else {}
    request: dict[str, Any] = {"rule": rule, "method": method, "path": path + query, "headers": headers}
    request.update(content_type=None, data=b"")
    if method == "GET" or method == "DELETE":
        return request
    how = draw(st.sampled_from(["json", "json", "json", "multipart", "csv", "form"]))
    if endpoint in ("screens.post_image", "screens.post_logo") and draw(st.booleans()):
        how = "multipart"
    if endpoint == "competition_api.import_teams" and draw(st.booleans()):
        how = "csv"
    if how == "multipart":
        data = draw(st.sampled_from([_small_png(9), _png_declaring(20_000, 20_000), _gif_screen(9_000, 9_000), b"", b"GIF89a"]))
        fields = {
            k: draw(st.sampled_from(TRICKY_TEXT) | st.text(max_size=10))
            for k in draw(st.sets(st.sampled_from(["team", "title", "kind"])))
        }
        request.update(data=_multipart(fields, data), content_type=f"multipart/form-data; boundary={BOUNDARY}")
    elif how == "csv":
        cells = draw(
            st.lists(st.sampled_from(["Renmin", "caset", "CaseT", "1", "²", "①", "", " ", *TRICKY_TEXT]), min_size=4, max_size=12)
        )
        lines = ["team,number,name,gender"] + [",".join(cells[i : i + 4]) for i in range(0, len(cells), 4)]
        raw = "\n".join(lines).encode("utf-8", "surrogatepass")
        request.update(
            data=draw(st.sampled_from([raw, b"\xef\xbb\xbf" + raw, raw.decode("utf-8", "replace").encode("gb18030", "replace")])),
            content_type="text/csv",
        )
    elif how == "form":
        form = {
            k: draw(st.sampled_from([ADMIN, "", "令牌", "referee", "/", "//evil.example", "x"]))
            for k in ("token", "role", "next", "csrf")
        }
        request.update(
            data="&".join(f"{k}={quote(v)}" for k, v in form.items()).encode(), content_type="application/x-www-form-urlencoded"
        )
    else:
        base = _examples(world).get(endpoint)
        body = draw(mutated(base) if base is not None and draw(st.integers(0, 3)) else json_values)
        data = _encode(draw, body) if draw(st.integers(0, 5)) else draw(st.sampled_from(HOSTILE_JSON))
        request.update(
            data=data, content_type=draw(st.sampled_from(["application/json", "application/json; charset=utf-8", "text/plain"]))
        )
    return request


# Bodies issue 14 and issue 20 found 500s with: nesting past the stack, a lone surrogate, a BOM, duplicate keys.
class _Deep(bytes):
    """30,000 nested arrays, shown short in a failing example (Hypothesis refuses a 60 kB repr)."""

    def __repr__(self) -> str:
        return "b'[' * 30_000 + b']' * 30_000"


HOSTILE_JSON = [
    _Deep(b"[" * 30_000 + b"]" * 30_000),
    b'{"name": "\\ud800", "text": "\\ud800", "caption": "\\ud800", "show": "blank"}',
    b'\xef\xbb\xbf{"name": "A"}',
    b'{"name": "A", "name": "B"}',
]


def test_D151_fuzz_every_route_of_the_url_map_never_answers_500_and_a_4xx_changes_nothing(
    app: Flask, client: FlaskClient, clock: FakeClock
) -> None:
    """Every route the app has (a new route is in the URL map, hence here, at once), every method it takes:
    real and made-up parameters, credentials, JSON, multipart, CSV and form bodies, damaged."""
    world = _world(client, clock)
    app.extensions["qalisball_throttle"].burst = 10**9  # wrong tokens are part of the fuzz (throttling: D50's test)
    routes = sorted(
        (r.rule, m, r.endpoint) for r in app.url_map.iter_rules() for m in sorted((r.methods or set()) - {"HEAD", "OPTIONS"})
    )
    hit: dict[tuple[str, str], set[int]] = {}

    def fuzz(route: tuple[str, str, str]) -> None:
        @settings(
            max_examples=max(4, ROUTE_EXAMPLES // len(routes)),
            deadline=None,
            derandomize="QALISBALL_FUZZ_EXAMPLES" not in os.environ,
            database=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        )
        @given(request=_route_request([route], world))
        def one(request: dict[str, Any]) -> None:
            before = _everything(app)
            kw = {"content_type": request["content_type"]} if request["content_type"] else {}
            with client.open(
                request["path"], method=request["method"], data=request["data"], headers=request["headers"], **kw
            ) as r:
                if r.mimetype != "text/event-stream":  # a feed's stream (D283) never ends: its status is what counts here
                    r.get_data()
            hit.setdefault((request["rule"], request["method"]), set()).add(r.status_code)
            assert r.status_code < 500, (r.status_code, request["method"], request["path"], r.get_data(as_text=True)[:300])
            if r.status_code >= 400:
                assert _everything(app) == before, (r.status_code, request["method"], request["path"])
                if request["path"].startswith("/api/"):
                    body = r.get_json()
                    assert body["error"] and body["message"], body

        one()

    for route in routes:  # each route its share of the examples: none left to chance
        fuzz(route)
    print("fuzz: status codes per route", {f"{m} {rule}": sorted(codes) for (rule, m), codes in sorted(hit.items())})
    missed = sorted({(rule, m) for rule, m, _ in routes} - set(hit))
    assert not missed, f"routes the fuzzer never reached: {missed}"


# ---------------------------------------------------------------------------------------------
# D153: the CSV import names teams as D72 compares them


def test_D153_csv_rows_naming_a_team_in_other_cases_are_one_team_under_its_first_spelling(
    app: Flask, client: FlaskClient
) -> None:
    data = b"team,number,name\nCaseT,1,Li\ncaset,2,Wang\n CASET ,3,Zhao\nOther,1,Chen\n"
    r = client.post("/api/teams/import", data=data, content_type="text/csv", headers=auth(ADMIN))
    assert r.status_code == 200, r.get_json()
    teams = {t["name"]: [p["number"] for p in t["players"]] for t in client.get("/api/teams").get_json()}
    assert teams == {"CaseT": [1, 2, 3], "Other": [1]}, teams
    # A kept team matched regardless of case (D72), and a number twice in one team under two spellings is a bad line.
    before = _everything(app)
    data = b"team,number,name\ncaseT,4,Sun\nCASET,4,Zhou\n"
    body = _refused_400(app, client.post("/api/teams/import", data=data, content_type="text/csv", headers=auth(ADMIN)), before)
    assert "line 3" in body["fields"], body
    r = client.post("/api/teams/import", data=b"team,number,name\ncaset,4,Sun\n", content_type="text/csv", headers=auth(ADMIN))
    assert [t["name"] for t in r.get_json()["teams"]] == ["CaseT"], r.get_json()
    assert len(client.get("/api/teams").get_json()) == 2


# ---------------------------------------------------------------------------------------------
# D154: every page takes ?token= out of its address


def test_D154_every_page_answers_a_token_in_its_address_with_a_redirect_without_it(
    app: Flask, client: FlaskClient, clock: FakeClock
) -> None:
    """Every page of the URL map (a new page is covered at once), with a role's token, the organiser's
    and a wrong one: a 303 to the same page without the token, and nothing on the page echoes it."""
    world = _world(client, clock)
    app.extensions["qalisball_throttle"].burst = 10**9  # the wrong tokens here are on purpose
    match: MatchDriver = world["match"]
    pages = sorted(
        r.rule
        for r in app.url_map.iter_rules()
        if "GET" in (r.methods or ()) and not r.rule.startswith(("/api/", "/static/")) and r.endpoint != "static"
    )
    assert len(pages) > 20, pages
    for rule in pages:
        url = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: world["params"][m.group(1)][0], rule)
        for token in (match.tokens["referee"], ADMIN, "wrong-token-" + "x" * 20):
            fresh = app.test_client()
            r = fresh.get(f"{url}?token={quote(token)}&lang=en")
            assert r.status_code == 303, (rule, r.status_code)
            location = r.headers["Location"]
            assert "token=" not in location and "lang=en" in location, (rule, location)
            # Refused (the page says so): a wrong token, or a role's token on a page not of its match.
            refused = token.startswith("wrong") or (token != ADMIN and "<match_id>" not in rule)
            assert location.endswith("signin=refused") == refused, (rule, location)
            with fresh.get(location) as page:
                assert token.encode() not in page.get_data(), (rule, "the token is on the page")


def test_D154_a_role_token_on_the_scoreboard_is_dropped_not_kept_nor_echoed_into_the_language_link(
    client: FlaskClient, match: MatchDriver
) -> None:
    token = match.tokens["referee"]
    r = client.get(f"/matches/{match.id}/scoreboard?token={token}&seconds=5")
    assert r.status_code == 303 and r.headers["Location"] == f"/matches/{match.id}/scoreboard?seconds=5"
    assert not [c for c in r.headers.getlist("Set-Cookie") if c.startswith("qb_")], "the scoreboard keeps no official's cookie"
    page = client.get(r.headers["Location"]).get_data(as_text=True)
    links = re.findall(r'href="(/lang/[^"]*)"', page)
    assert links and token not in page and not [link for link in links if "token" in link], links
    # url_for's own keywords in the address are no parameters of the page (they made a 500, or another scheme).
    for query in ("_external=1&_scheme=javascript&_anchor=x", "_method=POST"):
        for sent in (ADMIN, token, "wrong"):
            r = client.get(f"/matches/{match.id}/scoreboard?token={sent}&{query}&seconds=5")
            assert r.status_code == 303 and r.headers["Location"].startswith(f"/matches/{match.id}/scoreboard?seconds=5"), (
                r.headers
            )


# ---------------------------------------------------------------------------------------------
# D152: signatures decoded, bounded and encoded again


def _data_url(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode()


def _strokes(width: int, height: int, text: str = "") -> bytes:
    from PIL import PngImagePlugin

    info = PngImagePlugin.PngInfo()
    if text:
        info.add_text("Comment", text)
    im = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    im.paste((20, 20, 20, 255), (5, height // 2, width - 5, height // 2 + 3))
    buf = io.BytesIO()
    im.save(buf, "PNG", pnginfo=info)
    return buf.getvalue()


def test_D152_a_signature_is_decoded_bounded_and_stored_without_its_text_chunks(app: Flask, match: MatchDriver) -> None:
    match.kickoff()
    match.post({"type": "abandon", "reason": "storm"})
    before = _everything(app)
    for png, why in (
        (_png_declaring(9_000, 9_000), "a PNG declaring 9000x9000"),
        (_strokes(2_000, 100), "a real PNG 2000 px wide"),
        (_png_declaring(300, 100)[:40], "a PNG cut short"),
    ):
        body = match.post({"type": "sign", "as": "scorer", "name": "Li", "signature": _data_url(png)}, expect=400)
        assert "signature" in body["fields"] and _everything(app) == before, (why, body)
    drawn = _strokes(300, 100, text="GPS 39.9N 116.3E")
    match.post({"type": "sign", "as": "scorer", "name": "Li", "signature": _data_url(drawn)})
    report = match.client.get(f"/matches/{match.id}/report.json").get_json()
    image = next(s["image"] for s in report["sheet"]["signatures"] if s["as"] == "scorer")
    png = base64.b64decode(image.split(",", 1)[1])
    assert b"GPS" not in png and Image.open(io.BytesIO(png)).size == (300, 100), "the strokes, without their text"


def test_D152_a_stored_signature_declaring_a_huge_size_is_not_drawn_in_the_report() -> None:
    """A signature stored before D152 was only checked for the PNG magic: the report leaves out its drawing."""
    from qalisball.reports.render import _drawable_signatures, signature_fits

    huge, fine = _data_url(_png_declaring(9_000, 9_000)), _data_url(_strokes(300, 100))
    assert signature_fits(fine) and signature_fits(None) and not signature_fits(huge)
    assert not signature_fits("data:image/png;base64,!!!") and not signature_fits("data:image/gif;base64,R0lGOD")
    report = {"sheet": {"signatures": [{"as": "referee", "image": huge}, {"as": "scorer", "image": fine}]}}
    assert [s["image"] for s in _drawable_signatures(report)["sheet"]["signatures"]] == [None, fine]


# ---------------------------------------------------------------------------------------------
# D151: a correction's reason, when given, says something


@pytest.mark.parametrize("reason", [" ", "\u3000", "\u200b", " \n\t "[:2]], ids=["space", "ideographic", "zero-width", "line"])
def test_D151_a_blank_reason_for_void_amend_or_insert_is_a_400(app: Flask, match: MatchDriver, reason: str) -> None:
    match.kickoff()
    match.take()
    goal = match.post({"type": "goal", "team": "home", "player": 3})["seq"]
    before = _everything(app)
    for body in (
        {"type": "void", "target": goal, "reason": reason},
        {"type": "amend", "target": goal, "event": {"type": "goal", "team": "home", "player": 4}, "reason": reason},
        {"type": "insert", "after": goal - 1, "event": {"type": "shot_missed", "team": "home", "player": 2}, "reason": reason},
    ):
        answer = match.post(body, expect=400)
        assert list(answer["fields"]) == ["reason"] and _everything(app) == before, (body["type"], answer)
    # No reason at all (absent or empty, as the console's Undo and corrections send it) is still a correction.
    match.post({"type": "amend", "target": goal, "event": {"type": "goal", "team": "home", "player": 4}, "reason": ""})
    match.post({"type": "void", "target": goal + 1})


def test_D151_a_note_about_an_event_that_is_not_in_the_log_is_a_404(app: Flask, match: MatchDriver) -> None:
    """API.md's 404 "no such match or event", as for a void of a seq that does not exist."""
    match.kickoff()
    before = _everything(app)
    for about in (999, match.state()["seq"] + 1):
        answer = match.post({"type": "note", "text": "the ball was wet", "about": about}, expect=404)
        assert answer["error"] == "not_found" and str(about) in answer["message"] and _everything(app) == before, answer
    match.post({"type": "note", "text": "the ball was wet", "about": 1})
    match.post({"type": "note", "text": "no event named"})
