"""A run retried from its failed node points at the run it retried (issue 38,
`POST /api/runs/:id/retry`)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("flows", "0035_oauth2_credentials"),
    ]

    operations = [
        migrations.AddField(
            model_name="flowrun",
            name="retry_of",
            field=models.ForeignKey(
                blank=True,
                help_text="The failed run this one retried.",
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="retries",
                to="flows.flowrun",
            ),
        ),
    ]
