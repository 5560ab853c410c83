"""A scripted user who counts what they do: the measures "a user feels" of
issues 37 and 38 (docs/builder.md, "Measured").

What counts as one action (the rule the bounds in docs/builder.md use):
- a click (a button, a palette item, a node, a checkbox);
- a fill: putting the text into one field, with what it held before replaced
  (clicking into the field, selecting its text and typing it are one action,
  as a person types into one box);
- a key press that does something beyond typing (Enter to submit or to add,
  Ctrl+S to save).
Choosing an option of a select or a drag would count one each; neither walk
needs one.

Looking, scrolling and waiting for the page are not actions. `seconds` is the
time from the walk's start to `stop()`, with no waits of the script's own:
only Playwright's waiting for the page to be ready for the next action.
"""

from __future__ import annotations

import time


class Walk:
    """Wraps a page; every method is one counted action."""

    def __init__(self, page):
        self.page = page
        self.actions = 0
        self.log: list[str] = []
        self.started = time.monotonic()
        self.seconds: float | None = None

    def _count(self, what: str) -> None:
        self.actions += 1
        self.log.append(what)

    def click(self, locator, what: str = "click") -> None:
        locator.click()
        self._count(what)

    def fill(self, locator, text: str, what: str = "fill") -> None:
        locator.fill(text)
        self._count(what)

    def press(self, keys: str, locator=None) -> None:
        (locator or self.page.keyboard).press(keys)
        self._count(f"press {keys}")

    def stop(self) -> float:
        """End the clock; the scripted user's time in seconds."""
        self.seconds = round(time.monotonic() - self.started, 1)
        return self.seconds
