"""The pages people look at (API.md "Pages and reports"). Filled in by the screens issue."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("pages", __name__)
