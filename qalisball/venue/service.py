"""Venue screens under the organiser's control, uploaded images and team logos (issue 13).

A venue's big screen opens ``/screens/<name>`` once and is then driven from the organiser's page
``/screens``: it shows a match's scoreboard, a match's line-ups with its officials, a slide (an uploaded
logo or sponsor image, with a caption), a competition's screen, or nothing, and switches live over
Socket.IO (room ``screen:<name>``). Team logos are uploaded once per team name and shown on the
scoreboard, the overlays, the line-ups and in the report's data.

API (writes need the organiser token; checks in API.md's order: 401/403, 404, 400, 409):

- ``GET /api/screens``, ``GET /api/screens/<name>``; ``PUT /api/screens/<name>`` ``{"show", "match"?,
  "competition"?, "image"?, "caption"?}`` (201 created, 200 replaced); ``DELETE /api/screens/<name>``.
- ``POST /api/images`` (multipart: ``file``, ``kind`` ``slide``/``logo``, ``title``?) → 201; ``GET
  /api/images``; ``DELETE /api/images/<id>`` (409 while a logo or a screen uses it); ``GET /images/<id>``.
- ``POST /api/logos`` (multipart: ``team``, ``file``) → 201; ``GET /api/logos``; ``DELETE /api/logos?team=``.
"""

from __future__ import annotations

import hashlib
import io
import re
import sqlite3
import warnings
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Flask, Response, abort, current_app, jsonify, render_template, request, url_for
from flask_babel import lazy_gettext as _l
from flask_socketio import SocketIO, emit, join_room, leave_room
from marshmallow import Schema, ValidationError, fields, validate
from PIL import Image, ImageOps, ImageSequence, UnidentifiedImageError
from werkzeug.exceptions import RequestEntityTooLarge

from qalisball.live import fanout
from qalisball.match.api import ApiError
from qalisball.match.schemas import Plain, text_problem
from qalisball.match.service import MatchService
from qalisball.storage.store import Store
from qalisball.venue.store import ScreenStore, utc_now
from qalisball.web import i18n
from qalisball.web.guards import organiser_page_data, organiser_required, service
from qalisball.web.strict_json import BadBody, bad_body_answer, read_json

bp = Blueprint("screens", __name__)

# What a screen may show; the organiser's page offers them in this order.
SHOWS = {
    "scoreboard": _l("Scoreboard of a match"),
    "lineups": _l("Line-ups and officials of a match"),
    "slide": _l("A slide: logo or sponsor image"),
    "competition": _l("A competition's screen"),
    "blank": _l("Nothing (black)"),
}
NEEDS = {"scoreboard": "match", "lineups": "match", "competition": "competition", "slide": "image"}
NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")

# Uploads: raster images only (an SVG can carry script), checked by decoding them, not by their name.
FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp", "GIF": "image/gif"}
MAX_BYTES = {"logo": 1_000_000, "slide": 5_000_000}
MAX_SIDE = 4096
MAX_FRAMES = 500  # an animated logo or slide
MAX_PIXELS = 64_000_000  # every frame's pixels together (a decoded frame is 4 bytes a pixel)


class ScreenContentSchema(Schema):
    show = fields.String(required=True, validate=validate.OneOf(list(SHOWS)))
    match = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=64))
    competition = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=64))
    image = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=64))
    caption = fields.String(load_default="", validate=[validate.Length(max=200), Plain()])


def team_key(name: str) -> str:
    """A team's name as D72 compares names: case and surrounding spaces ignored."""
    return " ".join(name.split()).casefold()


