"""A loopback server that speaks the LLM providers' wire protocols, for the real SDKs.

`llm_server` is one HTTP server on 127.0.0.1 that answers OpenAI chat completions
(`POST /v1/chat/completions`) and Anthropic messages (`POST /v1/messages`) from a
queue of scripted replies, and records every request, so a test asserts what
the official SDK really sent: history, system prompt, tools, tool results.
A request with `"stream": true` gets the scripted answer as that provider's
Server-Sent Events (`llm_stream.py`): text a word per chunk, tool-call
arguments split across chunks, usage last; `chunk_delay` paces them.
`POST /v1/embeddings` (OpenAI's, and Ollama's compatible one) answers at once,
without the queue: each input's letter counts (`letter_counts`).
Shared by the agents tests and the chat page's browser tests.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.llm_stream import sse_frames


@dataclass
class Reply:
    status: int = 200
    body: bytes = b"{}"
    delay: float = 0.0
    chunk_delay: float = 0.0


class LLMServer:
    """A scripted provider: `queue(...)` replies, read `requests` afterwards."""

    def __init__(self):
        self.requests: list[dict] = []
        self.disconnects = 0
        self.replies: deque[Reply] = deque()
        self.stopping = threading.Event()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def start(self) -> LLMServer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def queue(
        self, body, *, status: int = 200, delay: float = 0.0, chunk_delay: float = 0.0
    ) -> None:
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.replies.append(
            Reply(status=status, body=raw, delay=delay, chunk_delay=chunk_delay)
        )

    def bodies(self, path: str) -> list[dict]:
        return [r["json"] for r in self.requests if r["path"] == path]

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                server.requests.append(
                    {
                        "path": self.path,
                        "headers": {k.lower(): v for k, v in self.headers.items()},
                        "json": json.loads(raw or b"null"),
                    }
                )
                if self.path.endswith("/embeddings"):
                    self._embeddings(server.requests[-1]["json"])
                    return
                reply = (
                    server.replies.popleft()
                    if server.replies
                    else Reply(500, b'{"error": {"message": "no reply queued"}}')
                )
                if reply.delay:
                    server.stopping.wait(reply.delay)
                body = server.requests[-1]["json"]
                if (
                    reply.status == 200
                    and isinstance(body, dict)
                    and body.get("stream")
                ):
                    self._stream(reply)
                    return
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(reply.body)))
                    self.end_headers()
                    self.wfile.write(reply.body)
                except OSError:
                    pass  # the client gave up (the timeout test); nothing to tell

            def _embeddings(self, body: dict) -> None:
                """OpenAI's (and Ollama's compatible) `/embeddings`: each input's
                vector from its letters' counts, so alike texts point alike."""
                inputs = (
                    body["input"]
                    if isinstance(body["input"], list)
                    else [body["input"]]
                )
                data = [
                    {
                        "object": "embedding",
                        "index": i,
                        "embedding": letter_counts(text),
                    }
                    for i, text in enumerate(inputs)
                ]
                answer = json.dumps(
                    {
                        "object": "list",
                        "data": data,
                        "model": body.get("model"),
                        "usage": {"prompt_tokens": 1, "total_tokens": 1},
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def _stream(self, reply: Reply) -> None:
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.end_headers()
                    for index, frame in enumerate(sse_frames(self.path, reply.body)):
                        paced = index and reply.chunk_delay
                        if paced and server.stopping.wait(reply.chunk_delay):
                            return
                        self.wfile.write(frame)
                        self.wfile.flush()
                except OSError:
                    server.disconnects += 1  # the client went away mid-stream

            def log_message(self, *args):
                pass

        return Handler


def letter_counts(text: str) -> list[float]:
    """26 numbers: how often each letter a-z appears in `text`, plus one."""
    lowered = text.lower()
    return [float(lowered.count(chr(ord("a") + i)) + 1) for i in range(26)]


def openai_text(content: str, *, prompt_tokens: int = 11, completion_tokens: int = 7):
    """A chat.completion answering in words."""
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "test-model",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": content},
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def openai_tool_call(name: str, arguments: dict, *, call_id: str = "call_1"):
    """A chat.completion asking for one function call."""
    answer = openai_text("")
    answer["choices"][0]["finish_reason"] = "tool_calls"
    answer["choices"][0]["message"] = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
        ],
    }
    return answer


def anthropic_text(text: str, *, input_tokens: int = 13, output_tokens: int = 5):
    """A Messages API answer in words."""
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "test-model",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
    }


def anthropic_tool_use(name: str, arguments: dict, *, use_id: str = "toolu_1"):
    """A Messages API answer asking for one tool."""
    answer = anthropic_text("Let me check.")
    answer["content"].append(
        {"type": "tool_use", "id": use_id, "name": name, "input": arguments}
    )
    answer["stop_reason"] = "tool_use"
    return answer


def provider_settings(url: str) -> dict[str, str]:
    """What a Weir process started by a test is told, as environment, to
    reach the providers' protocol server at `url`."""
    return {
        "OPENAI_API_KEY": "sk-test-openai",
        "OPENAI_BASE_URL": f"{url}/v1",
        "ANTHROPIC_API_KEY": "sk-test-anthropic",
        "ANTHROPIC_BASE_URL": url,
        "OLLAMA_BASE_URL": url,
    }


@pytest.fixture
def llm_server(settings):
    """A started protocol server; the SDKs point at it, with no retries."""
    server = LLMServer().start()
    settings.OPENAI_API_KEY = "sk-test-openai"
    settings.OPENAI_BASE_URL = f"{server.url}/v1"
    settings.ANTHROPIC_API_KEY = "sk-test-anthropic"
    settings.ANTHROPIC_BASE_URL = server.url
    settings.OLLAMA_BASE_URL = server.url
    settings.AGENT_MAX_RETRIES = 0
    settings.AGENT_TIMEOUT_SECONDS = 5
    yield server
    server.stop()
