"""A run's flow without a foreign key constraint, and without its own index.

The constraint's check took `FOR KEY SHARE` on the flow's row for every run
stored: one flow's concurrent 202s all locked the same row (a multixact each
time two overlapped), about a sixth of the run's INSERT on PostgreSQL's CPU
(bench/README.md, "Round 8"). Deleting a flow still deletes its runs (Django's
cascade, in Python, as before); a run stored while its flow was being deleted
is cleaned up by flows/engine/orphans.py. The index on `flow_id` alone was
a second copy of what `run_flow_created_idx` (flow, -created_at) starts with.

Going back puts the constraint back, after deleting the runs whose flow is
gone (it could not be added over them).
"""

import django.db.models.deletion
from django.db import migrations, models


def delete_runs_without_a_flow(apps, schema_editor):
    FlowRun = apps.get_model("flows", "FlowRun")
    Flow = apps.get_model("flows", "Flow")
    gone = ~models.Exists(Flow.objects.filter(pk=models.OuterRef("flow_id")))
    FlowRun.objects.filter(gone).delete()
    if schema_editor.connection.vendor == "postgresql":
        # The deletes' deferred checks now: PostgreSQL alters no table with
        # trigger events pending.
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")


class Migration(migrations.Migration):
    dependencies = [
        ("flows", "0047_run_after"),
    ]

    operations = [
        migrations.AlterField(
            model_name="flowrun",
            name="flow",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="runs",
                to="flows.flow",
            ),
        ),
        # Backwards only: before the constraint comes back.
        migrations.RunPython(migrations.RunPython.noop, delete_runs_without_a_flow),
    ]
