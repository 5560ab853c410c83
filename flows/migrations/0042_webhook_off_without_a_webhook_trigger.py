"""A flow's webhook answers only when the flow has a Webhook trigger node
(issue 34, part 2, item 4): today's flows without one (schedule-only flows,
sub-flows) have their webhook turned off, so the flag says what the URL does.
A flow with a form trigger keeps it: the flag also turns its form page on and
off (docs/forms.md).
Nothing is turned back on when reversed (docs/history.md, "Changelog")."""

from django.db import migrations


def turn_off_webhooks_without_a_trigger(apps, schema_editor):
    Flow = apps.get_model("flows", "Flow")
    without = [
        flow.pk
        for flow in Flow.objects.filter(webhook_enabled=True)
        .only("pk", "nodes")
        .iterator(chunk_size=500)
        if not any(
            isinstance(node, dict) and node.get("type") in ("webhook", "form")
            for node in flow.nodes or []
        )
    ]
    for start in range(0, len(without), 500):
        Flow.objects.filter(pk__in=without[start : start + 500]).update(
            webhook_enabled=False
        )


class Migration(migrations.Migration):
    dependencies = [("flows", "0041_uploaded_apps")]

    operations = [
        migrations.RunPython(
            turn_off_webhooks_without_a_trigger, migrations.RunPython.noop
        )
    ]
