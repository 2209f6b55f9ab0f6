"""Issue 23 item 1: the project's documentation in the repository, built with MkDocs and served under /docs.

- ``make docs`` runs ``mkdocs build --strict``: no broken link, no page left out of the navigation, every
  page built in English and Chinese; the built pages reach nothing outside the site (they are served by the
  app under its CSP and read offline), and every link between them resolves through the app's /docs route.
- No link in the repository's Markdown points outside the repository (issue 23: the README's links to the
  shared folder were dead in any clone).
- docs/spec.md and docs/api.md are the contract: while the contract's own copy is at hand (beside the
  repository, as on the team's machines and CI), they are the same text.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from html import escape
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
from flask import Flask
from flask.testing import FlaskClient

ROOT = Path(__file__).resolve().parents[1]

# The user guide: each page in English (page.md) and Chinese (page.zh.md).
GUIDE = (
    "index",
    "guide/first-match",
    "guide/organiser",
    "guide/officials",
    "guide/scorer",
    "guide/screens",
    "guide/links-after-restart",
    "guide/training",
    "guide/what-if",
    "rules/index",
    "architecture",
    "feed",
)
# Pages with one text, shown in both languages' sites.
ONE_TEXT = ("spec", "api", "api-extras", "decisions", "deploy", "reports", "rules/book-v2", "rules/book-v1")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site as `make docs` builds it (same command, another folder: the developer's build is left alone)."""
    out = tmp_path_factory.mktemp("docs") / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    run = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr  # --strict: any broken link or unlisted page fails
    return out


def test_make_docs_builds_every_page_in_both_languages(site: Path) -> None:
    for page in GUIDE:
        assert (ROOT / "docs" / f"{page}.md").is_file() and (ROOT / "docs" / f"{page}.zh.md").is_file(), page
        assert (site / f"{page}.html").is_file() and (site / "zh" / f"{page}.html").is_file(), page
    for page in ONE_TEXT:
        assert (site / f"{page}.html").is_file() and (site / "zh" / f"{page}.html").is_file(), page
    zh = (site / "zh" / "guide" / "organiser.html").read_text(encoding="utf-8")
    assert '<html lang="zh"' in zh and '<html lang="en"' in (site / "guide" / "organiser.html").read_text(encoding="utf-8")
    # Both rule books' texts, word for word (every paragraph), and the screenshots the guide shows.
    for page, name in (("book-v2", "qalisball-v2.0.zh.txt"), ("book-v1", "qalisball-v1.0.zh.txt")):
        html = re.sub(r"\s+", "", (site / "rules" / f"{page}.html").read_text(encoding="utf-8"))
        paragraphs = [p for p in (ROOT / "docs" / "rules" / name).read_text(encoding="utf-8").split("\n\n") if p.strip()]
        assert len(paragraphs) > 10
        for paragraph in paragraphs:
            assert re.sub(r"\s+", "", escape(paragraph, quote=False)) in html, (name, paragraph[:40])
    assert (site / "screens" / "console-zh.png").is_file()


def test_issue27_item11_the_guide_has_a_page_on_training_and_one_on_the_what_if_with_the_demos_protest(site: Path) -> None:
    for page, words in (
        ("guide/training", ("/training", "北大 Peking 2–1 北师大 BNU")),
        ("guide/what-if", ("Demo Cup 演示杯", "#6")),
    ):
        assert page in GUIDE, page
        for folder in (site, site / "zh"):
            html = (folder / f"{page}.html").read_text(encoding="utf-8")
            assert all(w in html for w in words), (folder, page)
    # Reachable from the organiser's guide in both languages.
    for folder in (site, site / "zh"):
        organiser = (folder / "guide" / "organiser.html").read_text(encoding="utf-8")
        assert 'href="training.html"' in organiser and 'href="what-if.html"' in organiser, folder


def test_the_architecture_page_names_every_package_of_the_code() -> None:
    """The map is kept true: a package added to qalisball/ without a word in the architecture pages fails here."""
    packages = sorted(p.name for p in (ROOT / "qalisball").iterdir() if (p / "__init__.py").is_file())
    assert len(packages) >= 8, packages
    for page in ("architecture.md", "architecture.zh.md"):
        text = (ROOT / "docs" / page).read_text(encoding="utf-8")
        assert not [p for p in packages if f"`{p}/`" not in text and f"qalisball/{p}/" not in text], (page, packages)


