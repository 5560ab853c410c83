"""Run files through the http_request node, against a real API on loopback:
answers kept as files (`response_format: "file"`, or `auto` for a media type
that is not text), a file sent as the raw body, and multipart uploads."""

from __future__ import annotations

from email import policy
from email.parser import BytesParser

import pytest

from flows import files
from flows.engine import run_flow
from flows.files.models import RunFile
from flows.nodes.http_request import HttpRequestNode
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, node, trigger
from tests.http_answers import PNG_BYTES
from tests.http_server import base

pytestmark = pytest.mark.django_db

MAKE_FILES = """
return {
  csv: {$file: {name: 'report.csv', type: 'text/csv', text: 'a,b\\n1,2\\n'}},
  png: {$file: {name: 'dot.png', type: 'image/png', base64: 'iVBORw0KGgo='}},
};
"""


def run_call(server, path, input=None, make=None, owner=None, **data):
    call = node("call", "http_request", url=base(server) + path, **data)
    steps = [trigger()] + ([code("make", make)] if make else []) + [call]
    nodes, edges = chain(*steps)
    flow = FlowFactory(
        nodes=nodes, edges=edges, **({"created_by": owner} if owner else {})
    )
    return run_flow(flow, input or {}, "manual")


def stored(run, marker) -> tuple[str, str, bytes]:
    """(name, type, bytes) of a file of the run, read from its row."""
    row = files.find(marker, workspace_id=run.flow.workspace_id)
    assert row.run_id == run.id
    data = files.open_bytes(marker, workspace_id=run.flow.workspace_id)
    return row.name, row.content_type, data


def received_parts(hit) -> list[tuple[str, str | None, str, bytes]]:
    """(field name, file name, type, bytes) of each part the server received."""
    head = f"Content-Type: {hit['headers']['Content-Type']}\r\n\r\n".encode()
    message = BytesParser(policy=policy.HTTP).parsebytes(head + hit["body"])
    return [
        (
            part.get_param("name", header="content-disposition"),
            part.get_filename(),
            part.get_content_type(),
            part.get_payload(decode=True),
        )
        for part in message.iter_parts()
    ]


# Answers kept as files ---------------------------------------------------------


def test_an_image_answer_is_a_run_file_named_after_the_urls_last_segment(
    api_server, allow_loopback
):
    run = run_call(api_server, "/files/chart.png")

    assert run.status == "succeeded", run.error
    marker = run.results["call"]["body"]
    assert marker["$file"]["name"] == "chart.png"
    assert marker["$file"]["size"] == len(PNG_BYTES)
    assert stored(run, marker) == ("chart.png", "image/png", PNG_BYTES)
    assert run.results["call"]["status"] == 200


@pytest.mark.parametrize(
    ("disposition", "name"),
    [
        ('attachment; filename="Q3 report.png"', "Q3 report.png"),
        ("attachment; filename*=UTF-8''na%C3%AFve.png", "naïve.png"),
        ('attachment; filename="../../etc/passwd"', "passwd"),
        ("inline", "chart.png"),
    ],
)
def test_content_disposition_names_the_file(
    api_server, allow_loopback, disposition, name
):
    run = run_call(
        api_server,
        "/files/chart.png",
        query=[{"name": "disposition", "value": disposition}],
    )

    assert run.results["call"]["body"]["$file"]["name"] == name


@pytest.mark.parametrize(
    "content_type",
    ["application/pdf", "application/zip", "application/octet-stream", "audio/mpeg"],
)
def test_auto_keeps_every_body_that_is_not_text_as_a_file(
    api_server, allow_loopback, content_type
):
    run = run_call(
        api_server, "/files/chart.png", query=[{"name": "type", "value": content_type}]
    )

    marker = run.results["call"]["body"]
    assert stored(run, marker) == ("chart.png", content_type, PNG_BYTES)


def test_auto_keeps_text_and_xml_as_text(api_server, allow_loopback):
    for content_type in ("text/csv", "application/xml", "application/atom+xml"):
        run = run_call(
            api_server,
            "/files/chart.png",
            query=[{"name": "type", "value": content_type}],
        )
        assert isinstance(run.results["call"]["body"], str)


def test_file_format_keeps_even_json_as_a_file(api_server, allow_loopback):
    run = run_call(api_server, "/cursor", response_format="file")

    name, content_type, data = stored(run, run.results["call"]["body"])
    assert (name, content_type) == ("cursor", "application/json")
    assert data.startswith(b'{"data": {"rows"')


def test_a_file_over_run_file_max_bytes_fails_naming_the_limit(
    api_server, allow_loopback, settings
):
    settings.RUN_FILE_MAX_BYTES = 100

    run = run_call(api_server, "/files/big.bin?size=200")

    assert run.status == "failed"
    assert run.error["code"] == "file_too_large"
    assert "RUN_FILE_MAX_BYTES" in run.error["message"]


def test_a_file_past_the_runs_files_limit_fails_naming_it(
    api_server, allow_loopback, settings
):
    settings.RUN_FILES_MAX_BYTES = 20

    run = run_call(api_server, "/files/big.bin?size=30")

    assert run.error["code"] == "file_too_large"
    assert "RUN_FILES_MAX_BYTES" in run.error["message"]


