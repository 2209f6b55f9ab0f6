"""A trainee's name (issue 33 item 5): text as people write it, nothing invisible inside, one per session.

``Plain`` (D45, D151) refuses control characters and names with nothing to see; a trainee's name is also
refused when it hides an invisible format character (U+200B zero width space, U+2060 word joiner, U+FEFF,
U+00AD soft hyphen, every Unicode ``Cf``) between visible ones: ``a\\u200bb`` reads as ``ab`` on the trainer's
screen and would be a second "ab" (D222). Two names are the same name when they read the same:
``name_key`` folds case and compatibility forms and collapses spaces, so "Li Hua", "li  hua" and "Ｌｉ Ｈｕａ"
are one trainee.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from marshmallow import ValidationError, validate


def invisible(value: str) -> str | None:
    """The first invisible format character of ``value`` (``U+200B``), or None."""
    for ch in value:
        if unicodedata.category(ch) == "Cf":
            return f"U+{ord(ch):04X}"
    return None


class Visible(validate.Validator):
    """No invisible format character anywhere in the name (D222)."""

    def __call__(self, value: Any) -> Any:
        if isinstance(value, str) and (ch := invisible(value)) is not None:
            raise ValidationError(f"must not contain invisible characters ({ch})")
        return value


def name_key(name: str) -> str:
    """What makes two names the same trainee's: NFKC, case folded, spaces collapsed."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())
