"""Screenshots of the public screens in both languages, for docs/screens/ (linked from the README).

    .venv/bin/python scripts/screenshots.py [OUT_DIR]      # default: docs/screens

Starts its own server (app.py, a temporary database), brings matches to the states worth showing through
the HTTP API (tests/browser/screen_states.py), and photographs them in Debian's Chromium. PNGs are
reduced to a 256-colour palette so they stay small in git.
"""

from __future__ import annotations

import io
import sys
import tempfile
from pathlib import Path

from PIL import Image
from playwright.sync_api import Browser, Page, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, Server, start_server, stop_server  # noqa: E402
from tests.browser.screen_states import busy_paused_half, in_shootout, kicked_off, new_match  # noqa: E402

HD = {"width": 1280, "height": 720}
PHONE = {"width": 390, "height": 844}
# A stand-in for the match picture under a transparent overlay: a mown pitch (flat colours keep PNGs small).
STREAM = "html { background: repeating-linear-gradient(90deg, #2e7d32 0 128px, #388e3c 128px 256px) !important; }"


def save(page: Page, path: Path) -> None:
    png = page.screenshot()
    with Image.open(io.BytesIO(png)) as im:
        im.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(
            path, optimize=True
        )
    print(f"{path}  {path.stat().st_size // 1024} KB")


def shoot(page: Page, path: str, lang: str, out: Path, name: str, css: str = "") -> None:
    page.goto(f"{path}{'&' if '?' in path else '?'}lang={lang}")
    page.wait_for_selector("body[data-ready]")
    if css:
        page.add_style_tag(content=css)
    page.wait_for_timeout(300)
    save(page, out / f"{name}-{lang}.png")


def screens(browser: Browser, srv: Server, out: Path, lang: str, matches: dict[str, str]) -> None:
    ctx = browser.new_context(viewport=HD, base_url=srv.base, locale="en-GB")
    page = ctx.new_page()
    shoot(page, f"/matches/{matches['live']}/scoreboard", lang, out, "scoreboard")
    shoot(page, f"/matches/{matches['shootout']}/scoreboard", lang, out, "scoreboard-shootout")
    shoot(page, f"/matches/{matches['before']}/scoreboard", lang, out, "scoreboard-before-kickoff")
    for layout in ("bar", "bug", "third"):
        shoot(page, f"/matches/{matches['live']}/scoreboard?overlay=1&layout={layout}", lang, out, f"overlay-{layout}", STREAM)
    goal, tokens = kicked_off(srv)
    shoot(page, f"/matches/{goal}/scoreboard?overlay=1&layout=third", lang, out, "overlay-goal", STREAM)
    srv.post(goal, tokens["referee"], {"type": "goal", "team": "home", "player": 3})
    page.wait_for_selector("#popup:not([hidden])")
    page.wait_for_timeout(500)
    save(page, out / f"overlay-goal-{lang}.png")
    shoot(page, f"/matches/{matches['live']}/lineups", lang, out, "lineups")
    ctx.close()
    tablet = browser.new_context(viewport={"width": 1280, "height": 800}, base_url=srv.base, locale="en-GB")
    page = tablet.new_page()
    page.goto(f"/matches/{matches['live']}/referee?token={matches['referee']}&lang={lang}")
    page.wait_for_selector('[data-action="goal"]')
    page.wait_for_timeout(800)
    save(page, out / f"console-{lang}.png")
    tablet.close()
    phone = browser.new_context(viewport=PHONE, base_url=srv.base, locale="en-GB")
    page = phone.new_page()
    page.goto(f"/matches/{matches['live']}?lang={lang}")
    page.wait_for_timeout(500)
    save(page, out / f"phone-{lang}.png")
    phone.close()


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        srv = start_server(Path(tmp))
        try:
            live, tokens = busy_paused_half(srv, "人大 Renmin", "Tsinghua 清华", goals=(3, 2))
            srv.post(live, tokens["scorer"], {"type": "clock", "action": "set", "elapsed_ms": 754_000})
            matches = {
                "live": live,
                "referee": tokens["referee"],
                "shootout": in_shootout(
                    srv, "中国人民大学附属中学第二分校立群球代表队", "Tsinghua University Bottle Ball", kicks=5
                )[0],
                "before": new_match(srv, starts_at="2030-06-01T15:30:00+08:00")[0],
            }
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                for lang in ("zh", "en"):
                    screens(browser, srv, out, lang, matches)
                browser.close()
        finally:
            stop_server(srv)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "screens")
