"""The project's documentation, served under ``/docs`` (issue 23).

``make docs`` builds the MkDocs site (``mkdocs.yml``: the user guide in Chinese and English, the rules, the
decisions, the API, deployment, the architecture) into ``instance/docs-site``; this blueprint serves that
folder as it is, read-only, and nothing else. Until it is built, ``/docs/`` says in both languages how to
build it (404), so a fresh clone's server never answers an error it cannot explain.

The pages' security policy forbids inline scripts (D49); Material for MkDocs writes three small ones into
every page (its settings and local storage helpers). Each HTML answer gets the request's CSP nonce on its
inline ``<script>`` tags, so the same policy covers the documentation without an exception for it.
"""

from __future__ import annotations

import re
from pathlib import Path

from flask import Blueprint, Flask, Response, current_app, redirect, render_template, send_from_directory
from werkzeug.exceptions import NotFound
from werkzeug.security import safe_join

from qalisball.web.hardening import csp_nonce
from qalisball.web.i18n import current_language

bp = Blueprint("docs_site", __name__, url_prefix="/docs")

# An opening <script> tag without a src: an inline script, which the policy runs only with the nonce.
_INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)(?=[\s>])")


def site_folder() -> Path:
    """Where ``make docs`` writes the site (``DOCS_SITE`` in the app's config, for tests)."""
    return Path(current_app.config["DOCS_SITE"])


def _with_nonce(html: str) -> str:
    return _INLINE_SCRIPT.sub(f'<script nonce="{csp_nonce()}"', html)


def _missing() -> tuple[str, int]:
    # ``make docs`` builds beside the site, into ``<site>.new``, and moves it into place once whole.
    folder = site_folder()
    building = folder.with_name(folder.name + ".new").is_dir()
    return render_template("docs_site_missing.html", building=building), 404


def _serve(filename: str) -> Response | tuple[str, int]:
    folder = site_folder()
    if not (folder / "index.html").is_file():
        return _missing()
    path = safe_join(str(folder), filename)  # None for "..", absolute paths and the like: never outside the site
    if path is None:
        raise NotFound()
    try:  # a name the file system refuses (a component of 256+ bytes: ENAMETOOLONG) is no page: 404 (issue 33.6)
        if Path(path).is_dir():
            filename = filename.rstrip("/") + "/index.html"
            path = safe_join(str(folder), filename)
        if path is None or not Path(path).is_file():
            raise NotFound()
        if filename.endswith(".html"):
            html = Path(path).read_text(encoding="utf-8")
            return Response(_with_nonce(html), mimetype="text/html")
    except (OSError, UnicodeError) as exc:
        raise NotFound() from exc
    return send_from_directory(folder, filename)


@bp.get("/")
def home() -> Response | tuple[str, int]:
    """The site's home in the device's language (the site's own switch changes it from there)."""
    if current_language() == "zh" and (site_folder() / "zh" / "index.html").is_file():
        return redirect("zh/index.html", 303)  # relative: kept under the app's script root and /docs/
    return _serve("index.html")


@bp.get("/<path:filename>")
def page(filename: str) -> Response | tuple[str, int]:
    return _serve(filename)


def init_app(app: Flask, default_folder: Path) -> None:
    """Serve the built site from ``DOCS_SITE`` (default: ``default_folder``)."""
    app.config.setdefault("DOCS_SITE", str(default_folder))
    app.register_blueprint(bp)
