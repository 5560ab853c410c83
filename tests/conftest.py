"""The suite's shared cast: alice and bob, their API clients and their flows."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client
from rest_framework.test import APIClient

from tests.factories import FlowFactory, UserFactory

# The LLM protocol server (`llm_server`) for agent and chat-page tests, a
# loopback HTTP server; real gunicorn, worker and PostgreSQL processes
# (`processes`, `engine`) for fault tests.
pytest_plugins = ["tests.llm_server", "tests.http_server", "tests.processes"]


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Rate limits and replay windows live in the cache; no test inherits another's."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def alice(db):
    return UserFactory(username="alice")


@pytest.fixture
def bob(db):
    return UserFactory(username="bob")


@pytest.fixture
def anon(db):
    return APIClient()


@pytest.fixture
def api(alice):
    """An API client signed in as alice through a real session cookie."""
    client = APIClient()
    client.force_login(alice)
    return client


@pytest.fixture
def bob_api(bob):
    client = APIClient()
    client.force_login(bob)
    return client


@pytest.fixture
def alice_client(alice):
    """A page client (Django's, not the API's) signed in as alice."""
    client = Client()
    client.force_login(alice)
    return client


@pytest.fixture
def alice_flow(alice):
    return FlowFactory(owner=alice, name="Alice's flow")


@pytest.fixture
def bob_flow(bob):
    return FlowFactory(owner=bob, name="Bob's flow")


@pytest.fixture
def node_registry():
    """The node registry, restored afterwards: a test may register its own kinds."""
    from flows.nodes import NODE_KINDS

    saved = dict(NODE_KINDS)
    yield NODE_KINDS
    NODE_KINDS.clear()
    NODE_KINDS.update(saved)
