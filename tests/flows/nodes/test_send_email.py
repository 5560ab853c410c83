"""The send_email node against a real SMTP server (aiosmtpd on loopback)."""

from __future__ import annotations

import json
import socket
import threading
import time
from email import message_from_bytes

import pytest

from flows.credentials.models import Credential
from flows.engine import run_flow
from flows.models import FlowRun
from flows.nodes.send_email import SendEmailNode
from tests.factories import FlowFactory
from tests.flows.graphs import chain, node, trigger

pytestmark = pytest.mark.django_db


def send(owner, credential, **data):
    mail = node(
        "mail",
        "send_email",
        credential_id=str(credential.pk),
        **{"to": "ada@example.com", "subject": "Hi", "text": "Hello", **data},
    )
    nodes, edges = chain(trigger(), mail)
    flow = FlowFactory(created_by=owner, nodes=nodes, edges=edges)
    return run_flow(flow, {"name": "Ada"}, FlowRun.Trigger.MANUAL)


def test_a_message_reaches_the_server_with_every_recipient(alice, mail_server, inbox):
    run = send(
        alice,
        mail_server,
        to="Ada <ada@example.com>, bob@example.com",
        cc=["cy@example.com"],
        bcc="dee@example.com",
        reply_to="help@example.com",
        subject="Hello {{ input.name }}",
        text="Plain",
        html="<p>Rich</p>",
    )

    assert run.status == "succeeded", run.error
    [envelope] = inbox.envelopes
    assert envelope.mail_from == "flows@example.com"
    assert sorted(envelope.rcpt_tos) == [
        "ada@example.com",
        "bob@example.com",
        "cy@example.com",
        "dee@example.com",
    ]
    message = message_from_bytes(envelope.content)
    assert message["Subject"] == "Hello Ada"
    assert message["Reply-To"] == "help@example.com"
    assert message["Bcc"] is None  # never sent in the headers
    assert message["Message-ID"] == run.results["mail"]["message_id"]
    assert len(run.results["mail"]["accepted"]) == 4
    assert run.results["mail"]["refused"] == {}


@pytest.mark.parametrize(
    "data",
    [
        {"subject": "{{ input.subject }}"},
        {"to": "{{ input.to }}"},
        {"to": ["{{ input.to }}"]},
    ],
)
def test_a_line_break_in_a_header_fails_before_anything_is_sent(
    alice, mail_server, inbox, data
):
    mail = node(
        "mail", "send_email", credential_id=str(mail_server.pk), text="x", **data
    )
    mail["data"].setdefault("to", "ada@example.com")
    nodes, edges = chain(trigger(), mail)
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)
    evil = {
        "subject": "Hi\r\nBcc: eve@evil.example",
        "to": "ada@example.com\r\nBcc: eve@evil.example",
    }

    run = run_flow(flow, evil, FlowRun.Trigger.MANUAL)

    assert run.status == "failed"
    assert run.error["code"] == "invalid_header"
    assert inbox.envelopes == []


def test_a_literal_line_break_is_refused_at_save():
    problems = SendEmailNode().validate_data({"to": "a@x.org\nBcc: e@x.org"})

    assert [p.field for p in problems] == ["data.to"]


def test_more_than_fifty_recipients_are_refused(alice, mail_server, inbox):
    many = [f"user{i}@example.com" for i in range(51)]

    mail = node(
        "mail", "send_email", credential_id=str(mail_server.pk), to="{{ input.many }}"
    )
    nodes, edges = chain(trigger(), mail)
    run = run_flow(
        FlowFactory(created_by=alice, nodes=nodes, edges=edges),
        {"many": many},
        FlowRun.Trigger.MANUAL,
    )

    assert run.error["code"] == "too_many_recipients"
    assert inbox.envelopes == []


def test_a_private_server_not_allowlisted_is_refused(
    alice, mail_server, inbox, settings
):
    settings.HTTP_NODE_ALLOWLIST = []

    run = send(alice, mail_server)

    assert run.error["code"] == "address_refused"
    assert inbox.envelopes == []


def test_the_owner_send_rate_holds(alice, mail_server, inbox, settings):
    settings.EMAIL_NODE_RATE = "1/hour"

    first, second = send(alice, mail_server), send(alice, mail_server)

    assert first.status == "succeeded"
    assert second.error["code"] == "rate_limited"
    assert len(inbox.envelopes) == 1