class ScreenService:
    """Screens, images and logos: kept in memory (small), written through ``ScreenStore``."""

    def __init__(self, store: Store, matches: MatchService) -> None:
        self.db = ScreenStore(store)
        self.matches = matches
        self.images: dict[str, dict[str, Any]] = {}
        self.logos: dict[str, dict[str, Any]] = {}
        self.screens: dict[str, dict[str, Any]] = {}
        try:
            self.images = {row["id"]: row for row in self.db.images()}
            self.logos = {row["team_key"]: row for row in self.db.logos()}
            self.screens = {row["name"]: row for row in self.db.screens()}
        except sqlite3.DatabaseError:
            pass  # a damaged database (D42): the match service says so on every screen; no screens to show
        self._listeners: list[Callable[[str, dict[str, Any]], None]] = []
        self._logo_listeners: list[Callable[[str], None]] = []

    def listen(self, fn: Callable[[str, dict[str, Any]], None]) -> None:
        self._listeners.append(fn)

    def listen_logos(self, fn: Callable[[str], None]) -> None:
        """``fn(team)`` once a team's logo was set or removed (the screens showing its matches redraw)."""
        self._logo_listeners.append(fn)

    # -- images --------------------------------------------------------------------------------

    def add_image(self, data: bytes, kind: str, title: str = "") -> dict[str, Any]:
        """Check and store an image; the same bytes uploaded again give the image already stored."""
        content_type, width, height, data = check_image(data, kind)  # the clean bytes are stored (D152)
        image_id = hashlib.sha256(data).hexdigest()[:20]
        if image_id in self.images:
            return self.images[image_id]
        row = {
            "id": image_id,
            "kind": kind,
            "title": title,
            "content_type": content_type,
            "width": width,
            "height": height,
            "bytes": len(data),
            "created_at": utc_now(),
        }
        self.db.add_image({**row, "data": data})
        self.images[image_id] = row
        return row

    def delete_image(self, image_id: str) -> None:
        users = [f"the logo of {r['team']}" for r in self.logos.values() if r["image_id"] == image_id]
        users += [f"screen {n}" for n, s in self.screens.items() if s.get("image") == image_id]
        if users:
            raise ApiError(409, "conflict", f"image {image_id} is in use: {', '.join(users)}")
        self.db.delete_image(image_id)
        self.images.pop(image_id, None)

    # -- logos ---------------------------------------------------------------------------------

    def set_logo(self, team: str, image_id: str) -> dict[str, Any]:
        team = " ".join(team.split())
        self.db.set_logo(team_key(team), team, image_id)
        row = {"team_key": team_key(team), "team": team, "image_id": image_id, "updated_at": utc_now()}
        self.logos[row["team_key"]] = row
        for fn in self._logo_listeners:
            fn(team)
        return row

    def delete_logo(self, team: str) -> bool:
        key = team_key(team)
        if key not in self.logos:
            return False
        self.db.delete_logo(key)
        del self.logos[key]
        for fn in self._logo_listeners:
            fn(team)
        return True

    def logo_url(self, team: str) -> str | None:
        row = self.logos.get(team_key(team))
        return image_url(row["image_id"]) if row else None

    # -- screens -------------------------------------------------------------------------------

    def set_screen(self, name: str, content: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        created = name not in self.screens
        now = utc_now()
        self.db.set_screen(name, content, now)
        screen = {"name": name, **content, "updated_at": now}
        self.screens[name] = screen
        self._publish(name)
        return screen, created

    def delete_screen(self, name: str) -> None:
        self.db.delete_screen(name)
        del self.screens[name]
        self._publish(name)

    def screen(self, name: str) -> dict[str, Any]:
        """What screen ``name`` shows now (a screen nobody has set up yet shows nothing)."""
        return self.screens.get(name) or {"name": name, "show": "blank", "caption": "", "updated_at": None}

    def _publish(self, name: str) -> None:
        for fn in self._listeners:
            fn(name, self.screen(name))


def check_image(data: bytes, kind: str) -> tuple[str, int, int, bytes]:
    """The image's content type, size and clean bytes: its header checked before any pixel is decoded
    (format, sides, frames), then decoded and encoded again without its metadata (D152). 400 if not."""
    limit = MAX_BYTES[kind]
    if not data:
        raise _invalid("file", "the file is empty")
    if len(data) > limit:
        raise _invalid("file", f"the file has {len(data)} bytes: a {kind} may have at most {limit // 1_000_000} MB")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as im:
                fmt, (width, height) = im.format, im.size
                _check_header(fmt, width, height, getattr(im, "n_frames", 1))
                im.verify()
            with Image.open(io.BytesIO(data)) as im:
                clean, (width, height) = reencode(im, fmt)
    # A header that declares a bomb (DecompressionBombError/Warning), or data that does not decode.
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, EOFError, Image.DecompressionBombError) as exc:
        raise _invalid("file", "not a PNG, JPEG, WebP or GIF image") from exc
    except Image.DecompressionBombWarning as exc:
        raise _invalid("file", "the image declares more pixels than it may have") from exc
    return FORMATS[fmt], width, height, clean


