"""The pages people look at (API.md "Pages and reports"), rendered on the server, then live over Socket.IO.

- ``/``: matches; with the organiser token, a form to create one.
- ``/matches/<id>/officials?token=<organiser>``: one QR code per official's role (the console links).
- ``/matches/<id>/referee?token=<role token>``: the officials' console; shows only what that role may do.
  A token in a link is exchanged at once for an HttpOnly cookie and the address loses it (``token_links.py``,
  D53): these pages read the cookie, and hand their scripts its CSRF token, never the token (D54).
- ``/matches/<id>/scoreboard`` (``?overlay=1``: transparent, for stream software): the big screen.
- ``/matches/<id>``: the spectator page for phones.

Every page carries its text already rendered (team names, score, clock), so a slow projector PC shows
the score before its script runs; the script then joins the match's Socket.IO room and keeps the page
current. What the script needs is handed over once as JSON (``page-data``).
"""

from __future__ import annotations

import unicodedata
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlencode, urlsplit

import qrcode
from flask import Blueprint, Response, abort, current_app, jsonify, redirect, render_template, request, url_for
from flask_babel import gettext

from qalisball.match import live as match_live
from qalisball.match import notice_words
from qalisball.match import slots as match_slots
from qalisball.match.catalogue_api import catalogue_json, rule_books_json
from qalisball.match.engine_messages import ENGINE_MESSAGES
from qalisball.match.service import Match, MatchService, NotFound
from qalisball.rules import catalogue, engine, notices
from qalisball.rules.catalogue import ROLES
from qalisball.rules.common import TEAMS
from qalisball.rules.corrections import undo_barred_authors
from qalisball.rules.forecast import forecast_rules
from qalisball.web import i18n, refusal_words, rulebook, services
from qalisball.web.credentials import csrf_for
from qalisball.web.field_svg import field_svg
from qalisball.web.guards import held_role, is_organiser, organiser_cookie, request_token, token_refused

bp = Blueprint("pages", __name__)


def _match(match_id: str) -> Match:
    try:
        return match_slots.match_service().get(match_id)
    except NotFound:
        abort(404)


def console_calls(role: str, rule_set: str = "2.0", cat: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The console's calls that ``role`` may make, labels in the page's language, in button order: built from
    the catalogue answer the console's page embeds (``GET /api/catalogue``), exactly as the console's script
    builds them from it (static/js/lib/catalogue.js ``callsFor``), for the buttons the page renders.

    Each call also says what the call builder asks for: the event's fields (``params``, less the one that
    names the variant) and whether the schema refuses it without a spot (``spot``). The match's rule book
    words the calls (V1-D16) and leaves out what it does not have (V1-D10: no card, no card on a foul).
    """
    cat = cat or catalogue_json()
    lang = i18n.current_language()
    book = cat["rule_books"][rule_set]
    out = []
    for e in cat["events"]:
        if e["group"] != "call" or e["type"] in book["without_types"]:
            continue
        params = [f for f in e["fields"] if f["name"] != e["variant_field"] and f["name"] not in book["without_fields"]]
        for v in e["variants"] or [None]:
            src = v or e
            if role not in src["who"]:
                continue
            call = v["name"] if v else e["type"]
            out.append(
                {
                    "call": call,
                    "type": e["type"],
                    "param": e["variant_field"],
                    "variant": v["name"] if v else None,
                    "label": book["labels"].get(call, src["label"])[lang],
                    "key": src["key"],
                    "who": src["who"],
                    "params": params,
                    "spot": src["spot"],
                }
            )
    return out


# The vocabulary's groups that are the catalogue's labels: a console reads them from its embedded catalogue.
CATALOGUE_WORDS = ("event", "violation", "clock", "card", "role", "signer", "restart")


def rule_messages() -> tuple[str, ...]:
    """Every message the rule core marks with ``N_`` (refusal templates and the phrases they name), as
    Babel's extractor found them at build time (`make messages`): no source is parsed at run time."""
    return ENGINE_MESSAGES


def rule_templates() -> dict[str, str]:
    """The rule core's messages in the page's language, keyed by their English: the console renders the
    engine's reasons (the state's ``legal``) from them as ``api.localised_refusal`` does."""
    return {m: str(gettext(m)) for m in rule_messages()}


