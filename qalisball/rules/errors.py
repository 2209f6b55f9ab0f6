"""Errors the rule core raises. No Flask here: the API maps them to HTTP answers."""

from __future__ import annotations

from collections.abc import Mapping


def N_(s: str) -> str:
    """Mark ``s`` as a message template for extraction (``pybabel extract -k N_``, see babel.cfg); returns it unchanged.

    The rule core stays free of Flask: the API translates the template in the official's language.
    """
    return s


class RuleViolation(Exception):
    """A well-formed event that the rule book forbids now (HTTP 409 ``rule``).

    ``rule`` is the rule book's section number ("8.5") or a decision's name ("D2");
    ``message`` says what was tried, why not, and where possible what would make it legal.
    It is ``template`` (an English ``str.format`` template marked with :func:`N_`) filled in with
    ``params``; the API renders the same template in Chinese from ``template`` and ``params``.
    """

    def __init__(
        self, rule: str, template: str, params: Mapping[str, object] | None = None, details: Mapping[str, object] | None = None
    ) -> None:
        self.rule = rule
        self.template = template
        self.params: dict[str, object] = dict(params or {})
        # Fields the API adds to its 409 answer (``first_refused`` of a refused correction, M3).
        self.details: dict[str, object] = dict(details or {})
        self.message = template.format(**self.params)
        super().__init__(f"{self.message} (rule {rule})")


class InvalidEvent(Exception):
    """An event that names something the match does not have (HTTP 400 ``invalid``).

    For example a shirt number that is not on the team's roster. ``fields`` maps each bad
    field to its messages, as marshmallow does.
    """

    def __init__(self, fields: dict[str, list[str]]) -> None:
        super().__init__("; ".join(f"{k}: {' '.join(v)}" for k, v in fields.items()))
        self.fields = fields
