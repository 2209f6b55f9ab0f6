"""A competition's rules as code (SPEC §10, C1–C7): pure functions of plain data.

- ``schedule``: round robins by the circle method, groups then a crossed knockout, knockout brackets,
  spread over fields and time slots (C2).
- ``bracket``: which teams a fixture opposes once earlier results are known (knockout filling, C2).
- ``standings``: a fixture's result (match, forfeit C6, protest decision C7) and the table with its
  tie-break chain (C3).
- ``discipline``: suspensions from cards (C4) and officials standing aside (C5, D66).
- ``fixtures``: whether a fixture's match may be made (C2, C6, C7) and a forfeit declared (C6, D69).
- ``decisions``: decided results, the organiser's (D63) and a protest's (C7).
- ``moves``: moving a fixture to another time or field (D75).

No Flask, no SQLite, no clock: teams and fixtures are named by the ids the caller gives, and the
service (``qalisball/competitions/``) extracts results and cards from the matches' event logs, gathers a
fixture's facts, calls these checks and stores what they let through; every competition refusal
(``RuleViolation``) is raised here, never by the service.
"""
