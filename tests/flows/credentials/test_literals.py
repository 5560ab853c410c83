"""Literal secrets in a flow's node data: the owner's credential values and
well-known token shapes are found and replaced (issue 27 item 17)."""

from __future__ import annotations

import time

import pytest
from cryptography.fernet import Fernet

from accounts.tokens.text import PERSONAL, WORKSPACE, new_token
from accounts.workspaces.personal import personal_workspace
from core.redact import Redactor
from flows.credentials.literals import LiteralSecrets
from flows.models import Credential
from tests.factories import make_credential

SHAPES = [
    "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t",
    "sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3",
    "sk_live_51HqLyjWDarjtT1zdp7dcXYZ",
    "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
    "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
    "xoxb-123456789012-1234567890123-AbCdEfGhIjKl",
    "xoxp-1234567890-abcdef",
    "AKIAIOSFODNN7EXAMPLE",
    "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    # Weir's own, registered with every redactor; a fixed id, since each
    # pytest-xdist worker makes other random tokens and must collect the same ids.
    pytest.param(new_token(PERSONAL), id="weir_pat"),
    pytest.param(new_token(WORKSPACE), id="weir_wst"),
]


def shapes_only() -> LiteralSecrets:
    return LiteralSecrets(Redactor())


@pytest.mark.parametrize("token", SHAPES)
def test_known_token_shapes_are_replaced_anywhere_in_a_string(token):
    text, where = shapes_only().scrub(
        {"code": f'const key = "{token}";\nreturn fetch(url, key);'}
    )

    assert token not in str(text)
    assert text["code"] == 'const key = "[redacted]";\nreturn fetch(url, key);'
    assert where == ["code"]


def test_the_token_after_bearer_or_basic_is_replaced_the_word_kept():
    data = {
        "headers": {
            "X-Forward": "Bearer 9f8e7d6c5b4a39281706f5e4",
            "X-Other": "Basic YWxpY2U6czNjcjN0cGFzcw==",
        }
    }

    clean, where = shapes_only().scrub(data, "data")

    assert clean["headers"] == {
        "X-Forward": "Bearer [redacted]",
        "X-Other": "Basic [redacted]",
    }
    assert where == ["data.headers.X-Forward", "data.headers.X-Other"]


def test_a_password_in_a_url_is_replaced_the_user_and_host_kept():
    clean, _ = shapes_only().scrub("https://bot:hunter2@db.example.com/x")

    assert clean == "https://bot:[redacted]@db.example.com/x"


@pytest.mark.parametrize(
    "text",
    [
        "{{ secrets.openai }}",
        "Bearer {{ secrets.github }}",
        "Basic authentication is described in RFC 7617",
        "https://example.com/api/v1/items?page=2",
        "https://{{ secrets.user }}:{{ secrets.pass }}@example.com/",
        "sk-short",
        "return input.items.map(item => item.skuNumber);",
    ],
)
def test_references_and_ordinary_text_are_kept(text):
    assert shapes_only().scrub(text) == (text, [])


def test_the_workspaces_credential_values_are_replaced_by_their_name(alice):
    make_credential(alice, name="crm", secrets={"token": "plain-words-no-shape-42"})

    clean, where = LiteralSecrets.of_workspace(personal_workspace(alice).pk).scrub(
        {
            "body": '{"key": "plain-words-no-shape-42"}',
            "url": "https://x/?k=plain-words-no-shape-42",
        }
    )

    assert clean == {
        "body": '{"key": "[redacted:crm]"}',
        "url": "https://x/?k=[redacted:crm]",
    }
    assert sorted(where) == ["body", "url"]


def test_another_workspaces_credential_values_are_not_looked_for(alice, bob):
    make_credential(bob, name="crm", secrets={"token": "plain-words-no-shape-42"})

    assert (
        LiteralSecrets.of_workspace(personal_workspace(alice).pk).scrub(
            "plain-words-no-shape-42"
        )[1]
        == []
    )