def qr_svg(data: str, css_class: str = "qr", label: str = "") -> str:
    """A QR code of ``data`` (qrcode's matrix) as compact SVG: one path, runs of dark modules merged."""
    code = qrcode.QRCode(border=2, error_correction=qrcode.constants.ERROR_CORRECT_M)
    code.add_data(data)
    code.make(fit=True)
    matrix = code.get_matrix()
    size = len(matrix)
    parts: list[str] = []
    for y, row in enumerate(matrix):
        x = 0
        while x < size:
            if row[x]:
                start = x
                while x < size and row[x]:
                    x += 1
                parts.append(f"M{start} {y}h{x - start}v1h-{x - start}z")
            else:
                x += 1
    # An image's text alternative (D180): the role's name, or else the address the code carries.
    title = f"<title>{_escape(label or data)}</title>"
    return (
        f'<svg class="{css_class}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {size} {size}" '
        f'shape-rendering="crispEdges" role="img" data-qr="{_escape(data)}">{title}'
        f'<rect width="{size}" height="{size}" fill="#fff"/><path fill="#000" d="{"".join(parts)}"/></svg>'
    )


def _escape(text: str) -> str:
    from markupsafe import escape

    return str(escape(text))


def _external(endpoint: str, **values: Any) -> str:
    """An absolute URL for QR codes: ``QALISBALL_PUBLIC_URL`` when configured (behind a proxy), else the request's host."""
    base = current_app.config.get("PUBLIC_URL")
    path = url_for(endpoint, **values)
    if base:
        return str(base).rstrip("/") + path
    return request.host_url.rstrip("/") + path


def _is_loopback(url: str) -> bool:
    """Whether ``url`` names this computer only (127.0.0.1, localhost): no tablet can open it."""
    host = (urlsplit(url).hostname or "").lower()
    return host == "localhost" or host.endswith(".localhost") or host == "::1" or host.startswith("127.")


def _roster(state: dict[str, Any]) -> dict[str, dict[str, str]]:
    """Shirt number → name per team, as the rosters are now (SPEC M2: late players, renames,
    renumbers); a renumbered player's first number still names him, for the events logged before."""
    roster: dict[str, dict[str, str]] = {}
    for t in TEAMS:
        ts = state["teams"][t]
        names = dict(ts["players"])
        for now, first in ts["renumbered"].items():
            names.setdefault(str(first), ts["players"][now])
        roster[t] = names
    return roster


def _common(m: Match, official: bool = False) -> dict[str, Any]:
    """What every match page renders from and hands to its script (``legal`` for an official's console only)."""
    state = match_slots.match_service().state(m, legal=official)
    lang = i18n.current_language()
    rule_set = m.setup.rules.rule_set  # the match's rule book words its calls and restarts (V1-D16)
    return {
        "m": m,
        "state": state,
        "roster": _roster(state),
        "vocab": i18n.vocabulary(rule_set),
        "page": {
            "match": m.id,
            "state": state,
            "roster": _roster(state),
            "strings": i18n.js_strings(rule_set),
            "vocab": i18n.vocabulary(rule_set),
            "lang": lang,
        },
    }


def restart_why(state: dict[str, Any], m: Match) -> str:
    """Why the pending restart was given, in the page's language: the engine's template translated and
    filled in (teams by name, phrases translated), its rule, and the 3 m move (10.8) when there was one.
    The same as common.js's ``Q.whyText``, for the page's first render."""
    r = state.get("restart")
    if not r or not r.get("why") or state.get("time_up"):
        return ""
    why = r["why"]
    reason = refusal_words.render(why["template"], why["params"], m.setup)
    text = str(i18n.SCREEN_JS["why_rule"]).format(reason=reason, rule=why["rule"])
    if r.get("origin"):
        text += str(i18n.SCREEN_JS["why_sep"]) + i18n.screen_strings(m.setup.rules.rule_set)["moved_3m"]
    return text


