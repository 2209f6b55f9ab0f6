"""A 400's ``fields`` in the request's language (issue 21: the pages parse no English).

API.md's ``fields`` maps each bad field to its messages in English. When the request asks for another
language (``?lang=zh``, the pages' ``lang`` cookie, ``Accept-Language``: ``i18n.current_language``), the
answer's ``fields`` is in that language and ``fields_en`` keeps the English, as a 409's ``message`` and
``message_en`` are (docs/api-extras.md). A message is translated when it says how (``schemas.Said``:
a message id and its params) or is one of marshmallow's fixed messages (keyed by marshmallow's own
constants, never by parsing text); any other message stays English.
"""

from __future__ import annotations

from typing import Any

from flask_babel import gettext
from marshmallow import fields as mm

from qalisball.match.schemas import Said
from qalisball.rules.errors import N_
from qalisball.web.i18n import current_language

# marshmallow's messages without params, as the create-match page words them.
FIXED: dict[str, str] = {
    mm.Field.default_error_messages["required"]: N_("Required"),
    mm.Integer.default_error_messages["invalid"]: N_("Type a number"),
    mm.Number.default_error_messages["invalid"]: N_("Type a number"),
}


def fields_answer(fields: dict[str, Any]) -> dict[str, Any]:
    """The ``fields`` (and ``fields_en``) keys of a 400 ``invalid`` answer for this request."""
    if current_language() == "en":
        return {"fields": fields}
    return {"fields": _said(fields), "fields_en": fields}


def _said(messages: Any) -> Any:
    if isinstance(messages, dict):
        return {k: _said(v) for k, v in messages.items()}
    if isinstance(messages, list):
        return [_said(m) for m in messages]
    if isinstance(messages, Said):
        return gettext(messages.msgid).format(**{k: _param(v) for k, v in messages.params.items()})
    if isinstance(messages, str) and messages in FIXED:
        return gettext(FIXED[messages])
    return messages


def _param(value: Any) -> Any:
    """Shirt numbers as the pages list them ("#3, #7" in the language's separator); a number as typed."""
    if isinstance(value, list):
        return gettext(", ").join(f"#{n}" for n in value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value
