"""What the console's script takes from its page data, computed by the script's own module under Node.

The console's page embeds the event catalogue (``GET /api/catalogue``'s answer, issue 23) and its script
builds from it its calls, keys, rights, codes and the catalogue's words (static/js/lib/catalogue.js):
tests that ask what the console was handed ask this, not a copy in the page data.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CATALOGUE_JS = (ROOT / "static" / "js" / "lib" / "catalogue.js").as_uri()

_HARNESS = """
import { readFileSync } from "node:fs";
const { catalogueWords, consoleCatalogue } = await import(process.argv[1]);
const d = JSON.parse(readFileSync(0, "utf8"));
const k = consoleCatalogue(d.catalogue, d.role, d.rule_set, d.lang);
const vocab = Object.assign({}, d.vocab, catalogueWords(d.catalogue, d.lang, d.rule_set));
process.stdout.write(JSON.stringify({ ...k, vocab }));
"""


def console_view(page: dict[str, Any]) -> dict[str, Any]:
    """The console's page data as its script sees it: ``calls``, ``allowed``, ``keys``, ``matchday`` (its
    match-day rights), ``codes`` and ``note_codes`` (in the page's language), ``not_undoable``, and ``vocab``
    with the catalogue's words, all built by static/js/lib/catalogue.js from the embedded catalogue."""
    out = subprocess.run(
        ["node", "--input-type=module", "-e", _HARNESS, CATALOGUE_JS],
        input=json.dumps(page),
        capture_output=True,
        text=True,
        check=True,
    )
    k = json.loads(out.stdout)
    return {
        **page,
        "calls": k["calls"],
        "allowed": k["allowed"],
        "keys": k["keys"],
        "matchday": k["may"],
        "codes": k["codes"],
        "note_codes": k["noteCodes"],
        "not_undoable": k["notUndoable"],
        "vocab": k["vocab"],
    }
