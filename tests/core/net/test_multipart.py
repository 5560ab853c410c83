"""multipart/form-data bodies: what a server's parser reads back."""

from __future__ import annotations

from email import policy
from email.parser import BytesParser

from core.net import multipart
from core.net.http_body import RawBody


def parsed(body: bytes, content_type: str):
    head = f"Content-Type: {content_type}\r\n\r\n".encode()
    return list(BytesParser(policy=policy.HTTP).parsebytes(head + body).iter_parts())


def test_a_name_with_quotes_or_line_breaks_cannot_add_a_header():
    body, content_type = multipart.encode(
        [
            ('a"\r\nX-Evil: 1', "v"),
            ("f", RawBody(b"x", "text/plain\r\nX-Evil: 2", 'b"\r\n.txt')),
        ]
    )

    first, second = parsed(body, content_type)
    assert first.get_param("name", header="content-disposition") == (
        "a%22%0D%0AX-Evil: 1"
    )
    assert second.get_filename() == "b%22%0D%0A.txt"
    assert "X-Evil" not in first and "X-Evil" not in second
    assert second.get_payload(decode=True) == b"x"


def test_an_empty_form_is_only_its_closing_boundary():
    body, content_type = multipart.encode([])

    assert body == f"--{content_type.split('boundary=')[1]}--\r\n".encode()
