"""Pages hardened, as Chromium enforces it (issue 14, D49): another site cannot frame the console, the
overlay can be framed by stream software, and no page of ours trips its own content security policy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import ConsoleMessage, Frame, Page

from qalisball.server.demo import demo_request
from tests.browser.conftest import ADMIN, Devices, Server

pytestmark = pytest.mark.browser


def _framed_by_another_site(devices: Devices, site: tuple[str, Path], url: str, name: str) -> tuple[Page, Frame]:
    """A page of another origin that frames ``url``."""
    base, folder = site
    (folder / f"{name}.html").write_text(
        f'<!doctype html><title>evil</title><iframe id="f" src="{url}" width="800" height="600"></iframe>'
    )
    ctx = devices.browser.new_context()
    devices.contexts.append(ctx)
    page = ctx.new_page()
    page.goto(f"{base}/{name}.html")
    page.wait_for_load_state("load")
    child = next(f for f in page.frames if f != page.main_frame)
    child.wait_for_load_state("load")
    return page, child


def test_D49_another_site_cannot_frame_the_console_but_may_frame_the_overlay(
    devices: Devices, server: Server, other_site: tuple[str, Path]
) -> None:
    created = server.create_match(demo_request())
    match_id, tokens = created["id"], created["tokens"]
    console_url = f"{server.base}/matches/{match_id}/referee?token={tokens['referee']}"
    _, frame = _framed_by_another_site(devices, other_site, console_url, "console")
    assert frame.url.startswith("chrome-error://"), frame.url  # Chromium's page for a refused frame
    assert frame.query_selector("#clock") is None
    # The positive control: the same frame, the overlay's URL, shows the score.
    overlay_url = f"{server.base}/matches/{match_id}/scoreboard?overlay=1"
    _, frame = _framed_by_another_site(devices, other_site, overlay_url, "overlay")
    frame.wait_for_selector("#home-score", state="attached")
    assert frame.url == overlay_url and frame.text_content("#home-score") == "0"
    # And the plain scoreboard (no overlay) is refused like the console.
    _, frame = _framed_by_another_site(devices, other_site, overlay_url.replace("?overlay=1", ""), "board")
    assert frame.url.startswith("chrome-error://"), frame.url


def _no_csp_violation(page: Page, log: list[str]) -> None:
    page.wait_for_load_state("networkidle")
    violations = [m for m in log if "Content Security Policy" in m or "Content-Security-Policy" in m]
    assert not violations, violations


def test_D49_no_page_of_ours_trips_its_own_content_security_policy(devices: Devices, server: Server) -> None:
    created = server.create_match(demo_request())
    match_id, tokens = created["id"], created["tokens"]
    paths = [
        "/",
        f"/?token={ADMIN}",
        f"/matches/{match_id}/officials?token={ADMIN}",
        f"/matches/{match_id}/referee?token={tokens['referee']}",
        f"/matches/{match_id}/referee",  # the token page, with its inline script (nonce)
        f"/matches/{match_id}/scoreboard",
        f"/matches/{match_id}/scoreboard?overlay=1",
        f"/matches/{match_id}",
        f"/matches/{match_id}/report",
    ]
    for path in paths:
        ctx = devices.browser.new_context(base_url=server.base)
        devices.contexts.append(ctx)
        page = ctx.new_page()
        log: list[str] = []
        page.on("console", lambda msg, log=log: _keep(log, msg))
        page.on("pageerror", lambda exc, path=path: devices.errors.append(f"{path}: {exc}"))
        page.goto(path)
        _no_csp_violation(page, log)
    # The scripts did run under the policy: the organiser's form is shown, the console is live.
    page = devices.open(f"/?token={ADMIN}")
    page.wait_for_selector("#organiser", state="visible")
    console = devices.open(f"/matches/{match_id}/referee?token={tokens['referee']}")
    console.wait_for_selector("#net.online")


def _keep(log: list[str], msg: ConsoleMessage) -> Any:
    log.append(msg.text)
