"""The offline `echo:` model: deterministic answers, and a scripted tool call."""

from __future__ import annotations

from agents.providers import ChatRequest, ToolSpec
from agents.providers.echo import EchoProvider

LOOKUP = ToolSpec(
    name="look_up_order",
    title="Look up order",
    description="Finds an order.",
    parameters={"type": "object", "properties": {}},
)


def ask(*messages, tools=(LOOKUP,)):
    return EchoProvider().complete(
        ChatRequest(
            model="demo", system="Be kind.", messages=list(messages), tools=list(tools)
        )
    )


def user(text):
    return {"role": "user", "content": text}


def test_it_echoes_the_message():
    result = ask(user("Hello"))

    assert result.content == "Echo: Hello"
    assert result.tool_calls == []
    assert result.usage == {"input_tokens": 3, "output_tokens": 2}


def test_it_numbers_later_turns_so_history_is_visible():
    result = ask(user("A"), {"role": "assistant", "content": "Echo: A"}, user("B"))

    assert result.content == "Echo: B (turn 2)"


def test_tool_command_calls_the_tool_by_function_or_flow_name():
    by_title = ask(user('/tool Look up order {"number": 3}'))
    by_name = ask(user("/tool look_up_order"))

    assert [c.as_dict() for c in by_title.tool_calls] == [
        {"id": "echo-call-1", "name": "look_up_order", "arguments": {"number": 3}}
    ]
    assert by_name.tool_calls[0].arguments == {}


def test_tool_command_matches_names_in_any_case():
    by_title = ask(user("/tool LOOK UP ORDER"))
    by_name = ask(user("/tool Look_Up_Order {}"))

    assert by_title.tool_calls[0].name == "look_up_order"
    assert by_name.tool_calls[0].name == "look_up_order"


def test_an_exact_name_wins_over_one_that_differs_only_by_case():
    shouting = ToolSpec(
        name="shout", title="GREET", description="", parameters={"type": "object"}
    )
    quiet = ToolSpec(
        name="greet", title="Greet", description="", parameters={"type": "object"}
    )

    result = ask(user("/tool Greet"), tools=(shouting, quiet))

    assert result.tool_calls[0].name == "greet"


def test_tool_command_for_an_unknown_tool_answers_in_words():
    result = ask(user("/tool Launch rockets {}"))

    assert result.tool_calls == []
    assert result.content == (
        "I have no tool called 'Launch rockets'. Tools: Look up order."
    )


def test_tool_command_with_broken_json_explains_the_usage():
    result = ask(user("/tool Look up order {number: 3"))

    assert result.tool_calls == []
    assert result.content.startswith("Usage: /tool")


def test_tool_command_without_tools_offered_calls_nothing():
    result = ask(user("/tool Look up order {}"), tools=())

    assert result.tool_calls == []
    assert "Tools: none" in result.content


def test_it_reports_tool_results_after_a_tool_call():
    result = ask(
        user("/tool look_up_order"),
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "echo-call-1", "name": "look_up_order"}],
        },
        {
            "role": "tool",
            "tool_call_id": "echo-call-1",
            "name": "look_up_order",
            "content": '{"success": true}',
        },
    )

    assert result.content == 'Tool look_up_order returned: {"success": true}'
