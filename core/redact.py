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

import contextlib
import json
import re
from contextvars import ContextVar
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

    def add_all(self, other: Redactor) -> None:
        """Every value `other` knows, under its name."""
        for value, name in other._names.items():
            self.add(name, [value])

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


# The redactors of the work this thread (or task) is doing: a run's, a chat
# turn's. Log records made meanwhile are redacted with them
# (core.telemetry.logs), so a traceback logged anywhere below a run or a turn
# never carries a value the run or turn opened.
_ACTIVE: ContextVar[tuple[Redactor, ...]] = ContextVar("redactors", default=())


@contextlib.contextmanager
def redacting(redactor: Redactor):
    """Log records made inside are redacted with `redactor` too. On the way
    out, what it learnt is handed to the enclosing one, if any: a tool run's
    credential values still count when the chat turn above logs its failure."""
    outer = _ACTIVE.get()
    token = _ACTIVE.set((*outer, redactor))
    try:
        yield redactor
    finally:
        _ACTIVE.reset(token)
        if outer and outer[-1] is not redactor:
            outer[-1].add_all(redactor)


def redact_for_logs(text: str) -> str:
    """`text` through every active redactor (each also replaces the shapes)."""
    for redactor in _ACTIVE.get():
        text = redactor.text(text)
    return text


def any_active() -> bool:
    return bool(_ACTIVE.get())
