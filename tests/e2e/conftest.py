"""Browser fixtures: Debian's Chromium driven by pytest-playwright against live_server.

Reuse these from any e2e test: `live_url` (the live server's address, also set as
BASE_URL so webhook URLs point at it), `login(page, user)` and `alice_page` (a
page already signed in as alice, 1280x800). One browser per session, a fresh
context and page per test.

Chromium missing: the tests are skipped locally and FAIL when `CI` is set, so CI
can never pass without running them. Never run `playwright install`.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.test import Client

# Playwright's sync API runs an event loop in the main thread; Django's ORM would
# then refuse to run there ("async unsafe"). The tests call the ORM between page
# steps on purpose, never concurrently with it.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("WEIR_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
VIEWPORT = {"width": 1280, "height": 800}
E2E_DIR = Path(__file__).parent


def pytest_collection_modifyitems(config, items):
    """Every test under tests/e2e carries the `e2e` mark (`pytest -m e2e`)."""
    for item in items:
        if E2E_DIR in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.e2e)


def pytest_configure(config):
    config.addinivalue_line("markers", "e2e: drives Chromium against a live server")


def chromium_available() -> bool:
    return os.path.exists(CHROMIUM) or shutil.which(CHROMIUM) is not None


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    if not chromium_available():
        message = f"Chromium not found at {CHROMIUM} (apt-get install chromium)."
        if os.environ.get("CI"):
            pytest.fail(message + " CI must run the browser tests.", pytrace=False)
        pytest.skip(message)
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": CHROMIUM_ARGS,
    }


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": VIEWPORT}


@pytest.fixture
def live_url(live_server, settings, transactional_db):
    """The live server's root URL; webhook URLs (BASE_URL) point at it too."""
    settings.BASE_URL = live_server.url
    return live_server.url


@pytest.fixture
def login(live_url, context):
    """`login(user)`: give the browser a real session cookie for `user`."""

    def sign_in(user):
        client = Client()
        client.force_login(user)
        session_cookie = client.cookies[django_settings.SESSION_COOKIE_NAME]
        context.add_cookies(
            [
                {
                    "name": django_settings.SESSION_COOKIE_NAME,
                    "value": session_cookie.value,
                    "url": live_url,
                }
            ]
        )

    return sign_in


@pytest.fixture
def dialogs(page):
    """Messages of every JavaScript dialog the page opens (an XSS would show here)."""
    seen: list[str] = []

    def record(dialog):
        seen.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", record)
    return seen


@pytest.fixture
def page_errors(page):
    """Uncaught JavaScript errors of the page; tests assert there are none."""
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


@pytest.fixture
def alice_page(page, login, alice, page_errors):
    """A page signed in as alice."""
    login(alice)
    return page
