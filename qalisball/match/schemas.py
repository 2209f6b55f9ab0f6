"""marshmallow schemas: where data enters (match creation, events) — 400 ``invalid`` on failure.

Only the shape and the values are checked here; whether the rules allow an event now is the
engine's job (409 ``rule``). ``rules.setup.build_setup`` turns a validated match into the rule
core's ``MatchSetup``.
"""

from __future__ import annotations

import base64
import binascii
import io
import math
import re
import unicodedata
import warnings
from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields, post_load, validate, validates_schema
from PIL import Image

from qalisball.match.envelope import ParsedEvent
from qalisball.rules.book import BOOK_2_0, BOOK_DEFAULTS
from qalisball.rules.catalogue import BY_TYPE, CORRECTABLE, MISCONDUCT_CODES, Param
from qalisball.rules.errors import N_
from qalisball.rules.events import EVENT_TYPES
from qalisball.rules.field import Field
from qalisball.rules.setup import field_refusals
from qalisball.rules.state import BOOKS


class Said(str):
    """A validation message: the English of API.md's ``fields`` (the string itself, unchanged), and how
    the pages word it — a message id of the catalogue and its params — so the server can answer in the
    request's language (validation_words.py) and no page parses the English (issue 21)."""

    msgid: str
    params: dict[str, Any]

    def __new__(cls, english: str, msgid: str, **params: Any) -> Said:
        said = super().__new__(cls, english)
        said.msgid = msgid
        said.params = params
        return said


class Range(validate.Range):
    """marshmallow's Range, its message also said as the pages say it ("Must be between 20 and 200")."""

    def _format_error(self, value: Any, message: str) -> str:
        english = super()._format_error(value, message)
        if self.error is None and self.min is not None and self.max is not None:
            return Said(english, N_("Must be between {min} and {max}"), min=self.min, max=self.max)
        if self.error is None and self.min is not None:
            return Said(english, N_("Must be at least {min}"), min=self.min)
        return english


class Length(validate.Length):
    """marshmallow's Length; for text, its message also said as the pages say it."""

    def _format_error(self, value: Any, message: str) -> str:
        english = super()._format_error(value, message)
        if self.error is None and isinstance(value, str) and self.min is not None and self.max is not None:
            return Said(english, N_("Must be {min} to {max} characters long"), min=self.min, max=self.max)
        return english


TEAM = validate.OneOf(["home", "away"])
HEX_COLOR = validate.Regexp(r"^#[0-9a-fA-F]{6}$", error="must be a colour like #b71c1c")
SHIRT = Range(min=0, max=999)
MAX_MS = 24 * 3_600_000  # no game-clock time reaches a day
DEFAULT_COLORS = {"home": "#b71c1c", "away": "#0d47a1"}

# Characters no name or note needs, each a way to garble a screen or a report (D45): C0 and C1 controls
# (NUL, ESC, ...), the line and paragraph separators, the bidirectional overrides and isolates (they turn
# "Renmin" into what reads as another name), and lone surrogates (no character at all).
_NOT_TEXT = "\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff"
_CONTROL_ONE_LINE = re.compile(f"[\t\n{_NOT_TEXT}]")
_CONTROL_NOTE = re.compile(f"[\t{_NOT_TEXT}]")  # a reason or note may have several lines


def is_blank(value: str) -> bool:
    """Nothing a reader could see: whitespace (U+3000 included) and invisible format characters (U+200B)."""
    return all(ch.isspace() or unicodedata.category(ch) == "Cf" for ch in value)


def text_problem(value: str, multiline: bool = False, blank: bool = True) -> str | None:
    """Why ``value`` is not text as people write it (D45), or None. THE text check of every route: the
    schemas' ``Plain``, the CSV import and the upload forms all ask it, so no route stores what another refuses."""
    bad = (_CONTROL_NOTE if multiline else _CONTROL_ONE_LINE).search(value)
    if bad is not None:
        return f"must not contain control characters (U+{ord(bad.group()):04X})"
    if not blank and is_blank(value):
        return "must not be blank"
    return None


