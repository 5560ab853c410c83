"""`RunFiles`: one run's files, as the engine gives them to nodes (a code
node's files) and as a webhook hands its uploads to `run_flow`."""

from __future__ import annotations

import base64

import pytest

from flows.engine import run_flow
from flows.files import RunFiles
from flows.files.models import RunFile
from flows.models import FlowRun
from tests.flows.graphs import chain_flow, code, trigger

pytestmark = pytest.mark.django_db(transaction=True)

MAKE_CSV = """
const rows = input.rows.map(r => r.join(',')).join('\\n');
return {report: {$file: {name: 'report.csv', type: 'text/csv', text: rows}}};
"""


def test_a_code_node_makes_a_file_the_run_keeps(alice):
    flow = chain_flow(trigger(), code("csv", MAKE_CSV), created_by=alice)

    run = run_flow(flow, {"rows": [["a", "b"], [1, 2]]}, FlowRun.Trigger.MANUAL)

    assert run.status == "succeeded", run.error
    marker = run.results["csv"]["report"]
    assert set(marker["$file"]) == {"id", "name", "type", "size", "sha256"}
    assert marker["$file"]["name"] == "report.csv"
    assert marker["$file"]["type"] == "text/csv"
    row = RunFile.objects.get()
    assert row.run_id == run.pk  # claimed once the run was written
    files = RunFiles(flow.workspace_id)
    assert files.open_bytes(marker) == b"a,b\n1,2"


def test_a_code_node_file_from_base64_keeps_its_bytes(alice):
    encoded = base64.b64encode(bytes(range(256))).decode()
    source = f"return {{$file: {{name: 'b.bin', base64: '{encoded}'}}}}"
    flow = chain_flow(trigger(), code("bin", source), created_by=alice)

    run = run_flow(flow, {}, FlowRun.Trigger.MANUAL)

    marker = run.results["bin"]
    assert marker["$file"]["type"] == "application/octet-stream"
    assert RunFiles(flow.workspace_id).open_bytes(marker) == bytes(range(256))


def test_the_next_node_reads_the_files_marker(alice):
    flow = chain_flow(
        trigger(),
        code("make", "return {$file: {name: 'a.txt', text: 'hello'}}"),
        code("read", "return [prev.$file.name, prev.$file.size, prev.$file.type]"),
        created_by=alice,
    )

    run = run_flow(flow, {}, FlowRun.Trigger.MANUAL)

    assert run.results["read"] == ["a.txt", 5, "text/plain; charset=utf-8"]


def test_a_code_node_file_over_the_limit_fails_the_node_naming_it(alice, settings):
    settings.RUN_FILE_MAX_BYTES = 4
    flow = chain_flow(
        trigger(),
        code("big", "return {$file: {name: 'a.txt', text: 'hello'}}"),
        created_by=alice,
    )

    run = run_flow(flow, {}, FlowRun.Trigger.MANUAL)

    assert run.status == "failed"
    assert run.error["node_id"] == "big"
    assert run.error["code"] == "file_too_large"
    assert "RUN_FILE_MAX_BYTES" in run.error["message"]
    assert not RunFile.objects.exists()


def test_files_of_one_run_together_stop_at_the_runs_limit(alice, settings):
    settings.RUN_FILES_MAX_BYTES = 8
    flow = chain_flow(
        trigger(),
        code("one", "return {$file: {name: 'a.txt', text: 'hello'}}"),
        code("two", "return {$file: {name: 'b.txt', text: 'world'}}"),
        created_by=alice,
    )

    run = run_flow(flow, {}, FlowRun.Trigger.MANUAL)

    assert run.error["node_id"] == "two"
    assert run.error["code"] == "file_too_large"
    assert "RUN_FILES_MAX_BYTES" in run.error["message"]
    assert list(RunFile.objects.values_list("name", "run_id")) == [("a.txt", run.pk)]


def test_malformed_base64_fails_the_node(alice):
    flow = chain_flow(
        trigger(),
        code("bad", "return {$file: {name: 'a', base64: '***'}}"),
        created_by=alice,
    )

    run = run_flow(flow, {}, FlowRun.Trigger.MANUAL)

    assert run.error["code"] == "invalid_file"
    assert "not valid base64" in run.error["message"]


def test_uploads_handed_to_run_flow_are_claimed_by_the_run(alice):
    flow = chain_flow(
        trigger(), code("size", "return input.upload.$file.size"), created_by=alice
    )
    uploads = RunFiles(flow.workspace_id)
    marker = uploads.store(name="photo.jpg", content_type="image/jpeg", data=b"JPEG")

    run = run_flow(flow, {"upload": marker}, FlowRun.Trigger.WEBHOOK, files=uploads)

    assert run.results["size"] == 4
    assert RunFile.objects.get().run_id == run.pk


def test_uploads_count_towards_the_runs_limit(alice, settings):
    settings.RUN_FILES_MAX_BYTES = 6
    flow = chain_flow(
        trigger(),
        code("more", "return {$file: {name: 'b.txt', text: 'abc'}}"),
        created_by=alice,
    )
    uploads = RunFiles(flow.workspace_id)
    marker = uploads.store(name="a.txt", content_type="text/plain", data=b"abcd")

    run = run_flow(flow, {"upload": marker}, FlowRun.Trigger.WEBHOOK, files=uploads)

    assert run.error["code"] == "file_too_large"


def test_a_marker_in_the_input_is_not_made_again(alice):
    flow = chain_flow(trigger(), code("echo", "return input"), created_by=alice)
    uploads = RunFiles(flow.workspace_id)
    marker = uploads.store(name="a.txt", content_type="text/plain", data=b"abcd")

    run = run_flow(flow, {"upload": marker}, FlowRun.Trigger.WEBHOOK, files=uploads)

    assert run.results["echo"] == {"upload": marker}
    assert RunFile.objects.count() == 1


def test_a_background_run_keeps_its_files_as_it_makes_them(alice):
    from flows.engine import background

    flow = chain_flow(
        trigger(),
        code("make", "return {$file: {name: 'a.txt', text: 'hello'}}"),
        created_by=alice,
    )
    run = background.enqueue_run(flow, {}, FlowRun.Trigger.MANUAL)

    assert background.execute_queued(str(run.id)) == "succeeded"

    assert RunFile.objects.get().run_id == run.pk


def test_an_upload_for_a_queued_run_is_claimed_at_once(alice):
    from flows.engine import background
    from flows.files import claim

    flow = chain_flow(
        trigger(), code("size", "return input.f.$file.size"), created_by=alice
    )
    uploads = RunFiles(flow.workspace_id)
    marker = uploads.store(name="a.txt", content_type="text/plain", data=b"abc")
    run = background.enqueue_run(flow, {"f": marker}, FlowRun.Trigger.WEBHOOK)

    assert claim(marker, run.pk) == 1
    assert background.execute_queued(str(run.id)) == "succeeded"
    run.refresh_from_db()
    assert run.results["size"] == 3