def _check_header(fmt: str | None, width: int, height: int, frames: int) -> None:
    """What the header declares, refused before a pixel is decoded (a 69-byte PNG may declare 20000×20000)."""
    if fmt not in FORMATS:
        raise _invalid("file", f"a {fmt} image: upload PNG, JPEG, WebP or GIF")
    if width > MAX_SIDE or height > MAX_SIDE:
        raise _invalid("file", f"the image is {width}×{height} pixels: at most {MAX_SIDE} on each side")
    if frames > MAX_FRAMES or frames * width * height > MAX_PIXELS:
        raise _invalid("file", f"the animation has {frames} frames of {width}×{height}: at most {MAX_PIXELS:,} pixels in all")


def reencode(im: Image.Image, fmt: str) -> tuple[bytes, tuple[int, int]]:
    """The picture alone, in its own format: EXIF (a phone photo's GPS position), comments and text chunks
    are left behind (D152). A photo is turned upright by its EXIF orientation first, as browsers show it."""
    if getattr(im, "n_frames", 1) == 1:
        frames = [_bare(ImageOps.exif_transpose(im))]  # read the orientation before the EXIF is dropped
    else:
        frames = [_bare(frame) for frame in ImageSequence.Iterator(im)]
    first = frames[0]
    out = io.BytesIO()
    options: dict[str, Any] = {"format": fmt}
    if fmt == "JPEG":
        first = first.convert("RGB") if first.mode not in ("RGB", "L", "CMYK") else first
    if fmt in ("JPEG", "WEBP"):
        options.update(quality=90)  # lossy formats: close to what was uploaded
    if len(frames) > 1:  # an animated GIF or WebP stays animated
        durations = [f.info.get("duration", 100) for f in ImageSequence.Iterator(im)]
        options.update(save_all=True, append_images=frames[1:], duration=durations, loop=im.info.get("loop", 0))
    first.save(out, **options)
    return out.getvalue(), first.size


def _bare(frame: Image.Image) -> Image.Image:
    """A frame's pixels with none of the file's metadata (only the transparency a picture needs)."""
    copy = frame.copy()
    copy.info = {k: v for k, v in frame.info.items() if k == "transparency"}
    return copy


def _invalid(field: str, message: str) -> ApiError:
    return ApiError(400, "invalid", message, fields={field: [message]})


def image_url(image_id: str) -> str:
    return url_for("screens.image", image_id=image_id)


def screens() -> ScreenService:
    svc: ScreenService = current_app.extensions["qalisball_screens"]
    return svc


def room(name: str) -> str:
    return f"screen:{name}"


def init_app(app: Flask, socketio: SocketIO) -> None:
    """The screen service, its API and pages, and its live room."""
    matches: MatchService = app.extensions["qalisball"]
    svc = ScreenService(matches.store, matches)
    app.extensions["qalisball_screens"] = svc

    def publish(name: str, screen: dict[str, Any]) -> None:
        with app.test_request_context():  # the screen's address is built with url_for
            socketio.emit("screen", describe(screen), to=room(name))

    svc.listen(publish)

    def logos_changed(team: str) -> None:
        """Tell the live rooms of every match of ``team`` (``logos`` ``{"match", "team"}``): a scoreboard or
        line-ups page there draws itself again with the new logo (no reload by hand at the venue)."""
        key = team_key(team)
        for m in list(matches.matches.values()):
            if key in (team_key(m.setup.home.name), team_key(m.setup.away.name)):
                for official in (False, True):
                    for updates in (False, True):
                        socketio.emit(
                            "logos", {"match": m.id, "team": team}, to=fanout.room(m.id, official=official, updates=updates)
                        )

    svc.listen_logos(logos_changed)

    def on_join(data: Any) -> None:
        """Sent by ``/screens/<name>``: ``{"screen": name}``; answered at once with ``screen``."""
        name = data.get("screen") if isinstance(data, dict) else None
        if not isinstance(name, str) or not NAME.match(name):
            emit("error", {"error": "not_found", "message": f"no screen {name}"})
            return
        join_room(room(name))
        emit("screen", describe(svc.screen(name)))

    def on_leave(data: Any) -> None:
        if isinstance(data, dict) and isinstance(data.get("screen"), str):
            leave_room(room(data["screen"]))

    socketio.on_event("join_screen", on_join)
    socketio.on_event("leave_screen", on_leave)
    app.register_blueprint(bp)


def describe(screen: dict[str, Any]) -> dict[str, Any]:
    """A screen as its page needs it: what it shows and the address of the page that shows it."""
    show = screen.get("show", "blank")
    src = None
    if show == "scoreboard":
        src = url_for("pages.scoreboard", match_id=screen["match"])
    elif show == "lineups":
        src = url_for("pages.lineups", match_id=screen["match"])
    elif show == "competition":
        src = url_for("competition_pages.screen", comp_id=screen["competition"])
    image = image_url(screen["image"]) if show == "slide" and screen.get("image") else None
    return {**screen, "src": src, "image_url": image}


