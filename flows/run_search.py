"""Runs found by what they carried: `?q=` on `/api/runs` and the Runs page.

A run matches when the text is in its input, its results (every node's
output), its error, or the console logs of one of its steps, as a substring,
without regard to case. The text is looked for as it appears inside the
stored JSON (`"` as `\\"`), so a search for `say "hi"` finds a log line that
said it.

PostgreSQL reads two trigram GIN indexes (flows/migrations/0034) made on the
very expressions below: a run's id is taken from the runs whose text matches
and from the steps whose logs match (the UNION), then the other filters and
the order apply to those runs only. A trigram index needs three characters
to narrow anything, so a search is at least `MIN_LENGTH` long, on SQLite too,
where the same expressions are scanned with LIKE (no index: fine for the
runs one SQLite database holds).
"""

from __future__ import annotations

import json

from django.db import connections
from django.db.models.expressions import RawSQL

MIN_LENGTH = 3
MAX_LENGTH = 200

# The indexed expressions (flows/migrations/0034_run_search_indexes.py).
RUN_TEXT = {
    "postgresql": "((\"input\")::text || ' ' || (\"results\")::text || ' ' "
    "|| COALESCE((\"error\")::text, ''))",
    "sqlite": "(\"input\" || ' ' || \"results\" || ' ' || COALESCE(\"error\", ''))",
}
STEP_TEXT = {"postgresql": '(("logs")::text)', "sqlite": '("logs")'}
# PostgreSQL's ILIKE and SQLite's LIKE (ASCII letters) both ignore case.
MATCH = {"postgresql": "{} ILIKE %s", "sqlite": "{} LIKE %s ESCAPE '\\'"}


def fragments(text: str, vendor: str) -> list[str]:
    """How `text` appears inside stored JSON: escaped as a JSON string is;
    SQLite keeps non-ASCII characters as `\\u` escapes, PostgreSQL as they are."""
    forms = [json.dumps(text, ensure_ascii=False)[1:-1]]
    if vendor != "postgresql":
        forms.append(json.dumps(text)[1:-1])
    return list(dict.fromkeys(forms))


def like_pattern(fragment: str) -> str:
    """`%fragment%` with LIKE's own characters taken literally."""
    for special in ("\\", "%", "_"):
        fragment = fragment.replace(special, "\\" + special)
    return f"%{fragment}%"


def search_runs(runs, text: str):
    """`runs` narrowed to those whose data contains `text` (one subquery)."""
    vendor = connections[runs.db].vendor
    vendor = vendor if vendor in MATCH else "sqlite"
    match = MATCH[vendor]
    selects, params = [], []
    for fragment in fragments(text, vendor):
        pattern = like_pattern(fragment)
        run_match = match.format(RUN_TEXT[vendor])
        step_match = match.format(STEP_TEXT[vendor])
        selects.append(f'SELECT "id" FROM "flows_flowrun" WHERE {run_match}')
        selects.append(f'SELECT "run_id" FROM "flows_runstep" WHERE {step_match}')
        params += [pattern, pattern]
    return runs.filter(pk__in=RawSQL(" UNION ".join(selects), params))
