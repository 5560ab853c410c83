"""`FlowRun.run_after`: a queued run is not taken before it.

On the database engine a queued run is taken straight from the runs table
(flows/engine/enqueue_db.py), so the wait of a node's retry lives on the run.
A run already queued to retry kept its wait on its task: its `run_after` is
set from its lease, which `background.requeue` set to the end of the wait
plus `QUEUED_RECHECK_SECONDS`.
"""

from datetime import timedelta

from django.db import migrations, models
from django.db.models import F

QUEUED_RECHECK_SECONDS = 60  # flows/engine/background.py, when this was written


def wait_on_the_run(apps, schema_editor):
    FlowRun = apps.get_model("flows", "FlowRun")
    FlowRun.objects.filter(
        status="queued", retry_state__isnull=False, lease_expires_at__isnull=False
    ).update(
        run_after=F("lease_expires_at") - timedelta(seconds=QUEUED_RECHECK_SECONDS)
    )


class Migration(migrations.Migration):
    dependencies = [
        ("flows", "0046_form_password"),
    ]

    operations = [
        migrations.AddField(
            model_name="flowrun",
            name="run_after",
            field=models.DateTimeField(
                blank=True,
                help_text="A queued run is not taken before this (a node's retry waits).",
                null=True,
            ),
        ),
        migrations.RunPython(wait_on_the_run, migrations.RunPython.noop),
    ]
