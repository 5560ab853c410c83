"""Django's PostgreSQL backend with a health check that costs no round trip.

`CONN_HEALTH_CHECKS` keeps a connection that PostgreSQL dropped (a restart,
an idle timeout) from failing the first request after it. Django checks with
`SELECT 1` at each request's first query: a round trip, ~0.1 M instructions in
the web process and PostgreSQL CPU on every webhook (bench/README.md). Here an
idle connection is checked locally instead: a server that ends a session
first sends its reason and closes the socket, so an idle connection with
anything to read, or a socket already closed, is dropped and reopened. A
connection in any other state, or one this cannot judge, gets Django's check.
"""

from __future__ import annotations

import select

from django.db.backends.postgresql import base
from psycopg.pq import TransactionStatus


class DatabaseWrapper(base.DatabaseWrapper):
    def is_usable(self) -> bool:
        connection = self.connection
        if connection is None or connection.closed or connection.broken:
            return False
        if connection.info.transaction_status != TransactionStatus.IDLE:
            return super().is_usable()
        try:
            # poll, not select: a process with over 1,024 files open is fine.
            poller = select.poll()
            poller.register(connection.fileno(), select.POLLIN)
            events = poller.poll(0)
        except (OSError, ValueError, AttributeError):  # no poll() here: ask
            return super().is_usable()
        # Nothing was asked, so anything waiting is the server saying goodbye
        # (or an end of file, or a hang-up): reconnect rather than fail the request.
        return not events
