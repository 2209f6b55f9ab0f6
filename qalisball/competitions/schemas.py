"""marshmallow: where competition data enters (teams, officials, competitions, lineups, protests, lots): 400s.

Only shapes and values are checked here. Whether the competition's rules allow a write now (a
suspended player, an official of a playing club, lots for teams that are not level) is a 409 ``rule``
from ``rules/competition``; ids that name nothing are checked by the service (400 with ``fields``).
"""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError, fields, post_load, validate, validates_schema

from qalisball.match.schemas import (
    HEX_COLOR,
    FieldSchema,
    LineupSchema,
    Plain,
    PlayerSchema,
    RulesSchema,
    StrictBool,
    StrictFloat,
    _Strict,
    field_shape_problems,
    parse_event,
    rule_set_problems,
)
from qalisball.rules.competition.schedule import FORMATS

ROLES = ("referee", "assistant1", "assistant2", "scorer")
# Every text goes through the match routes' one validator (D45, D151): no control characters, names on one
# line and not blank; texts (reasons, protests, decisions) may break lines.
_NAME = [validate.Length(min=1, max=80), Plain(blank=False)]
_TEXT = [validate.Length(min=1, max=2000), Plain(multiline=True, blank=False)]
_OPTIONAL_TEXT = [validate.Length(max=2000), Plain(multiline=True)]


def _optional_name(max_length: int) -> list[validate.Validator]:
    """A name that may be left out (a club, a short name): one line, no control characters."""
    return [validate.Length(max=max_length), Plain()]


_COUNT = validate.Range(min=0, max=999)


def _int(default: int | None = None, **kw: Any) -> fields.Integer:
    return fields.Integer(strict=True, load_default=default, **kw)


class TeamSchema(_Strict):
    """A kept team (C1). ``players`` may be empty while the roster is not known yet."""

    name = fields.String(required=True, validate=_NAME)
    short = fields.String(load_default=None, allow_none=True, validate=_optional_name(20))
    color = fields.String(load_default=None, allow_none=True, validate=HEX_COLOR)
    club = fields.String(load_default=None, allow_none=True, validate=_optional_name(80))
    players = fields.List(fields.Nested(PlayerSchema), load_default=list, validate=validate.Length(max=60))

    @validates_schema
    def _numbers(self, data: dict[str, Any], **_: Any) -> None:
        numbers = [p["number"] for p in data.get("players") or []]
        dup = sorted({n for n in numbers if numbers.count(n) > 1})
        if dup:
            raise ValidationError(f"shirt numbers must be unique: {dup} repeated", "players")


class OfficialSchema(_Strict):
    name = fields.String(required=True, validate=_NAME)
    club = fields.String(load_default=None, allow_none=True, validate=_optional_name(80))


class PointsSchema(_Strict):
    win = _int(3, validate=validate.Range(min=0, max=100))
    shootout_win = _int(2, validate=validate.Range(min=0, max=100))
    shootout_loss = _int(1, validate=validate.Range(min=0, max=100))
    loss = _int(0, validate=validate.Range(min=0, max=100))
    draw = _int(1, validate=validate.Range(min=0, max=100))  # V1-D2: a level 1.0 match (2.0 has no draws)


class CompetitionFieldSchema(FieldSchema):
    name = fields.String(load_default=None, allow_none=True, validate=_NAME)


class MatchDefaultsSchema(_Strict):
    starters = _int(6, validate=validate.Range(min=4, max=8))  # D10
    rules = fields.Nested(RulesSchema, load_default=None)

    @post_load
    def _defaults(self, data: dict[str, Any], **_: Any) -> dict[str, Any]:
        if data.get("rules") is None:
            data["rules"] = RulesSchema().load({})
        return data


class DisciplineSchema(_Strict):
    red_suspension_matches = _int(1, validate=validate.Range(min=0, max=20))
    yellow_accumulation = _int(None, allow_none=True, validate=validate.Range(min=1, max=50))
    yellow_suspension_matches = _int(1, validate=validate.Range(min=1, max=20))  # D64


class ForfeitSchema(_Strict):
    after_minutes = StrictFloat(load_default=20, validate=validate.Range(min=0, max=24 * 60))
    score = _int(5, validate=validate.Range(min=1, max=100))
    voids_all_results = StrictBool(load_default=False)


