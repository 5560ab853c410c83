"""Two-factor secrets are encrypted with CREDENTIALS_KEY and rotated with it."""

from __future__ import annotations

import io

import pytest
from cryptography.fernet import Fernet
from django.core.management import call_command

from accounts.audit.actor import Actor
from accounts.two_factor import service
from tests.accounts.two_factor.conftest import Authenticator

OLD, NEW = Fernet.generate_key().decode(), Fernet.generate_key().decode()


@pytest.mark.django_db
def test_rotate_credentials_key_re_encrypts_two_factor_secrets(settings, alice):
    settings.CREDENTIALS_KEY = OLD
    app = Authenticator(service.start_setup(alice))
    assert service.confirm(alice, app.code(-1), Actor.system())

    settings.CREDENTIALS_KEY = f"{NEW},{OLD}"
    out = io.StringIO()
    call_command("rotate_credentials_key", stdout=out)
    settings.CREDENTIALS_KEY = NEW  # the old key dropped

    assert "Re-encrypted 1 two-factor secret(s)." in out.getvalue()
    assert service.verify(alice, app.code()) == "totp"
