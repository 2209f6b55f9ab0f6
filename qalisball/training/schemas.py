"""marshmallow: where training data enters (API.md "Training and what-if"): 400s with ``fields``."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from qalisball.match.schemas import Plain
from qalisball.training.names import Visible

TEAMS = ("home", "away")


class StartSchema(Schema):
    match = fields.String(required=True, validate=validate.Length(min=1, max=100))
    rules = fields.List(
        fields.String(validate=[validate.Length(min=1, max=20), Plain()]), load_default=list, validate=validate.Length(max=50)
    )


class TrainingSpotSchema(Schema):
    x = fields.Float(required=True, allow_nan=False)
    y = fields.Float(required=True, allow_nan=False)


class RestartAnswerSchema(Schema):
    type = fields.String(required=True, validate=[validate.Length(min=1, max=30), Plain()])
    team = fields.String(required=True, allow_none=True, validate=validate.OneOf(TEAMS))
    spot = fields.Nested(TrainingSpotSchema, load_default=None, allow_none=True)
    points = fields.Integer(load_default=None, allow_none=True, validate=validate.OneOf((1, 2)))  # the shootout's (12.2)


# A trainee's name, shown on the trainer's screen and in the sheet: text as people write it, never blank
# (D151), nothing invisible inside (D222).
TRAINEE_NAME = [validate.Length(min=1, max=60), Plain(blank=False), Visible()]


class JoinSchema(Schema):
    """A trainee joins once (D220)."""

    code = fields.String(required=True, validate=validate.Length(min=1, max=20))
    name = fields.String(required=True, validate=TRAINEE_NAME)


class AnswerSchema(Schema):
    code = fields.String(required=True, validate=validate.Length(min=1, max=20))
    token = fields.String(required=True, validate=validate.Length(min=1, max=200))  # the trainee's (D220)
    trainee = fields.String(required=True, validate=TRAINEE_NAME)
    n = fields.Integer(required=True, strict=True, validate=validate.Range(min=1))
    restart = fields.Nested(RestartAnswerSchema, required=True)
    # Extra (docs/api-extras.md): a foul's card, null for none; graded only when given.
    card = fields.String(allow_none=True, validate=validate.OneOf(("yellow", "red")))


class PaceSchema(Schema):
    """The trainer's pace (D190): the question everyone following is moved to; null: their own pace."""

    n = fields.Integer(required=True, strict=True, allow_none=True, validate=validate.Range(min=1))


class ExerciseSchema(Schema):
    """A hand-written exercise, as stored and shared (D189): a title and the event bodies, as posted to a
    match's events; the question is "what now?" after the last one."""

    title = fields.String(load_default="", validate=[validate.Length(max=120), Plain(blank=False, empty=True)])
    events = fields.List(fields.Dict(), required=True, validate=validate.Length(min=1, max=60))


class ExerciseAnswerSchema(Schema):
    restart = fields.Nested(RestartAnswerSchema, required=True)
    card = fields.String(allow_none=True, validate=validate.OneOf(("yellow", "red")))
