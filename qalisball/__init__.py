"""Qalisball Live. ``create_app`` and ``socketio`` live in ``factory.py`` and load on first use, so that
importing the rule core (``qalisball.rules``) loads no web stack (tests/test_story_isolation.py).
"""

from __future__ import annotations

from typing import Any

__all__ = ["create_app", "socketio", "ROOT", "ConfigError"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from qalisball.server import factory

        return getattr(factory, name)
    raise AttributeError(f"module 'qalisball' has no attribute {name!r}")
