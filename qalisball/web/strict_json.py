"""Request bodies that cannot crash anything (issue 14): strict UTF-8 JSON, bounded in size and depth.

``read_json`` is the API's only way to read a body. It answers (by raising ``BadBody``) before any
handler sees the data:

- 413 ``too_large`` over the endpoint's limit (64 KB; an event that carries a signature may be up to
  192 KB: API.md allows a 100 KB signature, which is ~137 KB in base64). The body is read up to the
  limit and no further, chunked or not.
- 400 ``invalid`` for anything but JSON in UTF-8: another ``charset``, a byte-order mark, bytes that
  are not UTF-8, duplicate keys in an object, ``NaN``/``Infinity``, numbers too long to convert, a
  lone surrogate (``"\\ud800"``) in any string or key, nesting deeper than ``MAX_DEPTH``.
"""

from __future__ import annotations

import json
from typing import Any

from flask import Request, Response, jsonify

KB = 1024
LIMIT = 64 * KB  # every JSON body
SIGNED_LIMIT = 192 * KB  # an event that carries a signature (API.md "Match day": sign, ≤ 100 KB of PNG)
SIGNED_TYPES = frozenset({"sign"})
MAX_DEPTH = 12  # a match creation nests 5 deep (rules → multi_attack → players → home → [n])


class BadBody(Exception):
    """A body refused before it is looked at: 400 ``invalid`` or 413 ``too_large``."""

    def __init__(self, status: int, error: str, message: str) -> None:
        super().__init__(message)
        self.status, self.error, self.message = status, error, message


def bad_body_answer(exc: BadBody) -> tuple[Response, int]:
    """A blueprint's error handler for ``BadBody``: API.md's error body (``fields._schema`` on a 400)."""
    extra = {"fields": {"_schema": [exc.message]}} if exc.status == 400 else {}
    return jsonify({"error": exc.error, "message": exc.message, **extra}), exc.status


def _invalid(message: str) -> BadBody:
    return BadBody(400, "invalid", message)


def read_json(request: Request, limit: int = LIMIT, signed_limit: int | None = None) -> Any:
    """The request's JSON body, strictly parsed; ``signed_limit``: a larger limit for signature events."""
    ceiling = max(limit, signed_limit or 0)
    if request.content_length is not None and request.content_length > ceiling:
        raise _too_large(ceiling)  # refused before a byte of it is read
    if not request.is_json:
        raise _invalid("send JSON (Content-Type: application/json)")
    charset = request.mimetype_params.get("charset")
    if charset is not None and charset.lower().replace("-", "") != "utf8":
        raise _invalid(f"JSON must be UTF-8, not {charset}")
    raw = request.stream.read(ceiling + 1)
    if len(raw) > ceiling:
        raise _too_large(ceiling)
    body = loads(raw)
    if len(raw) > limit and not (isinstance(body, dict) and body.get("type") in SIGNED_TYPES):
        raise _too_large(limit)
    return body


def _too_large(limit: int) -> BadBody:
    return BadBody(413, "too_large", f"the body is larger than {limit // KB} KB")


def loads(raw: bytes) -> Any:
    """Strict JSON from bytes (see the module's docstring); raises ``BadBody`` (400)."""
    if raw.startswith(b"\xef\xbb\xbf") or raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise _invalid("the body starts with a byte-order mark: send UTF-8 JSON without one")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _invalid(f"the body is not UTF-8 (byte {exc.start})") from exc
    try:
        value = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except RecursionError as exc:
        raise _invalid(f"the JSON is nested too deeply (at most {MAX_DEPTH} levels)") from exc
    except ValueError as exc:  # JSONDecodeError, our hooks, integers of more than 4,300 digits
        raise _invalid(f"the body is not valid JSON: {exc}") from exc
    _check(value)
    return value


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {key!r} appears twice in one object")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _check(value: Any) -> None:
    """Depth and lone surrogates, without recursion (a hostile body cannot exhaust the stack here)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            _utf8(item)
        elif isinstance(item, dict | list):
            if depth > MAX_DEPTH:
                raise _invalid(f"the JSON is nested too deeply (at most {MAX_DEPTH} levels)")
            if isinstance(item, dict):
                for key, child in item.items():
                    _utf8(key)
                    stack.append((child, depth + 1))
            else:
                stack.extend((child, depth + 1) for child in item)


def _utf8(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise _invalid(f"a string holds a lone surrogate ({text[exc.start]!a}): not a character") from exc
