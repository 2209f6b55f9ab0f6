"""The event catalogue: every event type and every variant (violation kind, card colour, clock action).

One entry per type says its fields, who may log it (API.md's "who" column), whether spectators see
it on the timeline, its label (an ``N_`` message id: the Chinese is in ``translations/``), its
console key and the rule it belongs to. The API's schemas, the permission check, the console's call
list, the pages' words and the report's labels are all built from here, so a new violation kind is
one ``Variant`` below, the engine section that rules on it, its translation and its test.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import Any, Literal

from . import events as ev
from .errors import N_

Role = Literal["referee", "assistant1", "assistant2", "scorer", "organiser"]
# The match's officials, each with a token of the match (the organiser's token is the installation's).
ROLES: tuple[Role, ...] = ("referee", "assistant1", "assistant2", "scorer")
ORGANISER: frozenset[Role] = frozenset({"organiser"})
# Who signs the score sheet (M6).
SIGNERS = ("referee", "assistant1", "assistant2", "scorer", "home_captain", "away_captain")
REFEREE: frozenset[Role] = frozenset({"referee"})
ASSISTANTS: frozenset[Role] = frozenset({"referee", "assistant1", "assistant2"})
REFEREE_SCORER: frozenset[Role] = frozenset({"referee", "scorer"})
EVERY_OFFICIAL: frozenset[Role] = frozenset(ROLES)

ParamKind = Literal[
    "team", "player", "spot", "bool", "ms", "choice", "text", "seq", "takers", "new_player", "reason", "event", "period", "image"
]


@dataclass(frozen=True)
class Param:
    """One field of an event as posted (JSON name, kind, and what the schema enforces)."""

    name: str
    kind: ParamKind
    required: bool = False
    nullable: bool = False  # may be null (an optional player, a substitution's ``out``)
    choices: tuple[str, ...] = ()
    default: Any = None
    max_length: int = 0  # text fields
    minimum: int = 1  # seq fields (an insert may come after event 0: before the first)


@dataclass(frozen=True)
class Variant:
    """A kind of an event type that the console offers as its own call (a violation kind, a card colour)."""

    name: str
    label: str  # N_ message id
    key: str | None = None  # console keyboard key
    who: frozenset[Role] | None = None  # None: the type's own ``who``
    words: str = ""  # how a refusal names it ("a ball out side violation")
    rule: str = ""


@dataclass(frozen=True)
class EventType:
    type: str
    event: builtins.type[ev.Event]
    params: tuple[Param, ...]
    who: frozenset[Role]
    label: str  # N_ message id
    rule: str
    timeline: bool = True  # shown to spectators on the phone timeline …
    timeline_if: str | None = None  # … or only when this field is set (a foul that came with a card)
    key: str | None = None  # console keyboard key (types without variants)
    variant_param: str | None = None  # the field that names the variant ("kind", "color", "action")
    variants: tuple[Variant, ...] = ()
    # M6: the score sheet's own events (confirmations, signatures, the reopen) are never undone or
    # amended: a correction of the sheet is a new ``reopen`` and new signatures (D132).
    undoable: bool = True

    def variant(self, name: str) -> Variant | None:
        return next((v for v in self.variants if v.name == name), None)


TEAM = Param("team", "team", required=True)
PLAYER = Param("player", "player", nullable=True)
PLAYER_REQUIRED = Param("player", "player", required=True)
SPOT = Param("spot", "spot", nullable=True)

VIOLATION_KINDS: tuple[Variant, ...] = (
    Variant("ball_out_side", N_("Ball out: side line"), "o", ASSISTANTS, N_("a ball out side violation"), "8.2"),
    Variant("ball_out_end", N_("Ball out: end line"), "e", ASSISTANTS, N_("a ball out end violation"), "8.2"),
    Variant("ball_grounded", N_("Ball grounded"), "d", None, N_("a ball grounded violation"), "8.3"),
    Variant("ball_in_area", N_("Ball in area"), "b", ASSISTANTS, N_("a ball in area violation"), "8.4"),
    Variant("player_in_area", N_("Player in area"), "p", ASSISTANTS, N_("a player in area violation"), "8.5"),
    Variant("caught", N_("Caught: 3 steps / 3 s"), "c", None, N_("a caught violation"), "8.6"),
    Variant("restart", N_("Restart violation"), "r", None, N_("a restart violation"), "8.7"),
)
CARD_COLORS: tuple[Variant, ...] = (
    Variant("yellow", N_("Yellow card"), "y", rule="9.3"),
    Variant("red", N_("Red card"), "x", rule="9.3"),
)
CLOCK_ACTIONS: tuple[Variant, ...] = (
    Variant("pause", N_("Pause"), "Space", rule="3.1"),
    Variant("resume", N_("Resume"), "Space", rule="3.1"),
    Variant("set", N_("Set clock"), "q", rule="3.1"),
)

# Reasons for a card (M7): short codes with zh/en labels, plus free text.
MISCONDUCT_CODES: tuple[Variant, ...] = (
    Variant("unsporting", N_("Unsporting behaviour")),
    Variant("dissent", N_("Dissent by word or action")),
    Variant("persistent_fouls", N_("Persistent fouls")),
    Variant("dangerous_play", N_("Dangerous play")),
    Variant("delaying", N_("Delaying the restart")),
    Variant("violent_conduct", N_("Violent conduct")),
    Variant("abusive_language", N_("Offensive or abusive language")),
    Variant("foul_on_official", N_("Foul on an official")),
    Variant("other", N_("Other (see text)")),
)
CARD_REASON = Param("reason", "reason", nullable=True)

# In the order of the console's buttons.
CATALOGUE: tuple[EventType, ...] = (
    EventType(
        "restart_taken", ev.RestartTaken, (TEAM, PLAYER), REFEREE, N_("Restart taken"), "10.1", timeline=False, key="Enter"
    ),
    EventType(
        "goal",
        ev.Goal,
        (TEAM, PLAYER, Param("direct", "bool", default=False)),
        ASSISTANTS,
        N_("Goal"),
        "7.1",
        key="g",
    ),
    EventType(
        "violation",
        ev.Violation,
        (
            Param("kind", "choice", required=True, choices=tuple(v.name for v in VIOLATION_KINDS)),
            TEAM,
            PLAYER,
            SPOT,
            Param("side", "choice", choices=("low", "high"), default="low"),
        ),
        REFEREE,
        N_("Violation"),
        "8.1",
        timeline=False,
        variant_param="kind",
        variants=VIOLATION_KINDS,
    ),
    EventType(
        "foul",
        ev.Foul,
        (
            TEAM,
            PLAYER,
            SPOT,
            Param("where", "choice", choices=("field", "beyond_end_line", "beyond_side_line"), default="field"),
            Param("on_official", "bool", default=False),
            Param("card", "choice", choices=("yellow", "red"), nullable=True),
            CARD_REASON,
        ),
        REFEREE,
        N_("Foul"),
        "9.1",
        timeline=False,
        timeline_if="card",
        key="f",
    ),
    EventType(
        "card",
        ev.Card,
        (TEAM, PLAYER_REQUIRED, Param("color", "choice", required=True, choices=("yellow", "red")), CARD_REASON),
        REFEREE,
        N_("Card"),
        "9.3",
        variant_param="color",
        variants=CARD_COLORS,
    ),
    EventType("steal", ev.Steal, (TEAM, PLAYER), REFEREE, N_("Steal"), "6.2", timeline=False, key="t"),
    EventType(
        "catch",
        ev.Catch,
        (TEAM, PLAYER, Param("caught", "player", nullable=True)),
        REFEREE,
        N_("Catch"),
        "6.2",
        timeline=False,
        key="k",
    ),
    EventType("attack", ev.Attack, (TEAM,), REFEREE, N_("Attack established"), "13.1", timeline=False, key="n"),
    EventType("shot_missed", ev.ShotMissed, (TEAM, PLAYER, SPOT), ASSISTANTS, N_("Missed shot"), "6.1", timeline=False, key="m"),
    EventType("injury", ev.Injury, (TEAM, PLAYER_REQUIRED, SPOT), REFEREE, N_("Injury"), "11.3", timeline=False, key="i"),
    EventType(
        "substitution",
        ev.Substitution,
        (TEAM, Param("out", "player", required=True, nullable=True), Param("in", "player", required=True)),
        REFEREE_SCORER,
        N_("Substitution"),
        "11.1",
        key="s",
    ),
    EventType(
        "coin_toss",
        ev.CoinToss,
        (
            Param("kickoff", "team", required=True),
            Param("home_end", "choice", required=True, choices=("x0", "xL")),
        ),
        REFEREE,
        N_("Coin toss"),
        "5.1",
        timeline=False,
    ),
    EventType("period_start", ev.PeriodStart, (), REFEREE, N_("Start half"), "3.1"),
    EventType("period_end", ev.PeriodEnd, (), REFEREE, N_("End half"), "3.1"),
    EventType(
        "clock",
        ev.ClockChange,
        (
            Param("action", "choice", required=True, choices=tuple(v.name for v in CLOCK_ACTIONS)),
            Param("elapsed_ms", "ms", nullable=True),
        ),
        REFEREE_SCORER,
        N_("Clock"),
        "3.1",
        timeline=False,
        variant_param="action",
        variants=CLOCK_ACTIONS,
    ),
    EventType(
        "shootout_start",
        ev.ShootoutStart,
        (Param("first", "team", required=True), Param("takers", "takers", required=True)),
        REFEREE,
        N_("Shootout start"),
        "12.2",
        timeline=False,
    ),
    EventType(
        "shootout_kick",
        ev.ShootoutKick,
        (TEAM, Param("scored", "bool", required=True)),
        REFEREE,
        N_("Shootout kick"),
        "12.2",
    ),
    EventType(
        "abandon",
        ev.Abandon,
        (Param("reason", "text", required=True, max_length=500),),
        REFEREE,
        N_("Abandon"),
        "4.2",
    ),
    EventType(
        "void",
        ev.Void,
        (
            Param("target", "seq", required=True),
            Param("reason", "text", default="", max_length=500),
        ),
        REFEREE,
        N_("Void"),
        "D8",
        timeline=False,
    ),
)

# The match day (SPEC §9): roster changes, corrections, notes, the score sheet.
MATCH_DAY: tuple[EventType, ...] = (
    EventType(
        "roster",
        ev.RosterChange,
        (
            TEAM,
            Param("add", "new_player", nullable=True),
            Param("player", "player", nullable=True),
            Param("name", "text", nullable=True, max_length=80),
            Param("number", "player", nullable=True),
        ),
        REFEREE_SCORER,
        N_("Roster change"),
        "M2",
        timeline=False,
    ),
    EventType(
        "amend",
        ev.Amend,
        (
            Param("target", "seq", required=True),
            Param("event", "event", required=True),
            Param("reason", "text", default="", max_length=500),
        ),
        REFEREE,
        N_("Correction"),
        "M3",
        timeline=False,
    ),
    EventType(
        "insert",
        ev.Insert,
        (
            Param("after", "seq", required=True, minimum=0),
            Param("event", "event", required=True),
            Param("reason", "text", default="", max_length=500),
        ),
        REFEREE,
        N_("Missed call added"),
        "M3",
        timeline=False,
    ),
    EventType(
        "note",
        ev.Note,
        (
            Param("text", "text", required=True, max_length=2000),
            Param("about", "seq", nullable=True),
            Param("team", "team", nullable=True),
            Param("player", "player", nullable=True),
            Param("code", "choice", nullable=True, choices=tuple(v.name for v in MISCONDUCT_CODES)),
        ),
        EVERY_OFFICIAL,
        N_("Note"),
        "M7",
        timeline=False,
    ),
    EventType(
        "confirm",
        ev.Confirm,
        (Param("period", "period", required=True),),
        REFEREE,
        N_("Score confirmed"),
        "M6",
        timeline=False,
        undoable=False,
    ),
    EventType(
        "sign",
        ev.Sign,
        (
            Param("as", "choice", required=True, choices=SIGNERS),
            Param("name", "text", required=True, max_length=80),
            Param("signature", "image", nullable=True),
        ),
        REFEREE,
        N_("Signature"),
        "M6",
        timeline=False,
        undoable=False,
    ),
    EventType(
        "reopen",
        ev.Reopen,
        (Param("reason", "text", required=True, max_length=500),),
        ORGANISER,
        N_("Reopened"),
        "M6",
        undoable=False,
    ),
)

BY_TYPE: dict[str, EventType] = {t.type: t for t in (*CATALOGUE, *MATCH_DAY)}
# What an amend or insert may carry: the calls of the match, not another correction or the sheet.
CORRECTABLE = frozenset(t.type for t in CATALOGUE) - {"void"}
# M6, D132: what no void or amend may target (the console's Undo never offers them).
NOT_UNDOABLE = frozenset(t.type for t in (*CATALOGUE, *MATCH_DAY) if not t.undoable)


def may_log(role: str, event_type: str, variant: object = None) -> bool:
    """API.md's "who" column: may ``role`` log this type (and variant)? Unknown types: yes (the schema refuses them)."""
    entry = BY_TYPE.get(event_type)
    if entry is None:
        return True
    if role in entry.who:
        return True
    chosen = entry.variant(variant) if isinstance(variant, str) else None
    return chosen is not None and chosen.who is not None and role in chosen.who


