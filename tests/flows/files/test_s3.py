"""Run files in an S3-compatible store: a real S3 server (moto's server mode,
started by the test on a free loopback port), reached through django-storages
and boto3 exactly as production reaches AWS, MinIO or R2."""

from __future__ import annotations

import boto3
import environ
import pytest
from botocore.config import Config
from moto.server import ThreadedMotoServer

from config import storage_settings
from flows import files
from flows.files.models import RunFile
from tests.factories import FlowRunFactory
from tests.processes import free_port

pytestmark = pytest.mark.django_db(transaction=True)

BUCKET = "weir-run-files"
ENVIRONMENT = {
    "RUN_FILES_S3_BUCKET": BUCKET,
    "RUN_FILES_S3_ACCESS_KEY_ID": "test-key",
    "RUN_FILES_S3_SECRET_ACCESS_KEY": "test-secret",
    "RUN_FILES_S3_REGION": "us-east-1",
}


@pytest.fixture(scope="module")
def s3_server():
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=free_port())
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture
def s3(s3_server, settings, monkeypatch):
    """STORAGES["run_files"] as config/storage_settings.py makes it from the
    environment, against a fresh bucket; boto3's client to look inside."""
    for name, value in {**ENVIRONMENT, "RUN_FILES_S3_ENDPOINT_URL": s3_server}.items():
        monkeypatch.setenv(name, value)
    entry = storage_settings.run_files_storage(environ.Env(), "unused")
    settings.STORAGES = {**settings.STORAGES, "run_files": entry}
    client = boto3.client(
        "s3",
        endpoint_url=s3_server,
        aws_access_key_id="test-key",
        aws_secret_access_key="test-secret",
        region_name="us-east-1",
    )
    client.create_bucket(Bucket=BUCKET)
    yield client
    for item in client.list_objects_v2(Bucket=BUCKET).get("Contents", []):
        client.delete_object(Bucket=BUCKET, Key=item["Key"])
    client.delete_bucket(Bucket=BUCKET)


def keys(client) -> list[str]:
    return [
        item["Key"]
        for item in client.list_objects_v2(Bucket=BUCKET).get("Contents", [])
    ]


def test_the_environment_picks_the_s3_backend(s3):
    from django.conf import settings

    assert settings.STORAGES["run_files"]["BACKEND"] == "storages.backends.s3.S3Storage"


def test_a_stored_file_is_an_object_in_the_bucket_and_reads_back(s3, alice_flow):
    data = b"%PDF-1.7 " + bytes(range(256)) * 5000  # over 1 MiB: spooled to disk
    marker = files.store(
        workspace_id=alice_flow.workspace_id,
        name="invoice.pdf",
        content_type="application/pdf",
        data=data,
    )

    row = RunFile.objects.get()
    assert keys(s3) == [f"run-files/{row.storage_key}"]
    stored = s3.get_object(Bucket=BUCKET, Key=f"run-files/{row.storage_key}")
    assert stored["Body"].read() == data
    assert files.open_bytes(marker, workspace_id=alice_flow.workspace_id) == data


def test_deleting_the_run_deletes_the_object(s3, alice_flow):
    run = FlowRunFactory(flow=alice_flow)
    files.store(
        workspace_id=alice_flow.workspace_id,
        name="a.txt",
        content_type="text/plain",
        data=b"hello",
        run_id=run.pk,
    )
    assert len(keys(s3)) == 1

    run.delete()

    assert keys(s3) == []
    assert not RunFile.objects.exists()


def test_an_object_gone_from_the_bucket_is_a_missing_file(s3, alice_flow):
    marker = files.store(
        workspace_id=alice_flow.workspace_id, name="a", content_type="", data=b"a"
    )
    [key] = keys(s3)
    s3.delete_object(Bucket=BUCKET, Key=key)

    with pytest.raises(files.FileMissing):
        files.open_bytes(marker, workspace_id=alice_flow.workspace_id)


def test_a_file_over_the_limit_never_reaches_the_bucket(s3, alice_flow, settings):
    settings.RUN_FILE_MAX_BYTES = 100

    with pytest.raises(files.FileTooLarge):
        files.store(
            workspace_id=alice_flow.workspace_id,
            name="big",
            content_type="",
            data=b"x" * 101,
        )

    assert keys(s3) == []


def test_a_store_that_is_away_is_a_clear_error(settings, alice_flow, closed_port):
    with pytest.MonkeyPatch.context() as patch:
        for name, value in ENVIRONMENT.items():
            patch.setenv(name, value)
        patch.setenv("RUN_FILES_S3_ENDPOINT_URL", f"http://127.0.0.1:{closed_port}")
        entry = storage_settings.run_files_storage(environ.Env(), "unused")
    entry["OPTIONS"]["client_config"] = Config(
        retries={"max_attempts": 1}, connect_timeout=1
    )
    settings.STORAGES = {**settings.STORAGES, "run_files": entry}

    with pytest.raises(files.FileError) as refused:
        files.store(
            workspace_id=alice_flow.workspace_id, name="a", content_type="", data=b"a"
        )

    assert refused.value.code == "file_store_failed"
    assert not RunFile.objects.exists()


def test_the_api_streams_a_file_from_the_bucket(s3, api, alice_flow):
    run = FlowRunFactory(flow=alice_flow)
    data = bytes(range(256)) * 4096  # 1 MiB
    marker = files.store(
        workspace_id=alice_flow.workspace_id,
        name="data.bin",
        content_type="application/octet-stream",
        data=data,
        run_id=run.pk,
    )

    response = api.get(f"/api/runs/{run.pk}/files/{marker['$file']['id']}")

    assert response.status_code == 200
    assert response["Content-Length"] == str(len(data))
    assert response["Content-Disposition"] == 'attachment; filename="data.bin"'
    assert b"".join(response.streaming_content) == data