# ---------------------------------------------------------------------------------------------
# API


@bp.errorhandler(ApiError)
def _api_error(exc: ApiError) -> tuple[Response, int]:
    return jsonify({"error": exc.error, "message": exc.message, **exc.extra}), exc.status


bp.register_error_handler(BadBody, bad_body_answer)  # D44 on every route (D151)


@bp.get("/api/screens")
def list_screens() -> Response:
    return jsonify([describe(s) for s in screens().screens.values()])


@bp.get("/api/screens/<name>")
def get_screen(name: str) -> Response:
    if name not in screens().screens:
        raise ApiError(404, "not_found", f"no screen {name}")
    return jsonify(describe(screens().screens[name]))


@bp.put("/api/screens/<name>")
@organiser_required
def put_screen(name: str) -> tuple[Response, int]:
    if not NAME.match(name):
        raise _invalid("name", "a screen's name is 1 to 40 lower-case letters, digits, '-' or '_'")
    body = read_json(request)  # the one strict reader (D44, D151)
    if not isinstance(body, dict):
        raise ApiError(400, "invalid", "the body is not a JSON object", fields={"_schema": ["not a JSON object"]})
    try:
        content = ScreenContentSchema().load(body)
    except ValidationError as exc:
        raise ApiError(400, "invalid", "the screen does not fit the schema", fields=exc.normalized_messages()) from exc
    needed = NEEDS.get(content["show"])
    if needed and not content[needed]:
        raise _invalid(needed, f"showing {content['show']} needs a {needed}")
    # Keep only what this choice uses, so the stored record says exactly what the screen shows.
    content = {
        "show": content["show"],
        **({needed: content[needed]} if needed else {}),
        **({"caption": content["caption"]} if content["show"] == "slide" else {}),
    }
    svc = screens()
    if needed == "match" and content["match"] not in service().matches:
        raise _invalid("match", f"no match {content['match']}")
    if needed == "competition" and content["competition"] not in current_app.extensions["qalisball_competitions"].competitions:
        raise _invalid("competition", f"no competition {content['competition']}")
    if needed == "image" and content["image"] not in svc.images:
        raise _invalid("image", f"no image {content['image']}")
    screen, created = svc.set_screen(name, content)
    return jsonify(describe(screen)), 201 if created else 200


@bp.delete("/api/screens/<name>")
@organiser_required
def delete_screen(name: str) -> tuple[str, int]:
    if name not in screens().screens:
        raise ApiError(404, "not_found", f"no screen {name}")
    screens().delete_screen(name)
    return "", 204


def _upload(kind: str) -> tuple[bytes, dict[str, str]]:
    """The uploaded ``file`` (read no further than the kind's limit) and the form's other fields.

    Read before the form is looked at, with this limit: ``request.form`` read first would parse the body
    under the app's 256 KB ``MAX_CONTENT_LENGTH`` and answer a 5 MB slide 413 (D152)."""
    limit = MAX_BYTES[kind]
    if request.content_length is not None and request.content_length > limit + 64_000:
        raise _invalid(
            "file", f"the upload has {request.content_length} bytes: a {kind} may have at most {limit // 1_000_000} MB"
        )
    request.max_content_length = limit + 64_000  # a body without a length is cut off here (Flask 3.1)
    try:
        upload = request.files.get("file")
        form = request.form.to_dict()
    except RequestEntityTooLarge as exc:
        raise _invalid("file", f"a {kind} may have at most {limit // 1_000_000} MB") from exc
    if upload is None:
        raise _invalid("file", "send the image as the multipart field 'file'")
    return upload.read(limit + 1), form


def _form_text(form: dict[str, str], field: str, max_length: int, required: bool = False) -> str:
    """A form field through the one text validator (D45, D151), its spaces collapsed; 400 when it fails."""
    raw = form.get(field, "")
    problem = text_problem(raw, blank=not required)
    if problem is None and len(raw) > max_length:
        problem = f"at most {max_length} characters"
    if problem is not None:
        raise _invalid(field, f"{field}: {problem}")
    return " ".join(raw.split())