class Plain(validate.Validator):
    """Text as people write it: no control characters (a note may break lines), and not blank when required.

    ``empty``: with ``blank=False``, "" still means "none given" (an optional reason), but " " does not (D151)."""

    def __init__(self, multiline: bool = False, blank: bool = True, empty: bool = False) -> None:
        self.multiline = multiline
        self.blank = blank
        self.empty = empty

    def __call__(self, value: Any) -> Any:
        if isinstance(value, str):
            problem = text_problem(value, self.multiline, self.blank or (self.empty and value == ""))
            if problem is not None:
                raise ValidationError(problem)
        return value


NAME = [Length(min=1, max=80), Plain(blank=False)]


class StrictFloat(fields.Float):
    """A JSON number: no strings ("40"), no booleans, nothing infinite."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.make_error("invalid")
        return super()._deserialize(value, attr, data, **kwargs)


class StrictBool(fields.Boolean):
    """A JSON true or false: not "no", not 0 (0 == False in a Python set, hence the type check)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if not isinstance(value, bool):
            raise self.make_error("invalid")
        return value


class _Strict(Schema):
    class Meta:
        unknown = RAISE


class PlayerSchema(_Strict):
    number = fields.Integer(required=True, strict=True, validate=SHIRT)
    name = fields.String(required=True, validate=NAME)
    gender = fields.String(load_default=None, allow_none=True, validate=[validate.Length(max=20), Plain()])


class TeamSchema(_Strict):
    name = fields.String(required=True, validate=NAME)
    color = fields.String(load_default=None, allow_none=True, validate=HEX_COLOR)
    players = fields.List(fields.Nested(PlayerSchema), required=True, validate=Length(min=1, max=60))
    starting = fields.List(fields.Integer(strict=True, validate=SHIRT), required=True)

    @validates_schema
    def _roster(self, data: dict[str, Any], **_: Any) -> None:
        numbers = [p["number"] for p in data["players"]]
        dup = sorted({n for n in numbers if numbers.count(n) > 1})
        if dup:
            raise ValidationError(
                Said(
                    f"shirt numbers must be unique: {dup} repeated",
                    N_("Shirt numbers must be unique: {numbers} repeated"),
                    numbers=dup,
                ),
                "players",
            )
        unknown = [n for n in data["starting"] if n not in numbers]
        if unknown:
            raise ValidationError(
                Said(f"not on the roster: {unknown}", N_("Not on the team's list: {numbers}"), numbers=unknown), "starting"
            )
        if len(set(data["starting"])) != len(data["starting"]):
            raise ValidationError(Said("a starter is named twice", N_("A starter is named twice")), "starting")


class FieldSchema(_Strict):
    length = StrictFloat(load_default=40, validate=Range(min=30, max=60))
    width = StrictFloat(load_default=25, validate=Range(min=20, max=200))
    side_lines = StrictBool(load_default=True)
    # Its shape (2.1: longer than wide with side lines) is the rule book's: ``field_shape_problems`` below.


class MultiAttackSchema(_Strict):
    mode = fields.String(load_default="off", validate=validate.OneOf(["off", "players", "teams", "trailing"]))
    k = fields.Integer(load_default=2, strict=True, validate=Range(min=2, max=20))
    teams = fields.List(fields.String(validate=TEAM), load_default=list)
    players = fields.Dict(
        keys=fields.String(validate=TEAM),
        values=fields.List(fields.Integer(strict=True, validate=SHIRT)),
        load_default=dict,
    )

    @validates_schema
    def _mode(self, data: dict[str, Any], **_: Any) -> None:
        if data["mode"] == "teams" and not data["teams"]:
            english = "name one or both teams for mode 'teams'"
            raise ValidationError(Said(english, N_("Tick the team or teams that hold the opportunities")), "teams")
        if data["mode"] == "players" and not any(data["players"].values()):
            english = "name the designated players for mode 'players'"
            raise ValidationError(Said(english, N_("Name the designated players")), "players")