class CompetitionSchema(_Strict):
    name = fields.String(required=True, validate=[validate.Length(min=1, max=120), Plain(blank=False)])
    format = fields.String(required=True, validate=validate.OneOf(FORMATS))
    teams = fields.List(
        fields.String(validate=validate.Length(min=1, max=64)), required=True, validate=validate.Length(min=2, max=64)
    )
    groups = _int(2, validate=validate.Range(min=1, max=16))
    advance = _int(2, validate=validate.Range(min=1, max=16))
    third_place = StrictBool(load_default=False)  # D76: a knockout with semi-finals adds their losers' match
    points = fields.Nested(PointsSchema, load_default=None)
    fields_ = fields.List(
        fields.Nested(CompetitionFieldSchema), required=True, data_key="fields", validate=validate.Length(min=1, max=20)
    )
    starts_at = fields.AwareDateTime(load_default=None, allow_none=True)
    slot_minutes = _int(80, validate=validate.Range(min=1, max=24 * 60))
    match = fields.Nested(MatchDefaultsSchema, load_default=None)
    discipline = fields.Nested(DisciplineSchema, load_default=None)
    forfeit = fields.Nested(ForfeitSchema, load_default=None)

    @post_load
    def _defaults(self, data: dict[str, Any], **_: Any) -> dict[str, Any]:
        data["fields"] = data.pop("fields_")
        for i, f in enumerate(data["fields"]):
            f["name"] = f.get("name") or f"Field {i + 1}"
        for key, schema in (
            ("points", PointsSchema),
            ("match", MatchDefaultsSchema),
            ("discipline", DisciplineSchema),
            ("forfeit", ForfeitSchema),
        ):
            if data.get(key) is None:
                data[key] = schema().load({})
        if data["starts_at"] is not None:
            data["starts_at"] = data["starts_at"].isoformat()
        return data

    @validates_schema
    def _unique(self, data: dict[str, Any], **_: Any) -> None:
        teams = data.get("teams") or []
        dup = sorted({t for t in teams if teams.count(t) > 1})
        if dup:
            raise ValidationError(f"a team is listed twice: {dup}", "teams")
        names = [f.get("name") for f in data.get("fields_") or [] if f.get("name")]
        if len(set(names)) != len(names):
            raise ValidationError("two fields have the same name", "fields")

    @validates_schema
    def _rule_set(self, data: dict[str, Any], **_: Any) -> None:
        """The competition's rule set (``match.rules.rule_set``, SPEC §11.2) passes to every fixture: each of
        its fields and its multiple-attack mode must be what that rule book allows (V1-1, V1-D3, V1-D15),
        checked now rather than when a fixture's match is created. ``shootout_on_draw`` is the
        competition's to set on its knockout matches (V1-D2), never a default for every fixture."""
        rules = (data.get("match") or {}).get("rules") or {}
        problems: dict[str, list[str]] = {}
        if rules.get("shootout_on_draw"):
            problems["match.rules.shootout_on_draw"] = ["a competition sets it on its knockout matches itself (V1-D2)"]
        for i, f in enumerate(data.get("fields_") or []):
            for key, words in rule_set_problems(rules, f).items():
                problems[f"fields.{i}.{key.removeprefix('field.')}" if key.startswith("field.") else f"match.{key}"] = words
            for key, words in field_shape_problems(rules, f).items():  # 2.1, the book's (rules/setup.py)
                problems[f"fields.{i}.{key}"] = words
        if problems:
            raise ValidationError(problems)


class RescheduleSchema(_Strict):
    """A fixture moved (D75): a new start (ISO 8601; without an offset, the competition's) and/or field (its name)."""

    starts_at = fields.String(load_default=None, allow_none=True, validate=validate.Length(min=10, max=40))
    field = fields.String(load_default=None, allow_none=True, validate=_NAME)

    @validates_schema
    def _something(self, data: dict[str, Any], **_: Any) -> None:
        if data.get("starts_at") is None and data.get("field") is None:
            raise ValidationError("give starts_at, field or both", "_schema")


class OfficialsSchema(_Strict):
    """A fixture's officials by role (official ids); null leaves a role empty."""

    referee = fields.String(load_default=None, allow_none=True)
    assistant1 = fields.String(load_default=None, allow_none=True)
    assistant2 = fields.String(load_default=None, allow_none=True)
    scorer = fields.String(load_default=None, allow_none=True)

    @validates_schema
    def _distinct(self, data: dict[str, Any], **_: Any) -> None:
        ids = [v for v in data.values() if v]
        if len(set(ids)) != len(ids):
            raise ValidationError("one official cannot hold two roles in a match", "_schema")


