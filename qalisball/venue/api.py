"""The venue screens' HTTP API (issue 13): screens, uploaded images and team logos.

API (writes need the organiser token; checks in API.md's order: 401/403, 404, 400, 409):

- ``GET /api/screens``, ``GET /api/screens/<name>``; ``PUT /api/screens/<name>`` ``{"show", "match"?,
  "competition"?, "image"?, "caption"?}`` (201 created, 200 replaced); ``DELETE /api/screens/<name>``.
- ``POST /api/images`` (multipart: ``file``, ``kind`` ``slide``/``logo``, ``title``?) → 201; ``GET
  /api/images``; ``DELETE /api/images/<id>`` (409 while a logo or a screen uses it); ``GET /images/<id>``.
- ``POST /api/logos`` (multipart: ``team``, ``file``) → 201; ``GET /api/logos``; ``DELETE /api/logos?team=``.

The API and the pages (``pages.py``) share the blueprint ``screens`` (``blueprint.py``): its endpoint names
(``screens.put_screen``, ``screens.organiser_page``…) are those templates and tests use. ``init_app`` wires
the service, the blueprint and the live room (``live.py``).
"""

from __future__ import annotations

from flask import Flask, Response, abort, jsonify, request
from flask_socketio import SocketIO
from marshmallow import ValidationError
from werkzeug.exceptions import RequestEntityTooLarge

from qalisball.live.rooms import JoinGate
from qalisball.match.schemas import text_problem
from qalisball.match.slots import MATCHES, match_service
from qalisball.venue import live as venue_live
from qalisball.venue.blueprint import bp
from qalisball.venue.schemas import MAX_BYTES, NAME, NEEDS, ScreenContentSchema
from qalisball.venue.service import ScreenService, describe, image_url
from qalisball.venue.slots import SCREENS, competitions, screen_service
from qalisball.web import services
from qalisball.web.errors import ApiError, answer_api_errors, invalid
from qalisball.web.guards import organiser_required
from qalisball.web.strict_json import read_json


def init_app(app: Flask, socketio: SocketIO, gate: JoinGate) -> None:
    """The screen service (which also answers the teams' logos: ``services.logos()``), its API and pages,
    and its live room."""
    matches = MATCHES.of(app)
    svc = SCREENS.install(app, ScreenService(matches.store, matches))
    services.LOGOS.install(app, svc)
    venue_live.init_room(app, socketio, svc, matches, gate)
    from qalisball.venue import pages  # noqa: F401  (its routes join this blueprint before it is registered)

    app.register_blueprint(bp)


# ---------------------------------------------------------------------------------------------
# API

answer_api_errors(bp)  # ApiError, and D44's bad bodies on every route (D151)


@bp.get("/api/screens")
def list_screens() -> Response:
    return jsonify([describe(s) for s in screen_service().screens.values()])


@bp.get("/api/screens/<name>")
def get_screen(name: str) -> Response:
    if name not in screen_service().screens:
        raise ApiError(404, "not_found", f"no screen {name}")
    return jsonify(describe(screen_service().screens[name]))


@bp.put("/api/screens/<name>")
@organiser_required
def put_screen(name: str) -> tuple[Response, int]:
    if not NAME.match(name):
        raise invalid("name", "a screen's name is 1 to 40 lower-case letters, digits, '-' or '_'")
    body = read_json(request)  # the one strict reader (D44, D151)
    if not isinstance(body, dict):
        raise ApiError(400, "invalid", "the body is not a JSON object", fields={"_schema": ["not a JSON object"]})
    try:
        content = ScreenContentSchema().load(body)
    except ValidationError as exc:
        raise ApiError(400, "invalid", "the screen does not fit the schema", fields=exc.normalized_messages()) from exc
    needed = NEEDS.get(content["show"])
    if needed and not content[needed]:
        raise invalid(needed, f"showing {content['show']} needs a {needed}")
    # Keep only what this choice uses, so the stored record says exactly what the screen shows.
    content = {
        "show": content["show"],
        **({needed: content[needed]} if needed else {}),
        **({"caption": content["caption"]} if content["show"] == "slide" else {}),
    }
    svc = screen_service()
    if needed == "match" and content["match"] not in match_service().matches:
        raise invalid("match", f"no match {content['match']}")
    if needed == "competition" and content["competition"] not in competitions().competitions:
        raise invalid("competition", f"no competition {content['competition']}")
    if needed == "image" and content["image"] not in svc.images:
        raise invalid("image", f"no image {content['image']}")
    screen, created = svc.set_screen(name, content)
    return jsonify(describe(screen)), 201 if created else 200