def test_a_file_answer_over_the_response_cap_is_never_stored(
    api_server, allow_loopback, settings
):
    settings.HTTP_NODE_MAX_RESPONSE_BYTES = 100

    run = run_call(api_server, "/files/big.bin?size=200")

    assert run.status == "failed"
    assert run.error["code"] == "response_too_large"
    assert not RunFile.objects.filter(run=run).exists()


def test_an_error_answer_with_a_binary_body_fails_with_an_empty_excerpt(
    api_server, allow_loopback
):
    run = run_call(api_server, "/files/chart.png?status=500")

    assert run.error["code"] == "http_error"
    assert (run.error["status"], run.error["body"]) == (500, "")
    assert run.error["message"] == "The server answered HTTP 500."
    assert not RunFile.objects.filter(run=run).exists()


# Sending files -------------------------------------------------------------------


def test_a_file_body_is_sent_raw_with_its_type(api_server, allow_loopback):
    run = run_call(
        api_server,
        "/upload",
        make=MAKE_FILES,
        method="POST",
        body="{{ results.make.png }}",
    )

    assert run.status == "succeeded", run.error
    [hit] = api_server.seen
    assert hit["body"] == b"\x89PNG\r\n\x1a\n"
    assert hit["headers"]["Content-Type"] == "image/png"


def test_the_nodes_own_content_type_wins_over_the_files(api_server, allow_loopback):
    run_call(
        api_server,
        "/upload",
        make=MAKE_FILES,
        method="PUT",
        headers={"Content-Type": "application/octet-stream"},
        body="{{ results.make.csv }}",
    )

    [hit] = api_server.seen
    assert hit["headers"]["Content-Type"] == "application/octet-stream"
    assert hit["body"] == b"a,b\n1,2\n"


def test_a_multipart_body_sends_text_fields_and_files_with_names_and_types(
    api_server, allow_loopback
):
    run = run_call(
        api_server,
        "/upload",
        make=MAKE_FILES,
        method="POST",
        body_type="multipart",
        headers={"Content-Type": "application/json"},
        body={
            "title": "Q3 {{ input.quarter }}",
            "count": 3,
            "report": "{{ results.make.csv }}",
            "photos": ["{{ results.make.png }}", "{{ results.make.png }}"],
        },
        input={"quarter": "sales"},
    )

    assert run.status == "succeeded", run.error
    [hit] = api_server.seen
    assert hit["headers"]["Content-Type"].startswith("multipart/form-data; boundary=")
    png = ("photos", "dot.png", "image/png", b"\x89PNG\r\n\x1a\n")
    assert received_parts(hit) == [
        ("title", None, "text/plain", b"Q3 sales"),
        ("count", None, "text/plain", b"3"),
        ("report", "report.csv", "text/csv", b"a,b\n1,2\n"),
        png,
        png,
    ]


def test_another_workspaces_file_is_never_sent(api_server, allow_loopback, bob_flow):
    bobs = files.store(
        workspace_id=bob_flow.workspace_id,
        name="bob.txt",
        content_type="text/plain",
        data=b"bob's secret",
    )

    for body_type, body in (
        ("auto", "{{ input.forged }}"),
        ("multipart", {"doc": "{{ input.forged }}"}),
    ):
        run = run_call(
            api_server,
            "/upload",
            input={"forged": bobs},
            method="POST",
            body_type=body_type,
            body=body,
        )
        assert run.status == "failed"
        assert run.error["code"] == "file_missing"
    assert api_server.seen == []


def test_files_to_send_over_run_file_max_bytes_fail_naming_the_limit(
    api_server, allow_loopback, settings
):
    settings.RUN_FILE_MAX_BYTES = 12

    run = run_call(
        api_server,
        "/upload",
        make=MAKE_FILES,
        method="POST",
        body_type="multipart",
        body={"a": "{{ results.make.csv }}", "b": "{{ results.make.png }}"},
    )

    assert run.error["code"] == "file_too_large"
    assert run.error["message"] == (
        "The files to send are 16 bytes together; at most 12 (RUN_FILE_MAX_BYTES)."
    )
    assert api_server.seen == []


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("{{ input.n }}", "it rendered to int"),
        ({"meta": {"a": 1}}, "Multipart field 'meta' must be text"),
        ({"meta": "{{ input }}"}, "Multipart field 'meta' must be text"),
    ],
)
def test_a_multipart_body_that_is_not_fields_fails_invalid_body(
    api_server, allow_loopback, body, message
):
    run = run_call(
        api_server,
        "/upload",
        input={"n": 5},
        method="POST",
        body_type="multipart",
        body=body,
    )

    assert run.error["code"] == "invalid_body"
    assert message in run.error["message"]
    assert api_server.seen == []


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        (
            {"body_type": "form"},
            "data.body_type",
            'Body type is "auto" or "multipart".',
        ),
        (
            {"body_type": "multipart", "body": "a=1"},
            "data.body",
            "A multipart body is an object of fields (each text or a file), "
            "or a template giving one.",
        ),
        (
            {"response_format": "file", "pagination": {"mode": "link"}},
            "data.pagination",
            "Pages are lists of items: pagination needs a response format "
            'other than "file".',
        ),
        (
            {"response_format": "binary"},
            "data.response_format",
            'Response format is "auto", "json", "text" or "file".',
        ),
    ],
)
def test_bad_body_and_format_settings_are_refused_at_save(data, field, message):
    problems = HttpRequestNode().validate_data({"url": "https://example.com/", **data})

    assert [(problem.field, problem.message) for problem in problems] == [
        (field, message)
    ]
