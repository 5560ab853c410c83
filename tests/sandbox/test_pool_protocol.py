"""The line protocol to a worker: the variables travel as their own JSON line, and
jobs are acknowledged on a pipe the caller reads only now and then."""

from __future__ import annotations

import fcntl
import json
import time

import pytest

import sandbox
from sandbox import pool as pool_module

F_SETPIPE_SZ = 1031  # Linux's fcntl command (Python 3.11 has no name for it)


def job(source: str, variables: dict) -> dict:
    return {
        "mode": "code",
        "source": source,
        "variables": json.dumps(variables, ensure_ascii=False),
        "timeout_ms": 5000,
        "memory_mb": 64,
        "stack_kb": 256,
        "limits": {
            "logLines": 10,
            "logLineChars": 100,
            "logChars": 1000,
            "outputChars": 1000,
        },
    }


@pytest.fixture
def pool():
    pool = pool_module.WorkerPool(size=1, memory_mb=64)
    yield pool
    pool.close()


def test_a_worker_serves_more_jobs_than_its_acknowledgement_pipe_holds(pool):
    pool.call(job("return 1", {}), time.monotonic() + 5)
    [worker] = pool._all
    # The smallest pipe Linux gives (a page): undrained, it blocks the worker
    # on its 4097th acknowledgement and the job then times out.
    fcntl.fcntl(worker._acks, F_SETPIPE_SZ, 4096)

    for n in range(4200):
        reply = pool.call(job("return input", {"input": n}), time.monotonic() + 5)
        assert reply["settled"] == {"json": str(n)}


@pytest.mark.parametrize(
    "text",
    ["\ud800", "a\udfffb", 'é, 😀, \u2028, \n, \\, ", \x00'],
    ids=["lone-high", "lone-low", "other-characters"],
)
def test_code_sees_its_input_text_as_sent(text):
    result = sandbox.run_code(
        "return [input.length, Array.from(input, c => c.codePointAt(0))]",
        {"input": text, "prev": None, "results": {}},
    )

    utf16_units = len(text.encode("utf-16-le", "surrogatepass")) // 2
    assert result.value == [utf16_units, [ord(c) for c in text]]