_URL = re.compile(r'(?:href|src)="([^"]*)"')


def _html_pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.html") if p.name != "404.html")


def test_the_built_site_fetches_nothing_from_elsewhere_and_links_only_relatively(site: Path) -> None:
    """Served under /docs by the app (its CSP allows only 'self') and read offline: no web fonts, no CDN,
    no absolute path that would leave /docs/. Links out for people to follow (<a href="https://…">) are fine."""
    for page in _html_pages(site):
        html = page.read_text(encoding="utf-8")
        for tag in re.findall(r"<(?:script|link|img)\b[^>]*>", html):
            url = (_URL.findall(tag) or [""])[0]
            assert not urlsplit(url).scheme and not url.startswith("//"), (page, tag)
        # /api/…: the app's own pages beside /docs (its API's viewer), reached where the app serves the site.
        absolute = [u for u in _URL.findall(html) if u.startswith("/") and not u.startswith("/api/")]
        assert not absolute, (page, absolute)


def test_every_link_of_the_built_site_resolves_through_the_apps_docs_route(site: Path, app: Flask, client: FlaskClient) -> None:
    app.config["DOCS_SITE"] = str(site)
    checked: dict[str, int] = {}
    for page in _html_pages(site):
        address = "/docs/" + page.relative_to(site).as_posix()
        r = client.get(address)
        assert r.status_code == 200 and r.mimetype == "text/html", address
        for url in _URL.findall(r.get_data(as_text=True)):
            target = urlsplit(urljoin(address, url))
            if target.scheme or target.netloc or not target.path.startswith("/docs/"):
                continue  # a link out (a person follows it), or into the app itself (/api/docs)
            if target.path not in checked:
                with client.get(target.path) as answer:
                    checked[target.path] = answer.status_code
            assert checked[target.path] == 200, (address, url)
    assert len(checked) > 40, checked


# ---------------------------------------------------------------------------------------------
# Links in the repository's Markdown


_MD_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def _markdown_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted((ROOT / "bench").rglob("*.md"))]


def test_no_link_in_the_repositorys_docs_points_outside_the_repository() -> None:
    outside = []
    for md in _markdown_files():
        text = md.read_text(encoding="utf-8")
        for url in _MD_LINK.findall(text):
            parts = urlsplit(url)
            if parts.scheme in ("http", "https", "mailto") or not parts.path:
                continue
            if parts.path.startswith("/api/"):
                continue  # the app's own API viewer, which the site links where the app serves it
            if parts.path.startswith("/"):
                outside.append((md.name, url))  # a machine's folder
                continue
            target = (md.parent / parts.path).resolve()
            if not target.is_relative_to(ROOT) or not target.exists():
                outside.append((md.relative_to(ROOT).as_posix(), url))
        # Paths in prose and code too: the shared folder beside the repository, or a machine's absolute folder.
        for found in re.findall(r"\.\./shared\b|/work/\w+", text):
            outside.append((md.relative_to(ROOT).as_posix(), found))
    assert not outside, outside


# ---------------------------------------------------------------------------------------------
# The /docs route (qalisball/server/docs_site.py)


@pytest.fixture
def small_site(tmp_path: Path, app: Flask) -> Path:
    """A built site in miniature: a page with an inline script as Material writes them, its Chinese twin, a file."""
    site = tmp_path / "site"
    (site / "zh" / "guide").mkdir(parents=True)
    page = '<!doctype html><html lang="{lang}"><head><script>__md_scope=1</script>' + (
        '<script id="__config" type="application/json">{{}}</script><script src="b.js"></script></head><body>{text}</body></html>'
    )
    (site / "index.html").write_text(page.format(lang="en", text="Home"), encoding="utf-8")
    (site / "zh" / "index.html").write_text(page.format(lang="zh", text="首页"), encoding="utf-8")
    (site / "zh" / "guide" / "index.html").write_text(page.format(lang="zh", text="指南"), encoding="utf-8")
    (site / "b.js").write_text("console.log(1)", encoding="utf-8")
    app.config["DOCS_SITE"] = str(site)
    return site