def test_a_wrong_password_fails_and_is_never_stored(alice, mail_server, inbox):
    mail_server.set_secrets({"password": "wrong-password-123"})
    mail_server.save()

    # aiosmtpd stalls after a refused login, so the node times out here.
    run = send(alice, mail_server, text="{{ secrets.mail.password }}", timeout_ms=1500)

    assert run.status in ("failed", "timed_out")
    stored = FlowRun.objects.get(pk=run.pk)
    everything = json.dumps(
        [stored.results, stored.error, list(stored.steps.values("output", "error"))],
        default=str,
    )
    assert "wrong-password-123" not in everything


def test_the_message_id_is_the_same_for_the_same_run_and_node():
    node_kind = SendEmailNode()
    values = {
        "to": "a@example.com",
        "cc": "",
        "bcc": "",
        "reply_to": "",
        "subject": "s",
        "text": "t",
        "html": "",
    }
    server = {"from_address": "flows@example.com"}

    first = node_kind.message(values, server, "run-1:mail")["Message-ID"]
    again = node_kind.message(values, server, "run-1:mail")["Message-ID"]
    other = node_kind.message(values, server, "run-2:mail")["Message-ID"]

    assert first == again != other
    assert first.endswith("@example.com>")


# transactional_db: the run lasts past deferred.STORE_AFTER_SECONDS, so the lease
# thread inserts it from its own connection, which on SQLite would wait out the busy
# timeout (20 s) behind the test's open transaction.
def test_a_server_that_drips_bytes_times_out(
    alice, mail_server, settings, transactional_db
):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()

    def drip():
        conn, _ = listener.accept()
        for byte in b"220 slow.example ESMTP\r\n":
            time.sleep(0.2)
            try:
                conn.send(bytes([byte]))
            except OSError:
                return
        conn.close()

    threading.Thread(target=drip, daemon=True).start()
    mail_server.public["port"] = listener.getsockname()[1]
    mail_server.save()
    started = time.monotonic()

    run = send(alice, mail_server, timeout_ms=1000)

    assert run.status == "timed_out"
    assert run.error["code"] == "smtp_timeout"
    assert time.monotonic() - started < 3
    listener.close()


def test_tls_is_required_for_a_server_that_is_not_allowlisted(monkeypatch):
    from core.net import outbound, smtp

    monkeypatch.setattr(outbound, "checked_address", lambda host, port: "192.0.2.7")
    server = {"host": "mail.example.com", "port": 25, "security": "none"}

    with pytest.raises(smtp.SmtpError) as refused:
        smtp.send(server, "pw", None, time.monotonic() + 5)

    assert refused.value.code == "tls_required"


def test_a_node_without_a_mail_server_fails_credential_missing(alice):
    mail = node("mail", "send_email", credential_id=None, to="ada@example.com")
    nodes, edges = chain(trigger(), mail)
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)

    run = run_flow(flow, {}, FlowRun.Trigger.MANUAL)

    assert run.status == "failed"
    assert run.error["code"] == "credential_missing"
    assert run.error["message"] == "Pick a mail server (an SMTP credential)."


def test_a_credential_of_another_kind_fails_credential_kind(alice, inbox):
    other = Credential(created_by=alice, name="Stripe", kind="bearer", public={})
    other.set_secrets({"token": "sk_live_x"})
    other.save()

    run = send(alice, other)

    assert run.status == "failed"
    assert run.error["code"] == "credential_kind"
    assert run.error["message"] == "Stripe is not an SMTP credential."
    assert inbox.envelopes == []


def test_the_greeting_names_the_public_site_not_the_hosts_own_name(
    alice, mail_server, inbox, settings
):
    """EHLO gave `socket.getfqdn()`, the Weir host's internal name, to
    whichever server a credential names (security.md, round 10's Left); it
    gives BASE_URL's host, the name the world knows the site by."""
    settings.BASE_URL = "https://flows.example.org"

    run = send(alice, mail_server)

    assert run.status == "succeeded", run.error
    assert inbox.greetings == ["flows.example.org"]
    assert socket.getfqdn() not in inbox.greetings
