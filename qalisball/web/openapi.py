"""An OpenAPI 3.1 description of a Flask app, generated from its routes and marshmallow schemas (issue 23).

apispec's ``MarshmallowPlugin`` turns the schemas that validate the requests into JSON Schema, so the
description cannot drift from what the server accepts; the routes come from ``app.url_map``, so a route
that nobody described still appears (with its path parameters) and a test can demand a description for it.
This module knows no feature: the composition root (``qalisball/server/api_docs.py``) hands it a table of
``Operation`` per (endpoint, method) and the names of the schemas.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from flask import Flask
from marshmallow import Schema

OPENAPI_VERSION = "3.1.0"
Auth = Literal["none", "organiser", "match", "organiser_or_referee", "venue"]
# Flask's ``<converter:name>`` as OpenAPI's ``{name}``.
_RULE_ARGUMENT = re.compile(r"<(?:[^:<>]+:)?([^<>]+)>")
_SKIPPED_METHODS = frozenset({"HEAD", "OPTIONS"})

ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": 'Every error (API.md "Conventions"): nothing was changed.',
    "required": ["error", "message"],
    "properties": {
        "error": {
            "type": "string",
            "enum": [
                "invalid",
                "unauthorized",
                "forbidden",
                "not_found",
                "rule",
                "conflict",
                "method_not_allowed",
                "too_large",
                "throttled",
                "unavailable",
                "disk_full",
                "error",
            ],
        },
        "message": {"type": "string", "description": "in the caller's language (Accept-Language, ?lang=)"},
        "fields": {
            "type": "object",
            "description": "400 invalid: each bad field and its messages",
            "additionalProperties": True,
        },
        "rule": {"type": "string", "description": '409 rule: the rule the call breaks ("11.1", "D1")'},
        "message_en": {"type": "string", "description": "409 rule, when the message is not in English"},
        "seq": {"type": "integer", "description": "409 conflict: the match's current seq"},
    },
    "additionalProperties": True,
}

# Which errors each kind of authorisation adds to an operation's answers.
_AUTH_ERRORS: dict[Auth, tuple[int, ...]] = {
    "none": (),
    "organiser": (401, 403),
    "match": (401, 403),
    "organiser_or_referee": (401, 403),
    "venue": (401,),  # a league's venue key (API.md "The league")
}
_ERROR_WORDS = {
    400: "the body does not fit the schema (`fields` says where)",
    401: "no token, or one that is not valid here",
    403: "the token's role may not do this",
    404: "no such resource",
    409: "a conflict (`conflict`) or a refusal by the rule book (`rule`)",
    413: "the body is too large",
}


@dataclass(frozen=True)
class Operation:
    """What the description says about one method of one route (its schema and path come from the app)."""

    summary: str
    tag: str
    auth: Auth = "none"
    status: int = 200
    answer: str = "application/json"  # the media type of the success answer
    answer_schema: Mapping[str, Any] = field(default_factory=dict)
    body: type[Schema] | Schema | None = None  # a JSON body, validated by this schema
    body_schema: Mapping[str, Any] | None = None  # a body of another kind (or a JSON body with a hand-made schema)
    body_media: str = "application/json"
    examples: Mapping[str, Any] = field(default_factory=dict)  # named example bodies
    parameters: tuple[Mapping[str, Any], ...] = ()  # query parameters
    description: str = ""
    errors: tuple[int, ...] = ()  # further error answers (400 is implied by a body, 404 by a path parameter)


def openapi_path(rule: str) -> str:
    """``/api/matches/<match_id>`` → ``/api/matches/{match_id}``."""
    return _RULE_ARGUMENT.sub(r"{\1}", rule)


def routes(app: Flask) -> list[tuple[str, str, str]]:
    """Every (Flask rule, method, endpoint) of the app, HEAD and OPTIONS aside, in path order."""
    out = []
    for rule in app.url_map.iter_rules():
        for method in sorted((rule.methods or set()) - _SKIPPED_METHODS):
            out.append((rule.rule, method, rule.endpoint))
    return sorted(out)


def build(
    app: Flask,
    operations: Mapping[tuple[str, str], Operation],
    *,
    title: str,
    version: str,
    description: str,
    schema_name: Callable[[type[Schema]], str],
    schemas: Mapping[str, type[Schema]] = {},
    tags: Mapping[str, str] = {},
    exclude: Iterable[str] = (),
) -> dict[str, Any]:
    """The OpenAPI document of ``app``: every route but the ``exclude``d endpoints, described by ``operations``
    where it has an entry (keyed by method and Flask rule: ``("GET", "/api/matches/<match_id>")``, the contract's
    own names, which outlive a module's or endpoint's), else as a bare operation named after its endpoint.
    ``schemas``: marshmallow schemas to add as components under these names (the resolver names the rest);
    ``tags``: the operations' tags with their descriptions, in the order a viewer shows them."""

    def resolver(schema: type[Schema] | Schema) -> str:
        cls = schema if isinstance(schema, type) else type(schema)
        partial = not isinstance(schema, type) and bool(schema.partial)
        return schema_name(cls) + ("Patch" if partial else "")  # a PATCH body: the same fields, none required

    spec = APISpec(
        title=title,
        version=version,
        openapi_version=OPENAPI_VERSION,
        plugins=[MarshmallowPlugin(schema_name_resolver=resolver)],
        info={"description": description},
    )
    spec.components.security_scheme(
        "bearer",
        {
            "type": "http",
            "scheme": "bearer",
            "description": 'A match role\'s token or the organiser token (API.md "Conventions"). Pages keep a token in '
            "an HttpOnly cookie instead; a write with that cookie needs its CSRF token (X-CSRF-Token).",
        },
    )
    spec.components.schema("Error", ERROR_SCHEMA)
    for tag, words in tags.items():
        spec.tag({"name": tag, "description": words})
    for name, cls in schemas.items():  # components that operations reference by name (a oneOf of them)
        spec.components.schema(name, schema=cls)
    skip = set(exclude)
    for rule, method, endpoint in routes(app):
        if endpoint in skip:
            continue
        op = operations.get((method, rule)) or Operation(summary=endpoint, tag="undescribed")
        path = openapi_path(rule)
        spec.path(path=path, operations={method.lower(): _operation(spec, op, endpoint, path)})
    return spec.to_dict()


