"""`RunFiles`: the files of one run, as its nodes store and open them.

The engine gives each node `ctx.files`, one of these for the whole run
(nodes sit below this package, so they use it without importing it, as they
use `ctx.secrets`). A webhook makes one before the run exists, stores the
uploads through it and hands it to `run_flow(files=...)`, so the uploads
count towards the run's RUN_FILES_MAX_BYTES and are claimed with it.

A file stored while its run is not written yet (a short synchronous run is
written only as it ends) waits unclaimed; `claim_pending` attaches it once
the run is stored. Should the process die first, retention deletes it.
"""

from __future__ import annotations

from typing import IO, Any

from flows.files import markers, reading, saving
from flows.files.claims import claim_ids
from flows.files.models import RunFile


class RunFiles:
    """Store and open files for one run of a flow of `workspace_id`."""

    def __init__(self, workspace_id, run=None):
        self.workspace_id = workspace_id
        self.run = run
        self.pending: list = []  # ids stored before the run was
        self.used: int | None = None  # bytes the run's files hold, once counted

    def store(self, *, name: str, content_type: str | None, data) -> dict:
        """Store a file of the run; its marker. FileTooLarge past a limit."""
        run_id = self.stored_run_id()
        if self.used is None:
            self.used = saving.bytes_of_run(run_id) if run_id is not None else 0
        marker = saving.store(
            workspace_id=self.workspace_id,
            name=name,
            content_type=content_type,
            data=data,
            run_id=run_id,
            run_bytes=self.used,
        )
        self.used += marker[markers.KEY]["size"]
        if run_id is None:
            self.pending.append(marker[markers.KEY]["id"])
        return marker

    def find(self, marker) -> RunFile:
        """The row of a file of this workspace (FileMissing otherwise)."""
        return reading.find(marker, workspace_id=self.workspace_id)

    def open(self, marker) -> IO[bytes]:
        return reading.open(marker, workspace_id=self.workspace_id)

    def open_bytes(self, marker, max_bytes: int | None = None) -> bytes:
        return reading.open_bytes(
            marker, workspace_id=self.workspace_id, max_bytes=max_bytes
        )

    def keep_made(self, value: Any, text: str | None = None) -> Any:
        """`value` with each file a code node made (`{"$file": {name, type,
        base64 | text}}`) stored and replaced by its marker. `text`, the JSON
        text `value` was read from, spares the walk when it names no file."""
        if text is not None and not markers.may_name_files(text):
            return value

        def make(spec: dict) -> dict:
            name, content_type, data = markers.new_file_parts(spec)
            return self.store(name=name, content_type=content_type, data=data)

        return markers.replace_new_files(value, make)

    # The files API's pure helpers, for nodes that cannot import this package.
    is_file = staticmethod(markers.is_file)
    files_in = staticmethod(markers.files_in)
    as_file_list = staticmethod(markers.as_file_list)

    def stored_run_id(self):
        """The run's id once its row exists, else None."""
        if self.run is None or self.run._state.adding:
            return None
        return self.run.pk

    def claim_pending(self) -> int:
        """Attach the files stored before the run was, now that it is."""
        run_id = self.stored_run_id()
        if run_id is None or not self.pending:
            return 0
        claimed = claim_ids(self.pending, run_id)
        self.pending = []
        return claimed
