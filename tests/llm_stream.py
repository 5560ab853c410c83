"""Scripted LLM answers as the providers stream them (for `tests/llm_server.py`).

`sse_frames(path, body)` turns a whole OpenAI chat completion or Anthropic
message into the Server-Sent Events the real services send for `stream: true`:
text one word per chunk, tool-call arguments (OpenAI) and tool inputs
(Anthropic) split into three pieces across chunks, usage at the end. A body of
another shape is sent as one event, as a broken server would.
"""

from __future__ import annotations

import json
import re


def sse_frames(path: str, raw: bytes) -> list[bytes]:
    try:
        body = json.loads(raw)
    except ValueError:
        return [raw]
    if path.endswith("/chat/completions"):
        events = _openai(body)
        return [_frame(None, event) for event in events] + [b"data: [DONE]\n\n"]
    return [_frame(event["type"], event) for event in _anthropic(body)]


def _frame(name, data) -> bytes:
    head = f"event: {name}\n" if name else ""
    return f"{head}data: {json.dumps(data)}\n\n".encode()


def words(text: str) -> list[str]:
    return re.findall(r"\s*\S+\s*?", text or "") or []


def thirds(text: str) -> list[str]:
    step = max(1, len(text) // 3)
    return [text[i : i + step] for i in range(0, len(text), step)] or [""]


def _openai(body) -> list[dict]:
    try:
        message = body["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        return [body]

    def chunk(delta, finish=None, usage=None, choices=True):
        return {
            "id": body.get("id", "chatcmpl-1"),
            "object": "chat.completion.chunk",
            "created": body.get("created", 1_700_000_000),
            "model": body.get("model", "test-model"),
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]
            if choices
            else [],
            **({"usage": usage} if usage else {}),
        }

    events = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"content": piece}) for piece in words(message.get("content"))]
    for index, call in enumerate(message.get("tool_calls") or []):
        function = call["function"]
        events.append(
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": call["id"],
                            "type": "function",
                            "function": {"name": function["name"], "arguments": ""},
                        }
                    ]
                }
            )
        )
        events += [
            chunk({"tool_calls": [{"index": index, "function": {"arguments": part}}]})
            for part in thirds(function["arguments"])
        ]
    events.append(chunk({}, finish=body["choices"][0].get("finish_reason", "stop")))
    if body.get("usage"):
        events.append(chunk({}, usage=body["usage"], choices=False))
    return events


def _anthropic(body) -> list[dict]:
    if not isinstance(body, dict) or "content" not in body:
        return [{"type": "unexpected", "body": body}]
    usage = body.get("usage") or {}
    start = {**body, "content": [], "stop_reason": None}
    # Input counts (cache reads included) come first; output at the end.
    start["usage"] = {**usage, "output_tokens": 1}
    events = [{"type": "message_start", "message": start}]
    for index, block in enumerate(body["content"]):
        if block["type"] == "text":
            events.append(
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {"type": "text", "text": ""},
                }
            )
            events += [
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "text_delta", "text": piece},
                }
                for piece in words(block["text"])
            ]
        else:
            events.append(
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {**block, "input": {}},
                }
            )
            events += [
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "input_json_delta", "partial_json": part},
                }
                for part in thirds(json.dumps(block["input"]))
            ]
        events.append({"type": "content_block_stop", "index": index})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": body.get("stop_reason"), "stop_sequence": None},
            "usage": {"output_tokens": usage.get("output_tokens", 0)},
        }
    )
    events.append({"type": "message_stop"})
    return events
