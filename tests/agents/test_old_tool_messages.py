"""Tool messages stored while tool results were whole runs are rewritten as
summaries (migration agents 0003), so old chats stop showing inner outputs."""

from __future__ import annotations

import importlib
import json

from django.apps import apps

from agents.models import Conversation, Message
from flows.models import FlowRun
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


def test_old_whole_run_results_become_summaries(bob, bob_api, alice):
    agent = AgentFactory(owner=alice)
    conversation = Conversation.objects.create(agent=agent, user=bob)
    run = FlowRun.objects.create(
        flow=FlowFactory(owner=alice),
        trigger="agent",
        status="succeeded",
        results={"secret": {"token": SECRET}, "summary": {"found": "x"}},
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
