"""What a streamed chat turn does before its first token: statements and instructions.

Wall time on the shared 2-core VM swings with the neighbours; these do not.
Same set-up as bench/chat_stream.py (a scratch database, the loopback fake
provider in a process of its own, Django's test client):

    DATABASE_URL=postgres://.../scratch WEIR_TESTING=1 \
        .venv/bin/python bench/chat_profile.py statements
    ... bench/chat_profile.py instructions     # needs valgrind; N=20 turns

`statements` lists every SQL statement of one streamed turn, in both threads
(the request's and the turn's), marking those before the first `token` frame
left, with their time. `instructions` counts the web process's instructions
under callgrind for `N` streamed turns and for none, and prints the difference
per turn (the fake provider runs in another process and is not counted).
`profile` prints a cProfile of `N` turns, the heaviest by cumulative time.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import chat_stream  # noqa: E402  (sets Django up)

N = int(os.environ.get("N", "20"))
WARM_UP = 5


def prepare():
    """The provider's URL, a signed-in test client and the bench agent."""
    import multiprocessing

    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    from agents.models import Agent

    call_command("migrate", verbosity=0)
    # Spawned (a fresh interpreter, not a fork): under callgrind it runs
    # outside valgrind, so only the web process is counted.
    spawn = multiprocessing.get_context("spawn")
    ports = spawn.Queue()
    provider = spawn.Process(target=chat_stream.serve, args=(ports,), daemon=True)
    provider.start()
    url = ports.get(timeout=300)  # a loaded machine starts Django slowly
    settings.OPENAI_API_KEY = "sk-bench"
    settings.OPENAI_BASE_URL = f"{url}/v1"
    settings.AGENT_MAX_RETRIES = 0
    settings.AGENT_USER_RATE = "100000/min"
    settings.AGENT_RATE = "100000/min"
    settings.ALLOWED_HOSTS = ["testserver"]
    user, _ = get_user_model().objects.get_or_create(username="bench-chat")
    agent, _ = Agent.objects.get_or_create(
        name="Bench", created_by=user, defaults={"model": "openai:bench-model"}
    )
    client = Client()
    client.force_login(user)
    return provider, client, agent


def statements() -> None:
    from django.db import connections
    from django.db.backends.signals import connection_created

    log: list[tuple[float, str, float, str]] = []

    def record(execute, sql, params, many, context):
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            ended = time.perf_counter()
            name = threading.current_thread().name
            log.append((started, name, (ended - started) * 1000, sql))

    def hook(connection, **kwargs):
        if record not in connection.execute_wrappers:
            connection.execute_wrappers.append(record)

    connection_created.connect(hook)
    provider, client, agent = prepare()
    for _ in range(WARM_UP):
        chat_stream.weir_ttft(client, agent)
    hook(connections["default"])
    log.clear()
    started = time.perf_counter()
    first, _ = chat_stream.weir_ttft(client, agent)
    provider.terminate()
    first_at = started + first
    before = [entry for entry in log if entry[0] < first_at]
    print(f"first token after {first * 1000:.1f} ms")
    print(f"{len(before)} statements before it, {len(log)} in the whole turn\n")
    for at, thread, ms, sql in log:
        mark = "*" if at < first_at else " "
        text = re.sub(r"\s+", " ", sql)[:150]
        print(f"{mark} {(at - started) * 1000:7.1f} {ms:5.2f} {thread[:10]:10} {text}")


def serve_turns(count: int) -> None:
    """The measured process (under callgrind): warm up, then `count` turns."""
    provider, client, agent = prepare()
    for _ in range(WARM_UP + count):
        chat_stream.weir_ttft(client, agent)
    provider.terminate()


def instructions() -> None:
    def collected(count: int) -> int:
        with tempfile.TemporaryDirectory() as folder:
            out = Path(folder) / "callgrind.out"
            done = subprocess.run(
                [
                    "valgrind",
                    "--tool=callgrind",
                    "--trace-children=no",
                    f"--callgrind-out-file={out}",
                    sys.executable,
                    __file__,
                    "serve",
                    str(count),
                ],
                env={**os.environ, "PYTHONHASHSEED": "0"},
                capture_output=True,
                text=True,
            )
            match = re.search(r"Collected : (\d+)", done.stderr)
            if done.returncode or not match:
                raise SystemExit(done.stderr[-3000:])
            return int(match[1])

    per_turn = (collected(N) - collected(0)) / N
    print(f"| streamed chat turn (web process, N={N}) | {per_turn / 1e6:.2f} M |")


def profile() -> None:
    import cProfile
    import pstats

    from agents import stream

    provider, client, agent = prepare()
    for _ in range(WARM_UP):
        chat_stream.weir_ttft(client, agent)
    turns: list = []
    work = stream._work

    def profiled_work(*args):  # the turn's thread, profiled apart
        turns.append(cProfile.Profile())
        turns[-1].runcall(work, *args)

    stream._work = profiled_work
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(N):
        chat_stream.weir_ttft(client, agent)
    profiler.disable()
    provider.terminate()
    limit = int(os.environ.get("LINES", "60"))
    print("## the request's thread")
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(limit)
    print("## the turn's thread")
    pstats.Stats(*turns).sort_stats("cumulative").print_stats(limit)


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "statements"
    if mode == "serve":
        serve_turns(int(sys.argv[2]))
    else:
        {"statements": statements, "instructions": instructions, "profile": profile}[
            mode
        ]()
