"""Alice with two-factor sign-in on, and a way to read her app's codes."""

from __future__ import annotations

import time

import pyotp
import pytest

from accounts.audit.actor import Actor
from accounts.two_factor import service


class Authenticator:
    """Alice's phone: the code for now, the previous or the next window."""

    def __init__(self, secret: str):
        self.totp = pyotp.TOTP(secret)

    def code(self, steps: int = 0) -> str:
        return self.totp.at(int(time.time()) + steps * service.STEP_SECONDS)


@pytest.fixture
def enrol():
    """Turn two-factor on for a user; their Authenticator and recovery codes.
    The confirming code is from the previous window, so the current one is
    still unused."""

    def enrol(user):
        app = Authenticator(service.start_setup(user))
        codes = service.confirm(user, app.code(-1), Actor.system())
        assert codes
        return app, codes

    return enrol


@pytest.fixture
def alice_2fa(alice, enrol):
    return enrol(alice)
