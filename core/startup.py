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
import sys

_frozen = False


def freeze_what_was_loaded() -> None:
    """Collect once, then keep everything alive now out of later collections."""
    global _frozen
    gc.collect()
    gc.freeze()
    _frozen = True


def import_on_first_use(name: str):
    """The module `name`, imported now if it is not yet: for the SDKs that
    cost a second or more of CPU to import (the model providers', Qdrant's,
    MCP's), which every process start (web and task workers, manage.py)
    would otherwise pay whether or not it ever uses them. In a process that
    froze what it loaded at start, what the import brought is frozen too."""
    module = sys.modules.get(name)
    if module is None:
        module = importlib.import_module(name)
        if _frozen:
            gc.freeze()
    return module
