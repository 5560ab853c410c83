"""Each existing flow's first `FlowVersion`: its state when history began.

Written at the flow's current `version`, so runs that already record that
number find their graph, with source `upgrade` and the owner as its author.
Batched: one INSERT per 500 flows.
"""

from django.db import migrations

BATCH = 500


def first_versions(apps, schema_editor):
    Flow = apps.get_model("flows", "Flow")
    FlowVersion = apps.get_model("flows", "FlowVersion")
    flows = (
        Flow.objects.filter(versions__isnull=True)
        .select_related("owner")
        .order_by("pk")
    )
    batch = []
    for flow in flows.iterator(chunk_size=BATCH):
        batch.append(
            FlowVersion(
                flow=flow,
                number=flow.version,
                name=flow.name,
                description=flow.description,
                input_schema=flow.input_schema,
                nodes=flow.nodes,
                edges=flow.edges,
                settings={
                    "webhook_enabled": flow.webhook_enabled,
                    "webhook_response_mode": flow.webhook_response_mode,
                    "error_flow_id": (
                        str(flow.error_flow_id) if flow.error_flow_id else None
                    ),
                },
                source="upgrade",
                created_by=flow.owner,
                created_by_label=flow.owner.username,
            )
        )
        if len(batch) == BATCH:
            FlowVersion.objects.bulk_create(batch)
            batch = []
    FlowVersion.objects.bulk_create(batch)


class Migration(migrations.Migration):
    dependencies = [("flows", "0014_flow_versions")]

    # Backwards: 0014's reversal drops the table with these rows.
    operations = [migrations.RunPython(first_versions, migrations.RunPython.noop)]