def starts_text(m: Match) -> str:
    """When a match not yet started begins: "Starts at 14:00" (its own time zone), with the date unless today."""
    iso = m.data.get("starts_at")
    if not iso:
        return ""
    at = datetime.fromisoformat(iso)
    today = datetime.fromtimestamp(match_slots.match_service().clock() / 1000, at.tzinfo or None).date()
    if at.date() == today:
        return gettext("Starts at %(time)s", time=at.strftime("%H:%M"))
    if at.date() == today + timedelta(days=1):
        return gettext("Starts tomorrow at %(time)s", time=at.strftime("%H:%M"))
    return gettext("Starts on %(day)s at %(time)s", day=at.strftime("%Y-%m-%d"), time=at.strftime("%H:%M"))


def logos(m: Match) -> dict[str, str | None]:
    """The teams' logos (uploaded once per team name to the venue's service, issue 13), or None."""
    found = services.logos()
    return {t: found.logo_url(m.setup.team(t).name) for t in TEAMS}


def _public(m: Match, ctx: dict[str, Any]) -> dict[str, Any]:
    """What the public screens add to ``_common``: the engine's templates (to explain restarts), the
    start time, the logos, the screens' sentences."""
    starts = starts_text(m)
    ctx["page"]["strings"].update(i18n.screen_strings(m.setup.rules.rule_set))
    ctx["page"].update(
        rule_templates=rule_templates(), starts=starts, logos=logos(m), names={t: m.setup.team(t).name for t in TEAMS}
    )
    ctx.update(why=restart_why(ctx["state"], m), starts=starts, logos=ctx["page"]["logos"])
    return ctx


def mmss(ms: int | None) -> str:
    if ms is None:
        return "--:--"
    sec = max(0, int(ms)) // 1000
    return f"{sec // 60:02d}:{sec % 60:02d}"


@bp.app_template_filter("mmss")
def _mmss_filter(ms: int | None) -> str:
    return mmss(ms)


@bp.app_template_filter("fit_vw")
def fit_vw(name: str, width_vw: float, largest_vw: float) -> float:
    """The font size (vw) at which ``name`` fits in ``width_vw`` on one line: CJK characters are 1 em wide, others ~0.58 em."""
    ems = sum(1.0 if unicodedata.east_asian_width(c) in "WF" else 0.58 for c in name) or 1.0
    return round(min(largest_vw, width_vw / ems), 2)


@bp.app_template_global()
def clock_text(state: dict[str, Any]) -> str:
    """The clock as a page shows it first: the half's elapsed time, half-time's time left."""
    c = state["clock"]
    if state["phase"] == "halftime":
        return mmss(max(0, c["length_ms"] - c["elapsed_ms"]))
    if state["phase"] in ("first_half", "second_half"):
        return mmss(c["elapsed_ms"])
    return mmss(c["elapsed_ms"]) if c["elapsed_ms"] else "00:00"


@bp.app_template_global()
def lang_url(language: str) -> str:
    """The language switch: this page again in ``language`` (remembered on the device)."""
    args = request.args.to_dict()
    args.pop("lang", None)
    here = request.path + ("?" + urlencode(args) if args else "")
    return url_for("pages.switch_language", language=language, next=here)


# ---------------------------------------------------------------------------------------------
# Routes


@bp.get("/lang/<language>")
def switch_language(language: str) -> Response:
    if language not in i18n.LANGUAGES:
        abort(404)
    target = request.args.get("next") or url_for("pages.index")
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/"):
        target = url_for("pages.index")  # never an open redirect
    return i18n.remember(redirect(target), language)


@bp.get("/")
def index() -> str:
    svc = match_slots.match_service()
    # A valid ``?token=`` was already exchanged for the cookie (token_links.py): one still here was refused.
    token = organiser_cookie()
    matches = [_card(svc, m) for m in reversed(list(svc.matches.values()))]
    rule_books = rule_books_json() if token is not None else {}
    return render_template(
        "match/index.html",
        matches=matches,
        rule_books=rule_books,
        lang=i18n.current_language(),
        organiser=token is not None,
        csrf=csrf_for(token) if token else None,
        token_rejected=token_refused(),
        vocab=i18n.vocabulary(),
        page={
            "strings": i18n.js_strings(),
            "organiser": token is not None,
            "csrf": csrf_for(token) if token else None,
            "lang": i18n.current_language(),
            # What each rule book allows the form's settings (SPEC §11.2–§11.4): index.js applies it.
            "rule_books": {rs: {"limits": b["limits"], "defaults": b["defaults"]} for rs, b in rule_books.items()},
        },
    )