class ForfeitRequestSchema(_Strict):
    team = fields.String(required=True)
    reason = fields.String(load_default="", validate=_OPTIONAL_TEXT)


class ProtestSchema(_Strict):
    fixture = fields.String(required=True)
    team = fields.String(required=True)
    text = fields.String(required=True, validate=_TEXT)


class ScoreSchema(_Strict):
    home = fields.Integer(strict=True, required=True, validate=_COUNT)
    away = fields.Integer(strict=True, required=True, validate=_COUNT)


class ResultSchema(_Strict):
    """A decided result: regulation (or awarded) goals, the winner (team id), and a shootout if it had one."""

    home = fields.Integer(strict=True, required=True, validate=_COUNT)
    away = fields.Integer(strict=True, required=True, validate=_COUNT)
    winner = fields.String(load_default=None, allow_none=True)
    shootout = fields.Nested(ScoreSchema, load_default=None, allow_none=True)

    @validates_schema
    def _decided(self, data: dict[str, Any], **_: Any) -> None:
        if data.get("home") == data.get("away") and not data.get("winner"):
            raise ValidationError("a level score was decided by a shootout: name the winner", "winner")
        so = data.get("shootout")
        if so and so["home"] == so["away"]:
            raise ValidationError("a shootout is never level", "shootout")
        if so and data.get("home") != data.get("away"):
            raise ValidationError("a shootout follows a level score only", "shootout")


# The what-if the committee looked at (issue 24): its request, as posted to POST /api/matches/<id>/what-if.
WHAT_IF_CHANGES = ("amend", "void", "insert")
MAX_WHAT_IF_CHANGES = 20


class WhatIfLinkSchema(_Strict):
    """A decision's link to a what-if (docs/api-extras.md, D188): the changes posted, and the match's seq
    when the committee looked, so the protest report replays the same log even after later corrections."""

    changes = fields.List(fields.Dict(), required=True, validate=validate.Length(min=1, max=MAX_WHAT_IF_CHANGES))
    seq = fields.Integer(strict=True, required=True, validate=validate.Range(min=0))

    @validates_schema
    def _changes_as_posted(self, data: dict[str, Any], **_: Any) -> None:
        for i, change in enumerate(data.get("changes") or []):
            if change.get("type") not in WHAT_IF_CHANGES:
                raise ValidationError("an amend, a void or an insert", f"changes.{i}.type")
            try:
                parse_event(change)  # exactly as the what-if (and the events endpoint) reads it
            except ValidationError as exc:
                raise ValidationError(exc.normalized_messages(), f"changes.{i}") from exc


class DecisionSchema(_Strict):
    upheld = StrictBool(required=True)
    text = fields.String(required=True, validate=_TEXT)
    result = fields.Nested(ResultSchema, load_default=None, allow_none=True)
    replay = StrictBool(load_default=False)
    what_if = fields.Nested(WhatIfLinkSchema, load_default=None, allow_none=True)  # extra: issue 24, D188

    @validates_schema
    def _effect(self, data: dict[str, Any], **_: Any) -> None:
        if data.get("result") and data.get("replay"):
            raise ValidationError("either a new result or a replay, not both", "replay")
        if not data.get("upheld") and (data.get("result") or data.get("replay")):
            raise ValidationError("a rejected protest changes no result", "upheld")


class DecidedResultSchema(ResultSchema):
    """The organiser's result for a fixture whose match was abandoned or played without the app (D63)."""

    text = fields.String(required=True, validate=_TEXT)


class LotsSchema(_Strict):
    teams = fields.List(fields.String(), required=True, validate=validate.Length(min=2, max=64))
    text = fields.String(load_default="", validate=_OPTIONAL_TEXT)

    @validates_schema
    def _unique(self, data: dict[str, Any], **_: Any) -> None:
        teams = data.get("teams") or []
        if len(set(teams)) != len(teams):
            raise ValidationError("a team is named twice", "teams")


__all__ = [
    "ROLES",
    "TeamSchema",
    "OfficialSchema",
    "CompetitionSchema",
    "OfficialsSchema",
    "LineupSchema",
    "ForfeitRequestSchema",
    "ProtestSchema",
    "DecisionSchema",
    "DecidedResultSchema",
    "LotsSchema",
]
