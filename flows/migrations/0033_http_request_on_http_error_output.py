"""Every saved http_request node keeps treating a 4xx/5xx answer as its output.

A node without `on_http_error` now fails on such an answer (`fail`, the
default for new nodes); before, the answer was the output. So each
http_request node that exists at upgrade, in a flow's graph and in every
stored version of it (a restored version must mean what it meant), gets
`on_http_error: "output"` written out. A node that already names a choice
keeps it. Batched: 500 rows read at a time, and only the rows that change are
written. Backwards there is nothing to undo: older code ignores the key and
behaves as `output` does.
"""

from django.db import migrations

BATCH = 500


def with_error_answers_kept(nodes):
    """`nodes` with `on_http_error: "output"` on each http_request node that
    names no choice; None when no node needs it."""
    if not isinstance(nodes, list):
        return None
    changed = False
    kept = []
    for node in nodes:
        if isinstance(node, dict) and node.get("type") == "http_request":
            data = node.get("data") if isinstance(node.get("data"), dict) else {}
            if "on_http_error" not in data:
                node = {**node, "data": {**data, "on_http_error": "output"}}
                changed = True
        kept.append(node)
    return kept if changed else None


def keep_error_answers(apps, schema_editor):
    for model_name in ("Flow", "FlowVersion"):
        model = apps.get_model("flows", model_name)
        rows = model.objects.order_by("pk").only("pk", "nodes")
        for row in rows.iterator(chunk_size=BATCH):
            nodes = with_error_answers_kept(row.nodes)
            if nodes is not None:
                model.objects.filter(pk=row.pk).update(nodes=nodes)


class Migration(migrations.Migration):
    dependencies = [("flows", "0032_webhook_signature_scheme")]

    operations = [migrations.RunPython(keep_error_answers, migrations.RunPython.noop)]
