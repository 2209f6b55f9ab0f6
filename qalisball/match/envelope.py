"""An event as posted: the rule core's event plus its envelope (idempotency key, game time, expected seq).

The API's schemas build it from a validated request; the service consumes it. Neither depends on the other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from qalisball.rules.events import Event, from_fields

ENVELOPE = ("type", "id", "at_ms", "expected_seq")


@dataclass(frozen=True)
class ParsedEvent:
    type: str
    key: str | None
    at_ms: int | None
    expected_seq: int | None
    fields: dict[str, Any]
    event: Event

    @classmethod
    def from_request(cls, data: dict[str, Any]) -> ParsedEvent:
        """From a validated request body (defaults filled in)."""
        fields = {k: v for k, v in data.items() if k not in ENVELOPE}
        return cls(
            data["type"], data.get("id"), data.get("at_ms"), data.get("expected_seq"), fields, from_fields(data["type"], fields)
        )
