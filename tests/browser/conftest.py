"""End-to-end fixtures: the real server (app.py, gevent) in a subprocess, Debian's Chromium via Playwright.

The server runs on a free port with its own database and organiser token; each test opens fresh browser
contexts (a context is one device: its own cookies, localStorage and network). Screenshots go to
tests/artifacts/ (git-ignored).
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import socketserver
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import requests
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

from tests.ports import free_port
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"
ADMIN = "browser-organiser-token-0123"  # at least 24 characters (D48)
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
TABLET = {"width": 1280, "height": 800}  # a 10-inch tablet, landscape
SCREEN = {"width": 1920, "height": 1080}  # a projector
PHONE = {"width": 390, "height": 844}


@dataclass
class Server:
    base: str
    proc: subprocess.Popen[bytes]
    log: Path
    http: requests.Session = field(default_factory=requests.Session)

    def create_match(self, body: dict[str, Any]) -> dict[str, Any]:
        r = self.http.post(f"{self.base}/api/matches", json=body, headers={"Authorization": f"Bearer {ADMIN}"}, timeout=10)
        assert r.status_code == 201, r.text
        data: dict[str, Any] = r.json()
        return data

    def post(self, match_id: str, token: str, event: dict[str, Any], expect: int = 201) -> dict[str, Any]:
        r = self.http.post(
            f"{self.base}/api/matches/{match_id}/events", json=event, headers={"Authorization": f"Bearer {token}"}, timeout=10
        )
        assert r.status_code == expect, r.text
        data: dict[str, Any] = r.json()
        return data

    def state(self, match_id: str) -> dict[str, Any]:
        data: dict[str, Any] = self.http.get(f"{self.base}/api/matches/{match_id}", timeout=10).json()
        return data

    def events(self, match_id: str) -> list[dict[str, Any]]:
        data: list[dict[str, Any]] = self.http.get(f"{self.base}/api/matches/{match_id}/events", timeout=10).json()
        return data

    def last_event(self, match_id: str, event_type: str, timeout: float = 15) -> dict[str, Any]:
        """The last logged event once it is of ``event_type``: a console may show a call before the server has it."""

        def last_of_type() -> dict[str, Any] | None:
            last = self.events(match_id)[-1]
            return last if last["type"] == event_type else None

        with contextlib.suppress(AssertionError):
            return wait_until(last_of_type, f"a {event_type} logged last", timeout, every=0.1)
        return self.events(match_id)[-1]  # the caller's assert names what it is instead


def start_server(tmp: Path, **env_changes: str) -> Server:
    """app.py (gevent) on a free port (or ``PORT=``) with its own database in ``tmp``; returns once it answers."""
    port = int(env_changes.pop("PORT", "0")) or free_port()
    env = {
        **os.environ,
        "QALISBALL_ASYNC_MODE": "gevent",
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "QALISBALL_DB": str(tmp / "live.db"),
        "QALISBALL_ADMIN_TOKEN": ADMIN,
        "PYTHONUNBUFFERED": "1",
        # Engine.IO's own ping cycle (25 + 20 s), not the server's 10 + 10 s (D52): pages whose time a test
        # moves on by 30 s with Playwright's fake clock would otherwise give up on a server that is there.
        "QALISBALL_PING_INTERVAL": "25",
        "QALISBALL_PING_TIMEOUT": "20",
        **env_changes,
    }
    log = tmp / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, str(ROOT / "app.py")], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    srv = Server(base, proc, log)

    def answers_or_died() -> bool:
        try:
            return proc.poll() is not None or srv.http.get(base + "/api/matches", timeout=1).status_code == 200
        except requests.ConnectionError:
            return False

    with contextlib.suppress(AssertionError):
        wait_until(answers_or_died, "the server answers", timeout=120, every=0.1)  # a loaded CI machine starts slowly
    if proc.poll() is not None or not answers_or_died():
        proc.kill()
        proc.wait()
        raise RuntimeError("the server did not start:\n" + log.read_text(errors="replace"))
    return srv


def stop_server(srv: Server) -> None:
    srv.http.close()
    srv.proc.terminate()
    try:
        srv.proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        srv.proc.kill()
        srv.proc.wait()


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = start_server(tmp_path_factory.mktemp("server"))
    yield srv
    stop_server(srv)


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


class Devices:
    """Browser contexts opened by a test, each one device; closed at the end, JS errors collected."""

    def __init__(self, browser: Browser, base: str) -> None:
        self.browser, self.base = browser, base
        self.contexts: list[BrowserContext] = []
        self.errors: list[str] = []

    def open(self, path: str, *, viewport: dict[str, int] = TABLET, locale: str = "en-GB", **kw: Any) -> Page:
        ctx = self.browser.new_context(viewport=viewport, locale=locale, base_url=self.base, **kw)
        self.contexts.append(ctx)
        page = ctx.new_page()
        page.on("pageerror", lambda exc: self.errors.append(f"{path}: {exc}"))
        page.goto(path)
        return page

    def close(self) -> None:
        for ctx in self.contexts:
            ctx.close()


@pytest.fixture
def devices(browser: Browser, server: Server) -> Iterator[Devices]:
    d = Devices(browser, server.base)
    yield d
    d.close()
    assert not d.errors, d.errors


def shot(page: Page, name: str) -> None:
    """Keep a screenshot of this screen as a test artefact."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=False)


@pytest.fixture
def other_site(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """Another origin on this machine (another port): a static web server of ``tmp_path``.

    Served for real: Chromium keeps pages it does not know as local (Playwright's fulfilled routes)
    from framing local addresses at all, which would prove nothing about our headers.
    """
    handler = functools.partial(_QuietHandler, directory=str(tmp_path))
    httpd = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://localhost:{httpd.server_address[1]}", tmp_path
    httpd.shutdown()
    httpd.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass
