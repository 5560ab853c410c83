"""Passages: near the wanted size, overlapping, never splitting a word."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from knowledge.chunking import chunk


def test_a_short_text_is_one_passage():
    [piece] = chunk("Weir runs flows.", 100, 20)

    assert (piece.position, piece.start, piece.text) == (0, 0, "Weir runs flows.")


def test_blank_text_makes_no_passage():
    assert chunk("  \n\n ", 100, 20) == []


def test_consecutive_passages_overlap_so_a_cut_answer_is_whole_in_one():
    sentences = " ".join(
        f"Sentence number {n} says the code is {n * 7}." for n in range(60)
    )

    pieces = chunk(sentences, 200, 60)

    assert len(pieces) > 5
    for before, after in zip(pieces, pieces[1:], strict=False):
        assert after.start < before.start + len(before.text)  # they overlap
    for n in range(60):
        fact = f"Sentence number {n} says the code is {n * 7}."
        assert any(fact in piece.text for piece in pieces)


def test_a_passage_prefers_to_end_at_a_paragraph():
    text = "First paragraph " * 5 + "\n\n" + "Second paragraph " * 5

    first = chunk(text, 120, 20)[0]

    assert first.text.endswith("First paragraph")


def test_an_overlap_as_large_as_the_passage_is_refused():
    with pytest.raises(ValueError):
        chunk("text", 10, 10)


@given(st.text(alphabet="ab \n.", max_size=600), st.integers(20, 80))
def test_every_word_survives_chunking_whole(text, size):
    pieces = chunk(text, size, size // 4)

    words = set(text.split())
    found = {word for piece in pieces for word in piece.text.split()}
    assert found == words or any(len(word) > size for word in words)
