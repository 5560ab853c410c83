"""Browser fixtures: Debian's Chromium driven by pytest-playwright against the
server production runs (`python -m config.serve`, granian), started once per
pytest worker.

Reuse these from any e2e test: `live_url` (the server's address, also set as
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
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from tests.gunicorn_server import Server, free_port, granian_command
from tests.llm_server import LLMServer, provider_settings

# What a page shows is awaited up to 10 s, not Playwright's 5: on a loaded CI
# machine a streamed chat reply was still arriving at 5 s (a test passing
# waits no longer for it).
expect.set_options(timeout=10_000)

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


# What the browser tests' server runs with beside the defaults: one flow
# with a schedule per person, so the cap's error can be seen without 50; the
# HTTP and MCP nodes may call the tests' own servers on loopback.
SERVER_SETTINGS = {
    "PRELOAD_SDKS": "true",  # as production: the first chat does not import them
    "SCHEDULED_FLOWS_PER_OWNER": "1",
    "HTTP_NODE_ALLOWLIST": "127.0.0.1",
    "AGENT_MAX_RETRIES": "0",
    "AGENT_TIMEOUT_SECONDS": "5",
}


@pytest.fixture(scope="session")
def llm_backend():
    """The model providers' protocol server the browser tests' server talks to."""
    server = LLMServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def weir_server(django_db_setup, django_db_blocker, llm_backend, _run_files_folder):
    """`python -m config.serve`, as production runs it, on the test database
    and the tests' run-file folder: one per pytest worker, for all its
    browser tests (each test's rows are committed, then flushed:
    `transactional_db`)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {
        **SERVER_SETTINGS,
        **provider_settings(llm_backend.url),
        "BASE_URL": url,
        "RUN_FILES_DIR": str(_run_files_folder),
    }

    def command(threads, workers):
        argv, server_env = granian_command(threads, workers, port=port)
        return argv, {**server_env, **env}

    with django_db_blocker.unblock():
        server = Server(threads=4, workers=1, env={}, kind=command)
    yield url
    server.stop()


@pytest.fixture
def llm_server(llm_backend, settings):
    """The providers' server, emptied of the last test's replies and requests."""
    llm_backend.replies.clear()
    llm_backend.requests.clear()
    llm_backend.disconnects = 0
    for name, value in provider_settings(llm_backend.url).items():
        setattr(settings, name, value)
    return llm_backend


@pytest.fixture
def allow_loopback(settings):
    """Loopback is allowed on the browser tests' server (SERVER_SETTINGS)."""
    settings.HTTP_NODE_ALLOWLIST = ["127.0.0.1"]


@pytest.fixture
def live_url(weir_server, settings, transactional_db):
    """The server's root URL; webhook URLs (BASE_URL) point at it here too."""
    settings.BASE_URL = weir_server
    return weir_server


# No chat turn in progress on the page: no reply still streaming (its message
# is stored before its `done` event ends the streaming), no send not yet back.
NO_TURN_IN_PROGRESS = """() => !document.querySelector('.streaming')
    && !(document.querySelector('#chat-send') || {}).disabled"""


def settle_chats(context) -> None:
    """Wait (up to 10 s) for the chat turns the test left going to be stored.

    A test may end as soon as it has read a reply's words; the server then
    still stores the message, and the database's flush between tests meets
    it going in (a foreign key violation, and the next test's error). A turn
    still going after 10 s is left: the flush says so.
    """
    for page in context.pages:
        try:
            page.wait_for_function(NO_TURN_IN_PROGRESS, timeout=10_000)
        except PlaywrightError:
            continue


@pytest.fixture
def login(live_url, context):
    """`login(user)`: give the browser a real session cookie for `user`.
    After the test, its chat turns are waited for (`settle_chats`): this
    fixture's end comes before the database's flush (`live_url`'s)."""

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

    yield sign_in
    settle_chats(context)


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
