"""core/pretty.py: JSON shown in admin and on run pages."""

from __future__ import annotations

from core.pretty import pretty_json


def test_pretty_json_keeps_text_readable_and_escapes_what_utf8_cannot_carry():
    text = pretty_json({"name": "café \ud800"})

    assert text == '{\n  "name": "café \\ud800"\n}'
    assert text.encode("utf-8")
