"""Issue 23, item 2: /api/docs shows /api/openapi.json in the vendored Swagger UI, in Chromium, under the pages'
content security policy (D49): every operation listed, no script error, no CSP report, nothing fetched elsewhere."""

from __future__ import annotations

import pytest
from playwright.sync_api import ConsoleMessage, Request

from tests.browser.conftest import Devices, Server

pytestmark = pytest.mark.browser


def test_the_viewer_lists_every_operation_and_fetches_nothing_from_elsewhere(devices: Devices, server: Server) -> None:
    doc = server.http.get(f"{server.base}/api/openapi.json", timeout=10).json()
    # Every operation, the webhooks' too (OpenAPI 3.1's top-level ``webhooks``: the feed's deliveries, issue 30).
    operations = sum(len(ops) for ops in doc["paths"].values()) + sum(len(ops) for ops in doc.get("webhooks", {}).values())
    console: list[str] = []
    outside: list[str] = []
    page = devices.open("/api/docs?lang=en")

    def seen(msg: ConsoleMessage) -> None:
        if msg.type == "error":
            console.append(msg.text)

    def fetched(req: Request) -> None:
        if not req.url.startswith((server.base, "data:")):
            outside.append(req.url)

    page.on("console", seen)
    page.on("request", fetched)
    page.reload()  # with the listeners from the first request on
    page.wait_for_selector(".opblock")
    assert page.locator(".opblock").count() == operations
    assert page.get_by_text("/api/matches/{match_id}/events").first.is_visible()
    assert not console, console  # a CSP refusal would be a console error
    assert not outside, outside
