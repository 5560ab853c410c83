"""What the files API raises: one typed error per thing a caller maps.

`FileTooLarge` is 413 for the webhook and the node error `file_too_large`
for a node; `FileMissing` a file that is not (or no longer) there for this
workspace; `FileRefused` a value that is not a file, or a malformed one.
Each carries a `code` and a `message` naming what to change.
"""

from __future__ import annotations


class FileError(Exception):
    """Base of the files API's errors: `code` and `message` for the caller."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code, self.message = code, message


class FileRefused(FileError):
    """The value is not a file, or a file to be made is malformed."""


class FileMissing(FileError):
    """The marker names no file of this workspace (deleted, or never ours)."""

    def __init__(self, message: str = "The file is gone (its run was deleted?)."):
        super().__init__("file_missing", message)


class FileTooLarge(FileError):
    """A file, or a run's files together, would pass a limit (the setting's
    name and its value are in the message)."""

    def __init__(self, message: str, *, limit_name: str, limit: int):
        super().__init__("file_too_large", message)
        self.limit_name, self.limit = limit_name, limit
