"""Files sent to a webhook become run files (issue 36): multipart uploads in
their fields, any other body as one file; their bytes download from the run."""

from __future__ import annotations

import hashlib

from django.core.files.uploadedfile import SimpleUploadedFile

from flows.files.models import RunFile
from flows.models import FlowRun
from tests.factories import FlowFactory
from tests.flows.graphs import chain, trigger
from tests.webhooks.conftest import post_webhook, webhook_runs

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8


def plain_flow(owner, **fields):
    nodes, edges = chain(trigger())
    return FlowFactory(created_by=owner, nodes=nodes, edges=edges, **fields)


def test_a_multipart_file_is_a_run_file_in_its_field(client, api, alice):
    flow = plain_flow(alice)
    upload = SimpleUploadedFile("logo.png", PNG, content_type="image/png")

    response = client.post(
        f"/api/webhooks/{flow.id}", {"title": "Logo", "attachment": upload}
    )

    assert response.status_code == 200
    run = FlowRun.objects.get(flow=flow)
    marker = run.input["attachment"]["$file"]
    assert run.input["title"] == "Logo"
    assert (marker["name"], marker["type"], marker["size"]) == (
        "logo.png",
        "image/png",
        len(PNG),
    )
    assert marker["sha256"] == hashlib.sha256(PNG).hexdigest()
    assert RunFile.objects.get(pk=marker["id"]).run_id == run.id
    download = api.get(f"/api/runs/{run.id}/files/{marker['id']}")
    assert download.status_code == 200
    assert b"".join(download.streaming_content) == PNG


def test_two_files_in_one_field_are_a_list(client, alice):
    flow = plain_flow(alice)
    first = SimpleUploadedFile("a.txt", b"one", content_type="text/plain")
    second = SimpleUploadedFile("b.txt", b"two", content_type="text/plain")

    client.post(f"/api/webhooks/{flow.id}", {"docs": [first, second]})

    docs = FlowRun.objects.get(flow=flow).input["docs"]
    assert [doc["$file"]["name"] for doc in docs] == ["a.txt", "b.txt"]


def test_a_body_of_another_type_is_one_run_file(client, alice):
    flow = plain_flow(alice)

    response = post_webhook(client, flow, PNG, content_type="image/png")

    assert response.status_code == 200
    marker = FlowRun.objects.get(flow=flow).input["$file"]
    assert (marker["type"], marker["size"]) == ("image/png", len(PNG))


def test_a_body_with_no_type_is_a_run_file_too(client, alice):
    flow = plain_flow(alice)

    response = client.generic(
        "POST", f"/api/webhooks/{flow.id}", b"\x00\x01raw", content_type=""
    )

    assert response.status_code == 200
    marker = FlowRun.objects.get(flow=flow).input["$file"]
    assert (marker["type"], marker["size"]) == ("application/octet-stream", 5)


def test_a_file_past_the_limit_is_413_naming_it_and_runs_nothing(
    client, alice, settings
):
    settings.RUN_FILE_MAX_BYTES = 1000
    flow = plain_flow(alice)
    upload = SimpleUploadedFile("big.bin", b"x" * 1001)

    response = client.post(f"/api/webhooks/{flow.id}", {"file": upload})

    assert response.status_code == 413
    error = response.json()["error"]
    assert error["code"] == "payload_too_large"
    assert error["details"] == {"limit": 1000, "setting": "RUN_FILE_MAX_BYTES"}
    assert webhook_runs(flow) == 0
    assert RunFile.objects.count() == 0


def test_a_repeated_delivery_with_a_file_gets_the_first_answer(client, alice):
    flow = plain_flow(alice)

    def send():
        upload = SimpleUploadedFile("a.txt", b"same", content_type="text/plain")
        return client.post(
            f"/api/webhooks/{flow.id}",
            {"file": upload},
            HTTP_IDEMPOTENCY_KEY="delivery-7",
        )

    first, again = send(), send()

    assert (first.status_code, again.status_code) == (200, 200)
    assert again["Idempotent-Replayed"] == "true"
    assert webhook_runs(flow) == 1


def test_a_queued_runs_uploads_are_claimed_by_it(client, alice):
    flow = plain_flow(alice, webhook_response_mode="immediately")
    upload = SimpleUploadedFile("a.txt", b"later", content_type="text/plain")

    response = client.post(f"/api/webhooks/{flow.id}", {"file": upload})

    assert response.status_code == 202
    run = FlowRun.objects.get(pk=response.json()["run_id"])
    marker = run.input["file"]["$file"]
    assert RunFile.objects.get(pk=marker["id"]).run_id == run.id


def _parts(count: int) -> bytes:
    part = (
        b'--BB\r\nContent-Disposition: form-data; name="f%d"; filename="a.txt"'
        b"\r\n\r\nx\r\n"
    )
    return b"".join(part % index for index in range(count)) + b"--BB--\r\n"


def test_a_multipart_body_without_a_boundary_is_400(client, alice):
    flow = plain_flow(alice)

    response = post_webhook(client, flow, _parts(1), content_type="multipart/form-data")

    assert response.status_code == 400
    assert "multipart" in response.json()["error"]["message"]
    assert webhook_runs(flow) == 0


def test_a_multipart_body_of_too_many_files_is_400(client, alice, settings):
    flow = plain_flow(alice)
    count = settings.DATA_UPLOAD_MAX_NUMBER_FILES + 1

    response = post_webhook(
        client, flow, _parts(count), content_type="multipart/form-data; boundary=BB"
    )

    assert response.status_code == 400
    assert webhook_runs(flow) == 0
    assert not RunFile.objects.exists()
