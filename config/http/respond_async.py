"""`Prefer: respond-async` (RFC 7240) and the one 202 every queued run answers.

The flow API's run endpoint and the webhook both queue a run for a worker when
the request asks for it; both answer with `accepted()`, so the body and the
`Preference-Applied` header cannot drift apart.
"""

from __future__ import annotations

from django.http import JsonResponse


def prefers_async(request) -> bool:
    """`Prefer: respond-async` on the request."""
    prefer = request.headers.get("Prefer", "")
    return any(
        part.split("=")[0].strip().lower() == "respond-async"
        for part in prefer.replace(";", ",").split(",")
    )


def accepted(run_id, status: str, *, location: str | None = None) -> JsonResponse:
    """202 for a queued run: its id and status, and `Location` where the caller
    may poll it (the webhook's sender may not own the run, so it gets none)."""
    response = JsonResponse({"run_id": str(run_id), "status": status}, status=202)
    response["Preference-Applied"] = "respond-async"
    if location is not None:
        response["Location"] = location
    return response
