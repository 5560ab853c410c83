"""Redaction: credential values replaced by `[redacted:NAME]` in anything stored.

The engine builds one `Redactor` per run and adds each credential the run
decrypts; every step's output, logs and error, the run's results and response
(and so the webhook's answer and an agent's tool result) pass through it before
they are stored or sent.

Matching is Aho-Corasick (`pyahocorasick`, docs/decisions.md): the automaton is
built once after the last `add` (linear in the total length of the values),
and a text is scanned once whatever the number of values. A regular expression
rebuilt per credential was quadratic: 45 credentials of 8 KB took a webhook
run past its time limit (issue 27 item 8).

Besides the values a run opened, every redactor replaces the token shapes
registered with `register_shape` by `[redacted]`: Weir's own API tokens
(`weir_pat_…`, `weir_wst_…`), which accounts registers from its
`AppConfig.ready()` (flows may not import it), so a token pasted into a run's
input and echoed by a node never reaches a step, a log or a run view.
"""

from __future__ import annotations

import json
import re
from typing import Any

import ahocorasick

SHAPE_MARKER = "[redacted]"

# Patterns of secrets that are no run's credential; each is a fixed prefix and
# one character class, so a scan stays linear in the text's length.
_SHAPES: list[re.Pattern] = []


def register_shape(pattern: re.Pattern) -> None:
    """Redact text matching `pattern` everywhere a `Redactor` redacts."""
    if pattern not in _SHAPES:
        _SHAPES.append(pattern)


def _holds_a_shape(value: Any) -> bool:
    """Whether a registered shape occurs anywhere in `value`, keys included.
    One C-speed scan of its JSON text instead of a walk that copies every
    string: a 20,000-row output costs ~30 ms, not ~280 (the shapes' characters
    are never escaped in JSON, so a shape in a string is one in the text)."""
    if not _SHAPES:
        return False
    try:
        text = value if isinstance(value, str) else json.dumps(value, default=str)
    except (TypeError, ValueError):  # a key JSON cannot hold: walk it instead
        return True
    return any(shape.search(text) for shape in _SHAPES)


def redact_shapes(value: Any) -> Any:
    """`value` with the registered shapes replaced (no credential values): for
    what a run stores as it came, its input, when a page or answer shows it."""
    return Redactor().redact(value)


class Redactor:
    """Replaces known secret strings inside any JSON value (keys included)."""

    def __init__(self):
        self._names: dict[str, str] = {}
        self._automaton: ahocorasick.Automaton | None = None  # built on first use

    def __bool__(self) -> bool:
        return bool(self._names)

    def add(self, name: str, values: list[str]) -> None:
        for value in values:
            if value:
                # A value shared by two credentials keeps the first one's name.
                self._names.setdefault(value, name)
                self._automaton = None

    def _matcher(self) -> ahocorasick.Automaton:
        if self._automaton is None:
            automaton = ahocorasick.Automaton()
            for value, name in self._names.items():
                automaton.add_word(value, (len(value), f"[redacted:{name}]"))
            automaton.make_automaton()
            self._automaton = automaton
        return self._automaton

    def text(self, text: str) -> str:
        """`text` with each value replaced, leftmost first and, of the values
        starting there, the longest (a value before any part of it); then
        the registered shapes."""
        text = self._values(text)
        for shape in _SHAPES:
            text = shape.sub(SHAPE_MARKER, text)
        return text

    def _values(self, text: str) -> str:
        if not self._names:
            return text
        pieces, done = [], 0
        for end, (length, marker) in self._matcher().iter_long(text):
            pieces += (text[done : end + 1 - length], marker)
            done = end + 1
        if not pieces:
            return text
        pieces.append(text[done:])
        return "".join(pieces)

    def redact(self, value: Any) -> Any:
        """`value` with every secret replaced; the input is never modified."""
        if not self._names and not _holds_a_shape(value):
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {
                self.text(key) if isinstance(key, str) else key: self.redact(item)
                for key, item in value.items()
            }
        if isinstance(value, list):
            return [self.redact(item) for item in value]
        return value
