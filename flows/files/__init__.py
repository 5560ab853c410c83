"""Files as run data (docs/engine.md, "Files").

A file in a run's JSON is a marker, `{"$file": {"id", "name", "type",
"size", "sha256"}}`; its bytes live in Django's storage `run_files` (a
folder, or an S3-compatible store: config/storage_settings.py) and its row
is a `RunFile`. The API, one module per job:

- `store(...)` takes bytes or a binary file and returns the marker
  (flows/files/saving.py); `claim(markers, run_id)` gives files stored before
  their run to it (claims.py);
- `find`, `open`, `open_bytes` read a workspace's file back (reading.py);
- `is_file`, `files_in` and friends read markers in JSON (markers.py);
- `RunFiles` is one run's files, what nodes use as `ctx.files` and the
  webhook hands to `run_flow` (run_files.py);
- rows and bytes are deleted together, and unclaimed files expire
  (removal.py); errors are typed (errors.py).
"""

from flows.files.claims import claim
from flows.files.errors import FileError, FileMissing, FileRefused, FileTooLarge
from flows.files.markers import files_in, is_file
from flows.files.reading import find, open, open_bytes
from flows.files.run_files import RunFiles
from flows.files.saving import store

__all__ = [
    "FileError",
    "FileMissing",
    "FileRefused",
    "FileTooLarge",
    "RunFiles",
    "claim",
    "files_in",
    "find",
    "is_file",
    "open",
    "open_bytes",
    "store",
]
