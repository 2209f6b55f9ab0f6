"""The venue's blueprint ``screens``, shared by its API (``api.py``) and its pages (``pages.py``): its endpoint
names (``screens.put_screen``, ``screens.organiser_page``…) are those templates and tests use."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("screens", __name__)
