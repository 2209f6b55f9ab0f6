"""Calendars of fixtures (issue 30 item 4, API.md "The feed"): parsed with ``icalendar`` before and after a move."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import icalendar
import pytest
from flask.testing import FlaskClient

from tests.conftest import FakeClock
from tests.test_competitions import Api, _league, _six


@pytest.fixture
def api(client: FlaskClient) -> Api:
    return Api(client)


def _events(client: FlaskClient, url: str) -> dict[str, Any]:
    r = client.get(url)
    assert r.status_code == 200 and r.mimetype == "text/calendar"
    cal = icalendar.Calendar.from_ical(r.data)
    return {str(e["UID"]): e for e in cal.walk("VEVENT")}


def test_issue30_item4_D280_fixtures_ics_a_stable_uid_utc_times_and_a_sequence_that_grows_when_a_fixture_moves(
    api: Api, client: FlaskClient, clock: FakeClock
) -> None:
    ids, by_name = _six(api)
    comp = _league(api, ids)["id"]
    view = api.view(comp)
    first = view["fixtures"][0]
    url = f"/competitions/{comp}/fixtures.ics"
    before = _events(client, url)
    assert len(before) == len(view["fixtures"]) == 15
    uid = f"{comp}-{first['id']}@qalisball"
    ev = before[uid]
    start = ev.decoded("DTSTART")
    assert start.tzinfo is not None and start.utcoffset() == timedelta(0)  # UTC
    assert start == datetime(2027, 1, 15, 1, 0, tzinfo=UTC)  # 09:00 +08:00
    assert ev.decoded("DTEND") - start == timedelta(minutes=int(view["config"]["slot_minutes"]))
    names = {v: k for k, v in by_name.items()}
    assert str(ev["SUMMARY"]) == f"{names[first['home']]} – {names[first['away']]}"
    assert str(ev["LOCATION"]) == "Field 1"
    assert str(ev["URL"]).endswith(f"/competitions/{comp}")
    assert int(ev["SEQUENCE"]) == 0
    # Moved: same UID, new time and field, SEQUENCE 1; moved again: 2; the others unchanged.
    move = f"/api/competitions/{comp}/fixtures/{first['id']}"
    api.call("PATCH", move, {"starts_at": "2027-01-15T19:40", "field": "Field 2"})
    after = _events(client, url)
    assert set(after) == set(before)
    assert after[uid].decoded("DTSTART") == datetime(2027, 1, 15, 11, 40, tzinfo=UTC)
    assert (str(after[uid]["LOCATION"]), int(after[uid]["SEQUENCE"])) == ("Field 2", 1)
    api.call("PATCH", move, {"starts_at": "2027-01-15T21:00"})
    again = _events(client, url)
    assert int(again[uid]["SEQUENCE"]) == 2
    assert all(int(e["SEQUENCE"]) == 0 for u, e in again.items() if u != uid)
    # Once its match is made, the URL is the match's public page.
    made = api.match(comp, first["id"])
    assert str(_events(client, url)[uid]["URL"]).endswith(f"/matches/{made['id']}")
    # One team's fixtures: five in a round robin of six.
    team = first["home"]
    mine = _events(client, f"{url}?team={team}")
    assert len(mine) == 5 and uid in mine and all(names[team] in str(e["SUMMARY"]) for e in mine.values())
    r = client.get(f"{url}?team=nobody")
    assert r.status_code == 400 and r.get_json()["error"] == "invalid" and "team" in r.get_json()["fields"]
    assert client.get("/competitions/nothing/fixtures.ics").status_code == 404


def test_issue30_item4_D280_the_sequence_survives_a_restart_and_unknown_teams_read_as_the_stage(
    api: Api, client: FlaskClient, tmp_path: Any, clock: FakeClock
) -> None:
    from qalisball import create_app
    from tests.conftest import ADMIN

    ids, _ = _six(api)
    ko = api.competition(
        {
            "name": "Cup",
            "format": "knockout",
            "teams": ids[:4],
            "fields": [{"name": "Field 1", "length": 40, "width": 25}],
            "starts_at": "2027-01-15T09:00:00+08:00",
        }
    )["id"]
    fixtures = api.view(ko)["fixtures"]
    final = fixtures[-1]
    assert final["home"] is None
    api.call("PATCH", f"/api/competitions/{ko}/fixtures/{final['id']}", {"starts_at": "2027-01-16T09:00"})
    url = f"/competitions/{ko}/fixtures.ics"
    uid = f"{ko}-{final['id']}@qalisball"
    ev = _events(client, url)[uid]
    assert str(ev["SUMMARY"]) in ("Final", "决赛") and int(ev["SEQUENCE"]) == 1
    client.application.extensions["qalisball"].store.close()
    again = create_app({"TESTING": True, "DATABASE": str(tmp_path / "test.db"), "ADMIN_TOKEN": ADMIN, "CLOCK": clock})
    try:
        assert int(_events(again.test_client(), url)[uid]["SEQUENCE"]) == 1
    finally:
        again.extensions["qalisball"].store.close()


def test_issue30_item4_the_public_page_links_the_calendar_and_each_teams_in_both_languages(api: Api, client: FlaskClient) -> None:
    ids, _ = _six(api)
    comp = _league(api, ids)["id"]
    en = client.get(f"/competitions/{comp}?lang=en").get_data(as_text=True)
    zh = client.get(f"/competitions/{comp}?lang=zh").get_data(as_text=True)
    assert "Add to calendar" in en and "添加到日历" in zh and "某队的赛程加入日历" in zh
    assert f'href="/competitions/{comp}/fixtures.ics"' in en
    for t in ids:
        assert f'href="/competitions/{comp}/fixtures.ics?team={t}"' in en
