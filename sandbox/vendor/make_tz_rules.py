"""Writes `tz-rules-<version>.js`: each IANA zone's current rule as a POSIX TZ string.

QuickJS has no `Intl`, so the sandbox cannot ask the engine for a zone's
offset. Every TZif file ends with a POSIX TZ string, the rule the zone follows
after its last listed transition (`CET-1CEST,M3.5.0,M10.5.0/3`); the date
helpers (sandbox/harness_dates.js) evaluate it. Zones sharing a rule are
grouped, so the file stays small. Run it against a newer tzdata to refresh:

    python sandbox/vendor/make_tz_rules.py /usr/share/zoneinfo
"""

from __future__ import annotations

import json
import sys
import zoneinfo
from pathlib import Path

HERE = Path(__file__).parent


def footer(path: Path) -> str:
    """The POSIX TZ string at the end of a version 2+ TZif file."""
    data = path.read_bytes()
    return data.rstrip(b"\n").rsplit(b"\n", 1)[1].decode()


def main(root: str) -> None:
    base = Path(root)
    version = (base / "tzdata.zi").read_text().splitlines()[0].split()[-1]
    groups: dict[str, list[str]] = {}
    for zone in sorted(zoneinfo.available_timezones()):
        groups.setdefault(footer(base / zone), []).append(zone)
    table = {rule: " ".join(zones) for rule, zones in sorted(groups.items())}
    target = HERE / f"tz-rules-{version}.js"
    target.write_text(
        f"// IANA tzdata {version}: rule -> zones (make_tz_rules.py)\n"
        f"const tzRuleText = {json.dumps(json.dumps(table, separators=(',', ':')))};\n"
    )
    print(target, len(groups), "rules")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/usr/share/zoneinfo")
