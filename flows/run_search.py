"""Runs found by what they carried: `?q=` on `/api/runs` and the Runs page.

A run matches when the text is in its input, its results (every node's
output), its error, or the console logs of one of its steps, as a substring,
without regard to case. The text is looked for as it appears inside the
stored JSON (`"` as `\\"`), so a search for `say "hi"` finds a log line that
said it.

PostgreSQL reads two trigram GIN indexes (the run-search migration,
flows/migrations/0037_run_search_indexes.py) made on the very expressions
below. The condition is `run text ILIKE … OR id = ANY(ARRAY(ids
of the runs whose step logs match))`: the array is one index read, made once,
and `id = ANY(array)` is itself indexable, so the planner may take either way
in: for a rare text, the two indexes OR-ed into one bitmap (milliseconds among
a million runs); for a common one, the runs newest first until a page is
full. A plain `id IN (subquery)` or a UNION forced one way or the other, one
of them seconds long (bench/README.md, "Finding runs"). A trigram index
needs three characters to narrow anything, so a search is at least
`MIN_LENGTH` long, on SQLite too, where the same expressions are scanned with
LIKE (no index: fine for the runs one SQLite database holds).

Counting every match of a common text would read every matching row, so a
list with a search counts at most 200 (flows/run_pages.py).
"""

from __future__ import annotations

import json

from django.db import connections
from django.db.models import BooleanField
from django.db.models.expressions import RawSQL

MIN_LENGTH = 3
MAX_LENGTH = 200

# The indexed expressions (flows/migrations/0037_run_search_indexes.py), each
# column named with its table: the list joins the flows table.
RUN_TEXT = {
    "postgresql": '(("flows_flowrun"."input")::text || \' \' '
    '|| ("flows_flowrun"."results")::text || \' \' '
    '|| COALESCE(("flows_flowrun"."error")::text, \'\'))',
    "sqlite": '("flows_flowrun"."input" || \' \' || "flows_flowrun"."results" '
    "|| ' ' || COALESCE(\"flows_flowrun\".\"error\", ''))",
}
STEP_TEXT = {"postgresql": '(("logs")::text)', "sqlite": '("logs")'}
# PostgreSQL's ILIKE and SQLite's LIKE (ASCII letters) both ignore case.
MATCH = {"postgresql": "{} ILIKE %s", "sqlite": "{} LIKE %s ESCAPE '\\'"}
STEP_RUNS = {
    "postgresql": '"flows_flowrun"."id" = ANY(ARRAY(SELECT "run_id" '
    'FROM "flows_runstep" WHERE {}))',
    "sqlite": '"flows_flowrun"."id" IN (SELECT "run_id" FROM "flows_runstep" WHERE {})',
}


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
    """`runs` (a query on the runs table itself, not a subquery) narrowed to
    those whose data contains `text`."""
    vendor = connections[runs.db].vendor
    vendor = vendor if vendor in MATCH else "sqlite"
    match = MATCH[vendor]
    conditions, params = [], []
    for fragment in fragments(text, vendor):
        pattern = like_pattern(fragment)
        conditions.append(match.format(RUN_TEXT[vendor]))
        conditions.append(STEP_RUNS[vendor].format(match.format(STEP_TEXT[vendor])))
        params += [pattern, pattern]
    condition = RawSQL(f"({' OR '.join(conditions)})", params, BooleanField())
    return runs.filter(condition)