def _operation(spec: APISpec, op: Operation, endpoint: str, path: str) -> dict[str, Any]:
    names = _RULE_ARGUMENT.findall(path.replace("{", "<").replace("}", ">"))
    parameters = [{"name": n, "in": "path", "required": True, "schema": {"type": "string"}} for n in names]
    parameters += [dict(p) for p in op.parameters]
    out: dict[str, Any] = {
        "operationId": endpoint.replace(".", "_"),
        "summary": op.summary,
        "tags": [op.tag],
        "responses": {str(op.status): _success(op)},
    }
    if op.description:
        out["description"] = op.description
    if parameters:
        out["parameters"] = parameters
    if op.auth != "none":
        out["security"] = [{"bearer": []}]
    errors = set(_AUTH_ERRORS[op.auth]) | set(op.errors)
    if op.body is not None or op.body_schema is not None:
        out["requestBody"] = _body(spec, op)
        errors.add(400)
    if names:
        errors.add(404)
    for status in sorted(errors):
        out["responses"][str(status)] = {
            "description": _ERROR_WORDS.get(status, "an error"),
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
        }
    return out


def _success(op: Operation) -> dict[str, Any]:
    if op.status == 204:
        return {"description": "done: no body"}
    schema = dict(op.answer_schema) or ({"type": "string"} if op.answer.startswith("text/") else {})
    return {"description": op.summary, "content": {op.answer: {"schema": schema}}}


def _body(spec: APISpec, op: Operation) -> dict[str, Any]:
    if op.body is not None:
        # The plugin registers the schema as a component and answers its $ref (the resolver names it).
        schema: Any = op.body
    else:
        schema = dict(op.body_schema or {})
    media: dict[str, Any] = {"schema": schema}
    if op.examples:
        media["examples"] = {name: {"value": value} for name, value in op.examples.items()}
    return {"required": True, "content": {op.body_media: media}}
