"""axe-core in the browser tests: every page is checked for serious or critical
accessibility violations. axe-core 4.14.1 is vendored in tests/e2e/vendor/ (MPL-2.0,
from `npm pack axe-core@4.14.1`, tarball sha256 e6b0ce02…139745); it is never served
to users, only injected by these tests."""

from __future__ import annotations

from pathlib import Path

AXE = Path(__file__).parent / "vendor" / "axe-core-4.14.1.min.js"
SEVERE = {"serious", "critical"}


def severe_violations(page, within: str | None = None) -> list[str]:
    """One line per serious or critical axe violation on the page as it is now
    (only inside the element the CSS selector `within` names, when given)."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        # Evaluated through the DevTools protocol, which the page's
        # Content-Security-Policy does not govern (a <script> tag it would block).
        page.evaluate(AXE.read_text())
    result = page.evaluate(
        "(within) => axe.run(within ? document.querySelector(within) : document,"
        " {resultTypes: ['violations']})",
        within,
    )
    return [
        f"{violation['id']} ({violation['impact']}): {violation['help']} at "
        + ", ".join(" ".join(node["target"]) for node in violation["nodes"][:5])
        for violation in result["violations"]
        if violation["impact"] in SEVERE
    ]
