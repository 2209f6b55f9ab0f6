"""What a venue screen may show and what an uploaded image may be (issue 13): the screens' schema."""

from __future__ import annotations

import re

from flask_babel import lazy_gettext as _l
from marshmallow import Schema, fields, validate

from qalisball.match.schemas import Plain

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
