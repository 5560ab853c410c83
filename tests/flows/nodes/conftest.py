"""The SMTP server the send_email tests send to: aiosmtpd on loopback, with
a login, and an SMTP credential of alice's pointing at it."""

from __future__ import annotations

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult

from flows.credentials.models import Credential
from tests.processes import free_port

PASSWORD = "s3cret-smtp-pass"


class Inbox:
    """aiosmtpd's handler: keeps every envelope it accepts."""

    def __init__(self):
        self.envelopes = []
        self.greetings = []  # the name each sender gave in EHLO

    async def handle_DATA(self, server, session, envelope):  # noqa: N802
        self.envelopes.append(envelope)
        self.greetings.append(session.host_name)
        return "250 OK"


def check_login(server, session, envelope, mechanism, auth_data):
    ok = auth_data.login == b"weir" and auth_data.password == PASSWORD.encode()
    return AuthResult(success=ok)


@pytest.fixture
def inbox():
    handler = Inbox()
    controller = Controller(
        handler,
        hostname="127.0.0.1",
        port=free_port(),
        authenticator=check_login,
        auth_require_tls=False,
    )
    controller.start()
    handler.port = controller.port
    yield handler
    controller.stop()


@pytest.fixture
def mail_server(alice, inbox, settings):
    settings.HTTP_NODE_ALLOWLIST = ["127.0.0.1"]
    credential = Credential(
        created_by=alice,
        name="mail",
        kind="smtp",
        public={
            "host": "127.0.0.1",
            "port": inbox.port,
            "security": "none",
            "username": "weir",
            "from_address": "flows@example.com",
        },
    )
    credential.set_secrets({"password": PASSWORD})
    credential.save()
    return credential
