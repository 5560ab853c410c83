"""One query on a user's PostgreSQL database, for the postgres_query node.

The server's name is resolved and checked once (`outbound.checked_address`,
the HTTP node's wall and allowlist) and libpq dials that address through
`hostaddr`, keeping `host` for TLS verification, so a second DNS answer
cannot send the connection elsewhere (DNS rebinding). Weir's own database
(same address, port and database name as Django's connection) is always
refused, whatever the allowlist says.

The query is the node's literal SQL with named parameters (`%(name)s`),
always executed with parameters, so psycopg uses the extended protocol: one
statement only, and values never become SQL. Read mode runs it in a
`READ ONLY` transaction; `statement_timeout` and `connect_timeout` bound it.

Only the credential speaks for the connection: libpq would otherwise fill an
empty password from the Weir host's pgpass file and offer the host's client
certificate and Kerberos ticket to whichever server the credential names
(`AMBIENT_OFF`).
"""

from __future__ import annotations

import datetime
import decimal
import ipaddress
import math
import socket
import time
import uuid
from typing import Any

import psycopg
from django.db import connections

from core.net import outbound

# No pgpass file (a path that never exists: /nonexistent is nobody's home by
# Debian policy; /dev/null would make libpq warn on every connection), no
# client certificate, no GSSAPI encryption or authentication.
AMBIENT_OFF = {
    "passfile": "/nonexistent/weir-no-pgpass",
    "sslcertmode": "disable",
    "gssencmode": "disable",
    "require_auth": "!gss,!sspi",
}


class QueryError(Exception):
    """The query failed; `code` is what the node reports, `timed_out` whether
    the run should end `timed_out`."""

    def __init__(self, code: str, message: str, *, timed_out: bool = False):
        super().__init__(message)
        self.code, self.message, self.timed_out = code, message, timed_out


def _addresses_of(host: str, port: int) -> set:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror:
        return set()
    return {ipaddress.ip_address(info[4][0].split("%")[0]) for info in infos}


def is_weirs_own(address: str, port: int, database: str) -> bool:
    """Whether (address, port, database) is the database Weir itself uses."""
    own = connections["default"].settings_dict
    if connections["default"].vendor != "postgresql" or own["NAME"] != database:
        return False
    if int(own.get("PORT") or 5432) != port:
        return False
    own_host = own.get("HOST") or "localhost"
    target = ipaddress.ip_address(address)
    # ::ffff:127.0.0.1 is 127.0.0.1; 0.0.0.0 and :: reach this machine too.
    target = getattr(target, "ipv4_mapped", None) or target
    if own_host.startswith("/"):  # a Unix socket: the server is on this machine
        return is_this_machine(target)
    own_addresses = _addresses_of(own_host, port)
    if target in own_addresses:
        return True
    # A server on this machine listening on '*' answers on each of its
    # addresses, loopback or not.
    own_is_here = own_host in ("localhost", "127.0.0.1", "::1") or any(
        map(is_this_machine, own_addresses)
    )
    return own_is_here and is_this_machine(target)


def is_this_machine(address) -> bool:
    """Whether `address` is one of this machine's: loopback, unspecified, or
    one an interface holds (a socket may bind to it; nothing is sent)."""
    if address.is_loopback or address.is_unspecified:
        return True
    family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.bind((str(address), 0))
    except OSError:
        return False
    return True


def jsonable(value: Any) -> Any:
    """A column value as JSON: numbers, text, booleans, null, JSON itself;
    Decimal, times, UUIDs and intervals as text; bytes are refused."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, decimal.Decimal | uuid.UUID | datetime.timedelta):
        return str(value)
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, list):
        return [jsonable(item) for item in value]
    if isinstance(value, dict):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, bytes | bytearray | memoryview):
        raise QueryError(
            "unsupported_type",
            "A column is binary (bytea); select encode(column, 'base64') instead.",
        )
    return str(value)


def connect(server: dict, password: str, deadline: float, application_name: str):
    """An open connection to `server`'s database through its checked address,
    each statement bounded by what is left until `deadline`; or QueryError."""
    host, port = server["host"], int(server.get("port") or 5432)
    database = server.get("database", "")
    try:
        address = outbound.checked_address(host, port)
    except outbound.OutboundError as error:
        raise QueryError(error.code, error.message) from None
    if is_weirs_own(address, port, database):
        raise QueryError(
            "own_database", "This is Weir's own database; a flow may not query it."
        )
    left = deadline - time.monotonic()
    if left <= 0:
        raise QueryError("run_timeout", "No time left to query.", timed_out=True)
    try:
        return psycopg.connect(
            host=host,
            hostaddr=address,
            port=port,
            dbname=database,
            user=server.get("username", ""),
            password=password,
            sslmode=server.get("sslmode") or "prefer",
            connect_timeout=max(2, math.ceil(left)),
            options=f"-c statement_timeout={max(1, int(left * 1000))}",
            application_name=application_name,
            **AMBIENT_OFF,
        )
    except psycopg.OperationalError as error:
        if time.monotonic() >= deadline:
            raise QueryError(
                "db_timeout", "Connecting timed out.", timed_out=True
            ) from None
        raise QueryError(
            "db_connect", f"Cannot connect to {host}: {error}".strip()
        ) from None


def check_connection(server: dict, password: str, deadline: float) -> str:
    """Connect and run `SELECT 1`: what was done, or QueryError."""
    connection = connect(server, password, deadline, "weir-credential-test")
    try:
        with connection, connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
            version = connection.info.parameter_status("server_version")
    except psycopg.errors.QueryCanceled:
        raise QueryError("db_timeout", "SELECT 1 ran past its time limit.") from None
    except psycopg.Error as error:
        raise QueryError(
            "db_error", str(error).strip() or type(error).__name__
        ) from None
    finally:
        connection.close()
    return (
        f"Connected to {server['host']}:{server.get('port') or 5432}/"
        f"{server.get('database', '')} as {server.get('username', '')} "
        f"(PostgreSQL {version}); SELECT 1 answered."
    )


def run_query(
    server: dict,
    password: str,
    sql: str,
    params: dict,
    *,
    read_only: bool,
    max_rows: int,
    deadline: float,
) -> dict:
    """`{rows, row_count, columns, truncated}`, or QueryError."""
    connection = connect(server, password, deadline, "weir-postgres-query")
    try:
        with connection, connection.cursor() as cursor:
            if read_only:
                cursor.execute("SET TRANSACTION READ ONLY")
            # Prepared: always the extended protocol, so one statement only.
            cursor.execute(sql, params, prepare=True)
            if cursor.description is None:  # a write without RETURNING
                return {
                    "rows": [],
                    "row_count": cursor.rowcount,
                    "columns": [],
                    "truncated": False,
                }
            columns = [column.name for column in cursor.description]
            fetched = cursor.fetchmany(max_rows + 1)
    except psycopg.errors.QueryCanceled:
        raise QueryError(
            "db_timeout", "The query ran past its time limit.", timed_out=True
        ) from None
    except psycopg.errors.ReadOnlySqlTransaction:
        raise QueryError(
            "db_read_only",
            "The query writes, but the node is in read mode; set access to write.",
        ) from None
    except psycopg.Error as error:
        raise QueryError(
            "db_error", str(error).strip() or type(error).__name__
        ) from None
    finally:
        connection.close()
    rows = [
        {name: jsonable(value) for name, value in zip(columns, row, strict=True)}
        for row in fetched[:max_rows]
    ]
    return {
        "rows": rows,
        "row_count": len(rows),
        "columns": columns,
        "truncated": len(fetched) > max_rows,
    }
