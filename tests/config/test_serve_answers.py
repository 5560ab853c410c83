"""Answers of every kind through `python -m config.serve`, the server production runs.

Issue 35: on granian every answer over 256 KiB was a 500 and streamed chat
replies came all at once at the end; the suite saw neither, since nothing
large or streamed went through this server.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import socket
import time
from pathlib import Path

from django.test import Client

from flows.engine import run_flow
from flows.files import store as store_file
from flows.models import FlowRun
from tests.factories import AgentFactory, FlowFactory
from tests.flows.graphs import chain, code, trigger
from tests.gunicorn_server import session_headers

ROOT = Path(__file__).resolve().parents[2]


# One node may output the whole of a run's result (4 MiB) on these servers.
WHOLE_RESULT = {"RUN_MAX_OUTPUT_BYTES": 4 * 1024 * 1024}


def big_result_flow(owner):
    """A webhook flow whose result is `{"text": "ab" * input.pairs}`."""
    nodes, edges = chain(
        trigger(), code("big", 'return {text: "ab".repeat(input.pairs)};')
    )
    return FlowFactory(created_by=owner, nodes=nodes, edges=edges)


def test_run_results_of_300_kb_1_mb_and_4_mb_arrive_whole(granian, alice):
    flow = big_result_flow(alice)
    server = granian(threads=2, **WHOLE_RESULT)

    for size in (300_000, 1_000_000, 4_000_000):
        answer = server.post_json(f"/api/webhooks/{flow.id}", {"pairs": size // 2})

        assert answer.status == 200, answer.body[:300]
        assert int(answer.headers["content-length"]) == len(answer.body)
        assert answer.json()["results"]["big"]["text"] == "ab" * (size // 2)
    assert FlowRun.objects.filter(flow=flow).count() == 3


def test_the_json_schema_arrives_byte_for_byte(granian, alice):
    server = granian(threads=2)
    client = Client()
    client.force_login(alice)
    expected = client.get("/api/schema", HTTP_ACCEPT="application/json").content
    assert len(expected) > 256 * 1024  # past the size that was a 500

    answer = server.request(
        "GET",
        "/api/schema",
        headers={"Accept": "application/json", **session_headers(alice)},
    )

    assert answer.status == 200
    assert answer.body == expected


def test_a_700_kb_static_file_and_its_head(granian):
    server = granian(threads=2)
    path = "/static/vendor/codemirror/codemirror.bundle.js"
    expected = (ROOT / "static/vendor/codemirror/codemirror.bundle.js").read_bytes()

    answer = server.request("GET", path)
    head = server.request("HEAD", path)

    assert answer.status == 200
    assert answer.body == expected
    assert head.status == 200
    assert head.body == b""
    assert int(head.headers["content-length"]) == len(expected)


def test_a_25_mb_run_file_downloads_whole(granian, alice, _run_files_folder):
    flow = big_result_flow(alice)
    run = run_flow(flow, {"pairs": 1}, FlowRun.Trigger.MANUAL)
    data = os.urandom(25 * 1024 * 1024)
    marker = store_file(
        workspace_id=flow.workspace_id,
        name="export.bin",
        content_type="application/octet-stream",
        data=data,
        run_id=run.id,
    )
    server = granian(threads=2, RUN_FILES_DIR=_run_files_folder)

    answer = server.request(
        "GET",
        f"/api/runs/{run.id}/files/{marker['$file']['id']}",
        headers=session_headers(alice),
        timeout=120,
    )

    assert answer.status == 200, answer.body[:300]
    assert len(answer.body) == len(data)
    assert hashlib.sha256(answer.body).digest() == hashlib.sha256(data).digest()


def open_chat(server, agent, user, content: str):
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=20)
    connection.request(
        "POST",
        f"/api/agents/{agent.id}/chat",
        json.dumps({"content": content}),
        {
            **session_headers(user),
            "Content-Type": "application/json",
            "Accept": "text/event-stream",
        },
    )
    return connection, connection.getresponse()


def read_until(response, prefix: str) -> list[str]:
    """Lines up to the first starting with `prefix`; a read waiting past the
    connection's 20 s timeout fails the test (socket.timeout)."""
    lines = []
    while True:
        line = response.readline().decode()
        assert line, f"the stream ended before {prefix!r}: {lines}"
        lines.append(line)
        if line.startswith(prefix):
            return lines


def test_a_chat_replys_first_word_arrives_while_the_model_still_writes(granian, alice):
    # The model waits 60 s before its second word: a buffered stream holds
    # the first until then, and the read below times out (20 s) instead.
    server = granian(threads=2, ECHO_WORD_DELAY_MS=60_000, AGENT_STREAM_PING_SECONDS=1)
    agent = AgentFactory(model="echo:demo", created_by=alice)

    connection, response = open_chat(server, agent, alice, "first second third")
    try:
        first = read_until(response, "data: ")  # the `start` event's data
        token = read_until(response, "data: ")
        ping = read_until(response, ": ping")  # kept alive while the model waits
    finally:
        connection.close()

    assert response.status == 200
    assert "event: start\n" in first
    assert "event: token\n" in token
    assert json.loads(token[-1][len("data: ") :])["text"] == "Echo:"
    assert ping[-1].startswith(": ping")


def rss_kib(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(status.split("VmRSS:")[1].split()[0])


def worker_pid(server) -> int:
    log = Path(server.log_path).read_text()
    return int(log.split("Spawning worker-1 with PID: ")[1].split()[0])


def test_clients_that_stop_reading_4_mb_answers_hold_no_thread_nor_the_memory(
    granian, alice
):
    flow = big_result_flow(alice)
    # One thread, and every call waits its turn for it (however slow a 4 MB
    # run is on a loaded machine) instead of being refused by admission.
    server = granian(
        threads=1,
        ADMISSION_SLOW_SECONDS=120,
        REQUEST_QUEUE_TIMEOUT_SECONDS=120,
        **WHOLE_RESULT,
    )
    path = f"/api/webhooks/{flow.id}".encode()
    body = b'{"pairs": 2000000}'
    pid = worker_pid(server)
    server.post_json(path.decode(), {"pairs": 1})  # warm: the first run's imports
    before = rss_kib(pid)

    stalled = []
    for _ in range(8):
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", server.port))
        sock.sendall(
            b"POST " + path + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
        )
        stalled.append(sock)
    try:
        # Each run finished and its answer was handed over: the one thread is free.
        deadline = time.monotonic() + 180
        while FlowRun.objects.filter(flow=flow).count() < 9:
            assert time.monotonic() < deadline, "the stalled clients' runs did not end"
            time.sleep(0.2)
        other = server.post_json(path.decode(), {"pairs": 2}, headers={})
        grown_mib = (rss_kib(pid) - before) / 1024
        first_bytes = stalled[0].recv(12)  # the stalled answers are real ones
    finally:
        for sock in stalled:
            sock.close()

    assert first_bytes == b"HTTP/1.1 200"
    assert other.status == 200
    assert other.json()["results"]["big"] == {"text": "abab"}
    # Eight 4 MB answers waiting (32 MB): held once each by granian, plus
    # what the runs left in the allocator (37-52 MiB seen), never a copy per
    # piece sent or per thread.
    assert grown_mib < 8 * 4 * 2, grown_mib
