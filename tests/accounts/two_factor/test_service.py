"""Codes: one window either side, once each, also when two requests race."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from accounts.audit.actor import Actor
from accounts.two_factor import service
from tests.accounts.two_factor.conftest import Authenticator
from tests.factories import UserFactory


def test_a_code_two_windows_away_is_refused(alice, alice_2fa):
    app, _ = alice_2fa

    assert service.verify(alice, app.code(2)) is None
    assert service.verify(alice, app.code(1)) == "totp"


def test_a_code_with_spaces_is_read(alice, alice_2fa):
    app, _ = alice_2fa
    code = app.code()

    assert service.verify(alice, f"{code[:3]} {code[3:]}") == "totp"


def test_two_factor_is_off_until_a_first_code_confirms_it(alice):
    app = Authenticator(service.start_setup(alice))

    assert not service.is_on(alice)
    assert service.verify(alice, app.code()) is None
    assert service.confirm(alice, "000000", Actor.system()) is None
    assert not service.is_on(alice)


@pytest.mark.django_db(transaction=True)
def test_one_code_sent_twice_at_once_signs_in_once():
    if connection.vendor != "postgresql":
        pytest.skip("SQLite serialises writers already (IMMEDIATE transactions)")
    user = UserFactory(username="racer")
    app = Authenticator(service.start_setup(user))
    assert service.confirm(user, app.code(-1), Actor.system())
    code = app.code()
    barrier = threading.Barrier(6)
    results = []

    def use():
        barrier.wait()
        try:
            results.append(service.verify(user, code))
        finally:
            connection.close()

    threads = [threading.Thread(target=use) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert results.count("totp") == 1
    assert results.count(None) == 5
