"""`store`: take a file's bytes into the run-file store and record it.

The bytes are read once, in pieces, into a spooled temporary file (memory up
to SPOOL_BYTES, disk past it) while their SHA-256 and size are counted, so a
file over the limit is refused as soon as the limit is passed, never read
whole into memory. Then the store takes them under a key made of the
workspace and a fresh UUID (nothing a sender chose), and the row is written;
if the row cannot be, the bytes go again.
"""

from __future__ import annotations

import hashlib
import logging
import re
import tempfile
import unicodedata
import uuid
from typing import IO

from django.conf import settings
from django.core.files import File
from django.core.files.storage import storages
from django.db.models import Sum

from flows.files.errors import FileError, FileTooLarge
from flows.files.models import RunFile

logger = logging.getLogger("weir.files")

CHUNK_BYTES = 64 * 1024
SPOOL_BYTES = 1024 * 1024
MAX_NAME_CHARS = 255
DEFAULT_TYPE = "application/octet-stream"
# type/subtype and optional parameters, as RFC 9110 spells a media type.
TOKEN = r"[A-Za-z0-9!#$&^_.+-]+"
MEDIA_TYPE = re.compile(rf"{TOKEN}/{TOKEN}(\s*;\s*{TOKEN}=({TOKEN}|\"[^\"\\\r\n]*\"))*")


def run_files_storage():
    """The storage the bytes live in: STORAGES["run_files"]."""
    return storages["run_files"]


def store(
    *,
    workspace_id,
    name: str,
    content_type: str | None,
    data: bytes | IO[bytes],
    run_id=None,
    run_bytes: int | None = None,
) -> dict:
    """Store a file of `workspace_id` and return its marker.

    `run_id` attaches it to a stored run at once; without one it waits,
    unclaimed, for `claim`. `run_bytes` is what the run's files already
    hold (counted from the database when None and `run_id` is set), for the
    per-run limit. Raises FileTooLarge past RUN_FILE_MAX_BYTES or
    RUN_FILES_MAX_BYTES, FileError `file_store_failed` when the store
    refuses the bytes.
    """
    if run_bytes is None:
        run_bytes = bytes_of_run(run_id) if run_id is not None else 0
    file_id = uuid.uuid4()
    with tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES) as spool:
        size, digest = _copy_within_limits(data, spool, run_bytes)
        spool.seek(0)
        key = f"{workspace_id}/{file_id}"
        try:
            key = run_files_storage().save(key, File(spool, name=str(file_id)))
        except Exception as error:  # noqa: BLE001 - disk full, S3 away, refused
            logger.exception("The run-file store refused file %s", file_id)
            raise FileError(
                "file_store_failed",
                f"The file store did not take the file ({type(error).__name__}).",
            ) from error
    try:
        row = RunFile.objects.create(
            id=file_id,
            workspace_id=workspace_id,
            run_id=run_id,
            name=clean_name(name),
            content_type=clean_type(content_type),
            size=size,
            sha256=digest,
            storage_key=key,
        )
    except Exception:
        run_files_storage().delete(key)  # no row, so nothing else would
        raise
    return row.as_marker()


def bytes_of_run(run_id) -> int:
    """What the files of a stored run hold together (one query)."""
    total = RunFile.objects.filter(run_id=run_id).aggregate(total=Sum("size"))
    return total["total"] or 0


def _copy_within_limits(data, spool, run_bytes: int) -> tuple[int, str]:
    """Copy `data` to `spool`; (size, sha256). FileTooLarge once a limit is
    passed, naming the limit."""
    per_file = settings.RUN_FILE_MAX_BYTES
    per_run = settings.RUN_FILES_MAX_BYTES - run_bytes
    digest = hashlib.sha256()
    size = 0
    for piece in _pieces(data):
        size += len(piece)
        if size > per_file:
            raise FileTooLarge(
                f"The file is over {per_file} bytes (RUN_FILE_MAX_BYTES).",
                limit_name="RUN_FILE_MAX_BYTES",
                limit=per_file,
            )
        if size > per_run:
            raise FileTooLarge(
                f"The run's files would be over {settings.RUN_FILES_MAX_BYTES} "
                "bytes together (RUN_FILES_MAX_BYTES).",
                limit_name="RUN_FILES_MAX_BYTES",
                limit=settings.RUN_FILES_MAX_BYTES,
            )
        digest.update(piece)
        spool.write(piece)
    return size, digest.hexdigest()


def _pieces(data):
    if isinstance(data, bytes | bytearray | memoryview):
        view = memoryview(data)
        for start in range(0, len(view), CHUNK_BYTES):
            yield bytes(view[start : start + CHUNK_BYTES])
        return
    while piece := data.read(CHUNK_BYTES):
        yield piece


def clean_name(name) -> str:
    """A file name safe to show and to send back: its last path part, no
    control characters, at most MAX_NAME_CHARS; "file" when nothing is left."""
    text = str(name or "").replace("\\", "/").rsplit("/", 1)[-1]
    text = "".join(
        " " if unicodedata.category(char).startswith("C") else char for char in text
    ).strip()
    if text in ("", ".", ".."):
        return "file"
    return text[:MAX_NAME_CHARS]


def clean_type(content_type) -> str:
    """A well-formed media type, lower-cased (parameters kept); anything else
    is application/octet-stream."""
    text = str(content_type or "").strip()
    if len(text) > 255 or not MEDIA_TYPE.fullmatch(text):
        return DEFAULT_TYPE
    kind, _, parameters = text.partition(";")
    return kind.strip().lower() + (f"; {parameters.strip()}" if parameters else "")
