"""The paperwork of a report: the referee's report (M7), the score sheet (M6) and the audit of corrections
(M3, D81). ``Paperwork`` is the part of the report's builder (counting.py) that keeps them."""

from __future__ import annotations

from datetime import tzinfo
from typing import Any

from qalisball.storage.store import LogEntry

from ..rules.common import TEAMS
from ..rules.state import MatchSetup, MatchState
from .labels import misconduct_label
from .moments import Moment
from .people import Names, Roster, roster_at
from .times import clock, iso, phase_of
from .words import as_event, pair_dict, plain_text, public_fields

# Signers of the score sheet (M6), in the order the sheet lists them.
SIGNERS = ("referee", "assistant1", "assistant2", "scorer", "home_captain", "away_captain")


class Paperwork:
    """Notes, cards, confirmations, signatures, reopenings as the replay meets them; the audit from the log."""

    def __init__(self, setup: MatchSetup, final: Roster, officials: dict[str, str], tz: tzinfo, log: list[LogEntry]) -> None:
        self.setup, self.officials, self.tz, self.log = setup, officials, tz, log
        self.by_seq = {e.seq: e for e in log}
        self.final = final
        self.roster = Roster(setup)  # as the replay goes (M2)
        self.names = Names(setup, self.roster, final)
        self.by_timeline_seq: dict[int, dict[str, Any]] = {}
        self.notes: list[dict[str, Any]] = []
        self.cards: list[dict[str, Any]] = []
        self.confirmations: list[dict[str, Any]] = []
        self.signed: list[dict[str, Any]] = []  # the signatures since the last reopen
        self.reopened: list[dict[str, Any]] = []

    def _player_refs(self, team: Any, number: Any) -> dict[str, Any]:
        """How a player an event names is known at the end: his number now and his name (M2)."""
        p = self.names.person(team, number)
        return {"player_now": None if p is None else p.number, "player_name": None if p is None else p.name}

    def _stamp(self, e: LogEntry) -> dict[str, Any]:
        return {"seq": e.seq, "by": e.by, "official": self.officials.get(e.by), "at": iso(e.received_ms, self.tz)}

    # -- the referee's report (M7) -----------------------------------------------------------------

    def _note(self, st: Moment, period: int | None, at_ms: int | None) -> None:
        e = st.entry
        f = e.fields
        code = f.get("code")
        team, player = f.get("team"), f.get("player")
        self.notes.append(
            {
                "text": f.get("text", ""),
                "code": code,
                "code_label": pair_dict(misconduct_label(code)) if code else None,
                "about_seq": f.get("about"),
                "team": team,
                "player": player,
                **self._player_refs(team, player),
                "about_player": self.names.who(team, player) if team in TEAMS else None,
                "phase": phase_of(st),
                "period": period,
                "at_ms": at_ms,
                "clock": clock(at_ms),
                **self._stamp(e),
            }
        )

    def referee_report(self) -> dict[str, Any]:
        """Notes (with what they are about) and the cards with their reasons (M7)."""
        notes = []
        for n in self.notes:
            about = None
            seq = n.pop("about_seq")
            if seq is not None:
                about = self._about(int(seq))
            notes.append({**n, "about": about})
        return {"notes": notes, "cards": self.cards}

    def _about(self, seq: int) -> dict[str, Any]:
        """The event a note is about: its words from the timeline, or from the log when it was voided or replaced."""
        item = self.by_timeline_seq.get(seq)
        if item is not None:
            return {"seq": seq, "type": item["type"], "text": item["text"], "clock": item["clock"], "status": "stands"}
        row = self.by_seq.get(seq)
        if row is None:
            return {"seq": seq, "type": None, "text": None, "clock": None, "status": "unknown"}
        by = self.by_seq.get(row.voided_by) if row.voided_by is not None else None
        status = "replaced" if by is not None and by.type == "amend" else "voided" if by is not None else "stands"
        text = plain_text(row, self.setup, Names(self.setup, roster_at(self.setup, self.log, row.seq), self.final))
        return {"seq": seq, "type": row.type, "text": text, "clock": clock(row.at_ms), "status": status, "by_seq": row.voided_by}

    # -- the score sheet (M6) --------------------------------------------------------------------------

    def sheet(self, s: MatchState) -> dict[str, Any]:
        """Confirmations, the signatures that stand (names, roles, times, drawings) and reopenings."""
        # The state's signatures are the ones since the last reopen, each from its ``sign`` event.
        standing = {sig.as_ for sig in s.signatures}
        signatures = [sig for sig in self.signed if sig["as"] in standing]
        signatures.sort(key=lambda sig: SIGNERS.index(sig["as"]) if sig["as"] in SIGNERS else len(SIGNERS))
        return {
            "locked": s.locked,
            "confirmed": list(s.confirmed),
            "confirmations": self.confirmations,
            "signatures": signatures,
            "reopened": self.reopened,
        }

    # -- audit -----------------------------------------------------------------------------------

    def audit(self) -> list[dict[str, Any]]:
        """Every correction (void, amend, insert) and every reopening, with its reason, in log order.

        A voided or replaced event is listed with what it was, who logged it, who corrected it, when
        and why (``seq`` is the corrected event's); an inserted event with what was added after what;
        a reopening with the signatures it cleared.
        """
        out: list[tuple[int, dict[str, Any]]] = []
        for e in self.log:
            if e.voided_by is not None:
                out.append((e.voided_by, self._corrected(e)))
            if e.type == "insert":
                body = e.fields["event"]
                names = Names(self.setup, roster_at(self.setup, self.log, e.seq), self.final)
                inserted = plain_text(as_event(e, body), self.setup, names)
                out.append(
                    (
                        e.seq,
                        {
                            "kind": "insert",
                            "seq": e.seq,
                            "type": body.get("type"),
                            "fields": {k: v for k, v in body.items() if k != "type"},
                            "text": inserted,
                            "after": e.fields["after"],
                            "reason": e.fields.get("reason", ""),
                            "voided_by": e.voided_by,
                            **self._by(e),
                        },
                    )
                )
            if e.type == "reopen":
                r = next((x for x in self.reopened if x["seq"] == e.seq), None)
                out.append(
                    (
                        e.seq,
                        {
                            "kind": "reopen",
                            "seq": e.seq,
                            "type": "reopen",
                            "reason": e.fields.get("reason", ""),
                            "cleared": [] if r is None else [{k: v for k, v in s.items() if k != "image"} for s in r["cleared"]],
                            **self._by(e),
                        },
                    )
                )
        out.sort(key=lambda pair: pair[0])
        return [entry for _, entry in out]

    def _by(self, e: LogEntry) -> dict[str, Any]:
        return {
            "by": e.by,
            "official": self.officials.get(e.by),
            "at_ms": e.at_ms,
            "clock": clock(e.at_ms),
            "received_at": iso(e.received_ms, self.tz),
        }

    def _corrected(self, e: LogEntry) -> dict[str, Any]:
        corr = self.by_seq.get(e.voided_by)  # type: ignore[arg-type]
        kind = corr.type if corr is not None else "void"
        names = Names(self.setup, roster_at(self.setup, self.log, e.seq), self.final)
        entry: dict[str, Any] = {
            "kind": kind,
            "seq": e.seq,
            "type": e.type,
            "fields": public_fields(e),
            "text": plain_text(e, self.setup, names),
            **self._by(e),
            "voided_by": e.voided_by,
            "voided_by_role": corr.by if corr else None,
            "voided_by_official": self.officials.get(corr.by) if corr else None,
            "voided_at": iso(corr.received_ms, self.tz) if corr else None,
            "voided_at_ms": corr.at_ms if corr else None,
            "voided_clock": clock(corr.at_ms) if corr else None,
            "reason": corr.fields.get("reason", "") if corr else "",
            "replacement": None,
        }
        if corr is not None and corr.type == "amend":
            body = corr.fields["event"]
            item = self.by_timeline_seq.get(corr.seq)
            entry["replacement"] = {
                "seq": corr.seq,
                "type": body.get("type"),
                "text": item["text"] if item is not None else plain_text(as_event(corr, body), self.setup, names),
            }
        return entry
