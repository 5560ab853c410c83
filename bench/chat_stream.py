"""Streamed chat turns: Weir's time to first token, and a turn's web CPU.

Run with `DATABASE_URL=postgres://.../scratch WEIR_TESTING=1 .venv/bin/python
bench/chat_stream.py` (a scratch database: it migrates it and creates a user
and an agent). Prints a markdown table; the committed results are in
bench/README.md.

The provider is the tests' loopback fake LLM server (`tests/llm_server.py`) in a
process of its own, answering OpenAI chat completions as a stream of 20 words,
`CHUNK_MS` apart. Measured, interleaved so machine noise hits them alike:

- the provider's own time to first token: the OpenAI SDK straight to it;
- Weir's: `POST /api/agents/:id/chat` with `Accept: text/event-stream` through
  Django's test client, from the call to the first `token` frame (request,
  checks, storing the user's message, the turn's thread, the SDK, the frame);
- this process's CPU per turn (`time.process_time`, all its threads: Django,
  the turn's thread, the SDK), streamed and not; the fake server's CPU is in
  the other process and not counted.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("WEIR_TESTING", "1")

import django  # noqa: E402

django.setup()

import openai  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402

from agents.models import Agent  # noqa: E402

ROUNDS = int(os.environ.get("ROUNDS", "60"))
CHUNK_MS = 5
WORDS = " ".join(f"word{n}" for n in range(20))


def serve(port_queue) -> None:
    """The fake provider, in its own process, with a reply for every request."""
    from tests.llm_server import LLMServer, openai_text

    server = LLMServer().start()
    for _ in range(ROUNDS * 4 + 10):
        server.queue(openai_text(WORDS), chunk_delay=CHUNK_MS / 1000)
    port_queue.put(server.url)
    server.thread.join()


def direct_ttft(client: openai.OpenAI) -> float:
    started = time.perf_counter()
    stream = client.chat.completions.create(
        model="bench", messages=[{"role": "user", "content": "hi"}], stream=True
    )
    with stream:
        for chunk in stream:
            if chunk.choices and chunk.choices[0].delta.content:
                first = time.perf_counter() - started
                for _ in stream:
                    pass
                return first
    raise RuntimeError("no token")


def weir_ttft(client: Client, agent: Agent) -> tuple[float, float]:
    """(seconds to the first token frame, CPU seconds for the whole turn)."""
    cpu = time.process_time()
    started = time.perf_counter()
    response = client.post(
        f"/api/agents/{agent.id}/chat",
        {"content": "hi"},
        content_type="application/json",
        HTTP_ACCEPT="text/event-stream",
    )
    first = None
    for frame in response.streaming_content:
        if first is None and b"event: token" in frame:
            first = time.perf_counter() - started
    response.close()
    return first, time.process_time() - cpu


def blocking_cpu(client: Client, agent: Agent) -> float:
    cpu = time.process_time()
    response = client.post(
        f"/api/agents/{agent.id}/chat",
        {"content": "hi"},
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    return time.process_time() - cpu


def main() -> None:
    call_command("migrate", verbosity=0)
    ports = multiprocessing.Queue()
    provider = multiprocessing.Process(target=serve, args=(ports,), daemon=True)
    provider.start()
    url = ports.get(timeout=30)
    settings.OPENAI_API_KEY = "sk-bench"
    settings.OPENAI_BASE_URL = f"{url}/v1"
    settings.AGENT_MAX_RETRIES = 0
    settings.AGENT_USER_RATE = "100000/min"
    settings.AGENT_RATE = "100000/min"
    settings.ALLOWED_HOSTS = ["testserver"]
    logging.getLogger("httpx2").setLevel(logging.WARNING)
    user, _ = get_user_model().objects.get_or_create(username="bench-chat")
    agent, _ = Agent.objects.get_or_create(
        name="Bench", created_by=user, defaults={"model": "openai:bench-model"}
    )
    client = Client()
    client.force_login(user)
    sdk = openai.OpenAI(api_key="sk-bench", base_url=f"{url}/v1", max_retries=0)
    direct_ttft(sdk), weir_ttft(client, agent), blocking_cpu(client, agent)  # warm

    direct, weir, cpu_stream, cpu_block = [], [], [], []
    for _ in range(ROUNDS):
        direct.append(direct_ttft(sdk))
        first, cpu = weir_ttft(client, agent)
        weir.append(first)
        cpu_stream.append(cpu)
        cpu_block.append(blocking_cpu(client, agent))
    provider.terminate()

    def ms(values, q=50):
        values = sorted(values)
        return values[min(len(values) - 1, int(len(values) * q / 100))] * 1000

    overhead = [w - d for w, d in zip(weir, direct, strict=True)]
    print(f"{ROUNDS} rounds, {CHUNK_MS} ms between the provider's chunks\n")
    print("| measure | p50 ms | p95 ms |")
    print("|---|---|---|")
    print(
        f"| provider's own TTFT (SDK direct) | {ms(direct):.2f} | "
        f"{ms(direct, 95):.2f} |"
    )
    print(f"| TTFT through Weir (SSE) | {ms(weir):.2f} | {ms(weir, 95):.2f} |")
    print(
        f"| Weir's TTFT overhead (paired) | {ms(overhead):.2f} | "
        f"{ms(overhead, 95):.2f} |"
    )
    print(
        f"| web CPU per turn, streamed | {ms(cpu_stream):.2f} | "
        f"{ms(cpu_stream, 95):.2f} |"
    )
    print(
        f"| web CPU per turn, not streamed | {ms(cpu_block):.2f} | "
        f"{ms(cpu_block, 95):.2f} |"
    )
    print(
        f"\nmean CPU streamed/blocking: {statistics.mean(cpu_stream) * 1000:.2f} / "
        f"{statistics.mean(cpu_block) * 1000:.2f} ms"
    )


if __name__ == "__main__":
    main()
