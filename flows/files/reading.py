"""Reading a stored file back: the row a marker names, and its bytes.

Always within one workspace: a marker is JSON anyone can write (a webhook's
sender, a code node), so its id counts only among the workspace's own files
and everything else about it is read from the row, never from the marker.
"""

from __future__ import annotations

from typing import IO

from django.conf import settings

from flows.files.errors import FileMissing, FileTooLarge
from flows.files.markers import file_id
from flows.files.models import RunFile
from flows.files.saving import run_files_storage


def find(marker, *, workspace_id) -> RunFile:
    """The workspace's file `marker` names; FileRefused for a value that is
    not a marker, FileMissing for a file that is not the workspace's."""
    row = RunFile.objects.of_workspace(workspace_id).filter(pk=file_id(marker)).first()
    if row is None:
        raise FileMissing()
    return row


def open_file(row: RunFile) -> IO[bytes]:
    """The bytes of `row` as a binary file (close it; `with` does)."""
    try:
        return run_files_storage().open(row.storage_key, "rb")
    except (FileNotFoundError, OSError) as error:
        raise FileMissing(f"The bytes of file {row.name!r} are gone.") from error


def open(marker, *, workspace_id) -> IO[bytes]:  # named as io.open: a file to read
    """The bytes of the workspace's file `marker` names, as a binary file."""
    return open_file(find(marker, workspace_id=workspace_id))


def open_bytes(marker, *, workspace_id, max_bytes: int | None = None) -> bytes:
    """All the bytes of the workspace's file `marker` names; FileTooLarge
    when they are over `max_bytes` (default RUN_FILE_MAX_BYTES)."""
    row = find(marker, workspace_id=workspace_id)
    limit = settings.RUN_FILE_MAX_BYTES if max_bytes is None else max_bytes
    if row.size > limit:
        raise FileTooLarge(
            f"File {row.name!r} is {row.size} bytes; at most {limit} are read.",
            limit_name="max_bytes",
            limit=limit,
        )
    with open_file(row) as handle:
        return handle.read()