def _card(svc: MatchService, m: Match) -> dict[str, Any]:
    """A match on the index: the API's summary, plus the shootout score and the winner's name."""
    card = svc.summary(m)
    state = svc.state(m, legal=False)
    so = state["shootout"]
    card["shootout"] = so["score"] if so else None
    card["winner_name"] = state["teams"][state["winner"]]["name"] if state["winner"] else None
    return card


@bp.get("/matches/<match_id>/officials")
def officials(match_id: str) -> tuple[str, int] | str:
    m = _match(match_id)
    token = organiser_cookie()
    if token is None:
        return render_template("match/token.html", m=m, kind="organiser", rejected=token_refused()), 401
    # Role tokens are stored hashed (D47): a code can be shown only while this process knows its token;
    # for the others the page offers to issue a new one.
    links = {role: _external("pages.console", match_id=m.id, token=m.tokens[role]) for role in ROLES if role in m.tokens}
    spectator = _external("pages.spectator", match_id=m.id)
    state = match_slots.match_service().state(m, legal=False)
    return render_template(
        "match/officials.html",
        m=m,
        back=_officials_back(m.id),
        # The score sheet's box once there is a sheet to show (issue 19.7): a result, a signature, the lock.
        has_sheet=state["locked"] or state["phase"] in ("finished", "abandoned") or bool(state["signatures"]),
        csrf=csrf_for(token),
        missing=[role for role in ROLES if role not in m.tokens],
        writable=match_slots.match_service().damage(m) is None,
        loopback=urlsplit(spectator).netloc if _is_loopback(spectator) else None,
        state=state,
        links=links,
        qr={role: qr_svg(url, label=str(i18n.ROLES[role])) for role, url in links.items()},
        names=m.data.get("officials") or {},  # who holds each role, as the match was created
        spectator=spectator,
        spectator_qr=qr_svg(spectator),
        scoreboard=_external("pages.scoreboard", match_id=m.id),
        overlay=_external("pages.scoreboard", match_id=m.id, overlay=1),
        lineups=_external("pages.lineups", match_id=m.id),
        vocab=i18n.vocabulary(),
        page={
            "match": m.id,
            "csrf": csrf_for(token),
            "state": state,
            "strings": i18n.js_strings(),
            "vocab": i18n.vocabulary(),
            "lang": i18n.current_language(),
        },
    )


def _officials_back(match_id: str) -> dict[str, str]:
    """Where the officials' page's "←" goes: the organiser's page of the competition whose fixture this match
    is (at that fixture), else the list of matches (issue 19.7)."""
    home_of = match_slots.FIXTURE_HOME.find()  # the competitions' answer, handed by create_app (D321)
    home = home_of(match_id) if home_of is not None else None
    if home is not None:
        comp_id, fixture_id, name = home
        return {"href": url_for("competition_pages.admin", comp_id=comp_id, _anchor=f"fx-{fixture_id}"), "label": name}
    return {"href": url_for("pages.index"), "label": gettext("Matches")}


@bp.post("/matches/<match_id>/officials")
def issue_codes(match_id: str) -> Response | tuple[str, int]:
    """The organiser asks for new codes (``role`` fields): each old token stops working (API.md "Match day")."""
    m = _match(match_id)
    # The organiser's cookie, unlocked by the form's csrf field (a cookie without it was refused before this).
    token = request_token()
    if not is_organiser(token):
        return render_template("match/token.html", m=m, kind="organiser", rejected=bool(token)), 401
    for role in dict.fromkeys(request.form.getlist("role")):
        if role in ROLES:  # the API's path: the old code's consoles are told and demoted (D158)
            match_live.live().reissue(m, role)
    # Post/redirect/get: reloading the page must not revoke the codes just shown.
    return redirect(url_for("pages.officials", match_id=m.id), 303)


