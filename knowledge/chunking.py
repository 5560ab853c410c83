"""Text cut into overlapping passages, each cut at a paragraph, sentence or word
boundary near the wanted size, so no word is split and an answer that straddles
a cut appears whole in one of the two passages."""

from __future__ import annotations

import re
from dataclasses import dataclass

# Where a passage may end, best first: a blank line, a sentence's end, a space.
BOUNDARIES = (re.compile(r"\n\s*\n"), re.compile(r"[.!?]\s"), re.compile(r"\s"))


@dataclass(frozen=True)
class Piece:
    position: int
    start: int
    text: str


def chunk(text: str, size: int, overlap: int) -> list[Piece]:
    """Passages of at most `size` characters repeating about `overlap` of the
    one before; blank text gives none."""
    if overlap >= size:
        raise ValueError("The overlap must be smaller than the passage size.")
    pieces: list[Piece] = []
    start = _skip_space(text, 0)
    while start < len(text):
        end = _cut(text, start, size)
        body = text[start:end].strip()
        if body:
            pieces.append(Piece(len(pieces), start, body))
        if end >= len(text):
            break
        start = _skip_space(text, max(_back_to_word(text, end - overlap), start + 1))
    return pieces


def _cut(text: str, start: int, size: int) -> int:
    limit = start + size
    if limit >= len(text):
        return len(text)
    window = text[start:limit]
    for boundary in BOUNDARIES:
        ends = [match.end() for match in boundary.finditer(window)]
        # A cut in the first half would make passages too small to mean much.
        good = [end for end in ends if end > size // 2]
        if good:
            return start + good[-1]
    return limit


def _back_to_word(text: str, index: int) -> int:
    """`index` moved back to the start of the word it falls in."""
    while index > 0 and not text[index - 1].isspace():
        index -= 1
    return index


def _skip_space(text: str, index: int) -> int:
    while index < len(text) and text[index].isspace():
        index += 1
    return index
