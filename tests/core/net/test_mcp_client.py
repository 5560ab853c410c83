"""core.net.mcp_client against the SDK's own server on a loopback port."""

from __future__ import annotations

import time

import pytest

from core.net import mcp_client


def soon(seconds: float = 10) -> float:
    return time.monotonic() + seconds


def test_lists_the_servers_tools(mcp_server, allow_loopback):
    tools = mcp_client.list_tools(mcp_server, {}, soon())
    by_name = {tool.name: tool for tool in tools}
    assert {"add", "echo", "slow", "fail"} <= set(by_name)
    assert by_name["add"].description == "Adds two numbers."
    assert set(by_name["add"].input_schema["properties"]) == {"a", "b"}


def test_calls_a_tool_with_the_given_headers(mcp_server, allow_loopback):
    result = mcp_client.call_tool(
        mcp_server, {"Authorization": "Bearer s3cret"}, "echo", {"text": "hi"}, soon()
    )
    assert result["is_error"] is False
    assert result["content"] == "hi (auth: Bearer s3cret)"


def test_a_tool_error_is_a_result_not_an_exception(mcp_server, allow_loopback):
    result = mcp_client.call_tool(mcp_server, {}, "fail", {}, soon())
    assert result["is_error"] is True
    assert "always fails" in result["content"]


def test_a_slow_tool_ends_at_the_deadline(mcp_server, allow_loopback):
    started = time.monotonic()
    with pytest.raises(mcp_client.McpError) as caught:
        mcp_client.call_tool(mcp_server, {}, "slow", {"seconds": 5}, soon(1))
    assert caught.value.code == "timeout"
    assert time.monotonic() - started < 2.5


def test_a_slow_tool_within_the_deadline_answers(mcp_server, allow_loopback):
    result = mcp_client.call_tool(mcp_server, {}, "slow", {"seconds": 1.5}, soon(10))
    assert result["content"] == "slept 1.5"


def test_a_private_address_is_refused(mcp_server, settings):
    settings.HTTP_NODE_ALLOWLIST = []
    with pytest.raises(mcp_client.McpError) as caught:
        mcp_client.list_tools(mcp_server, {}, soon())
    assert caught.value.code == "address_refused"


def test_a_url_that_is_not_http_is_refused():
    with pytest.raises(mcp_client.McpError) as caught:
        mcp_client.list_tools("file:///etc/passwd", {}, soon())
    assert caught.value.code == "invalid_url"


def test_nothing_listening_is_an_mcp_error(allow_loopback):
    with pytest.raises(mcp_client.McpError) as caught:
        mcp_client.list_tools("http://127.0.0.1:9/mcp", {}, soon(3))
    assert caught.value.code in ("mcp_error", "timeout")
