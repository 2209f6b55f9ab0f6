"""Errors the rule core raises. No Flask here: the API maps them to HTTP answers."""

from __future__ import annotations


class RuleViolation(Exception):
    """A well-formed event that the rule book forbids now (HTTP 409 ``rule``).

    ``rule`` is the rule book's section number ("8.5") or a decision's name ("D2");
    ``message`` says what was tried, why not, and where possible what would make it legal.
    """

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{message} (rule {rule})")
        self.rule = rule
        self.message = message


class InvalidEvent(Exception):
    """An event that names something the match does not have (HTTP 400 ``invalid``).

    For example a shirt number that is not on the team's roster. ``fields`` maps each bad
    field to its messages, as marshmallow does.
    """

    def __init__(self, fields: dict[str, list[str]]) -> None:
        super().__init__("; ".join(f"{k}: {' '.join(v)}" for k, v in fields.items()))
        self.fields = fields