@bp.get("/matches/<match_id>/referee")
def console(match_id: str) -> tuple[str, int] | str:
    m = _match(match_id)
    # The link's token was exchanged for this tablet's cookie (token_links.py); ``?role=`` says which one.
    held = held_role(m, request.args.get("role"))
    if held is None:
        return render_template("match/token.html", m=m, kind="role", rejected=token_refused()), 401
    role, token = held
    ctx = _common(m, official=True)
    rule_set = m.setup.rules.rule_set
    # The event catalogue exactly as GET /api/catalogue answers it (issue 23): the script builds its calls, keys,
    # rights, codes and labels from it (static/js/lib/catalogue.js) and keeps no copy; embedded, not fetched,
    # so that a console reopened offline (D171) has it. The template's buttons are built from it too.
    cat = catalogue_json()
    calls = console_calls(role, rule_set, cat)
    allowed = list(dict.fromkeys("clock" if c["type"] == "clock" else c["call"] for c in calls))
    keys = {c["call"]: c["key"] for c in calls if c["key"] and c["type"] != "clock"}  # the clock's keys are the console's own
    lang = ctx["page"]["lang"]
    # The match day's events (SPEC §9) this role may post (the catalogue's "who"), for the template's forms.
    who = {e["type"]: e["who"] for e in cat["events"]}
    matchday = {t: role in who[t] for t in ("roster", "amend", "insert", "note", "confirm", "sign")}
    # The catalogue's words (events, calls, roles, restarts…) come from the catalogue: the vocabulary keeps the rest.
    ctx["page"]["vocab"] = {k: v for k, v in ctx["page"]["vocab"].items() if k not in CATALOGUE_WORDS}
    # Issue 27.5: why the pending restart was given, as the scoreboard says it (words.js whyText's words).
    ctx["page"]["strings"] = {**i18n.screen_strings(rule_set), **ctx["page"]["strings"]}
    ctx["why"] = restart_why(ctx["state"], m)
    ctx["page"].update(
        role=role,
        csrf=csrf_for(token),  # the page never carries the token itself (D54)
        rule_set=rule_set,
        catalogue=cat,
        rules=rulebook.titles(lang, rule_set),
        rule_templates=rule_templates(),
        half_ms=m.setup.rules.half_ms,
        halftime_ms=m.setup.rules.halftime_ms,
        # Issue 28 item 6, D340: what a waiting card or half's call does, as the engine answers it (forecast.js).
        forecast=forecast_rules(m.setup),
        log=match_slots.match_service().log(m),
        # SPEC M8: the entries whose yellow was a player's second, from the engine's replay (timeline).
        second_yellows=[e["seq"] for e in timeline(m) if e.get("second_yellow")],
        colors={t: m.setup.team(t).color for t in TEAMS},
        names={t: m.setup.team(t).name for t in TEAMS},
        multi_attack=m.data["rules"]["multi_attack"],
        rounds=m.setup.rules.shootout_rounds,
        # M6, D132: Undo never offers the organiser's events unless this is the organiser (nor, from the
        # catalogue, an event that is not undoable).
        undo={"not_by": undo_barred_authors(role)},
        officials=m.data.get("officials", {}),
    )
    field = field_svg(
        m.setup.field,
        ends=ctx["state"]["ends"],
        colors={t: m.setup.team(t).color for t in TEAMS},
        title=str(_field_title()),
        rule_set=rule_set,
    )
    return render_template(
        "match/console.html", role=role, allowed=allowed, calls=calls, keys=keys, field=field, matchday=matchday, **ctx
    )


@bp.get("/sw.js")
def service_worker() -> Response:
    """The offline shell's service worker (static/js/sw.js), served at the root so that its scope covers
    every page; never cached by the browser's HTTP cache, so a new version is picked up at once."""
    response = current_app.send_static_file("js/sw.js")
    response.headers["Service-Worker-Allowed"] = "/"
    response.headers["Cache-Control"] = "no-cache"
    response.mimetype = "application/javascript"
    return response


def _field_title() -> str:
    from flask_babel import gettext

    return gettext("Field diagram: tap to mark a spot")


