import pytest

from tests.flows.app_actions.prism import Prisms


@pytest.fixture(scope="session")
def prisms():
    """Prism servers for the vendored documents, kept for the session."""
    servers = Prisms()
    yield servers
    servers.stop()
