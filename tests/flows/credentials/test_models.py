"""The Credential model: how each kind applies itself and what it redacts."""

from __future__ import annotations

import base64

import pytest

from flows.models import Credential
from tests.factories import make_credential

pytestmark = pytest.mark.django_db


def applied(credential):
    headers, params = {}, []
    credential.apply(credential.secrets(), headers, params)
    return headers, params


def test_each_kind_applies_to_a_request(alice):
    bearer = make_credential(alice, "b", secrets={"token": "t-1234"})
    header = make_credential(alice, "h", "header", {"value": "v-1"}, header_name="X-K")
    basic = make_credential(alice, "u", "basic", {"password": "p"}, username="ada")
    query = make_credential(alice, "q", "query", {"value": "v-2"}, param_name="key")

    assert applied(bearer) == ({"Authorization": "Bearer t-1234"}, [])
    assert applied(header) == ({"X-K": "v-1"}, [])
    assert applied(basic) == (
        {"Authorization": "Basic " + base64.b64encode(b"ada:p").decode()},
        [],
    )
    assert applied(query) == ({}, [("key", "v-2")])


def test_redaction_covers_url_encoded_and_basic_forms(alice):
    credential = make_credential(
        alice, "u", "basic", {"password": "p w&rd"}, username="ada"
    )

    forms = credential.redaction_values(credential.secrets())

    assert set(forms) >= {
        "p w&rd",
        "p%20w%26rd",
        "p+w%26rd",
        base64.b64encode(b"ada:p w&rd").decode(),
    }


def test_values_too_short_to_redact_safely_are_left_out(alice):
    credential = make_credential(alice, "c", "custom", {"values": {"a": "x", "b": 42}})

    assert credential.redaction_values(credential.secrets()) == []


def test_template_value_per_kind(alice):
    custom = make_credential(alice, "c", "custom", {"values": {"k": "v-123"}})
    basic = make_credential(alice, "u", "basic", {"password": "pw"}, username="ada")

    assert custom.template_value(custom.secrets()) == {"k": "v-123"}
    assert basic.template_value(basic.secrets()) == {
        "username": "ada",
        "password": "pw",
    }


def test_for_user_hides_other_users_credentials(alice, bob):
    make_credential(bob, "theirs")

    assert list(Credential.objects.for_user(alice)) == []
