"""What ``app.py`` needs around the app (issue 14): the start-up text, and a connection handler that bounds
what one client can hold.

**Start-up text** (D48). The links that carry a token (the organiser's pages, the demo match's consoles)
are printed only to a terminal: when the output goes to a file or a service's journal, the same links
are printed without their tokens, and the text says where the organiser token is. Role tokens exist in
clear only when a match is created, so only a demo match created at this start-up has console links.
"""

from __future__ import annotations

from flask import Flask

from .service import Match


def startup_text(app: Flask, base: str, demo: Match | None, secrets_shown: bool, admin_from_env: bool) -> str:
    """The text ``app.py`` prints once at start-up; ``secrets_shown``: the output is a terminal."""
    svc = app.extensions["qalisball"]
    admin = app.config["ADMIN_TOKEN"]
    lines = [f"Qalisball Live on {base}/  (database {app.config['DATABASE']})"]
    for damage in [svc.problem, *svc.lost.values()]:
        if damage is not None:
            lines.append(f"!! {damage.message}")
    for m in svc.matches.values():
        if m.damaged is not None:
            lines.append(f"!! match {m.id} is read-only: {m.damaged.message}")
    if secrets_shown:
        lines.append(f"Organiser token: {admin}")
        lines.append(f"  matches     {base}/?token={admin}")
    else:
        where = "the QALISBALL_ADMIN_TOKEN you set" if admin_from_env else f"{app.instance_path}/admin_token"
        lines.append(f"Organiser token: not printed (this output is not a terminal); it is {where}")
        lines.append(f"  matches     {base}/  (open it once with ?token=<organiser token>)")
    for m in svc.matches.values():
        lines.append("")
        lines.append(f"Match {m.id}: {m.setup.home.name} – {m.setup.away.name}")
        lines.append(f"  spectators  {base}/matches/{m.id}")
        lines.append(f"  scoreboard  {base}/matches/{m.id}/scoreboard")
        officials = f"{base}/matches/{m.id}/officials"
        lines.append(f"  QR codes    {officials}?token={admin}" if secrets_shown else f"  QR codes    {officials}")
        lines.append(f"  report      {base}/matches/{m.id}/report")
        if secrets_shown and demo is not None and m.id == demo.id:
            for role, token in m.tokens.items():
                lines.append(f"  {role:<11} {base}/matches/{m.id}/referee?token={token}")
    return "\n".join(lines) + "\n"
