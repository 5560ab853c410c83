"""Weir's routes plus the benchmark's reference views.

`/bench/bare` is the bare Django JSON view the targets divide by. The two
`/bench/floor-*` views are the least a webhook can do on this stack, so a
reader can see how much of a webhook's cost any engine must pay:

- `floor-202`: parse the body, store it in one INSERT with its commit, answer
  202 with the row's id (a queued run, without the run's columns or its task);
- `floor-sync`: the same, after one sandbox job running the benchmark flow's
  code on the body (a synchronous run, without the run's bookkeeping).

They write to `bench_floor`, a table bench/webhook.sh creates.
"""

from __future__ import annotations

import json
import uuid

from django.db import connection
from django.http import JsonResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt

from config.urls import handler404, handler500, urlpatterns  # noqa: F401
from sandbox import run_code

# The benchmark flow's code node (bench/webhook_setup.py).
CODE = "return {greeting: 'hi ' + input.name, n: input.items.length};"
INSERT = "INSERT INTO bench_floor (id, input, output) VALUES (%s, %s, %s)"


@csrf_exempt
def bare_json(request):
    """Parse the same JSON body and answer JSON: no flow, no database."""
    payload = json.loads(request.body)
    return JsonResponse(
        {"greeting": "hi " + payload["name"], "n": len(payload["items"])}
    )


def _store(payload, output) -> str:
    row_id = uuid.uuid4()
    with connection.cursor() as cursor:  # autocommit: the INSERT commits
        cursor.execute(INSERT, [row_id, json.dumps(payload), json.dumps(output)])
    return str(row_id)


@csrf_exempt
def floor_202(request):
    payload = json.loads(request.body)
    return JsonResponse({"id": _store(payload, None)}, status=202)


@csrf_exempt
def floor_sync(request):
    payload = json.loads(request.body)
    output = run_code(CODE, {"input": payload, "prev": payload, "results": {}}).value
    _store(payload, output)
    return JsonResponse(output)


urlpatterns = [
    path("bench/bare", bare_json),
    path("bench/floor-202", floor_202),
    path("bench/floor-sync", floor_sync),
    *urlpatterns,
]
