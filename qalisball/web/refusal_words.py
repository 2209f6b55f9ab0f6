"""A refusal or a ruling's reason in the reader's language: the one renderer of the rule core's templates.

The rule core words its refusals and reasons as English templates marked ``N_`` with params
(``RuleViolation.template``/``params``, a restart's ``why``). Every screen and answer renders them here:
the template through gettext, then each param in words — a team by its name, an event type by its
label, a phase by its name, an English phrase of the core (``N_``) translated, a nested refusal (a
correction's replay) as "message (rule n)". The browser has the one twin of this
(``static/js/lib/words.js``, ``reasonText``), fed with the same templates.
"""

from __future__ import annotations

from collections.abc import Mapping

from flask_babel import gettext

from qalisball.rules.common import TEAMS
from qalisball.rules.errors import N_, RuleViolation
from qalisball.rules.state import MatchSetup
from qalisball.web import i18n

# Params that name a team ("home"/"away"), an event type, a phase or role key, or an English phrase
# of the rule core marked with N_ (a phase in words, a restart, "a steal").
TEAM_PARAMS = frozenset({"team", "restarting", "winner", "due"})
EVENT_PARAMS = frozenset({"event", "event_type", "type"})
PHRASE_PARAMS = frozenset({"phase", "what", "restart", "reason"})


def render(template: str, params: Mapping[str, object], setup: MatchSetup | None = None) -> str:
    """``template`` translated and filled in with ``params`` in words (teams by name when ``setup`` is given)."""
    words = {key: _word(key, value, setup) for key, value in params.items()}
    try:
        return str(gettext(template)).format(**words)
    except (KeyError, IndexError, ValueError):  # a translation that lost a placeholder: the English still reads
        return template.format(**params)


def refusal(exc: RuleViolation, setup: MatchSetup | None = None) -> str:
    """A refusal in the reader's language."""
    return render(exc.template, exc.params, setup)


def wire(exc: RuleViolation) -> dict[str, object]:
    """D200: the refusal as the browser's renderer (``words.js`` ``reasonText``) takes it, as ``legal``'s reasons
    are: the English ``template`` and its ``params`` (a team as ``home``/``away``, a nested refusal of a correction's
    replay as ``{"rule", "template", "params", "message"}``), so that a console renders it in its own language."""
    return {"template": exc.template, "params": {k: _wire_param(v) for k, v in exc.params.items()}}


def _wire_param(value: object) -> object:
    if isinstance(value, RuleViolation):
        return {"rule": value.rule, "message": value.message, **wire(value)}
    return value if isinstance(value, str | int | float | bool) or value is None else str(value)


def _word(key: str, value: object, setup: MatchSetup | None) -> object:
    if isinstance(value, RuleViolation):  # a correction's replay: the later event it would make illegal
        return str(gettext(N_("{message} (rule {rule})"))).format(message=refusal(value, setup), rule=value.rule)
    if not isinstance(value, str) or not value:
        return value
    if key in TEAM_PARAMS and value in TEAMS and setup is not None:
        return setup.team(value).name  # type: ignore[arg-type]
    if key in EVENT_PARAMS and value in i18n.EVENTS:
        return str(i18n.EVENTS[value])
    if key == "role" and value in i18n.ROLES:
        return str(i18n.ROLES[value])
    if key in PHRASE_PARAMS:
        return str(i18n.PHASES[value]) if key == "phase" and value in i18n.PHASES else gettext(value)
    return value
