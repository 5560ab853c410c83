"""multipart/form-data request bodies (RFC 7578), for the http_request node.

Field and file names are quoted as the HTML standard's form submission does:
`"` becomes `%22` and CR and LF `%0D` and `%0A`, so no name can end its
header line or start another header. The boundary is random and checked
against the content, so no part can hold it.
"""

from __future__ import annotations

import secrets

from core.net.http_body import RawBody


def encode(fields: list[tuple[str, str | RawBody]]) -> tuple[bytes, str]:
    """(body, Content-Type) of a form whose `fields` are text or files, in order."""
    boundary = "weir-" + secrets.token_hex(16)
    parts = []
    for name, value in fields:
        if isinstance(value, RawBody):
            head = (
                f'Content-Disposition: form-data; name="{_quoted(name)}"; '
                f'filename="{_quoted(value.name)}"\r\n'
                f"Content-Type: {_one_line(value.content_type)}\r\n"
            )
            data = value.data
        else:
            head = f'Content-Disposition: form-data; name="{_quoted(name)}"\r\n'
            data = value.encode()
        parts.append(head.encode() + b"\r\n" + data)
    marker = f"--{boundary}".encode()
    if any(marker in part for part in parts):  # 128 random bits: never in practice
        return encode(fields)
    body = b"".join(marker + b"\r\n" + part + b"\r\n" for part in parts)
    return body + marker + b"--\r\n", f"multipart/form-data; boundary={boundary}"


def _quoted(name: str) -> str:
    return name.replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")


def _one_line(text: str) -> str:
    return (text or "application/octet-stream").replace("\r", "").replace("\n", "")
