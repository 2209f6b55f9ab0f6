"""The league on loopback (issue 31, SPEC §12): two real servers (``python app.py``, gevent), a central and a venue
whose sender (QALISBALL_UPSTREAM) sends everything it stores. No timing is asserted: every wait polls a real
condition with a generous deadline (tests/waiting.py)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
import socketio

from qalisball.server.demo import demo_request
from tests.ports import free_port
from tests.waiting import wait_until

pytestmark = pytest.mark.league

ROOT = Path(__file__).resolve().parent.parent
ADMIN = "league-test-organiser-token-0123456789"


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class Server:
    """``python app.py`` on a port of its own (kept across restarts) and a database file."""

    def __init__(self, name: str, tmp: Path, **env: str) -> None:
        self.name, self.db, self.log = name, tmp / f"{name}.db", tmp / f"{name}.log"
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.env = env
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Server:
        env = {
            **os.environ,
            "QALISBALL_ASYNC_MODE": "gevent",
            "HOST": "127.0.0.1",
            "PORT": str(self.port),
            "QALISBALL_DB": str(self.db),
            "QALISBALL_ADMIN_TOKEN": ADMIN,
            "QALISBALL_UPSTREAM_RETRY_MAX": "0.5",
            **self.env,
        }
        env.pop("QALISBALL_MESSAGE_QUEUE", None)
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen([sys.executable, "app.py"], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        wait_until(self._up, f"the {self.name} answers", timeout=90, every=0.1)
        assert self.proc.poll() is None, self.log.read_text()[-3000:]
        return self

    def _up(self) -> bool:
        assert self.proc is not None
        if self.proc.poll() is not None:
            return True
        try:
            return requests.get(f"{self.base}/api/matches", timeout=2).status_code == 200
        except requests.ConnectionError:
            return False

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.proc is None:
            return
        self.proc.send_signal(sig)
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
        self.proc = None

    def get(self, path: str, token: str | None = None) -> Any:
        r = requests.get(f"{self.base}{path}", headers=auth(token) if token else {}, timeout=10)
        assert r.status_code == 200, (path, r.status_code, r.text)
        return r.json()


class Referee:
    """One match at the venue, officiated through its API."""

    def __init__(self, venue: Server) -> None:
        self.venue = venue
        r = requests.post(f"{venue.base}/api/matches", json=demo_request(), headers=auth(ADMIN), timeout=10)
        assert r.status_code == 201, r.text
        self.id, self.tokens = r.json()["id"], r.json()["tokens"]

    def post(self, event: dict[str, Any], role: str = "referee") -> dict[str, Any]:
        r = requests.post(
            f"{self.venue.base}/api/matches/{self.id}/events", json=event, headers=auth(self.tokens[role]), timeout=10
        )
        assert r.status_code == 201, r.text
        return dict(r.json()["state"])

    def start(self) -> None:
        self.post({"type": "coin_toss", "kickoff": "home", "home_end": "x0"})
        self.post({"type": "period_start"})

    def calls(self, n: int) -> None:
        """``n`` calls: the pending restart taken, then the clock paused and resumed in turn (each a log entry)."""
        for _ in range(n):
            state = requests.get(f"{self.venue.base}/api/matches/{self.id}", timeout=10).json()
            if state["restart"] is not None:
                team = state["restart"]["team"]
                self.post({"type": "restart_taken", "team": team, "player": state["teams"][team]["on_field"][0]})
            else:
                paused = self.events()[-1].get("action") == "pause"
                self.post({"type": "clock", "action": "resume" if paused else "pause"}, role="scorer")

    def events(self) -> list[dict[str, Any]]:
        return list(self.venue.get(f"/api/matches/{self.id}/events"))


@pytest.fixture
def league(tmp_path: Path) -> Iterator[tuple[Server, Server, str]]:
    central = Server("central", tmp_path).start()
    r = requests.post(f"{central.base}/api/league/venues", json={"name": "North field"}, headers=auth(ADMIN), timeout=10)
    assert r.status_code == 201, r.text
    venue_id, key = r.json()["id"], r.json()["key"]
    venue = Server("venue", tmp_path, QALISBALL_UPSTREAM=central.base, QALISBALL_UPSTREAM_KEY=key).start()
    try:
        yield central, venue, venue_id
    finally:
        venue.stop()
        central.stop()


def arrived(central: Server, ref: Referee) -> list[dict[str, Any]] | None:
    r = requests.get(f"{central.base}/api/matches/{ref.id}/events", timeout=10)
    return r.json() if r.status_code == 200 else None


def same_at_central(central: Server, ref: Referee) -> bool:
    return arrived(central, ref) == ref.events()


def upstream(venue: Server) -> dict[str, Any]:
    return dict(venue.get("/api/league/upstream", ADMIN))


def test_issue31_L1_L2_D372_a_venue_match_reaches_the_central_equal_and_its_spectators_follow_live(
    league: tuple[Server, Server, str],
) -> None:
    """L1, L2 (D370, D372): the central's copy equals the venue's entry for entry, rulings included; spectators at
    the central (Socket.IO) get every state as the referee logs at the venue; writes at the central are 403."""
    central, venue, venue_id = league
    ref = Referee(venue)
    ref.start()
    wait_until(lambda: same_at_central(central, ref), "the match at the central", timeout=60)
    seen: list[int] = []
    joined = threading.Event()
    sio = socketio.Client(reconnection=False)
    sio.on("state", lambda s: (seen.append(int(s["seq"])), joined.set()))
    sio.connect(central.base, transports=["websocket"], wait_timeout=20)
    try:
        sio.emit("join", {"match": ref.id})
        assert joined.wait(20), "no state on joining at the central"
        ref.calls(6)
        last = ref.events()[-1]["seq"]
        wait_until(lambda: seen and seen[-1] == last, "the central's spectators at the last call", timeout=60)
        assert sorted(set(seen)) == list(range(seen[0], last + 1)), seen  # every call, in order
    finally:
        sio.disconnect()
    assert same_at_central(central, ref)
    listed = next(m for m in central.get("/api/matches") if m["id"] == ref.id)
    assert listed["venue"] == venue_id
    r = requests.post(f"{central.base}/api/matches/{ref.id}/events", json={"type": "period_end"}, headers=auth(ADMIN))
    assert r.status_code == 403 and r.json()["error"] == "forbidden"
    wait_until(lambda: upstream(venue)["pending"] == 0, "nothing pending at the venue")
    status = upstream(venue)
    assert status["connected"] is True and status["last_error"] is None and status["upstream"] == central.base
    venues = central.get("/api/league/venues", ADMIN)
    copies = [m["id"] for m in central.get("/api/matches") if m["venue"] == venue_id]  # the venue's demo matches too
    assert ref.id in copies and venues[0]["matches"] == len(copies)
    assert venues[0]["behind_s"] is not None and venues[0]["last_seen"]


def test_issue31_D372_the_central_down_for_20_calls_then_back(league: tuple[Server, Server, str]) -> None:
    """D372: while the central is down the venue logs 20 calls (pending grows, last_error says why); once it is
    back everything arrives, in order, and pending returns to 0."""
    central, venue, _ = league
    ref = Referee(venue)
    ref.start()
    wait_until(lambda: same_at_central(central, ref), "the match at the central", timeout=60)
    central.stop()
    ref.calls(20)
    wait_until(lambda: upstream(venue)["pending"] >= 20, "20 calls pending at the venue")
    down = wait_until(lambda: (s := upstream(venue))["connected"] is False and s, "the venue sees the central down")
    assert "cannot be reached" in down["last_error"]
    central.start()
    wait_until(lambda: upstream(venue)["pending"] == 0, "the calls sent once the central is back", timeout=60)
    assert same_at_central(central, ref)
    seqs = [e["seq"] for e in ref.events()]
    assert seqs == list(range(1, 23))


def test_issue31_D372_a_venue_restarted_mid_match_resumes(league: tuple[Server, Server, str]) -> None:
    """D372: the venue killed (SIGKILL) mid-match and started again sends on from the central's acknowledgement."""
    central, venue, _ = league
    ref = Referee(venue)
    ref.start()
    ref.calls(3)
    wait_until(lambda: same_at_central(central, ref), "the first calls at the central", timeout=60)
    venue.stop(signal.SIGKILL)
    venue.start()
    ref.calls(4)
    wait_until(lambda: same_at_central(central, ref), "the calls after the restart at the central", timeout=60)
    assert upstream(venue)["last_ack"] is not None


