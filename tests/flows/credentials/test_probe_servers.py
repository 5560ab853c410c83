"""`POST /api/credentials/:id/test` for SMTP (aiosmtpd on loopback, with and
without STARTTLS) and PostgreSQL (the local server at 127.0.0.1:5432)."""

from __future__ import annotations

import datetime
import ipaddress
import ssl

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from django.db import connection

from tests.factories import make_credential
from tests.processes import free_port, needs_postgres

pytestmark = pytest.mark.django_db

PASSWORD = "s3cret-probe-pass"


class Inbox:
    def __init__(self):
        self.envelopes = []

    async def handle_DATA(self, server, session, envelope):  # noqa: N802
        self.envelopes.append(envelope)
        return "250 OK"


def check_login(server, session, envelope, mechanism, auth_data):
    ok = auth_data.login == b"weir" and auth_data.password == PASSWORD.encode()
    # handled=False: aiosmtpd answers a refusal itself (535), as servers do.
    return AuthResult(success=ok, handled=False)


def start_smtp(**options) -> Controller:
    controller = Controller(
        Inbox(),
        hostname="127.0.0.1",
        port=free_port(),
        authenticator=check_login,
        **options,
    )
    controller.start()
    return controller


@pytest.fixture
def plain_smtp(settings):
    """A relay on loopback without TLS (so allowlisted, as `security: none` needs)."""
    settings.HTTP_NODE_ALLOWLIST = ["127.0.0.1"]
    controller = start_smtp(auth_require_tls=False)
    yield controller
    controller.stop()


