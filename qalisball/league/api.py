"""The league's HTTP API (issue 31, API.md "The league", docs/league.md): venues and ingest at the central, the
sender's status at a venue, and the central's read-only guard on a venue's matches (SPEC L1, D370).

- ``POST /api/league/venues`` ``{"name"}`` (organiser) → 201 ``{"id", "key"}``; ``GET /api/league/venues``
  (organiser) → ``[{"id", "name", "last_seen", "matches", "behind_s"}]`` (``"key_revoked": true`` while it has none).
- ``DELETE /api/league/venues/<id>/key`` (organiser) → ``{"id", "key_revoked": true}``; ``POST
  /api/league/venues/<id>/key`` → 201 ``{"id", "key"}``, a new key, the old one revoked (D380). A revoked key is a
  403 ``forbidden`` saying so (``revoked_at``), nothing read or stored.
- ``GET /api/league/ingest`` (``Authorization: Bearer <venue key>``) → ``{"cursor", "digest"}``: what the central
  holds from that venue; ``POST /api/league/ingest`` a batch (``central.py``) → 200 ``{"cursor", "digest",
  "stored"}``, 409 ``conflict`` with ``cursor`` (nothing stored), 400 ``invalid``, 401 without a venue key.
- ``GET /api/league/upstream`` (organiser, at a venue) → ``{"upstream", "connected", "pending", "last_ack",
  "last_error"}``; 404 ``not_found`` at a server without ``QALISBALL_UPSTREAM``.

A league competition (issue 31 item 4, L4, D375–D378):

- at the central: ``PUT /api/competitions/<id>/fixtures/<fid>/venue`` ``{"venue"}`` (organiser) → the assignment;
  ``GET /api/league/assignments`` (organiser, ``?competition=``) → each fixture given to a venue, its match and the
  suspensions its venue did not know of (``late_suspensions``); ``GET /api/league/assigned`` (venue key) → the
  fixtures given to that venue, with rosters, officials and suspensions; ``POST /api/league/claims`` (venue key)
  ``{"fixture", "match"}`` → the venue made that match of that fixture (409 ``conflict`` for a second).
- at a venue: ``GET /api/league/fixtures`` (organiser) → the fixtures as last fetched; ``POST
  /api/league/fixtures/<fid>/match`` (organiser, lineups) → 201 ``{"id", "tokens"}``.
"""

from __future__ import annotations

import re
from typing import Any

from flask import Blueprint, Flask, Response, jsonify, request
from flask_babel import gettext

from qalisball.league.assignments import AssignError, Assignments
from qalisball.league.central import BadBatch, Central, Refused
from qalisball.league.upstream import Upstream
from qalisball.league.venue_fixtures import FixtureError, VenueFixtures
from qalisball.web import refusal_words
from qalisball.web.errors import ApiError, answer_api_errors, invalid
from qalisball.web.guards import organiser_required, request_token
from qalisball.web.services import Slot
from qalisball.web.strict_json import KB, read_json

bp = Blueprint("league", __name__, url_prefix="/api/league")
answer_api_errors(bp)
competition_bp = Blueprint("league_competitions", __name__, url_prefix="/api/competitions")
answer_api_errors(competition_bp)

CENTRAL: Slot[Central] = Slot("qalisball_league_central")
UPSTREAM: Slot[Upstream] = Slot("qalisball_league_upstream")
ASSIGNMENTS: Slot[Assignments] = Slot("qalisball_league_assignments")
FIXTURES: Slot[VenueFixtures] = Slot("qalisball_league_fixtures")
BATCH_LIMIT = 16 * 1024 * KB  # a batch of messages (the sender keeps its batches near 2 MB)
NAME_MAX = 100
# A match's writes, pages' and API's: every one is the venue's at the central (L1); a venue's own competition's and
# the teams it names the same (D379).
MATCH_PATH = re.compile(r"^/(?:api/)?matches/([^/]+)(?:/|$)")
COMPETITION_PATH = re.compile(r"^/(?:api/)?competitions/([^/]+)(?:/|$)")
TEAM_PATH = re.compile(r"^/api/teams/([^/]+)(?:/|$)")
SAFE = ("GET", "HEAD", "OPTIONS")


