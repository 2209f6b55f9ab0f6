"""The competition pages (issue 12): public, big screen, organiser's, printable standings."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("competition_pages", __name__)