@bp.post("/api/images")
@organiser_required
def post_image() -> tuple[Response, int]:
    named = request.args.get("kind")  # read before the body: the form's ``kind`` needs the body read
    if named is not None and named not in MAX_BYTES:
        raise _invalid("kind", "kind is 'slide' or 'logo'")
    data, form = _upload(named or "slide")  # unnamed: read up to a slide's limit, the larger
    kind = named or form.get("kind") or "slide"
    if kind not in MAX_BYTES:
        raise _invalid("kind", "kind is 'slide' or 'logo'")
    title = _form_text(form, "title", 120)
    row = screens().add_image(data, kind, title)
    return jsonify({**row, "url": image_url(row["id"])}), 201


@bp.get("/api/images")
def list_images() -> Response:
    return jsonify([{**row, "url": image_url(row["id"])} for row in screens().images.values()])


@bp.delete("/api/images/<image_id>")
@organiser_required
def delete_image(image_id: str) -> tuple[str, int]:
    if image_id not in screens().images:
        raise ApiError(404, "not_found", f"no image {image_id}")
    screens().delete_image(image_id)
    return "", 204


@bp.post("/api/logos")
@organiser_required
def post_logo() -> tuple[Response, int]:
    data, form = _upload("logo")
    if not form.get("team", "").strip():
        raise _invalid("team", "name the team (1 to 80 characters), as its matches name it")
    team = _form_text(form, "team", 80, required=True)
    svc = screens()
    image = svc.add_image(data, "logo", team)
    row = svc.set_logo(team, image["id"])
    return jsonify({"team": row["team"], "image": image["id"], "url": image_url(image["id"])}), 201


@bp.get("/api/logos")
def list_logos() -> Response:
    return jsonify({row["team"]: image_url(row["image_id"]) for row in screens().logos.values()})


@bp.delete("/api/logos")
@organiser_required
def delete_logo() -> tuple[str, int]:
    team = request.args.get("team", "")
    if not screens().delete_logo(team):
        raise ApiError(404, "not_found", f"no logo for {team!r}")
    return "", 204


@bp.get("/images/<image_id>")
def image(image_id: str) -> Response:
    found = screens().db.image_data(image_id) if image_id in screens().images else None
    if found is None:
        abort(404)
    content_type, data = found
    resp = Response(data, mimetype=content_type)
    # The id is the content's hash: the bytes behind an address never change.
    resp.headers["Cache-Control"] = "public, max-age=31536000, immutable"
    resp.headers["X-Content-Type-Options"] = "nosniff"
    return resp


# ---------------------------------------------------------------------------------------------
# Pages


@bp.get("/screens")
def organiser_page() -> str:
    """The organiser's page: every screen with what it shows and a form to switch it; images, logos."""
    svc = screens()
    comps = current_app.extensions["qalisball_competitions"].competitions
    matches = [service().summary(m) for m in reversed(list(service().matches.values()))]
    teams = sorted(
        {s["home"] for s in matches}
        | {s["away"] for s in matches}
        | {t.name for t in current_app.extensions["qalisball_competitions"].teams.values()}
    )
    return render_template(
        "venue/screens.html",
        screens=[describe(s) for s in svc.screens.values()],
        shows={k: str(v) for k, v in SHOWS.items()},
        matches=matches,
        competitions=sorted(comps.values(), key=lambda c: c.created_at, reverse=True),
        images=list(svc.images.values()),
        logos=sorted(svc.logos.values(), key=lambda r: r["team"]),
        teams=teams,
        image_url=image_url,
        vocab=i18n.vocabulary(),
        page={"lang": i18n.current_language(), "strings": page_strings(), **organiser_page_data()},
    )


@bp.get("/screens/<name>")
def venue_screen(name: str) -> str:
    """A venue's screen: shows what the organiser chose for ``name`` and follows each new choice."""
    if not NAME.match(name):
        abort(404)
    screen = describe(screens().screen(name))
    return render_template(
        "venue/venue_screen.html",
        screen=screen,
        page={"screen": name, "current": screen, "lang": i18n.current_language(), "strings": page_strings()},
    )


_JS = {
    "saved": _l("Saved"),
    "failed": _l("Not accepted"),
    "token_needed": _l("Enter the organiser token to make changes"),
    "token_rejected": _l("The organiser token was not accepted"),
    "uploaded": _l("Uploaded"),
    "confirm_delete": _l("Delete {what}?"),
}


def page_strings() -> dict[str, str]:
    return {**i18n.js_strings(), **i18n.screen_strings(), **{k: str(v) for k, v in _JS.items()}}
