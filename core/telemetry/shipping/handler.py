"""`ShippingHandler`: the logging handler that hands audit and run lines to
the log stream's shippers (config/log_stream_settings.py puts it on the
`weir.audit` and `weir.runs` loggers)."""

from __future__ import annotations

import logging

from core.telemetry.logs import JsonFormatter
from core.telemetry.shipping.destinations import Entry, HttpLines, Syslog
from core.telemetry.shipping.shipper import Shipper

# The syslog MSGID of each shipped logger's lines.
KINDS = {"weir.audit": "audit", "weir.runs": "run"}


class ShippingHandler(logging.Handler):
    """Formats each record as the JSON line of `JsonFormatter` (an audit
    line's `event`, a run's outcome) and offers it to each destination's
    shipper; never waits for one. Arguments come from LOGGING's handler
    entry (config/log_stream_settings.py)."""

    def __init__(
        self,
        syslog_url: str = "",
        http_url: str = "",
        http_authorization: str = "",
        syslog_facility: int = 16,
        timeout: float = 5.0,
        **queueing,
    ):
        super().__init__()
        self.setFormatter(JsonFormatter())
        destinations = []
        if syslog_url:
            destinations.append(
                Syslog(syslog_url, facility=syslog_facility, timeout=timeout)
            )
        if http_url:
            destinations.append(
                HttpLines(http_url, authorization=http_authorization, timeout=timeout)
            )
        self.shippers = [Shipper(d, **queueing) for d in destinations]

    def emit(self, record: logging.LogRecord) -> None:
        try:
            entry = Entry(
                line=self.format(record),
                created=record.created,
                level=record.levelno,
                kind=KINDS.get(record.name, "log"),
            )
        except Exception:  # noqa: BLE001 - logging's own convention
            self.handleError(record)
            return
        for shipper in self.shippers:
            shipper.offer(entry)

    def close(self) -> None:
        """At exit (logging.shutdown): a moment to send what is queued."""
        for shipper in self.shippers:
            shipper.close()
        super().close()