@pytest.fixture
def trusted_certificate(tmp_path, monkeypatch):
    """A certificate for 127.0.0.1 that this process's default TLS context
    trusts (SSL_CERT_FILE), as a real CA-signed server's would be."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    monkeypatch.setenv("SSL_CERT_FILE", str(cert_path))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_path, key_path)
    return context


@pytest.fixture
def starttls_smtp(settings, trusted_certificate):
    """A submission server offering STARTTLS and a login only after it."""
    settings.HTTP_NODE_ALLOWLIST = ["127.0.0.1"]
    controller = start_smtp(tls_context=trusted_certificate, require_starttls=True)
    yield controller
    controller.stop()


def smtp_credential(owner, port, password=PASSWORD, **public):
    fields = {
        "host": "127.0.0.1",
        "port": port,
        "security": "none",
        "username": "weir",
        "from_address": "flows@example.com",
        **public,
    }
    secrets = {"password": password} if password is not None else None
    credential = make_credential(owner, "mail", "smtp", secrets, **fields)
    if password is None:
        credential.encrypted = ""
        credential.save()
    return credential


def try_it(api, credential):
    return api.post(f"/api/credentials/{credential.id}/test", {}, format="json")


def test_an_smtp_login_the_server_accepts_is_ok(api, alice, plain_smtp):
    credential = smtp_credential(alice, plain_smtp.port)

    response = try_it(api, credential)

    assert response.status_code == 200
    assert response.json() == {
        "ok": True,
        "message": f"Connected to 127.0.0.1:{plain_smtp.port}, logged in as weir.",
    }
    assert plain_smtp.handler.envelopes == []  # nothing was sent


def test_starttls_then_login_is_ok(api, alice, starttls_smtp):
    credential = smtp_credential(alice, starttls_smtp.port, security="starttls")

    response = try_it(api, credential)

    assert response.json() == {
        "ok": True,
        "message": f"Connected to 127.0.0.1:{starttls_smtp.port}, STARTTLS, "
        "logged in as weir.",
    }


def test_a_server_certificate_nobody_vouches_for_is_not_ok(
    api, alice, starttls_smtp, monkeypatch
):
    monkeypatch.delenv("SSL_CERT_FILE")
    credential = smtp_credential(alice, starttls_smtp.port, security="starttls")

    response = try_it(api, credential)

    body = response.json()
    assert body["ok"] is False
    assert "certificate verify failed" in body["message"]


def test_starttls_asked_of_a_server_without_it_is_not_ok(api, alice, plain_smtp):
    credential = smtp_credential(alice, plain_smtp.port, security="starttls")

    response = try_it(api, credential)

    assert response.json() == {
        "ok": False,
        "message": "127.0.0.1 does not offer STARTTLS: STARTTLS extension not "
        "supported by server..",
    }


def test_a_wrong_smtp_password_is_not_ok_and_not_shown(api, alice, plain_smtp):
    credential = smtp_credential(alice, plain_smtp.port, password="wrong-pass-123")

    response = try_it(api, credential)

    body = response.json()
    assert body["ok"] is False
    assert "refused the login" in body["message"]
    assert "wrong-pass-123" not in response.content.decode()


def test_a_relay_without_a_login_is_ok(api, alice, plain_smtp):
    credential = smtp_credential(alice, plain_smtp.port, password=None, username="")

    response = try_it(api, credential)

    assert response.json() == {
        "ok": True,
        "message": f"Connected to 127.0.0.1:{plain_smtp.port}.",
    }


def test_an_smtp_server_that_is_down_is_not_ok(api, alice, closed_port, settings):
    settings.HTTP_NODE_ALLOWLIST = ["127.0.0.1"]
    credential = smtp_credential(alice, closed_port)

    response = try_it(api, credential)

    assert response.json() == {
        "ok": False,
        "message": f"127.0.0.1 refused a connection on port {closed_port}.",
    }


def test_an_smtp_server_at_a_private_address_stays_refused(api, alice, plain_smtp):
    plain_smtp_port = plain_smtp.port
    credential = smtp_credential(alice, plain_smtp_port)
    credential.public["host"] = "10.255.255.1"
    credential.save()

    response = try_it(api, credential)

    body = response.json()
    assert body["ok"] is False
    assert "is refused: it is not a public address" in body["message"]


# PostgreSQL: the local server trusts every local connection, so a wrong
# password cannot be shown failing here; a wrong database or role can.


@pytest.fixture
def local_postgres(settings):
    settings.HTTP_NODE_ALLOWLIST = ["127.0.0.1"]
    return {"host": "127.0.0.1", "port": 5432, "sslmode": "disable"}


def pg_credential(owner, server, **public):
    fields = {**server, "database": "postgres", "username": "postgres", **public}
    return make_credential(owner, "db", "postgres", {"password": "pw-pg-123"}, **fields)


def test_a_postgres_database_that_answers_select_1_is_ok(api, alice, local_postgres):
    credential = pg_credential(alice, local_postgres)

    response = try_it(api, credential)

    body = response.json()
    assert body["ok"] is True
    assert body["message"].startswith(
        "Connected to 127.0.0.1:5432/postgres as postgres (PostgreSQL "
    )
    assert body["message"].endswith("); SELECT 1 answered.")


def test_a_postgres_credential_without_a_password_is_ok(api, alice, local_postgres):
    credential = pg_credential(alice, local_postgres)
    credential.encrypted = ""
    credential.save()

    response = try_it(api, credential)

    assert response.json()["ok"] is True


def test_a_database_that_does_not_exist_is_not_ok(api, alice, local_postgres):
    credential = pg_credential(alice, local_postgres, database="weir_no_such_db")

    response = try_it(api, credential)

    body = response.json()
    assert body["ok"] is False
    assert body["message"].startswith("Cannot connect to 127.0.0.1: ")
    assert 'database "weir_no_such_db" does not exist' in body["message"]
    assert "pw-pg-123" not in response.content.decode()


def test_a_role_that_does_not_exist_is_not_ok(api, alice, local_postgres):
    credential = pg_credential(alice, local_postgres, username="weir_no_such_role")

    response = try_it(api, credential)

    body = response.json()
    assert body["ok"] is False
    assert 'role "weir_no_such_role" does not exist' in body["message"]


def test_a_postgres_server_that_is_down_is_not_ok(
    api, alice, local_postgres, closed_port
):
    credential = pg_credential(alice, local_postgres, port=closed_port)

    response = try_it(api, credential)

    body = response.json()
    assert body["ok"] is False
    assert "Connection refused" in body["message"]


def test_a_postgres_server_at_a_private_address_stays_refused(api, alice):
    credential = pg_credential(alice, {"host": "127.0.0.1", "port": 5432})

    response = try_it(api, credential)

    body = response.json()
    assert body["ok"] is False
    assert "is refused: it is not a public address" in body["message"]


@needs_postgres
def test_weirs_own_database_is_not_ok(api, alice, local_postgres):
    credential = pg_credential(
        alice, local_postgres, database=connection.settings_dict["NAME"]
    )

    response = try_it(api, credential)

    assert response.json() == {
        "ok": False,
        "message": "This is Weir's own database; a flow may not query it.",
    }