# Stream overlays (``/matches/<id>/scoreboard?overlay=1``): the layouts, the parts each shows unless
# ``show=``/``hide=`` say otherwise, and where each sits on the picture unless ``pos=`` says (README).
OVERLAY_LAYOUTS = ("bar", "bug", "third")
OVERLAY_PARTS = ("logos", "clock", "phase", "cards", "restart", "why", "ma", "return", "shootout", "popups")
OVERLAY_DEFAULTS = {
    "bar": frozenset(OVERLAY_PARTS),
    "bug": frozenset({"logos", "clock", "popups"}),
    "third": frozenset(OVERLAY_PARTS),
}
OVERLAY_POSITIONS = ("tl", "tc", "tr", "bl", "bc", "br")
OVERLAY_DEFAULT_POS = {"bar": "tl", "bug": "tl", "third": "bc"}
TRUE = ("1", "true", "yes", "on")


def overlay_options(args: Any) -> dict[str, Any] | None:
    """The overlay's options from its URL (None: the big screen). Unknown values fall back to defaults,
    so a typo in an OBS source shows the default overlay rather than an error page."""
    asked = (args.get("overlay") or "").lower()
    if asked not in TRUE and asked not in OVERLAY_LAYOUTS:
        return None
    layout = asked if asked in OVERLAY_LAYOUTS else (args.get("layout") or "bar").lower()
    if layout not in OVERLAY_LAYOUTS:
        layout = "bar"
    parts = set(OVERLAY_DEFAULTS[layout])
    parts |= {p for p in _words(args.get("show")) if p in OVERLAY_PARTS}
    parts -= _words(args.get("hide"))
    pos = (args.get("pos") or "").lower()
    return {
        "layout": layout,
        "parts": sorted(parts),
        "hidden": [p for p in OVERLAY_PARTS if p not in parts],
        "pos": pos if pos in OVERLAY_POSITIONS else OVERLAY_DEFAULT_POS[layout],
        "delay_ms": int(_number(args.get("delay"), 0, 0, 120) * 1000),
        "popup_ms": int(_number(args.get("popup"), 6, 1, 30) * 1000),
        "sound": (args.get("sound") or "").lower() in TRUE,
    }


def _words(value: str | None) -> set[str]:
    return {w.strip().lower() for w in (value or "").split(",") if w.strip()}


def _number(value: str | None, default: float, low: float, high: float) -> float:
    try:
        n = float(value) if value not in (None, "") else default
    except ValueError:
        return default
    return default if n != n else max(low, min(high, n))  # n != n: NaN


@bp.get("/matches/<match_id>/scoreboard")
def scoreboard(match_id: str) -> str:
    m = _match(match_id)
    ctx = _public(m, _common(m))
    overlay = overlay_options(request.args)
    ctx["page"]["overlay"] = overlay
    spectator = _external("pages.spectator", match_id=m.id)
    return render_template("match/scoreboard.html", overlay=overlay, spectator=spectator, qr=qr_svg(spectator), **ctx)


@bp.get("/matches/<match_id>/lineups")
def lineups(match_id: str) -> str:
    """A big screen before the match (and at half-time): both teams' players, who is on the field, the officials."""
    m = _match(match_id)
    ctx = _public(m, _common(m))
    players = {t: [{"number": p.number, "name": p.name} for p in m.setup.team(t).players] for t in TEAMS}
    officials = [(role, name) for role in ROLES if (name := (m.data.get("officials") or {}).get(role))]
    ctx["page"]["players"] = players
    return render_template("match/lineups.html", players=players, officials=officials, **ctx)


@bp.get("/matches/<match_id>")
def spectator(match_id: str) -> str:
    m = _match(match_id)
    ctx = _public(m, _common(m))
    entries = timeline(m, ctx["roster"])
    # Each period_start/period_end says which half it begins or ends (the timeline's half markers).
    half = 0
    for i, e in enumerate(entries):
        if e["type"] == "period_start":
            half += 1
        if e["type"] in ("period_start", "period_end"):
            entries[i] = {**e, "half": half}
    # A kick's points and taker are the shootout's, in order (the log entry names only team and result).
    kicks = iter((ctx["state"]["shootout"] or {}).get("kicks", []))
    for i, e in enumerate(entries):
        if e["type"] == "shootout_kick":
            k = next(kicks, None)
            if k is not None:
                entries[i] = {**e, "points": k["points"], "taker": k["player"]}
    ctx["page"]["log"] = entries
    # What the timeline shows, from the event catalogue: true, or the field that must be set.
    ctx["page"]["on_timeline"] = {t.type: t.timeline or t.timeline_if or False for t in catalogue.BY_TYPE.values()}
    return render_template("match/spectator.html", timeline=list(reversed(entries)), **ctx)