def test_a_node_list_reports_each_node_and_field(alice):
    nodes = [
        {"id": "a", "type": "code", "data": {"code": f"return '{SHAPES[0]}'"}},
        {"id": "b", "type": "transform", "data": {"values": {"x": 1}}},
    ]

    clean, redacted = shapes_only().nodes(nodes)

    assert redacted == [{"node_id": "a", "field": "data.code"}]
    assert clean[1] is nodes[1]
    assert nodes[0]["data"]["code"] == f"return '{SHAPES[0]}'"


def test_a_megabyte_of_near_misses_is_scanned_in_linear_time():
    text = ("Bearer " + "a" * 40 + " https://u:" + "p" * 40 + " sk-x ") * 10_000

    started = time.process_time()
    shapes_only().scrub(text)

    assert time.process_time() - started < 2


def test_a_credential_no_key_opens_is_skipped_not_a_crash(alice, settings):
    make_credential(alice, name="old", secrets={"token": "value-under-a-lost-key"})
    make_credential(alice, name="crm", secrets={"token": "plain-words-no-shape-42"})
    Credential.objects.filter(name="old").update(
        encrypted=Fernet(Fernet.generate_key()).encrypt(b"{}").decode()
    )

    clean, _ = LiteralSecrets.of_workspace(personal_workspace(alice).pk).scrub(
        "plain-words-no-shape-42"
    )

    assert clean == "[redacted:crm]"


def test_keep_puts_back_what_was_left_masked_pairing_nodes_by_id():
    literals = shapes_only()
    stored = [
        {"id": "a", "data": {"headers": {"Authorization": "Bearer " + SHAPES[0]}}},
        {"id": "b", "data": {"url": "https://x.example"}},
    ]
    shown, _ = literals.nodes(stored)
    edited = [shown[1], {**shown[0], "name": "moved"}]  # reordered, one renamed

    kept = literals.keep(edited, stored)

    assert kept == [stored[1], {**stored[0], "name": "moved"}]


def test_keep_takes_what_was_typed_over_the_mask():
    literals = shapes_only()

    assert literals.keep(
        {"k": "Bearer {{ secrets.x }}"}, {"k": "Bearer " + SHAPES[0]}
    ) == {"k": "Bearer {{ secrets.x }}"}


@pytest.mark.parametrize(
    "key", ["api_key", "client_secret", "password", "token", "secret", "X-Api-Key"]
)
def test_a_value_typed_into_a_field_named_for_a_secret_is_replaced(key):
    data = {"body": {key: "hunter2-plain"}, "headers": {"Accept": "text/plain"}}

    clean, where = shapes_only().scrub(data, "data")

    assert clean == {"body": {key: "[redacted]"}, "headers": {"Accept": "text/plain"}}
    assert where == [f"data.body.{key}"]


def test_an_authorization_header_of_no_known_shape_is_replaced():
    clean, _ = shapes_only().scrub({"headers": {"Authorization": "letmein"}})

    assert clean == {"headers": {"Authorization": "[redacted]"}}


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (
            "https://api.example/v1?q=1&api_key=plainvalue&page=2",
            "https://api.example/v1?q=1&api_key=[redacted]&page=2",
        ),
        (
            '{"user": "ada", "password": "hunter2"}',
            '{"user": "ada", "password": "[redacted]"}',
        ),
        ("client_secret=abc123&grant_type=x", "client_secret=[redacted]&grant_type=x"),
        ("?access_token={{ secrets.api }}", "?access_token={{ secrets.api }}"),
        ("const token = getToken();", "const token = getToken();"),
        ("return {password: input.password};", "return {password: input.password};"),
        ("const secret = 'abc-123';", "const secret = '[redacted]';"),
    ],
)
def test_a_value_after_a_secrets_name_in_text_is_replaced(text, shown):
    assert shapes_only().scrub(text)[0] == shown


def test_keep_puts_back_a_field_named_for_a_secret_left_masked():
    literals = shapes_only()
    stored = {"body": {"password": "hunter2-plain"}}
    shown, _ = literals.scrub(stored)

    assert literals.keep(shown, stored) == stored
    assert literals.keep({"body": {"password": "{{ secrets.db }}"}}, stored) == {
        "body": {"password": "{{ secrets.db }}"}
    }
