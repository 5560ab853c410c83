"""Failed sign-ins per client address and username, for every way of signing in.

The address is the real client's (`core.http.client_address`, through
`TRUSTED_PROXY_COUNT` proxies), never the proxy's, and it is half of the key:
an attacker guessing alice's password from their address spends only their own
budget, so alice still signs in from hers.

The API's `/api/auth/login` and the `/login/` page (where the admin's login
sends people) go through here, and so does each two-factor code
(`accounts.two_factor.sign_in`).

Each attempt is counted *before* the password is checked, with one
atomic increment, so a burst of parallel guesses cannot all slip past a
check-then-count gap; a successful sign-in gives its count back, so people who
know their password are never slowed down.

With `REDIS_URL` the count is in Redis, shared by every process; without it
(`make run`) the cache would be each process's own, so the count is kept in the
database instead (`accounts.failure_counts`).
"""

from __future__ import annotations

from django.conf import settings

from accounts import failure_counts
from core.http import ratelimit
from core.http.client_address import limit_address


class LoginThrottled(Exception):
    """Too many failed attempts for this address and username; `wait` in seconds."""

    message = "Too many failed sign-in attempts; try again later."

    def __init__(self, wait: float):
        super().__init__(self.message)
        self.wait = wait


def _rate() -> ratelimit.Rate:
    return ratelimit.Rate.parse(settings.LOGIN_FAILURE_RATE)


def _counter():
    """Where failures are counted: a cache every process shares, else the database."""
    return ratelimit if settings.REDIS_URL else failure_counts


def start_attempt(request, username: str) -> str:
    """Count one attempt; its key for `attempt_succeeded`. Raises LoginThrottled."""
    address = limit_address(request)
    key = f"login-fail:{address}:{username.lower()}"
    wait = _counter().hit(key, _rate())
    if wait is not None:
        raise LoginThrottled(wait)
    return key


def attempt_succeeded(key: str) -> None:
    """The password was right: this attempt does not count as a failure."""
    _counter().undo(key, _rate())