@bp.delete("/api/screens/<name>")
@organiser_required
def delete_screen(name: str) -> tuple[str, int]:
    if name not in screen_service().screens:
        raise ApiError(404, "not_found", f"no screen {name}")
    screen_service().delete_screen(name)
    return "", 204


def _upload(kind: str) -> tuple[bytes, dict[str, str]]:
    """The uploaded ``file`` (read no further than the kind's limit) and the form's other fields.

    Read before the form is looked at, with this limit: ``request.form`` read first would parse the body
    under the app's 256 KB ``MAX_CONTENT_LENGTH`` and answer a 5 MB slide 413 (D152)."""
    limit = MAX_BYTES[kind]
    if request.content_length is not None and request.content_length > limit + 64_000:
        raise invalid("file", f"the upload has {request.content_length} bytes: a {kind} may have at most {limit // 1_000_000} MB")
    request.max_content_length = limit + 64_000  # a body without a length is cut off here (Flask 3.1)
    try:
        upload = request.files.get("file")
        form = request.form.to_dict()
    except RequestEntityTooLarge as exc:
        raise invalid("file", f"a {kind} may have at most {limit // 1_000_000} MB") from exc
    if upload is None:
        raise invalid("file", "send the image as the multipart field 'file'")
    return upload.read(limit + 1), form


def _form_text(form: dict[str, str], field: str, max_length: int, required: bool = False) -> str:
    """A form field through the one text validator (D45, D151), its spaces collapsed; 400 when it fails."""
    raw = form.get(field, "")
    problem = text_problem(raw, blank=not required)
    if problem is None and len(raw) > max_length:
        problem = f"at most {max_length} characters"
    if problem is not None:
        raise invalid(field, f"{field}: {problem}")
    return " ".join(raw.split())


@bp.post("/api/images")
@organiser_required
def post_image() -> tuple[Response, int]:
    named = request.args.get("kind")  # read before the body: the form's ``kind`` needs the body read
    if named is not None and named not in MAX_BYTES:
        raise invalid("kind", "kind is 'slide' or 'logo'")
    data, form = _upload(named or "slide")  # unnamed: read up to a slide's limit, the larger
    kind = named or form.get("kind") or "slide"
    if kind not in MAX_BYTES:
        raise invalid("kind", "kind is 'slide' or 'logo'")
    title = _form_text(form, "title", 120)
    row = screen_service().add_image(data, kind, title)
    return jsonify({**row, "url": image_url(row["id"])}), 201


@bp.get("/api/images")
def list_images() -> Response:
    return jsonify([{**row, "url": image_url(row["id"])} for row in screen_service().images.values()])


@bp.delete("/api/images/<image_id>")
@organiser_required
def delete_image(image_id: str) -> tuple[str, int]:
    if image_id not in screen_service().images:
        raise ApiError(404, "not_found", f"no image {image_id}")
    screen_service().delete_image(image_id)
    return "", 204


@bp.post("/api/logos")
@organiser_required
def post_logo() -> tuple[Response, int]:
    data, form = _upload("logo")
    if not form.get("team", "").strip():
        raise invalid("team", "name the team (1 to 80 characters), as its matches name it")
    team = _form_text(form, "team", 80, required=True)
    svc = screen_service()
    image = svc.add_image(data, "logo", team)
    row = svc.set_logo(team, image["id"])
    return jsonify({"team": row["team"], "image": image["id"], "url": image_url(image["id"])}), 201


@bp.get("/api/logos")
def list_logos() -> Response:
    return jsonify({row["team"]: image_url(row["image_id"]) for row in screen_service().logos.values()})


@bp.delete("/api/logos")
@organiser_required
def delete_logo() -> tuple[str, int]:
    team = request.args.get("team", "")
    if not screen_service().delete_logo(team):
        raise ApiError(404, "not_found", f"no logo for {team!r}")
    return "", 204


@bp.get("/images/<image_id>")
def image(image_id: str) -> Response:
    found = screen_service().db.image_data(image_id) if image_id in screen_service().images else None
    if found is None:
        abort(404)
    content_type, data = found
    resp = Response(data, mimetype=content_type)
    # The id is the content's hash: the bytes behind an address never change.
    resp.headers["Cache-Control"] = "public, max-age=31536000, immutable"
    resp.headers["X-Content-Type-Options"] = "nosniff"
    return resp
