"""Storing, reading and claiming run files on the disk store (the default)."""

from __future__ import annotations

import hashlib
import io
import uuid
from pathlib import Path

import pytest
from django.db import transaction

from flows import files
from flows.files.models import RunFile
from tests.factories import FlowRunFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def workspace_id(alice_flow):
    return alice_flow.workspace_id


def on_disk(folder: Path, marker) -> Path:
    row = RunFile.objects.get(pk=marker["$file"]["id"])
    return folder / row.storage_key


def test_a_stored_file_is_a_marker_and_its_bytes_are_on_disk(
    workspace_id, _run_files_folder
):
    marker = files.store(
        workspace_id=workspace_id,
        name="report.csv",
        content_type="text/csv",
        data=b"a,b\n1,2\n",
    )

    assert marker == {
        "$file": {
            "id": marker["$file"]["id"],
            "name": "report.csv",
            "type": "text/csv",
            "size": 8,
            "sha256": hashlib.sha256(b"a,b\n1,2\n").hexdigest(),
        }
    }
    assert files.is_file(marker)
    assert on_disk(_run_files_folder, marker).read_bytes() == b"a,b\n1,2\n"
    row = RunFile.objects.get()
    assert (row.workspace_id, row.run_id) == (workspace_id, None)


def test_a_file_object_is_read_in_pieces_and_opened_again(workspace_id):
    data = bytes(range(256)) * 1000  # past one piece and the in-memory spool
    marker = files.store(
        workspace_id=workspace_id,
        name="blob.bin",
        content_type=None,
        data=io.BytesIO(data),
    )

    assert marker["$file"]["size"] == len(data)
    assert marker["$file"]["type"] == "application/octet-stream"
    assert files.open_bytes(marker, workspace_id=workspace_id) == data
    with files.open(marker, workspace_id=workspace_id) as handle:
        assert handle.read(3) == b"\x00\x01\x02"


def test_a_file_over_the_per_file_limit_is_refused_naming_it(
    workspace_id, settings, _run_files_folder
):
    settings.RUN_FILE_MAX_BYTES = 10

    with pytest.raises(files.FileTooLarge) as refused:
        files.store(
            workspace_id=workspace_id, name="big", content_type="", data=b"x" * 11
        )

    assert refused.value.code == "file_too_large"
    assert refused.value.limit_name == "RUN_FILE_MAX_BYTES"
    assert "RUN_FILE_MAX_BYTES" in refused.value.message
    assert not RunFile.objects.exists()
    assert not list((_run_files_folder / str(workspace_id)).glob("*"))


def test_a_run_past_its_files_limit_is_refused_naming_it(alice_flow, settings):
    settings.RUN_FILES_MAX_BYTES = 15
    run = FlowRunFactory(flow=alice_flow)
    store = dict(workspace_id=alice_flow.workspace_id, content_type="", run_id=run.pk)
    files.store(name="one", data=b"x" * 10, **store)

    with pytest.raises(files.FileTooLarge) as refused:
        files.store(name="two", data=b"y" * 10, **store)

    assert refused.value.limit_name == "RUN_FILES_MAX_BYTES"
    assert list(run.files.values_list("name", flat=True)) == ["one"]


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("../../etc/passwd", "passwd"),
        ("C:\\Users\\ada\\cv.pdf", "cv.pdf"),
        ("line\r\nbreak.txt", "line  break.txt"),
        ("..", "file"),
        ("", "file"),
        ("é" * 300, "é" * 255),
    ],
)
def test_a_name_keeps_only_its_last_part_without_control_characters(
    workspace_id, given, kept
):
    marker = files.store(
        workspace_id=workspace_id, name=given, content_type="", data=b""
    )

    assert marker["$file"]["name"] == kept


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("Text/Plain; charset=utf-8", "text/plain; charset=utf-8"),
        ("image/png", "image/png"),
        ("text/html\r\nSet-Cookie: a=b", "application/octet-stream"),
        ("nonsense", "application/octet-stream"),
        (None, "application/octet-stream"),
    ],
)
def test_a_type_is_a_well_formed_media_type_or_octet_stream(workspace_id, given, kept):
    marker = files.store(
        workspace_id=workspace_id, name="f", content_type=given, data=b""
    )

    assert marker["$file"]["type"] == kept


