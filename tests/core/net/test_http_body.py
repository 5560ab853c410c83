"""Which charsets a response body is decoded with, and what the others become."""

from __future__ import annotations

import base64

import pytest

from core.net.http_body import BodyError, decode_body


@pytest.mark.parametrize(
    ("charset", "encoded"),
    [
        ("utf-8", "héllo €".encode()),
        ("UTF8", "héllo €".encode()),
        ('"utf-16"', "héllo €".encode("utf-16")),
        ("utf-32-le", "héllo €".encode("utf-32-le")),
        ("latin-1", "héllo".encode("latin-1")),
        ("ISO-8859-15", "héllo €".encode("iso-8859-15")),
        ("windows-1252", "héllo €".encode("cp1252")),
        ("us-ascii", b"hello"),
        ("shift_jis", "こんにちは".encode("shift_jis")),
    ],
)
def test_text_charsets_are_decoded(charset, encoded):
    output = decode_body(encoded, f"text/plain; charset={charset}")

    assert output == {"body": encoded.decode(charset.strip('"'))}


def test_no_charset_means_utf_8_and_json_is_parsed():
    assert decode_body(b'{"a": "\xc3\xa9"}', "application/json") == {"body": {"a": "é"}}
    assert decode_body(b"caf\xc3\xa9", "text/plain") == {"body": "café"}


@pytest.mark.parametrize(
    "charset",
    ["punycode", "idna", "unicode_escape", "rot13", "hex", "base64", "no-such"],
)
def test_any_other_charset_is_kept_as_base64(charset):
    raw = b"\\u0041 x-y 00ff"

    output = decode_body(raw, f"application/json; charset={charset}")

    assert output == {
        "body": base64.b64encode(raw).decode(),
        "body_encoding": "base64",
    }


def test_json_nested_past_the_recursion_limit_is_an_error():
    with pytest.raises(BodyError):
        decode_body(b"[" * 100_000 + b"]" * 100_000, "application/json")


def test_json_format_parses_whatever_the_content_type():
    assert decode_body(b'{"a": [1]}', "text/plain", "json") == {"body": {"a": [1]}}


def test_json_format_refuses_a_body_that_is_not_json():
    with pytest.raises(BodyError) as raised:
        decode_body(b"<html>", "text/html", "json")

    assert raised.value.code == "invalid_json"


def test_json_format_refuses_a_charset_it_does_not_decode():
    with pytest.raises(BodyError) as raised:
        decode_body(b"{}", "application/json; charset=punycode", "json")

    assert raised.value.code == "invalid_json"


def test_text_format_keeps_json_as_text():
    assert decode_body(b'{"a": 1}', "application/json", "text") == {"body": '{"a": 1}'}