class RulesSchema(_Strict):
    # SPEC §11.2: the rule book the match is played under, fixed for its life (API.md ``rule_set``).
    # Any registered book (``BOOKS``), looked up when a request is loaded, not when this module is.
    rule_set = fields.String(load_default=BOOK_2_0.id, validate=lambda v: validate.OneOf(tuple(BOOKS))(v))
    # V1-D2: a level 1.0 match goes on to the shootout (a competition's knockout fixtures); 1.0 only.
    shootout_on_draw = StrictBool(load_default=False)
    # Not given: the book's (3.1, 12.1), filled in below.
    half_minutes = StrictFloat(load_default=None, validate=Range(min=0.1, max=120))
    halftime_minutes = StrictFloat(load_default=None, validate=Range(min=0, max=120))
    shootout_rounds = fields.Integer(load_default=None, strict=True, validate=Range(min=1, max=20))
    multi_attack = fields.Nested(MultiAttackSchema, load_default=None)

    @post_load
    def _defaults(self, data: dict[str, Any], **_: Any) -> dict[str, Any]:
        if data.get("multi_attack") is None:
            data["multi_attack"] = MultiAttackSchema().load({})
        book = BOOKS[data["rule_set"]]
        for name in BOOK_DEFAULTS:
            if data.get(name) is None:
                data[name] = getattr(book, name)
        return data


class SideLineupSchema(_Strict):
    """One side of a match made from a fixture's kept rosters: its starters and match-day squad (numbers)."""

    starting = fields.List(fields.Integer(strict=True, validate=SHIRT), required=True)
    # The match-day squad (numbers of the kept roster); by default every player not suspended.
    players = fields.List(fields.Integer(strict=True, validate=SHIRT), load_default=None, allow_none=True)


class LineupSchema(_Strict):
    """The line-ups of a match made from a fixture: a competition's (``POST /api/competitions/<id>/fixtures/<fid>/match``)
    and a league venue's (``POST /api/league/fixtures/<fid>/match``) read the one schema."""

    home = fields.Nested(SideLineupSchema, required=True)
    away = fields.Nested(SideLineupSchema, required=True)


class MatchSchema(_Strict):
    home = fields.Nested(TeamSchema, required=True)
    away = fields.Nested(TeamSchema, required=True)
    starters = fields.Integer(required=True, strict=True, validate=Range(min=4, max=8))  # D10
    field = fields.Nested(FieldSchema, load_default=None)
    rules = fields.Nested(RulesSchema, load_default=None)
    venue = fields.String(load_default="", validate=[validate.Length(max=200), Plain()])
    starts_at = fields.AwareDateTime(load_default=None, allow_none=True)
    officials = fields.Dict(
        keys=fields.String(validate=validate.OneOf(["referee", "assistant1", "assistant2", "scorer"])),
        values=fields.String(validate=[validate.Length(max=80), Plain()]),
        load_default=dict,
    )

    @post_load
    def _defaults(self, data: dict[str, Any], **_: Any) -> dict[str, Any]:
        if data.get("field") is None:
            data["field"] = FieldSchema().load({})
        if data.get("rules") is None:
            data["rules"] = RulesSchema().load({})
        for team in ("home", "away"):
            if data[team].get("color") is None:
                data[team]["color"] = DEFAULT_COLORS[team]
        if data["starts_at"] is not None:
            data["starts_at"] = data["starts_at"].isoformat()
        return data

    @validates_schema
    def _teams(self, data: dict[str, Any], **_: Any) -> None:
        errors: dict[str, Any] = {}
        n = data.get("starters")
        said = N_("Name exactly {n} starters, not {got}")
        for team in ("home", "away"):
            t = data.get(team)
            if not t or n is None:
                continue
            if len(t["starting"]) != n:
                got = len(t["starting"])
                errors[f"{team}.starting"] = [Said(f"must name exactly {n} starters, not {got}", said, n=n, got=got)]
        errors.update(rule_set_problems(data.get("rules") or {}, data.get("field") or {}))
        shape = field_shape_problems(data.get("rules") or {}, data.get("field") or {})
        if shape:
            errors["field"] = shape  # nested, as the errors of the field's own settings
        ma = (data.get("rules") or {}).get("multi_attack") or {}
        for team, numbers in (ma.get("players") or {}).items():
            roster = {p["number"] for p in (data.get(team) or {}).get("players", [])}
            unknown = [x for x in numbers if x not in roster]
            if unknown:
                english = f"not on {team}'s roster: {unknown}"
                errors[f"rules.multi_attack.players.{team}"] = [
                    Said(english, N_("Not on the team's list: {numbers}"), numbers=unknown)
                ]
        if errors:
            raise ValidationError(errors)


