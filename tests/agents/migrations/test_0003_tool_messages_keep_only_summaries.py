"""Tool messages stored while tool results were whole runs are rewritten as
summaries (migration agents 0003), so old chats stop showing inner outputs."""

from __future__ import annotations

import importlib
import json

from django.apps import apps

from agents.models import Conversation, Message
from flows.models import FlowRun, RunStep
from tests.factories import AgentFactory, FlowFactory

migration = importlib.import_module(
    "agents.migrations.0003_tool_messages_keep_only_summaries"
)
SECRET = "alice-only-123"


def old_tool_message(conversation, run, content: str) -> Message:
    return Message.objects.create(
        conversation=conversation,
        role="tool",
        tool_call_id="c1",
        tool_name="lookup",
        run=run,
        content=content,
    )


def finished_run(flow, results: dict) -> FlowRun:
    """A succeeded run whose nodes ran in the order `results` lists them."""
    run = FlowRun.objects.create(
        flow=flow, trigger="agent", status="succeeded", results=results
    )
    for position, node_id in enumerate(results):
        RunStep.objects.create(
            run=run,
            position=position,
            node_id=node_id,
            node_type="code",
            status="succeeded",
            output=results[node_id],
        )
    return run


def test_old_whole_run_results_become_summaries(bob, bob_api, alice):
    agent = AgentFactory(created_by=alice)
    conversation = Conversation.objects.create(agent=agent, user=bob)
    run = finished_run(
        FlowFactory(created_by=alice),
        {"secret": {"token": SECRET}, "summary": {"found": "x"}},
    )
    whole = json.dumps(
        {
            "success": True,
            "run_id": str(run.id),
            "status": "succeeded",
            "results": run.results,
            "duration": 3.0,
            "error": None,
        }
    )
    with_run = old_tool_message(conversation, run, whole)
    cut = whole[: whole.index(SECRET) + 5] + " …(truncated)"
    cut_without_run = old_tool_message(conversation, None, cut)
    summary_already = old_tool_message(conversation, None, '{"success": true}')

    migration.rewrite_whole_runs(apps, None)

    with_run.refresh_from_db()
    assert json.loads(with_run.content) == {
        "success": True,
        "status": "succeeded",
        "output": {"found": "x"},
        "error": None,
    }
    cut_without_run.refresh_from_db()
    assert json.loads(cut_without_run.content)["error"]["code"] == "result_withheld"
    summary_already.refresh_from_db()
    assert summary_already.content == '{"success": true}'
    history = bob_api.get(f"/api/conversations/{conversation.pk}")
    assert history.status_code == 200
    assert SECRET not in history.content.decode()


def test_the_summary_takes_the_last_node_that_ran_not_the_last_key(bob, alice):
    """PostgreSQL's jsonb reorders keys (shortest first): the last key of the
    stored results can be an inner node's output, here the HTTP call's token."""
    agent = AgentFactory(created_by=alice)
    conversation = Conversation.objects.create(agent=agent, user=bob)
    results = {
        "webhook_1": {"q": 1},
        "http_request_1": {"body": {"token": SECRET}},
        "code_1": {"final": "ok"},
    }
    run = finished_run(FlowFactory(created_by=alice), results)
    message = old_tool_message(
        conversation,
        run,
        json.dumps({"success": True, "status": "succeeded", "results": results}),
    )

    migration.rewrite_whole_runs(apps, None)

    message.refresh_from_db()
    assert json.loads(message.content)["output"] == {"final": "ok"}
    assert SECRET not in message.content
