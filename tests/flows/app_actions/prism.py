"""Stoplight Prism serving a vendored app's document on loopback: it answers
422 to a request its document does not allow (wrong path, parameter or body
shape) and 401 to one without the auth the document asks for.

Prism comes from npm into .ci/npm (`.ci/run` installs it; locally run
`npm install --prefix .ci/npm @stoplight/prism-cli@5`). Missing, the tests
using it are skipped, except under CI=true, where they fail.
"""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

import pytest

from flows.app_actions.catalogue import VENDORED
from tests.processes import ROOT, free_port
from tests.waiting import wait_until

PRISM = ROOT / ".ci" / "npm" / "node_modules" / ".bin" / "prism"
INSTALL = "npm install --prefix .ci/npm @stoplight/prism-cli@5"


def prism_binary() -> Path:
    if not PRISM.exists():
        reason = f"Stoplight Prism is not installed ({INSTALL})"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return PRISM


class Prisms:
    """One Prism process per document, started when first asked for."""

    def __init__(self):
        self.running: dict[str, tuple[subprocess.Popen, str]] = {}

    def url(self, slug: str) -> str:
        if slug not in self.running:
            port = free_port()
            process = subprocess.Popen(
                [str(prism_binary()), "mock", "-h", "127.0.0.1", "-p", str(port)]
                + [str(VENDORED / f"{slug}.yaml")],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
            self.running[slug] = (process, f"http://127.0.0.1:{port}")
            if not wait_until(lambda: listening(port), timeout=60):
                raise RuntimeError(f"Prism did not start for {slug}")
        return self.running[slug][1]

    def stop(self):
        for process, _ in self.running.values():
            process.terminate()
            process.wait(timeout=10)


def listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0