def field_shape_problems(rules: dict[str, Any], field: dict[str, Any]) -> dict[str, list[str]]:
    """What the match's rule book refuses of its field's shape (2.1; ``rules/setup.py::field_refusals``), keyed
    by the field's setting; each message cites the book's rule, in the request's language (validation_words)."""
    book = BOOKS.get(rules.get("rule_set", BOOK_2_0.id))
    if book is None or not {"length", "width", "side_lines"} <= field.keys():
        return {}
    refused = field_refusals(book, Field(field["length"], field["width"], field["side_lines"]))
    return {key: [Said(r.message, r.template, **r.params)] for key, r in refused.items()}


def rule_set_problems(rules: dict[str, Any], field: dict[str, Any]) -> dict[str, list[str]]:
    """What a match's rule set does not allow in its other settings (SPEC §11.2, §11.3; 400 ``invalid``).

    The field's size and side lines (V1-1, V1-D3), multiple attack opportunities (V1-D15), and
    ``shootout_on_draw``, which only 1.0 has (V1-D2). Keys are the request's dotted field names; each
    message names the rule it enforces, in the match's rule book (SPEC §11.12).
    """
    rule_set = rules.get("rule_set", "2.0")
    book = BOOKS.get(rule_set)
    if book is None:
        return {}  # the field's own validator has refused it
    problems: dict[str, list[str]] = {}

    def say(key: str, msgid: str, **params: Any) -> None:
        # English for API.md's ``fields``; the message id for the request's language (validation_words.py).
        problems[key] = [Said(msgid.format(**params), msgid, **params)]

    (low, high), length = book.length_m, field.get("length")
    if length is not None and not low <= length <= high:
        say(
            "field.length",
            N_("rule book {rule_set}: the length is {low}–{high} m ({rule})"),
            rule_set=rule_set,
            low=f"{low:g}",
            high=f"{high:g}",
            rule=book.cite("2.1"),
        )
    wlow, whigh = book.width_m
    width = field.get("width")
    if width is not None and (width < wlow or (whigh is not None and width > whigh)):
        if whigh is not None:
            say(
                "field.width",
                N_("rule book {rule_set}: the width is {low}–{high} m ({rule})"),
                rule_set=rule_set,
                low=f"{wlow:g}",
                high=f"{whigh:g}",
                rule=book.cite("2.1"),
            )
        else:
            say(
                "field.width",
                N_("rule book {rule_set}: the width is at least {low} m ({rule})"),
                rule_set=rule_set,
                low=f"{wlow:g}",
                rule=book.cite("2.1"),
            )
    if book.side_lines_required and field.get("side_lines") is False:
        say(
            "field.side_lines",
            N_("rule book {rule_set} restarts at the side lines: the field must have them ({rule})"),
            rule_set=rule_set,
            rule="V1-D3",
        )
    mode = (rules.get("multi_attack") or {}).get("mode", "off")
    if not book.multi_attack and mode != "off":
        say(
            "rules.multi_attack.mode",
            N_("rule book {rule_set} has no multiple attack opportunities: must be off ({rule})"),
            rule_set=rule_set,
            rule=book.cite("13.1"),
        )
    if book.shootout and rules.get("shootout_on_draw"):
        say(
            "rules.shootout_on_draw",
            N_("rule book {rule_set} always has a shootout ({rule}): only a 1.0 match may set it ({only})"),
            rule_set=rule_set,
            rule=book.cite("3.2"),
            only="V1-D2",
        )
    return problems


# ----------------------------------------------------------------------------------------------
# Events


class _Finite(StrictFloat):
    def _validated(self, value: Any) -> float:
        out = super()._validated(value)
        if out is None or not math.isfinite(out) or abs(out) > 1000:
            raise self.make_error("invalid")
        return out


class SpotSchema(_Strict):
    x = _Finite(required=True)
    y = _Finite(required=True)


def _player(required: bool = False) -> fields.Integer:
    if required:
        return fields.Integer(required=True, strict=True, validate=SHIRT)
    return fields.Integer(load_default=None, allow_none=True, strict=True, validate=SHIRT)


def _spot(required: bool = False) -> fields.Nested:
    if required:
        return fields.Nested(SpotSchema, required=True)
    return fields.Nested(SpotSchema, load_default=None, allow_none=True)


_TEAM = fields.String(required=True, validate=TEAM)


