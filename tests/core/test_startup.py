"""A web process keeps what it loaded at start out of garbage collection.

A full collection over Django and the apps' ~340,000 objects stalled every
thread of the process for 100-500 ms (core/startup.py), so a view answering
in 0.3 ms had a p99 over 100 ms. Checked in a fresh interpreter, as a server
worker loads it: what a later full collection would walk.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

LOAD_AND_COUNT = """
import gc, json
import config.wsgi
print(json.dumps({
    "frozen": gc.get_freeze_count(),
    "walked_by_a_full_collection": sum(len(gc.get_objects(g)) for g in range(3)),
}))
"""


@pytest.mark.processes
def test_a_loaded_web_process_leaves_its_startup_objects_out_of_collections():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    done = subprocess.run(
        [sys.executable, "-c", LOAD_AND_COUNT],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    counts = json.loads(done.stdout.strip().splitlines()[-1])

    assert counts["frozen"] > 100_000, counts
    assert counts["walked_by_a_full_collection"] < counts["frozen"] / 20, counts


LOAD_AND_LIST_SDKS = """
import json, sys
import config.wsgi, config.urls
print(json.dumps(sorted(name for name in {names!r} if name in sys.modules)))
"""
# Each costs a second or more of CPU to import; a web or task worker, and
# every manage.py command, imports them on first use only.
ON_FIRST_USE = ["anthropic", "openai", "qdrant_client", "mcp", "mcp_types"]


@pytest.mark.processes
def test_a_process_start_leaves_the_model_vector_and_mcp_sdks_for_first_use():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    done = subprocess.run(
        [sys.executable, "-c", LOAD_AND_LIST_SDKS.format(names=ON_FIRST_USE)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )

    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


LOAD_USE_AN_SDK_AND_COUNT = """
import gc, json
import config.wsgi
from core.startup import import_on_first_use
import_on_first_use("anthropic")
print(json.dumps({
    "frozen": gc.get_freeze_count(),
    "walked_by_a_full_collection": sum(len(gc.get_objects(g)) for g in range(3)),
}))
"""


@pytest.mark.processes
def test_an_sdk_imported_on_first_use_in_a_web_process_is_left_out_of_collections():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    done = subprocess.run(
        [sys.executable, "-c", LOAD_USE_AN_SDK_AND_COUNT],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    counts = json.loads(done.stdout.strip().splitlines()[-1])

    assert counts["walked_by_a_full_collection"] < counts["frozen"] / 20, counts
