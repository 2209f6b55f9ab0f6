"""Post-match reports and statistics from the event log (API.md "Pages and reports")."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("reports", __name__)
