"""The postgres_query node's connection uses only what the credential says,
never the Weir host's own PostgreSQL credentials (a pgpass file, a client
certificate, a Kerberos ticket), whatever server the credential names."""

from __future__ import annotations

import socket
import struct
import threading
import time

import psycopg
import pytest

from core.net import postgres

pytestmark = pytest.mark.django_db

SSL_REQUEST, GSSENC_REQUEST = 80877103, 80877104


def _read(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            break
        data += chunk
    return data


class PasswordAsker:
    """A server speaking just enough of PostgreSQL's protocol to ask for the
    password in clear text, as any server on the internet may; it keeps what
    the client answered."""

    def __init__(self):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.passwords: list[bytes] = []
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        self.sock.settimeout(10)
        conn, _ = self.sock.accept()
        with conn:
            conn.settimeout(10)
            while True:  # refuse TLS and GSS encryption; read the start-up
                (length,) = struct.unpack("!I", _read(conn, 4))
                body = _read(conn, length - 4)
                if struct.unpack("!I", body[:4])[0] not in (
                    SSL_REQUEST,
                    GSSENC_REQUEST,
                ):
                    break
                conn.sendall(b"N")
            conn.sendall(b"R" + struct.pack("!II", 8, 3))  # cleartext password
            kind = _read(conn, 1)
            if kind == b"p":
                (length,) = struct.unpack("!I", _read(conn, 4))
                self.passwords.append(_read(conn, length - 4))
            error = b"SFATAL\0C28P01\0Mrefused\0\0"
            conn.sendall(b"E" + struct.pack("!I", len(error) + 4) + error)

    def close(self):
        self.thread.join(10)
        self.sock.close()


@pytest.fixture
def asker(settings):
    # Loopback stands in for a public server the flow's author runs.
    settings.HTTP_NODE_ALLOWLIST = ["127.0.0.1"]
    server = PasswordAsker()
    yield server
    server.close()


def test_the_hosts_pgpass_password_never_goes_to_a_server_a_credential_names(
    asker, tmp_path, monkeypatch
):
    pgpass = tmp_path / "pgpass"
    pgpass.write_text("*:*:*:*:operators-secret\n")
    pgpass.chmod(0o600)
    monkeypatch.setenv("PGPASSFILE", str(pgpass))
    server = {
        "host": "127.0.0.1",
        "port": asker.port,
        "database": "d",
        "username": "u",
        "sslmode": "prefer",
    }
    with pytest.raises(postgres.QueryError):
        postgres.check_connection(server, "", time.monotonic() + 5)
    asker.close()
    assert not any(b"operators-secret" in sent for sent in asker.passwords)


def test_no_client_certificate_or_kerberos_ticket_of_the_host_is_offered(
    monkeypatch, settings
):
    settings.HTTP_NODE_ALLOWLIST = ["127.0.0.1"]
    seen = {}

    def connect(**kwargs):
        seen.update(kwargs)
        raise psycopg.OperationalError("not connecting")

    monkeypatch.setattr(postgres.psycopg, "connect", connect)
    server = {"host": "127.0.0.1", "port": 5999, "database": "d", "username": "u"}
    with pytest.raises(postgres.QueryError):
        postgres.check_connection(server, "", time.monotonic() + 5)
    assert seen["sslcertmode"] == "disable"
    assert seen["gssencmode"] == "disable"
    assert "gss" in seen["require_auth"] and "sspi" in seen["require_auth"]