def test_docs_serves_the_site_with_the_pages_csp_nonce_on_its_inline_scripts(small_site: Path, client: FlaskClient) -> None:
    """D49: pages run no inline script without the policy's nonce; Material's own get the request's nonce."""
    r = client.get("/docs/?lang=en")
    assert r.status_code == 200 and "Home" in r.get_data(as_text=True)
    nonce = re.search(r"'nonce-([^']+)'", r.headers["Content-Security-Policy"])
    assert nonce, r.headers["Content-Security-Policy"]
    html = r.get_data(as_text=True)
    assert html.count(f'<script nonce="{nonce.group(1)}"') == 2, html  # the inline ones, not the file's
    assert '<script src="b.js">' in html
    with client.get("/docs/b.js") as js:
        assert js.status_code == 200 and js.get_data(as_text=True) == "console.log(1)"
    assert client.get("/docs").status_code in (301, 308)  # to /docs/, where relative links resolve
    with client.get("/docs/zh/guide/") as folder:
        assert folder.status_code == 200 and "指南" in folder.get_data(as_text=True)


def test_docs_home_follows_the_devices_language(small_site: Path, client: FlaskClient) -> None:
    r = client.get("/docs/?lang=zh")
    assert r.status_code == 303 and r.headers["Location"].endswith("zh/index.html")
    assert "首页" in client.get("/docs/zh/index.html").get_data(as_text=True)


@pytest.mark.parametrize(
    "path", ["/docs/../instance/admin_token", "/docs/%2e%2e/%2e%2e/README.md", "/docs/nothing.html", "/docs//etc/passwd"]
)
def test_docs_serves_nothing_outside_the_site(small_site: Path, client: FlaskClient, path: str) -> None:
    r = client.get(path)
    assert r.status_code in (404, 308), (path, r.status_code)
    assert b"root:" not in r.get_data() and b"Qalisball" not in r.get_data()[:0]


def test_docs_says_in_both_languages_how_to_build_it_until_it_is_built(tmp_path: Path, app: Flask, client: FlaskClient) -> None:
    app.config["DOCS_SITE"] = str(tmp_path / "not-built")
    for path in ("/docs/", "/docs/guide/organiser.html"):
        r = client.get(path)
        text = r.get_data(as_text=True)
        assert r.status_code == 404 and "make docs" in text and "文档尚未生成" in text and "not built yet" in text, path


def test_issue27_item10_make_run_serves_at_once_and_builds_the_docs_beside_the_server(tmp_path: Path) -> None:
    """`make run` on a clone without the site starts the server without waiting for MkDocs (20-50 s of a fresh
    clone's first start, measured), and the site is moved into place whole once built.

    Make runs for real, on a stand-in virtualenv: its `python` (the server) only says it started; its `mkdocs`
    builds only once the server has started (it waits for that, up to 20 s), so a `make run` that waits for the
    documentation before the server never gets a site.
    """
    venv, site, started = tmp_path / "venv", tmp_path / "instance" / "docs-site", tmp_path / "server-started"
    (venv / "bin").mkdir(parents=True)
    server = venv / "bin" / "python"
    server.write_text(f'#!/bin/sh\necho "$@" > "{started}"\n')
    mkdocs = venv / "bin" / "mkdocs"
    mkdocs.write_text(
        "#!/bin/sh\n"
        'while [ "$1" != "--site-dir" ]; do shift; done; out="$2"\n'
        f'i=0; while [ ! -f "{started}" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done\n'
        f'[ -f "{started}" ] || exit 1\n'
        'mkdir -p "$out" && echo built > "$out/index.html"\n'
    )
    for script in (server, mkdocs):
        script.chmod(0o755)
    stamp = venv / ".installed"
    stamp.touch()
    later = (ROOT / "requirements.txt").stat().st_mtime + 3600
    os.utime(stamp, (later, later))  # installed: make leaves the virtualenv alone
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "QALISBALL_WORKERS"))}
    run = subprocess.run(
        ["make", "--no-print-directory", "run", f"VENV={venv}", f"DOCS_SITE={site}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert started.read_text().strip() == "app.py"
    # The build beside it holds make's output open until it ends: the site is in place (or never will be).
    assert (site / "index.html").read_text().strip() == "built", Path(str(site) + ".log").read_text()
    assert not Path(str(site) + ".new").exists()


def test_issue27_item10_docs_says_it_is_being_built_while_make_run_builds_it(
    tmp_path: Path, app: Flask, client: FlaskClient
) -> None:
    app.config["DOCS_SITE"] = str(tmp_path / "docs-site")
    (tmp_path / "docs-site.new").mkdir()
    r = client.get("/docs/")
    assert r.status_code == 404
    html = r.get_data(as_text=True)
    assert 'id="building"' in html and "It is being built" in html and "正在生成" in html