def init_app(app: Flask, central: Central, upstream: Upstream | None, assignments: Assignments) -> None:
    CENTRAL.install(app, central)
    ASSIGNMENTS.install(app, assignments)
    if upstream is not None:
        UPSTREAM.install(app, upstream)
        if upstream.fixtures is not None:
            FIXTURES.install(app, upstream.fixtures)
    app.register_blueprint(bp)
    app.register_blueprint(competition_bp)
    from qalisball.league import pages

    app.register_blueprint(pages.bp)
    app.before_request(_read_only_copies)

    def mark() -> dict[str, Any] | None:
        sender = UPSTREAM.find()
        shown = sender.mark() if sender is not None else None
        if shown is not None and shown["said"] is not None:  # in the page's language (D373), never the network's words
            said = shown["said"]
            shown["error"] = str(gettext(said.template)).format(**said.params)
        return shown

    @app.context_processor
    def league_globals() -> dict[str, Any]:
        return {
            "league_mark": mark,
            "league_venue": upstream is not None,  # the organiser's index links the league's fixtures (L4)
        }


def _read_only_copies() -> Response | None:
    """Every write to a venue's match at the central is a 403: its writer is the venue (L1, D370)."""
    if request.method in SAFE:
        return None
    central = CENTRAL()
    venue, what = None, ""
    if found := MATCH_PATH.match(request.path):
        venue, what = central.match_venue.get(found.group(1)), "match"
    elif found := COMPETITION_PATH.match(request.path):
        venue, what = central.competition_venue.get(found.group(1)), "competition"
    elif found := TEAM_PATH.match(request.path):
        venue, what = central.record_venue.get(("team", found.group(1))), "team"
    if venue is None:
        return None
    message = f"this {what} is written at its venue ({venue}); the central holds a read-only copy"
    answer = jsonify({"error": "forbidden", "message": message})
    answer.status_code = 403
    return answer


@bp.post("/venues")
@organiser_required
def add_venue() -> tuple[Response, int]:
    body = read_json(request)
    name = body.get("name") if isinstance(body, dict) else None
    if not isinstance(name, str) or not name.strip() or len(name) > NAME_MAX:
        raise invalid("name", f"the venue's name, 1 to {NAME_MAX} characters")
    v, key = CENTRAL().add_venue(name.strip())
    return jsonify({"id": v.id, "key": key}), 201


@bp.get("/venues")
@organiser_required
def list_venues() -> Response:
    return jsonify(CENTRAL().listing())


def _venue() -> Any:
    central = CENTRAL()
    key = request_token()
    v = central.venue_of_key(key)
    if v is not None:
        return v
    revoked = central.revoked_key(key)
    if revoked is not None:  # known, and no longer this venue's (D380): nothing is read or stored
        venue, at = revoked
        raise ApiError(
            403,
            "forbidden",
            f"this venue key of {venue.name} ({venue.id}) was revoked at the central at {at}: nothing was stored; "
            "the league's organiser gives the venue a new key (QALISBALL_UPSTREAM_KEY)",
            revoked_at=at,
        )
    raise ApiError(401, "unauthorized", "this needs a venue key the central issued (POST /api/league/venues)")


@bp.delete("/venues/<venue_id>/key")
@organiser_required
def revoke_key(venue_id: str) -> Response:
    """Revoke a venue's key (D380): it writes nothing more; what the venue sent stays."""
    v = _known_venue(venue_id)
    CENTRAL().revoke_key(v, reissue=False)
    return jsonify({"id": v.id, "key_revoked": True})


@bp.post("/venues/<venue_id>/key")
@organiser_required
def reissue_key(venue_id: str) -> tuple[Response, int]:
    """A new key for a venue (D380): the old one is revoked; the new one is shown once."""
    v = _known_venue(venue_id)
    key = CENTRAL().revoke_key(v, reissue=True)
    return jsonify({"id": v.id, "key": key}), 201


def _known_venue(venue_id: str) -> Any:
    v = CENTRAL().venues.get(venue_id)
    if v is None:
        raise ApiError(404, "not_found", f"no venue {venue_id}")
    return v


@bp.get("/ingest")
def held() -> Response:
    central = CENTRAL()
    v = _venue()
    central.seen(v)
    return jsonify(central.held(v))


