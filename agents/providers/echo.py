"""`echo:` models: a deterministic, offline model for the demo and the tests.

- A user message `/tool <tool> {json}` calls the tool named by its function name
  or its flow's name, in any case, with that JSON object as arguments (`{}` when
  omitted).
- Right after tool results it answers `Tool <name> returned: <result>`, one line
  per result, so the tool loop can be followed end to end without any network.
- With an output_schema, a message that is JSON comes back as it is (the
  schema is not followed: a test or demo sends what should pass or fail).
- Anything else is echoed back: `Echo: <message>`, with the turn number so that
  history can be seen to work (`(turn 2)` on the second user message).

Usage counts words, which keeps it deterministic. It streams word by word, with
ECHO_WORD_DELAY_MS between words, so streaming can be seen offline.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator

from django.conf import settings

from agents.providers.base import (
    ChatRequest,
    ChatResult,
    Provider,
    TextDelta,
    ToolCall,
)

TOOL_COMMAND = "/tool"


class EchoProvider(Provider):
    def stream(self, request: ChatRequest) -> Iterator[TextDelta | ChatResult]:
        """The answer word by word (ECHO_WORD_DELAY_MS apart), then the result."""
        result = self._answer(request)
        delay = settings.ECHO_WORD_DELAY_MS / 1000
        for index, word in enumerate(re.findall(r"\s*\S+", result.content)):
            if delay and index:
                time.sleep(delay)
            yield TextDelta(word)
        yield result

    def _answer(self, request: ChatRequest) -> ChatResult:
        last = request.messages[-1] if request.messages else {"role": "user"}
        if last["role"] == "tool":
            content = self._report_tool_results(request.messages)
            return self._result(request, content)
        text = (last.get("content") or "").strip()
        if request.allow_tool_calls and (
            text.startswith(TOOL_COMMAND + " ") or text == TOOL_COMMAND
        ):
            return self._tool_call(request, text[len(TOOL_COMMAND) :].strip())
        if request.output_schema and _is_json(text):
            return self._result(request, text)
        turn = sum(1 for message in request.messages if message["role"] == "user")
        suffix = f" (turn {turn})" if turn > 1 else ""
        return self._result(request, f"Echo: {text}{suffix}")

    def _tool_call(self, request: ChatRequest, command: str) -> ChatResult:
        name, brace, raw = command.partition("{")
        name = name.strip()
        # People type flow names as they remember them: "greeter" finds
        # "Greeter"; an exact match wins when two names differ only by case.
        tool = next(
            (t for t in request.tools if name in (t.name, t.title)),
            None,
        ) or next(
            (
                t
                for t in request.tools
                if name.casefold() in (t.name.casefold(), t.title.casefold())
            ),
            None,
        )
        if tool is None:
            offered = ", ".join(t.title for t in request.tools) or "none"
            return self._result(
                request, f"I have no tool called {name!r}. Tools: {offered}."
            )
        try:
            arguments = json.loads(brace + raw) if brace else {}
        except ValueError:
            return self._result(
                request, "Usage: /tool <tool name> {json object of arguments}"
            )
        call_number = sum(len(m.get("tool_calls") or []) for m in request.messages)
        call = ToolCall(
            id=f"echo-call-{call_number + 1}", name=tool.name, arguments=arguments
        )
        return ChatResult(content="", tool_calls=[call], usage=_usage(request, ""))

    def _report_tool_results(self, messages: list[dict]) -> str:
        results = []
        for message in reversed(messages):
            if message["role"] != "tool":
                break
            results.append(f"Tool {message['name']} returned: {message['content']}")
        return "\n".join(reversed(results))

    def _result(self, request: ChatRequest, content: str) -> ChatResult:
        return ChatResult(content=content, usage=_usage(request, content))


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _usage(request: ChatRequest, content: str) -> dict:
    words_in = len(request.system.split()) + sum(
        len((m.get("content") or "").split()) for m in request.messages
    )
    return {"input_tokens": words_in, "output_tokens": len(content.split())}
