"""`Prefer: respond-async` and the one 202 a queued run answers with."""

from __future__ import annotations

import json
import uuid

import pytest
from django.http import JsonResponse
from django.test import RequestFactory

from core.http.respond_async import accepted, prefers_async


@pytest.mark.parametrize(
    "prefer",
    [
        "respond-async",
        "Respond-Async",
        "wait=5, respond-async",
        "respond-async; wait=1",
    ],
)
def test_it_sees_respond_async_among_other_preferences(prefer):
    assert prefers_async(RequestFactory().post("/", HTTP_PREFER=prefer)) is True


@pytest.mark.parametrize("prefer", [None, "", "wait=5", "return=minimal", "respond"])
def test_it_does_not_see_respond_async_where_it_is_not_asked(prefer):
    headers = {} if prefer is None else {"HTTP_PREFER": prefer}

    assert prefers_async(RequestFactory().post("/", **headers)) is False


def test_the_202_names_the_run_and_where_to_poll_it():
    run_id = uuid.uuid4()

    response = accepted(run_id, "queued", location=f"/api/runs/{run_id}")

    assert response.status_code == 202
    assert json.loads(response.content) == {"run_id": str(run_id), "status": "queued"}
    assert response["Preference-Applied"] == "respond-async"
    assert response["Location"] == f"/api/runs/{run_id}"


def test_the_202_without_a_location_has_no_location_header():
    response = accepted(uuid.uuid4(), "queued")

    assert "Location" not in response


def test_the_202_body_and_type_are_what_a_json_response_would_send():
    run_id = uuid.uuid4()

    ours = accepted(run_id, "queued")
    django_s = JsonResponse({"run_id": str(run_id), "status": "queued"}, status=202)

    assert ours.content == django_s.content
    assert ours["Content-Type"] == django_s["Content-Type"]
