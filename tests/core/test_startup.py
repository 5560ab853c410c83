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


LIST_SDKS = """
import json, sys
import django
django.setup()
{load}
print(json.dumps(sorted(name for name in {names!r} if name in sys.modules)))
"""
SDKS = ["anthropic", "mcp", "mcp_types", "openai", "qdrant_client"]


def loaded_sdks(load: str, preload: str = "true") -> list[str]:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "PRELOAD_SDKS": preload,
    }
    done = subprocess.run(
        [sys.executable, "-c", LIST_SDKS.format(load=load, names=SDKS)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.processes
def test_a_command_or_script_leaves_the_model_vector_and_mcp_sdks_for_first_use():
    assert loaded_sdks("import config.urls") == []


@pytest.mark.processes
def test_a_web_process_loads_those_sdks_at_start_not_in_its_first_call():
    assert loaded_sdks("import config.wsgi") == SDKS


@pytest.mark.processes
def test_preload_off_leaves_them_for_first_use_in_a_web_process_too():
    assert loaded_sdks("import config.wsgi", preload="false") == []
