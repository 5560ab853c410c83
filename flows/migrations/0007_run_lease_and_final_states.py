
from django.db import migrations, models
from django.utils import timezone


def forward(apps, schema_editor):
    """`interrupted` was `failed` with error code `interrupted`; runs still
    open get an expired lease, so the supervisor ends them at its next pass."""
    FlowRun = apps.get_model("flows", "FlowRun")
    FlowRun.objects.filter(status="failed", error__code="interrupted").update(
        status="interrupted"
    )
    FlowRun.objects.filter(status__in=["queued", "running"]).update(
        lease_expires_at=timezone.now()
    )


def backward(apps, schema_editor):
    FlowRun = apps.get_model("flows", "FlowRun")
    FlowRun.objects.filter(status__in=["interrupted", "cancelled"]).update(
        status="failed"
    )


class Migration(migrations.Migration):

    dependencies = [
        ('flows', '0006_flowrun_pinned_and_created_index'),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='flowrun',
            name='run_status_idx',
        ),
        migrations.AddField(
            model_name='flow',
            name='webhook_response_mode',
            field=models.CharField(choices=[('completed', 'When the flow completes'), ('immediately', 'Immediately (202, run on a worker)')], default='completed', help_text='When the webhook answers; a request may ask for `Prefer: respond-async` either way.', max_length=16),
        ),
        migrations.AddField(
            model_name='flowrun',
            name='attempts',
            field=models.PositiveIntegerField(default=0, help_text='How many executors have taken the run (resumes + 1).'),
        ),
        migrations.AddField(
            model_name='flowrun',
            name='background',
            field=models.BooleanField(default=False, help_text='Executed by a worker (resumable), not by the request that started it.'),
        ),
        migrations.AddField(
            model_name='flowrun',
            name='cancel_requested',
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name='flowrun',
            name='lease_expires_at',
            field=models.DateTimeField(blank=True, help_text='Its executor renews this while the run goes on; past it, the supervisor resumes or interrupts the run.', null=True),
        ),
        migrations.AddField(
            model_name='runstep',
            name='handle',
            field=models.CharField(blank=True, default='', help_text='The output a branching node left through; a resumed run fires the same edges.', max_length=100),
        ),
        migrations.AlterField(
            model_name='flowrun',
            name='status',
            field=models.CharField(choices=[('queued', 'Queued'), ('running', 'Running'), ('succeeded', 'Succeeded'), ('failed', 'Failed'), ('timed_out', 'Timed Out'), ('cancelled', 'Cancelled'), ('interrupted', 'Interrupted')], default='queued', max_length=16),
        ),
        migrations.AddIndex(
            model_name='flowrun',
            index=models.Index(fields=['status', 'lease_expires_at'], name='run_status_lease_idx'),
        ),
        migrations.RunPython(forward, backward),
    ]
