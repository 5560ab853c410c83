"""Two response headers a client acts on: `Retry-After` and `Link` rel="next".

Both are read leniently: a value that does not parse is treated as absent (no
wait, no next page), since a malformed header from a server should not fail a
request that otherwise succeeded.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from urllib.parse import urljoin

# One link-value of RFC 8288: `<target>` then `; name=value` parameters.
LINK_VALUE = re.compile(r"<([^>]*)>((?:\s*;\s*[^;,]*)*)")
LINK_PARAM = re.compile(r';\s*([!#$%&\'*+\-.^_`|~0-9A-Za-z]+)\s*=\s*("[^"]*"|[^;,\s]*)')


def retry_after_seconds(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds a `Retry-After` value asks to wait: delay-seconds or an HTTP
    date (RFC 9110 10.2.3); a date already past is 0. None when absent or
    not either form."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(int(value))
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # "-0000" in the date: UTC, as HTTP dates are
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def next_link(value: str | None, base_url: str) -> str | None:
    """The target of the link whose `rel` names "next" (RFC 8288: rel holds
    space-separated types, compared case-insensitively), resolved against the
    URL the header came with; None when there is none.

    Several Link headers arrive joined with ", " (the node's output joins
    repeated headers that way), which is also how one header lists several
    links, so both read the same.
    """
    for match in LINK_VALUE.finditer(value or ""):
        for name, raw in LINK_PARAM.findall(match.group(2)):
            if name.lower() != "rel":
                continue
            relations = raw.strip('"').lower().split()
            if "next" in relations:
                return urljoin(base_url, match.group(1).strip())
    return None
