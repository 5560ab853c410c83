"""What a file upload costs a webhook: a 1 MB multipart upload against 1 MB of JSON.

Run with `make bench-upload`. It drives `POST /api/webhooks/:id` (a flow of
one webhook trigger, so the request's own handling is what is measured)
through Django's full middleware stack in process, on a throw-away SQLite
database with run files in a temporary folder, and measures the web
process's CPU time (`time.process_time`) per request:

- JSON: a 1 MB JSON object (one string field), parsed, checked and stored
  as the run's input;
- multipart: the same megabyte as one file field of a multipart form,
  parsed, hashed, written as a run file and its marker stored as the input.

Rounds alternate so machine load hits both alike. Issue 36's target: the
upload costs at most 3x the JSON body.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("WEIR_TESTING", "1")
os.environ["DATABASE_URL"] = "sqlite://:memory:"
os.environ["RUN_FILES_DIR"] = tempfile.mkdtemp(prefix="weir-upload-bench-")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.client import MULTIPART_CONTENT, encode_multipart  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402

from flows.models import Flow, FlowRun  # noqa: E402

ROUNDS = int(os.environ.get("ROUNDS", "8"))
PER_ROUND = int(os.environ.get("PER_ROUND", "20"))
MEGABYTE = 1_000_000
BOUNDARY = "weir-bench-boundary"


def bodies() -> dict[str, tuple[bytes, str]]:
    text = "a" * (MEGABYTE - len('{"text": ""}'))
    json_body = ('{"text": "' + text + '"}').encode()
    data = os.urandom(MEGABYTE)

    class Upload:
        name = "export.bin"
        content_type = "application/octet-stream"

        def read(self):
            return data

    multipart = encode_multipart(BOUNDARY, {"file": Upload()})
    multipart_type = MULTIPART_CONTENT.replace("BoUnDaRyStRiNg", BOUNDARY)
    return {
        "JSON, 1 MB": (json_body, "application/json"),
        "multipart, one 1 MB file": (multipart, multipart_type),
    }


def cpu_per_request(client: Client, path: str, body: bytes, content_type: str):
    started = time.process_time()
    for _ in range(PER_ROUND):
        response = client.generic("POST", path, body, content_type=content_type)
        assert response.status_code == 200, response.content[:300]
    return (time.process_time() - started) / PER_ROUND * 1000


def main() -> None:
    setup_test_environment()
    connection.creation.create_test_db(verbosity=0)
    settings.WEBHOOK_RATE_LIMIT = "1000000/min"
    settings.RUN_FILES_MAX_BYTES = 10**12  # one run's files only; many runs here
    from django.contrib.auth import get_user_model

    owner = get_user_model().objects.create_user("bench", password="x")
    trigger = {"id": "in", "type": "webhook", "position": {"x": 0, "y": 0}}
    flow = Flow.objects.create(
        created_by=owner, name="bench", nodes=[{**trigger, "data": {}}], edges=[]
    )
    cases = bodies()
    times: dict[str, list[float]] = {name: [] for name in cases}
    client = Client()
    for _ in range(ROUNDS):
        for name, (body, content_type) in cases.items():
            times[name].append(
                cpu_per_request(client, flow.webhook_path, body, content_type)
            )
    last = FlowRun.objects.latest("created_at")  # the multipart case ran last
    assert last.input["file"]["$file"]["size"] == MEGABYTE, last.input
    medians = {name: statistics.median(values) for name, values in times.items()}
    json_ms = medians["JSON, 1 MB"]
    print(f"{ROUNDS} rounds x {PER_ROUND} requests each; load {os.getloadavg()}")
    print("| body | median CPU ms per request | best | / JSON |")
    print("|---|---|---|---|")
    for name, median in medians.items():
        print(
            f"| {name} | {median:.2f} | {min(times[name]):.2f} | "
            f"{median / json_ms:.2f}x |"
        )


if __name__ == "__main__":
    main()
