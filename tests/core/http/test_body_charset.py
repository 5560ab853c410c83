"""A body's charset picks the codec the webhook (text and forms) and Django (a
multipart form's fields, which the CSRF check reads) decode it with: one Python
knows that is no text character set is refused before anything decodes
(docs/security.md, S28). `punycode` decodes in time quadratic in its length,
holding the GIL."""

from __future__ import annotations

import encodings.punycode

import pytest
from django.test import Client

from flows.models import FlowRun
from tests.factories import FlowFactory
from tests.flows.graphs import edge, node

# Valid punycode (each `a` inserts one character): 64 KiB cost ~0.5 s, 1 MiB
# (the webhook's and the form page's limit) about a minute of CPU.
COSTLY = b"x" * 32_000 + b"-" + b"a" * 32_000
TOKEN = "a" * 32  # a well-formed CSRF cookie: Django then reads the form


@pytest.fixture
def decoded(monkeypatch):
    """Every punycode decode (the idna codec's too), recorded."""
    calls = []
    original = encodings.punycode.punycode_decode

    def spy(text, errors):
        calls.append(len(text))
        return original(text, errors)

    monkeypatch.setattr(encodings.punycode, "punycode_decode", spy)
    return calls


def echo_flow(owner):
    nodes = [
        node("trigger", "webhook"),
        node("reply", "response", status=200, body={"input": "{{ input }}"}),
    ]
    return FlowFactory(created_by=owner, nodes=nodes, edges=[edge("trigger", "reply")])


def form_flow(owner):
    fields = [{"name": "name", "kind": "text"}]
    nodes = [node("form", "form", slug="contact", fields=fields, title="Contact")]
    return FlowFactory(created_by=owner, name="Contact", nodes=nodes, edges=[])


def post(path: str, body: bytes, content_type: str):
    """As a browser would: the CSRF check reads the form for its token."""
    client = Client(enforce_csrf_checks=True)
    client.cookies["csrftoken"] = TOKEN
    return client.generic("POST", path, body, CONTENT_TYPE=content_type)


@pytest.mark.parametrize(
    "content_type",
    [
        "text/plain; charset=punycode",
        "application/x-www-form-urlencoded; charset=punycode",
        "text/plain; charset=idna",
        "text/csv; charset=unicode_escape",
    ],
)
def test_a_webhook_body_in_a_codec_that_is_no_charset_is_415_undecoded(
    alice, decoded, content_type
):
    flow = echo_flow(alice)

    response = post(f"/api/webhooks/{flow.id}", COSTLY, content_type)

    assert response.status_code == 415
    assert response.json()["error"]["code"] == "unsupported_media_type"
    assert decoded == []
    assert not FlowRun.objects.filter(flow=flow).exists()


def multipart(**fields: bytes) -> bytes:
    parts = [
        b'--b\r\nContent-Disposition: form-data; name="%s"\r\n\r\n%s\r\n'
        % (name.encode(), value)
        for name, value in fields.items()
    ]
    return b"".join(parts) + b"--b--\r\n"


MULTIPART = "multipart/form-data; boundary=b; charset=punycode"


def test_a_form_page_answer_in_punycode_is_415_undecoded(alice, decoded):
    """Django decodes each field of a multipart form with the charset named
    (an urlencoded one it refuses unless UTF-8)."""
    form_flow(alice)
    body = multipart(csrfmiddlewaretoken=TOKEN.encode(), name=COSTLY)

    response = post("/f/contact", body, MULTIPART)

    assert response.status_code == 415
    assert decoded == []
    assert not FlowRun.objects.filter(trigger=FlowRun.Trigger.FORM).exists()


@pytest.mark.parametrize("path", ["/login/", "/api/auth/login"])
def test_a_sign_in_form_in_punycode_is_415_undecoded(db, decoded, path):
    """The CSRF check reads the form for its token, on a page or the API."""
    body = multipart(csrfmiddlewaretoken=TOKEN.encode(), username=COSTLY)

    response = post(path, body, MULTIPART)

    assert response.status_code == 415
    assert decoded == []


def test_text_in_a_character_set_is_still_read(alice):
    flow = echo_flow(alice)

    response = post(
        f"/api/webhooks/{flow.id}",
        "Grüße".encode("cp1252"),
        "text/plain; charset=windows-1252",
    )

    assert response.status_code == 200
    assert response.json() == {"input": "Grüße"}
