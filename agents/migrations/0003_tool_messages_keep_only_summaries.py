"""Tool messages stored before tool results became summaries held the whole run:
every node's output, shown to whoever chatted. Rewrite them as the summary the
model gets now (`agents.tools.run_summary`), so those inner outputs leave the
chat history too; they stay in the run, for its owner."""

import json

from django.db import migrations

WITHHELD = {
    "success": False,
    "error": {
        "code": "result_withheld",
        "message": "This older tool result showed the run's inner outputs.",
    },
}


def last_output(run):
    """The output of the run's last succeeded step, by its position in the run.

    Not the last key of `run.results`: PostgreSQL's jsonb keeps keys in its own
    order (shortest first), so that "last" could be an inner node's output.
    """
    node_id = (
        run.steps.filter(status="succeeded")
        .order_by("-position")
        .values_list("node_id", flat=True)
        .first()
    )
    return (run.results or {}).get(node_id) if node_id else None


def summary_of(message) -> dict:
    """The summary from the run when it still exists, else from the stored JSON
    (written in run order, so its last result is the last node's)."""
    run = message.run
    if run is not None:
        success = run.status == "succeeded"
        output = None
        if success:
            output = run.response.get("body") if run.response else last_output(run)
        return {
            "success": success,
            "status": run.status,
            "output": output,
            "error": run.error,
        }
    try:
        stored = json.loads(message.content)
    except ValueError:
        return WITHHELD
    output = None
    if stored.get("success") and stored.get("results"):
        output = list(stored["results"].values())[-1]
    return {
        "success": bool(stored.get("success")),
        "status": stored.get("status"),
        "output": output,
        "error": stored.get("error"),
    }


def rewrite_whole_runs(apps, schema_editor):
    Message = apps.get_model("agents", "Message")
    old = Message.objects.filter(role="tool", content__contains='"results":')
    for message in old.select_related("run").iterator():
        text = json.dumps(summary_of(message), default=str)
        if len(text) > 16_000:
            text = text[:16_000] + " …(truncated)"
        message.content = text
        message.save(update_fields=["content"])


class Migration(migrations.Migration):
    dependencies = [
        ("agents", "0002_message_tool_name"),
        ("flows", "0002_runstep_drop_redundant_run_index"),
    ]

    operations = [
        migrations.RunPython(rewrite_whole_runs, migrations.RunPython.noop),
    ]
