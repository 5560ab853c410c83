"""Fernet at rest: the key setting, several keys, a wrong key."""

from __future__ import annotations

import pytest
from cryptography.fernet import Fernet
from django.core.exceptions import ImproperlyConfigured

from core import crypto


def test_values_round_trip_and_the_token_holds_no_plaintext():
    token = crypto.encrypt({"token": "plain-secret-value"})

    assert "plain-secret-value" not in token
    assert crypto.decrypt(token) == {"token": "plain-secret-value"}


def test_every_listed_key_decrypts_and_the_first_encrypts(settings):
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    settings.CREDENTIALS_KEY = old
    old_token = crypto.encrypt({"v": 1})

    settings.CREDENTIALS_KEY = f"{new}, {old}"
    new_token = crypto.encrypt({"v": 2})

    assert crypto.decrypt(old_token) == {"v": 1}
    assert Fernet(new).decrypt(new_token.encode()) == b'{"v":2}'


def test_a_token_no_key_opens_is_undecryptable(settings):
    token = crypto.encrypt({"v": 1})
    settings.CREDENTIALS_KEY = Fernet.generate_key().decode()

    with pytest.raises(crypto.UndecryptableValue):
        crypto.decrypt(token)


@pytest.mark.parametrize("key", ["", "not-a-fernet-key", " , "])
def test_a_malformed_key_setting_fails_loudly(settings, key):
    settings.CREDENTIALS_KEY = key

    with pytest.raises(ImproperlyConfigured):
        crypto.encrypt({"v": 1})