def timeline(m: Match, roster: dict[str, dict[str, str]] | None = None) -> list[dict[str, Any]]:
    """The events the spectator's timeline shows, in order (the catalogue says which).

    They are the events the state is the replay of (``corrections.effective_log``, SPEC D8, M3): a
    corrected event as corrected, a missed call added at its place, nothing voided. A yellow card that
    is a player's second is marked ``second_yellow`` (SPEC M8: shown as the sending-off it is). A
    correction that changed a goal is said where the goal was (D163): the row in its place carries
    ``correction`` (the words of ``notice_words``), shown even if that row is a call the timeline
    leaves out (the violation that disallowed it); a goal voided outright stays as a struck-out goal.
    """
    rows: list[tuple[dict[str, Any], bool]] = []  # (entry, on the timeline by the catalogue)
    for step in engine.replay_steps(m.setup, m.log):  # the engine's own replay: nothing re-derived here
        e = step.entry.public()
        team, player = e.get("team"), e.get("player")
        if step.before is not None and team in TEAMS and player is not None:
            # The engine sent him off with this card's second yellow (9.3, M8).
            was, now = step.before.teams[team].second_yellow, step.after.teams[team].second_yellow
            if player in now and player not in was:
                e["second_yellow"] = True
        rows.append((e, catalogue.on_timeline(e["type"], e)))
    return _with_notices(m, rows, roster)


def _with_notices(
    m: Match, rows: list[tuple[dict[str, Any], bool]], roster: dict[str, dict[str, str]] | None
) -> list[dict[str, Any]]:
    """The timeline rows with the corrections of goals in their places (D163)."""
    found = notices.notices(m.log)
    if not found:
        return [e for e, shown in rows if shown]
    if roster is None:
        roster = _roster(match_slots.match_service().state(m, legal=False))
    names = {t: m.setup.team(t).name for t in TEAMS}
    attached = notices.in_force(found, (e["seq"] for e, _ in rows))
    by_seq = {r.seq: r for r in m.log}
    out: list[tuple[notices.PlaceKey, dict[str, Any]]] = []
    for e, shown in rows:
        n = attached.pop(e["seq"], None)
        if n is not None:
            e["correction"] = notice_words.words(n, names, roster)
        if shown or n is not None:
            out.append((notices.place_key(e["seq"], by_seq), e))
    for n in attached.values():  # goals voided outright: no row stands in their place
        struck = {"seq": n.target, "type": "goal", "team": n.team, "player": n.player, "at_ms": n.at_ms, "voided_by": n.seq}
        struck["correction"] = notice_words.words(n, names, roster)
        at = next((i for i, (key, _) in enumerate(out) if key > n.place), len(out))
        out.insert(at, (n.place, struck))
    return [e for _, e in out]


@bp.get("/matches/<match_id>/timeline.json")
def timeline_json(match_id: str) -> Response:
    """The spectator's timeline as ``timeline`` makes it, and the log's last seq: the phone page fetches it
    again after a correction or a card rather than re-deriving either (SPEC D8, M3, M8)."""
    m = _match(match_id)
    return jsonify({"seq": m.seq, "entries": timeline(m), "corrections": corrections(m)})


def corrections(m: Match) -> list[dict[str, Any]]:
    """Every correction of the log that changed a goal, in words (D163): the big screen and the overlays
    pop up the one just made, found by its seq."""
    found = notices.notices(m.log)
    if not found:
        return []
    names = {t: m.setup.team(t).name for t in TEAMS}
    roster = _roster(match_slots.match_service().state(m, legal=False))
    return [notice_words.words(n, names, roster) for n in found]