def on_timeline(event_type: str, fields: dict[str, Any]) -> bool:
    """Whether spectators see this (non-voided) event on the phone timeline."""
    entry = BY_TYPE.get(event_type)
    if entry is None:
        return False
    return entry.timeline or (entry.timeline_if is not None and fields.get(entry.timeline_if) is not None)


def violation_label(kind: str) -> str:
    """A violation kind's label ("Ball out: side line"), an ``N_`` message id."""
    chosen = BY_TYPE["violation"].variant(kind)
    return chosen.label if chosen is not None else kind


def violation_rule(kind: str) -> str:
    """The rule of the book that names a violation kind ("8.2" for a ball out)."""
    chosen = BY_TYPE["violation"].variant(kind)
    return chosen.rule if chosen is not None and chosen.rule else "8.1"


def violation_words(kind: str) -> str:
    """How a refusal names a violation kind ("a ball out side violation")."""
    chosen = BY_TYPE["violation"].variant(kind)
    return chosen.words if chosen is not None else kind


def console_calls() -> list[dict[str, Any]]:
    """The console's calls in button order: ``{"call", "type", "variant", "label", "key", "who"}``.

    A type with variants gives one call per variant (``call`` is the variant's name); the clock's
    actions are the console's clock controls.
    """
    calls: list[dict[str, Any]] = []
    for t in CATALOGUE:
        if t.variants:
            for v in t.variants:
                who = sorted(t.who | (v.who or frozenset()))
                calls.append(
                    {
                        "call": v.name,
                        "type": t.type,
                        "param": t.variant_param,
                        "variant": v.name,
                        "label": v.label,
                        "key": v.key,
                        "who": who,
                    }
                )
        else:
            calls.append(
                {
                    "call": t.type,
                    "type": t.type,
                    "param": None,
                    "variant": None,
                    "label": t.label,
                    "key": t.key,
                    "who": sorted(t.who),
                }
            )
    return calls
