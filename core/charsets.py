"""The character sets Weir decodes text in, wherever the sender names one.

Python's codec registry holds more than character sets: `punycode` decodes in
time quadratic in its input (66 s of CPU for 1 MiB, docs/security.md S28),
`idna` hands its labels to it, `unicode_escape` and `rot13` change meaning,
`base64` and `zlib` turn bytes into bytes. Each codec listed here decodes in
time linear in the text. Used for what a flow fetches
(core/net/http_body.py) and what a request sends (core/http/body_charset.py).
"""

from __future__ import annotations

import codecs

# Canonical names (`codecs.lookup(label).name`) of the character sets decoded.
TEXT_CODECS = frozenset(
    {
        "utf-8",
        "utf-8-sig",
        "utf-16",
        "utf-16-le",
        "utf-16-be",
        "utf-32",
        "utf-32-le",
        "utf-32-be",
        "ascii",
        "koi8-r",
        "koi8-u",
        "mac-roman",
        "tis-620",
        "shift_jis",
        "euc_jp",
        "gb2312",
        "gbk",
        "gb18030",
        "big5",
        "euc_kr",
        *(f"iso8859-{part}" for part in range(1, 17) if part != 12),
        *(f"cp{page}" for page in range(1250, 1259)),
        "cp874",
    }
)


def codec_name(label: str) -> str | None:
    """The canonical name of the codec Python has for `label`, or None."""
    try:
        return codecs.lookup(label).name
    except (LookupError, ValueError, TypeError):
        return None


def text_codec(label: str) -> str | None:
    """The codec to decode `label`'s text with, when it is a character set of
    TEXT_CODECS; None otherwise (unknown, or no character set)."""
    name = codec_name(label)
    return name if name in TEXT_CODECS else None
