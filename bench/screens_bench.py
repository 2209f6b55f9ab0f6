"""What the big screen costs a slow projector PC: bytes to load, and the time to fit its text.

    .venv/bin/python bench/screens_bench.py            # ~30 s; prints numbers, asserts nothing

Starts its own server (app.py), brings a match with the longest names of the layout test to a busy
paused half and another to a shootout, then in Debian's Chromium (at 1920×1080 and 1280×720):
- the scoreboard's weight: the HTML and every script and stylesheet it loads, in bytes (zh and en);
- ``Q.fitAll(true)`` (every box of the grid fitted again, as after a resize or new names), median and max
  of 30 runs; a state that changes no text (the usual case) fits nothing.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, start_server, stop_server  # noqa: E402
from tests.browser.screen_states import NAMES, busy_paused_half, in_shootout  # noqa: E402

TIMES = """(n) => {
  const out = [];
  for (let i = 0; i < n; i++) { const t = performance.now(); Q.fitAll(true); out.push(performance.now() - t); }
  return out;
}"""


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        srv = start_server(Path(tmp))
        try:
            matches = {
                "paused half, 30-char Latin names": busy_paused_half(srv, *NAMES["latin30"])[0],
                "shootout, 20-char Chinese names": in_shootout(srv, *NAMES["zh20"])[0],
            }
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                for lang in ("zh", "en"):
                    page = browser.new_page(viewport={"width": 1920, "height": 1080})
                    sizes: list[int] = []
                    page.on(
                        "response",
                        lambda r, sizes=sizes: sizes.append(len(r.body())) if r.request.resource_type != "websocket" else None,
                    )
                    page.goto(f"{srv.base}/matches/{matches['paused half, 30-char Latin names']}/scoreboard?lang={lang}")
                    page.wait_for_selector("body[data-ready]")
                    page.wait_for_timeout(300)
                    print(f"scoreboard weight ({lang}): {sum(sizes):,} bytes in {len(sizes)} responses")
                    page.close()
                for size in ({"width": 1920, "height": 1080}, {"width": 1280, "height": 720}):
                    page = browser.new_page(viewport=size)
                    for label, match_id in matches.items():
                        page.goto(f"{srv.base}/matches/{match_id}/scoreboard?lang=zh")
                        page.wait_for_selector("body[data-ready]")
                        runs = page.evaluate(TIMES, 30)
                        print(
                            f"{size['width']}×{size['height']} {label}: fitAll {statistics.median(runs):.1f} ms median, "
                            f"{max(runs):.1f} ms max (30 runs)"
                        )
                    page.close()
                browser.close()
        finally:
            stop_server(srv)


if __name__ == "__main__":
    main()