class _EventBase(_Strict):
    type = fields.String(required=True)
    id = fields.String(load_default=None, allow_none=True, validate=[validate.Length(min=1, max=200), Plain()])
    at_ms = fields.Integer(load_default=None, allow_none=True, strict=True, validate=validate.Range(min=0, max=MAX_MS))
    expected_seq = fields.Integer(load_default=None, allow_none=True, strict=True, validate=validate.Range(min=0, max=2**31))


def _schema(schema_name: str, /, **extra: fields.Field) -> type[Schema]:
    return _EventBase.from_dict(extra, name=schema_name)  # type: ignore[return-value]


_TAKERS = fields.Nested(
    _Strict.from_dict(
        {
            t: fields.List(
                fields.Integer(strict=True, validate=SHIRT),
                required=True,
                validate=validate.Length(equal=4, error="name exactly four takers in order (rule 12.2)"),
            )
            for t in ("home", "away")
        },
        name="Takers",
    ),
    required=True,
)


class _ReasonSchema(_Strict):
    code = fields.String(load_default=None, allow_none=True, validate=validate.OneOf([v.name for v in MISCONDUCT_CODES]))
    text = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=500))


class _Period(fields.Field):
    """M6: 1, 2 or "shootout"."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if value in ("shootout",) or (isinstance(value, int) and not isinstance(value, bool) and value in (1, 2)):
            return value
        raise ValidationError('must be 1, 2 or "shootout"')


SIGNATURE_PREFIX = "data:image/png;base64,"
SIGNATURE_MAX = 100 * 1024  # API.md: ≤ 100 KB
SIGNATURE_SIDE = 1200  # px: the console sends at most 900 (static/js/console/sheet.js LARGEST)
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


class _Signature(fields.String):
    """A drawn signature: a PNG as a data URL, at most 100 KB (API.md "Match day"), stored as ``clean_signature``
    makes it: decoded, bounded and encoded again (D152)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        text = super()._deserialize(value, attr, data, **kwargs)
        if not text.startswith(SIGNATURE_PREFIX) or len(text) > SIGNATURE_MAX:
            raise ValidationError("must be a data:image/png;base64,… URL of at most 100 KB")
        try:
            png = base64.b64decode(text[len(SIGNATURE_PREFIX) :], validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ValidationError("the signature is not valid base64") from exc
        if not png.startswith(PNG_MAGIC):
            raise ValidationError("the signature is not a PNG image")
        return SIGNATURE_PREFIX + base64.b64encode(clean_signature(png)).decode("ascii")


def clean_signature(png: bytes) -> bytes:
    """The signature's strokes alone: its declared size checked before a pixel is decoded (a 27 KB PNG declaring
    9000×9000 made the report's PDF five times slower), then decoded and encoded again without text chunks."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(png), formats=["PNG"]) as im:
                width, height = im.size
                if width > SIGNATURE_SIDE or height > SIGNATURE_SIDE:
                    raise ValidationError(f"the signature is {width}×{height} pixels: at most {SIGNATURE_SIDE} on each side")
                im.load()
                out = io.BytesIO()
                im.save(out, format="PNG")  # no ``pnginfo``: text chunks and EXIF are not written again
    except (OSError, SyntaxError, ValueError, EOFError, Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise ValidationError("the signature is not a PNG image that can be read") from exc
    return out.getvalue()


def _field(p: Param) -> fields.Field:
    """The marshmallow field of one catalogue parameter."""
    if p.kind == "takers":
        return _TAKERS
    if p.kind == "new_player":
        return fields.Nested(PlayerSchema, load_default=None, allow_none=True)
    if p.kind == "reason":
        return fields.Nested(_ReasonSchema, load_default=None, allow_none=True)
    if p.kind == "event":
        return fields.Dict(required=True)  # validated as an event of its own by parse_event
    if p.kind == "period":
        return _Period(required=True)
    if p.kind == "image":
        return _Signature(load_default=None, allow_none=True)
    if p.kind == "spot":
        return _spot(p.required)
    if p.kind == "player":
        if p.required and not p.nullable:
            return _player(True)
        if p.required:
            return fields.Integer(required=True, allow_none=True, strict=True, validate=SHIRT)
        return _player()
    if p.kind == "bool":
        return StrictBool(required=True) if p.required else StrictBool(load_default=p.default)
    checks: dict[str, validate.Validator | list[validate.Validator]] = {
        "team": TEAM,
        "choice": validate.OneOf(list(p.choices)),
        "ms": validate.Range(min=0, max=MAX_MS),
        "seq": validate.Range(min=p.minimum, max=2**31),
        # Every free-text field of every event, from its catalogue kind: no control characters, never blank; an
        # optional one (a void's, amend's or insert's reason) may be left out or empty, not " " (D151).
        "text": [
            validate.Length(min=1 if p.required else 0, max=p.max_length or 2000),
            Plain(True, blank=False, empty=not p.required),
        ],
    }
    check = checks[p.kind]
    cls = fields.Integer if p.kind in ("ms", "seq") else fields.String
    extra = {"strict": True} if cls is fields.Integer else {}
    if p.required:
        return cls(required=True, allow_none=p.nullable, validate=check, **extra)
    return cls(load_default=p.default, allow_none=p.nullable, validate=check, **extra)


EVENT_SCHEMAS: dict[str, type[Schema]] = {
    t.type: _schema(t.event.__name__, **{p.name: _field(p) for p in t.params}) for t in BY_TYPE.values()
}
assert set(EVENT_SCHEMAS) == set(EVENT_TYPES), "every event type has a schema"


def parse_event(body: Any) -> ParsedEvent:
    """Validate an event request body; raises ``ValidationError`` (400) with per-field messages."""
    if not isinstance(body, dict):
        raise ValidationError({"_schema": ["the body must be a JSON object"]})
    kind = body.get("type")
    if not isinstance(kind, str) or kind not in EVENT_SCHEMAS:
        raise ValidationError({"type": [f"unknown event type; one of: {', '.join(sorted(EVENT_SCHEMAS))}"]})
    data = EVENT_SCHEMAS[kind]().load(body)
    if kind in ("amend", "insert"):
        data["event"] = _embedded_event(data["event"])
    if kind == "roster":
        _roster_change(data)
    _check_call(data)
    return ParsedEvent.from_request(data)


def _embedded_event(body: dict[str, Any]) -> dict[str, Any]:
    """M3: the event an amend or insert carries, validated as if posted (its own game time allowed)."""
    if body.get("type") not in CORRECTABLE:
        raise ValidationError({"event.type": [f"a correction carries one of: {', '.join(sorted(CORRECTABLE))}"]})
    extra = sorted(set(body) & {"id", "expected_seq"})
    if extra:
        raise ValidationError({f"event.{k}": ["not inside a correction: put it on the correction itself"] for k in extra})
    try:
        data = EVENT_SCHEMAS[body["type"]]().load(body)
        _check_call(data)
    except ValidationError as exc:
        messages = exc.normalized_messages()
        raise ValidationError({f"event.{k}": v for k, v in messages.items()} if isinstance(messages, dict) else messages) from exc
    return {k: v for k, v in data.items() if k not in ("id", "expected_seq") and (k != "at_ms" or v is not None)}


def _roster_change(data: dict[str, Any]) -> None:
    """M2: either ``add`` a player, or name ``player`` with a new ``name`` and/or ``number``."""
    if data.get("add") is not None:
        if any(data.get(k) is not None for k in ("player", "name", "number")):
            raise ValidationError({"add": ["either add a player, or change one (player with name/number): not both"]})
        return
    if data.get("player") is None:
        raise ValidationError({"player": ["name the player to change, or give `add` for a new one"]})
    if data.get("name") is None and data.get("number") is None:
        raise ValidationError({"name": ["give the new name and/or the new number"]})
    if data.get("name") is not None and not data["name"].strip():
        raise ValidationError({"name": ["a name cannot be blank"]})


def _check_call(data: dict[str, Any]) -> None:
    """Field combinations a single field's schema cannot see."""
    if data["type"] == "clock" and data.get("action") == "set" and data.get("elapsed_ms") is None:
        raise ValidationError({"elapsed_ms": ["required when action is 'set'"]})
    if data["type"] == "violation" and data.get("kind") != "restart" and data.get("spot") is None:
        # Every call of SPEC §3's table but a restart violation restarts from a spot.
        raise ValidationError({"spot": [f"a {data.get('kind')} violation needs the spot where it happened"]})


__all__ = ["MatchSchema", "LineupSchema", "SideLineupSchema", "parse_event", "ParsedEvent", "EVENT_SCHEMAS"]
