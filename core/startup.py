"""What a long-running process does once it has loaded the code it serves with.

A full garbage collection walks every object the process holds. Once Django,
DRF, the apps and the LLM SDKs are imported that is about 340,000 objects, and
one collection took 100-500 ms (the more the machine was loaded, the longer):
every thread of the process waits for it, which is how a 0.3 ms view had a
p99 of 130-400 ms in `make bench-webhook`. Those objects live as long as the
process, so collecting them can only cost; `gc.freeze()` moves them to the
permanent generation, and a full collection then walks only what requests and
runs made since (bench/README.md, "Garbage collection").
"""

from __future__ import annotations

import gc
import importlib

from django.conf import settings

# The SDKs that cost a second or more of CPU each to import (the model
# providers', Qdrant's, MCP's), and those that cost a tenth of one or more
# (httpcore2 for MCP, the OpenAPI validator): the code imports them,
# or the module of ours that imports them, on first use, so a `manage.py`
# command, a script or the test suite's collection does not pay for them; a
# web or task worker loads them here, at start, so its first chat or tool
# call does not pay for them inside its deadline.
HEAVY_SDKS = (
    "anthropic",
    "openai",
    "qdrant_client",
    "qdrant_client.models",
    "mcp",
    "mcp.client.streamable_http",
    "mcp_types",
    "httpcore2",
    "openapi_spec_validator",
    "openapi_spec_validator.validation.exceptions",
)


def freeze_what_was_loaded() -> None:
    """Load the heavy SDKs (unless `PRELOAD_SDKS` is off), collect once, then
    keep everything alive now out of later collections."""
    if settings.PRELOAD_SDKS:
        for name in HEAVY_SDKS:
            importlib.import_module(name)
    gc.collect()
    gc.freeze()


def import_on_first_use(name: str):
    """The module `name` (one of HEAVY_SDKS, or a module importing them),
    imported now if it is not yet."""
    return importlib.import_module(name)