def test_another_workspaces_marker_opens_nothing(workspace_id, bob_flow):
    marker = files.store(
        workspace_id=workspace_id, name="secret", content_type="", data=b"alice's"
    )

    with pytest.raises(files.FileMissing):
        files.open_bytes(marker, workspace_id=bob_flow.workspace_id)


def test_a_forged_marker_opens_nothing(workspace_id):
    forged = {"$file": {"id": str(uuid.uuid4()), "name": "x", "size": 1}}

    with pytest.raises(files.FileMissing) as missing:
        files.open_bytes(forged, workspace_id=workspace_id)

    assert missing.value.code == "file_missing"


def test_a_value_that_is_not_a_marker_is_refused(workspace_id):
    with pytest.raises(files.FileRefused) as refused:
        files.open_bytes({"$file": {"id": "nope"}}, workspace_id=workspace_id)

    assert refused.value.code == "not_a_file"


def test_claim_gives_unclaimed_files_of_the_runs_workspace_to_the_run(
    alice_flow, bob_flow
):
    run = FlowRunFactory(flow=alice_flow)
    mine = files.store(
        workspace_id=alice_flow.workspace_id, name="a", content_type="", data=b"a"
    )
    bobs = files.store(
        workspace_id=bob_flow.workspace_id, name="b", content_type="", data=b"b"
    )

    assert files.claim([mine, bobs, "not a file"], run.pk) == 1

    assert RunFile.objects.get(pk=mine["$file"]["id"]).run_id == run.pk
    assert RunFile.objects.get(pk=bobs["$file"]["id"]).run_id is None


def test_a_claimed_file_is_not_claimed_again_by_another_run(alice_flow):
    first, second = FlowRunFactory(flow=alice_flow), FlowRunFactory(flow=alice_flow)
    marker = files.store(
        workspace_id=alice_flow.workspace_id, name="a", content_type="", data=b"a"
    )
    files.claim(marker, first.pk)

    assert files.claim(marker, second.pk) == 0
    assert RunFile.objects.get().run_id == first.pk


def a_runs_file(flow):
    """A run of `flow` holding one stored file: (run, the file's marker)."""
    run = FlowRunFactory(flow=flow)
    marker = files.store(
        workspace_id=flow.workspace_id,
        name="a",
        content_type="",
        data=b"a",
        run_id=run.pk,
    )
    return run, marker


@pytest.mark.parametrize("deleted", ["run", "flow"])
def test_deleting_a_run_or_its_flow_deletes_its_files_rows_and_bytes(
    deleted, alice_flow, _run_files_folder
):
    run, marker = a_runs_file(alice_flow)
    path = on_disk(_run_files_folder, marker)

    (run if deleted == "run" else alice_flow).delete()

    assert not RunFile.objects.exists()
    assert not path.exists()


def test_a_delete_rolled_back_keeps_the_bytes(alice_flow, _run_files_folder):
    run, marker = a_runs_file(alice_flow)

    with pytest.raises(RuntimeError), transaction.atomic():
        run.delete()
        raise RuntimeError("changed my mind")

    assert RunFile.objects.exists()
    assert on_disk(_run_files_folder, marker).read_bytes() == b"a"


def test_exports_and_versions_never_carry_a_files_bytes(api, alice_flow):
    """Pins (the builder's test data) may hold a marker; exports and version
    history hold no pins, and no marker ever holds bytes."""
    run = FlowRunFactory(flow=alice_flow)
    marker = files.store(
        workspace_id=alice_flow.workspace_id,
        name="secret.txt",
        content_type="text/plain",
        data=b"TOP-SECRET-BYTES",
        run_id=run.pk,
    )
    alice_flow.pins = {"greet": {"file": marker}}
    alice_flow.save()

    exported = api.get(f"/api/flows/{alice_flow.pk}/export")
    versions = api.get(f"/api/flows/{alice_flow.pk}/versions/1")

    for response in (exported, versions):
        assert response.status_code == 200
        text = response.content.decode()
        assert "TOP-SECRET-BYTES" not in text
        assert marker["$file"]["id"] not in text
    assert exported.json()["nodes"]  # the flow itself is there
