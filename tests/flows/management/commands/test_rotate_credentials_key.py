"""Key rotation: the old key still opens values until the command re-encrypts."""

from __future__ import annotations

import io

import pytest
from cryptography.fernet import Fernet
from django.core.management import CommandError, call_command

from core.crypto import UndecryptableValue
from flows.models import Credential
from tests.factories import make_credential

pytestmark = pytest.mark.django_db

OLD, NEW = Fernet.generate_key().decode(), Fernet.generate_key().decode()


def stored(pk) -> Credential:
    return Credential.objects.get(pk=pk)


def test_rotation_re_encrypts_with_the_new_key(settings, alice):
    settings.CREDENTIALS_KEY = OLD
    credential = make_credential(alice, "k", secrets={"token": "tok-rotate-me"})
    before = stored(credential.pk).encrypted

    settings.CREDENTIALS_KEY = f"{NEW},{OLD}"
    assert stored(credential.pk).secrets() == {"token": "tok-rotate-me"}
    out = io.StringIO()
    call_command("rotate_credentials_key", stdout=out)
    after = stored(credential.pk).encrypted

    assert after != before
    assert "Re-encrypted 1 credential(s)." in out.getvalue()
    settings.CREDENTIALS_KEY = NEW
    assert stored(credential.pk).secrets() == {"token": "tok-rotate-me"}


def test_without_rotation_dropping_the_old_key_loses_the_value(settings, alice):
    settings.CREDENTIALS_KEY = OLD
    credential = make_credential(alice, "k")

    settings.CREDENTIALS_KEY = NEW

    with pytest.raises(UndecryptableValue):
        stored(credential.pk).secrets()


def test_a_value_no_key_opens_is_reported_and_left_alone(settings, alice):
    settings.CREDENTIALS_KEY = OLD
    lost = make_credential(alice, "lost")
    before = stored(lost.pk).encrypted
    settings.CREDENTIALS_KEY = NEW

    with pytest.raises(CommandError, match="lost"):
        call_command("rotate_credentials_key", stdout=io.StringIO())

    assert stored(lost.pk).encrypted == before


def test_a_server_credential_without_a_password_is_left_as_it_is(settings, alice):
    settings.CREDENTIALS_KEY = OLD
    relay = Credential.objects.create(
        created_by=alice,
        name="relay",
        kind="smtp",
        public={"host": "mail.example.com", "from_address": "a@example.com"},
    )
    make_credential(alice, "k")

    settings.CREDENTIALS_KEY = f"{NEW},{OLD}"
    out = io.StringIO()
    call_command("rotate_credentials_key", stdout=out)

    assert "Re-encrypted 1 credential(s)." in out.getvalue()
    assert stored(relay.pk).encrypted == ""
    assert stored(relay.pk).secrets() == {}
