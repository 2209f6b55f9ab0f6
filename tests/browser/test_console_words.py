"""The console's words in both languages (issue 19 item 7): who logged an entry, the organiser included."""

from __future__ import annotations

import base64

from playwright.sync_api import expect

from tests.browser.conftest import ADMIN, Devices, Server
from tests.browser.helpers import console_url, live_match

# The smallest valid PNG (1×1, transparent): what a signature pad saves.
PNG = (
    "data:image/png;base64,"
    + base64.b64encode(
        bytes.fromhex(
            "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
            "1f15c4890000000d49444154789c6300010000050001"
            "0d0a2db40000000049454e44ae426082"
        )
    ).decode()
)


def _signed_and_reopened(server: Server) -> tuple[str, dict[str, str], int]:
    """A match played to full time (1–0), signed by the referee (locked) and reopened by the organiser (M6)."""
    match_id, tokens = live_match(server)
    ref = tokens["referee"]
    server.post(match_id, ref, {"type": "goal", "team": "home", "player": 3})
    for start in (False, True):
        if start:
            server.post(match_id, ref, {"type": "period_start"})
        server.post(match_id, ref, {"type": "clock", "action": "set", "elapsed_ms": 1_800_000})
        server.post(match_id, ref, {"type": "period_end"})
    server.post(match_id, ref, {"type": "sign", "as": "referee", "name": "王裁判 Wang", "signature": PNG})
    reopen = server.post(match_id, ADMIN, {"type": "reopen", "reason": "号码核对 check a number"})
    return match_id, tokens, reopen["seq"]


def test_M6_the_organisers_reopen_is_logged_as_the_organisers_in_both_languages(devices: Devices, server: Server) -> None:
    """Issue 19.7: the Chinese console's log read "（organiser）" beside the reopen: the role's name was missing
    from the words the console is given, so it printed the raw value."""
    match_id, tokens, reopen = _signed_and_reopened(server)
    zh = devices.open(console_url(match_id, tokens["referee"]) + "&lang=zh", locale="zh-CN")
    expect(zh.locator(f'#log li[data-seq="{reopen}"] .by')).to_have_text("（组织者）")
    en = devices.open(console_url(match_id, tokens["assistant1"]))
    expect(en.locator(f'#log li[data-seq="{reopen}"] .by')).to_have_text("by Organiser")