def test_issue31_L3_D371_a_fork_from_an_older_copy_is_refused_and_the_central_stays_sound(
    league: tuple[Server, Server, str], tmp_path: Path
) -> None:
    """L3 (D371): the venue's database restored from an older copy, then new calls: the central refuses them,
    keeps what it had, the venue says so in last_error, and ``python -m qalisball verify`` at the central is sound."""
    central, venue, _ = league
    ref = Referee(venue)
    ref.start()
    wait_until(lambda: same_at_central(central, ref), "the match at the central", timeout=60)
    venue.stop()
    old = tmp_path / "old"
    old.mkdir()
    for f in venue.db.parent.glob("venue.db*"):
        shutil.copy2(f, old / f.name)
    venue.start()
    ref.calls(4)
    wait_until(lambda: same_at_central(central, ref), "the calls after the copy at the central", timeout=60)
    held = arrived(central, ref)
    venue.stop()
    for f in venue.db.parent.glob("venue.db*"):
        f.unlink()
    for f in old.glob("venue.db*"):
        shutil.copy2(f, venue.db.parent / f.name)
    venue.start()
    ref.calls(6)  # new calls on the older record: a fork
    refused = wait_until(lambda: (s := upstream(venue))["last_error"] and "fork" in s["last_error"] and s, "the fork said")
    assert refused["pending"] > 0
    assert arrived(central, ref) == held, "the central changed what it held"
    central.stop()
    out = subprocess.run(
        [sys.executable, "-m", "qalisball", "verify"],
        cwd=ROOT,
        env={**os.environ, "QALISBALL_DB": str(central.db)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    central.start()  # the fixture stops it


def test_issue31_L4_D377_a_league_fixture_played_at_a_venue_counts_in_the_centrals_standings(tmp_path: Path) -> None:
    """L4 (D375–D377): a fixture given to a venue at the central is fetched by the venue's sender, its match made and
    played at the venue, and once it arrives the fixture is finished at the central and counts in its standings."""
    from tests.competition_play import play, roster

    central = Server("central", tmp_path).start()
    venue = None
    try:
        r = requests.post(f"{central.base}/api/league/venues", json={"name": "North field"}, headers=auth(ADMIN), timeout=10)
        venue_id, key = r.json()["id"], r.json()["key"]
        teams = []
        for name in ("North", "South", "East", "West"):
            body = {"name": name, "players": roster(name)}
            teams.append(requests.post(f"{central.base}/api/teams", json=body, headers=auth(ADMIN), timeout=10).json()["id"])
        comp_body = {
            "name": "City League",
            "format": "round_robin",
            "teams": teams,
            "fields": [{"name": "Field 1", "length": 40, "width": 25}],
            "starts_at": "2027-01-15T09:00:00+08:00",
        }
        comp = requests.post(f"{central.base}/api/competitions", json=comp_body, headers=auth(ADMIN), timeout=10).json()["id"]
        fixture = central.get(f"/api/competitions/{comp}")["fixtures"][0]
        url = f"{central.base}/api/competitions/{comp}/fixtures/{fixture['id']}/venue"
        assert requests.put(url, json={"venue": venue_id}, headers=auth(ADMIN), timeout=10).status_code == 200
        venue = Server(
            "venue", tmp_path, QALISBALL_UPSTREAM=central.base, QALISBALL_UPSTREAM_KEY=key, QALISBALL_UPSTREAM_FETCH_EVERY="0.5"
        ).start()
        [x] = wait_until(lambda: venue.get("/api/league/fixtures", ADMIN), "the fixture fetched by the venue", timeout=60)
        six = {"starting": [1, 2, 3, 4, 5, 6]}
        r = requests.post(
            f"{venue.base}/api/league/fixtures/{x['id']}/match", json={"home": six, "away": six}, headers=auth(ADMIN), timeout=10
        )
        assert r.status_code == 201, r.text
        made = r.json()
        base = venue.base

        def post(token: str, event: dict[str, Any]) -> dict[str, Any]:
            answer = requests.post(f"{base}/api/matches/{made['id']}/events", json=event, headers=auth(token), timeout=10)
            assert answer.status_code == 201, answer.text
            return dict(answer.json())

        play(post, lambda: venue.get(f"/api/matches/{made['id']}"), made["tokens"], goals=["away"])

        def counted() -> bool:
            f = central.get(f"/api/competitions/{comp}")["fixtures"][0]
            return f["status"] == "finished" and f["match"] == made["id"]

        wait_until(counted, "the fixture finished at the central", timeout=60)
        table = {row["team"]: row for row in central.get(f"/api/competitions/{comp}/standings")["all"]}
        assert table[fixture["away"]]["points"] == 3 and table[fixture["home"]]["played"] == 1, table
        wait_until(lambda: venue.get("/api/league/fixtures", ADMIN)[0]["claim"] == "accepted", "the claim accepted")
    finally:
        if venue is not None:
            venue.stop()
        central.stop()


def test_issue31_L1_D379_a_venues_own_competition_is_followed_live_at_the_central(
    league: tuple[Server, Server, str],
) -> None:
    """L1 (D379): the venue's own competition (its demo cup, made at the venue) reaches the central with its journal
    messages: listed there with its ``venue``, equal to the venue's view, followed live in the central's Socket.IO
    room as the venue's organiser changes it, and read-only (403) at the central."""
    central, venue, venue_id = league
    [comp] = [c["id"] for c in venue.get("/api/competitions")]

    def listed() -> dict[str, Any] | None:
        return next((c for c in central.get("/api/competitions") if c["id"] == comp), None)

    here = wait_until(listed, "the venue's competition at the central", timeout=60)
    assert here["venue"] == venue_id
    wait_until(lambda: upstream(venue)["pending"] == 0, "nothing pending at the venue")
    view = venue.get(f"/api/competitions/{comp}")
    assert untimed(central.get(f"/api/competitions/{comp}")) == untimed(view)  # but each server's clock
    fixture = view["fixtures"][0]
    seen: list[dict[str, Any]] = []
    joined = threading.Event()
    sio = socketio.Client(reconnection=False)
    sio.on("competition", lambda v: (seen.append(v), joined.set()))
    sio.connect(central.base, transports=["websocket"], wait_timeout=20)
    try:
        sio.emit("join_competition", {"competition": comp})
        assert joined.wait(20), "no competition view on joining at the central"
        protest = {"fixture": fixture["id"], "team": fixture["home"], "text": "filed at the venue"}
        r = requests.post(f"{venue.base}/api/competitions/{comp}/protests", json=protest, headers=auth(ADMIN), timeout=10)
        assert r.status_code == 201, r.text
        wait_until(
            lambda: any(p["text"] == "filed at the venue" for v in seen for p in v["protests"]),
            "the venue's protest in the central's room",
            timeout=60,
        )
    finally:
        sio.disconnect()
    assert central.get(f"/api/competitions/{comp}")["protests"] == venue.get(f"/api/competitions/{comp}")["protests"]
    r = requests.post(f"{central.base}/api/competitions/{comp}/protests", json=protest, headers=auth(ADMIN), timeout=10)
    assert r.status_code == 403 and r.json()["error"] == "forbidden"


def untimed(view: dict[str, Any]) -> dict[str, Any]:
    """A competition's view without its and each fixture's ``server_time_ms`` (each server's own clock)."""
    fixtures = [
        {**f, "live": f["live"] and {k: v for k, v in f["live"].items() if k != "server_time_ms"}} for f in view["fixtures"]
    ]
    return {**view, "fixtures": fixtures, "server_time_ms": None}
