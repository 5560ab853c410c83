"""send_email's attachments: run files, sent to a real SMTP server (aiosmtpd
on loopback, tests/flows/nodes/conftest.py)."""

from __future__ import annotations

from email import message_from_bytes

import pytest

from flows import files
from flows.engine import run_flow
from flows.models import FlowRun
from flows.nodes.send_email import SendEmailNode
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, node, trigger

pytestmark = pytest.mark.django_db

MAKE_FILES = """
return {
  csv: {$file: {name: 'report.csv', type: 'text/csv', text: 'a,b\\n1,2\\n'}},
  png: {$file: {name: 'dot.png', type: 'image/png', base64: 'iVBORw0KGgo='}},
};
"""


def send_with(owner, credential, make_source, attachments, input=None):
    mail = node(
        "mail",
        "send_email",
        credential_id=str(credential.pk),
        to="ada@example.com",
        subject="Report",
        text="Attached.",
        attachments=attachments,
    )
    nodes, edges = chain(trigger(), code("make", make_source), mail)
    flow = FlowFactory(created_by=owner, nodes=nodes, edges=edges)
    return run_flow(flow, input or {}, FlowRun.Trigger.MANUAL)


def test_every_file_given_is_attached_with_its_name_and_type(alice, mail_server, inbox):
    run = send_with(
        alice, mail_server, MAKE_FILES, "{{ [results.make.csv, results.make.png] }}"
    )

    assert run.status == "succeeded", run.error
    [envelope] = inbox.envelopes
    message = message_from_bytes(envelope.content)
    parts = [
        (part.get_filename(), part.get_content_type(), part.get_payload(decode=True))
        for part in message.walk()
        if part.get_filename()
    ]
    assert parts == [
        ("report.csv", "text/csv", b"a,b\n1,2\n"),
        ("dot.png", "image/png", b"\x89PNG\r\n\x1a\n"),
    ]
    body = next(p for p in message.walk() if p.get_content_type() == "text/plain")
    assert body.get_payload(decode=True).strip() == b"Attached."


def test_one_file_alone_is_attached(alice, mail_server, inbox):
    run = send_with(alice, mail_server, MAKE_FILES, "{{ results.make.csv }}")

    assert run.status == "succeeded", run.error
    message = message_from_bytes(inbox.envelopes[0].content)
    names = [part.get_filename() for part in message.walk() if part.get_filename()]
    assert names == ["report.csv"]


def test_a_value_that_is_not_a_file_fails_before_sending(alice, mail_server, inbox):
    run = send_with(alice, mail_server, "return 1", "{{ results.make }}")

    assert run.status == "failed"
    assert run.error["code"] == "not_a_file"
    assert "attachments" in run.error["message"]
    assert inbox.envelopes == []


def test_another_workspaces_file_is_never_attached(alice, bob_flow, mail_server, inbox):
    bobs = files.store(
        workspace_id=bob_flow.workspace_id,
        name="bob.txt",
        content_type="text/plain",
        data=b"bob's secret",
    )

    run = send_with(
        alice, mail_server, "return input.forged", "{{ prev }}", {"forged": bobs}
    )

    assert run.status == "failed"
    assert run.error["code"] == "file_missing"
    assert inbox.envelopes == []


def test_attachments_over_the_message_limit_fail_naming_it(
    alice, mail_server, inbox, monkeypatch
):
    monkeypatch.setattr("flows.nodes.send_email.MAX_ATTACHMENT_BYTES", 5)

    run = send_with(alice, mail_server, MAKE_FILES, "{{ results.make.csv }}")

    assert run.status == "failed"
    assert run.error["code"] == "file_too_large"
    assert "8 bytes together; at most 5" in run.error["message"]
    assert inbox.envelopes == []


def test_attachments_that_are_neither_text_nor_a_list_are_refused_at_save():
    problems = SendEmailNode().validate_data(
        {"credential_id": None, "attachments": {"$file": {}}}
    )

    assert [problem.field for problem in problems] == ["data.attachments"]
