"""Where the bytes of run files live (docs/engine.md, "Files").

A folder on disk by default (RUN_FILES_DIR); any S3-compatible store (AWS S3,
MinIO, Ceph, R2, ...) through django-storages once RUN_FILES_S3_BUCKET is
set. Either way the rest of Weir reaches them as `storages["run_files"]`,
Django's storage API, and never builds a URL to them: bytes leave only
through `GET /api/runs/:id/files/:file_id`, which checks the reader's rights.
Imported only by config/settings.py.
"""

from __future__ import annotations


def run_files_storage(env, folder) -> dict:
    """The STORAGES entry for run files, read from the environment."""
    bucket = env("RUN_FILES_S3_BUCKET", default="")
    if not bucket:
        return {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            # Never served by Django's static or media views: no base URL.
            "OPTIONS": {"location": str(folder), "base_url": None},
        }
    return {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": bucket,
            # Empty: AWS itself; otherwise the S3-compatible server's URL.
            "endpoint_url": env("RUN_FILES_S3_ENDPOINT_URL", default="") or None,
            "access_key": env("RUN_FILES_S3_ACCESS_KEY_ID", default="") or None,
            "secret_key": env("RUN_FILES_S3_SECRET_ACCESS_KEY", default="") or None,
            "region_name": env("RUN_FILES_S3_REGION", default="") or None,
            "location": env("RUN_FILES_S3_PREFIX", default="run-files"),
            # Private objects; bytes are streamed through the API, never linked.
            "default_acl": None,
            "file_overwrite": True,  # keys are fresh UUIDs: no listing per save
        },
    }