@bp.post("/ingest")
def ingest() -> Response | tuple[Response, int]:
    central = CENTRAL()
    v = _venue()
    request.max_content_length = BATCH_LIMIT  # above the app's 256 KB: a catch-up batch is larger
    body = read_json(request, limit=BATCH_LIMIT)
    try:
        return jsonify(central.ingest(v, body))
    except BadBatch as exc:
        raise invalid(exc.field, exc.message) from exc
    except Refused as exc:
        raise ApiError(409, "conflict", exc.message, cursor=str(exc.cursor)) from exc


@bp.get("/upstream")
@organiser_required
def upstream_status() -> Response:
    upstream = UPSTREAM.find()
    if upstream is None:
        raise ApiError(404, "not_found", "this server sends to no central (QALISBALL_UPSTREAM is not set)")
    return jsonify(upstream.status())


# -- a league competition (L4) ------------------------------------------------------------------------


def _refused(exc: AssignError | FixtureError) -> ApiError:
    if isinstance(exc, AssignError):
        extra: dict[str, Any] = {"fields": {exc.field: [exc.message]}} if exc.field else {}
        return ApiError(exc.status, exc.error, exc.message, **extra)
    extra = dict(exc.extra)
    violation = extra.pop("violation", None)
    if violation is not None:  # in the organiser's language, as the competitions' refusals (docs/api-extras.md)
        extra["message_en"] = exc.message
        return ApiError(exc.status, exc.error, refusal_words.refusal(violation), **extra)
    return ApiError(exc.status, exc.error, exc.message, **extra)


@competition_bp.put("/<comp_id>/fixtures/<fid>/venue")
@organiser_required
def assign_fixture(comp_id: str, fid: str) -> Response:
    body = read_json(request)
    try:
        a = ASSIGNMENTS().assign(comp_id, fid, body.get("venue") if isinstance(body, dict) else None)
    except AssignError as exc:
        raise _refused(exc) from exc
    return jsonify(ASSIGNMENTS().public(a))


@bp.get("/assignments")
@organiser_required
def list_assignments() -> Response:
    assignments = ASSIGNMENTS()
    comp_id = request.args.get("competition")
    chosen = assignments.of_competition(comp_id) if comp_id else list(assignments.by_fixture.values())
    return jsonify([assignments.public(a) for a in chosen])


@bp.get("/assigned")
def assigned() -> Response:
    central = CENTRAL()
    v = _venue()
    central.seen(v)
    try:
        return jsonify(ASSIGNMENTS().assigned(v))
    except AssignError as exc:
        raise _refused(exc) from exc


@bp.post("/claims")
def claim() -> Response:
    v = _venue()
    try:
        return jsonify(ASSIGNMENTS().claim(v, read_json(request)))
    except AssignError as exc:
        raise _refused(exc) from exc


def _fixtures() -> VenueFixtures:
    fixtures = FIXTURES.find()
    if fixtures is None:
        raise ApiError(404, "not_found", "this server is no league's venue (QALISBALL_UPSTREAM is not set)")
    return fixtures


@bp.get("/fixtures")
@organiser_required
def venue_fixtures() -> Response:
    return jsonify(_fixtures().listing())


@bp.post("/fixtures/<fid>/match")
@organiser_required
def make_fixture_match(fid: str) -> tuple[Response, int]:
    fixtures = _fixtures()
    try:
        m = fixtures.make_match(fid, read_json(request))
    except FixtureError as exc:
        raise _refused(exc) from exc
    upstream = UPSTREAM.find()
    if upstream is not None and upstream.store.journal is not None:
        upstream.store.journal.wake()  # the sender tells the central at once when it can
    return jsonify({"id": m.id, "tokens": m.tokens}), 201


def competition_origin(comp_id: str) -> str | None:
    """The venue that writes ``comp_id``, when it is a venue's own (for ``GET /api/competitions``' ``venue``, D379)."""
    central = CENTRAL.find()
    return None if central is None else central.competition_venue.get(comp_id)


def origin(match_id: str) -> str | None:
    """The venue that writes ``match_id``, when it is a venue's (for ``GET /api/matches``' ``venue``)."""
    central = CENTRAL.find()
    return None if central is None else central.match_venue.get(match_id)
