"""An agent's workspace is the accounts app's now (issue 34); the column and
its foreign key stay as they are."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0006_workspaces_and_audit_move_here'),
        ('agents', '0011_owner_becomes_created_by'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='agent',
                    name='workspace',
                    field=models.ForeignKey(blank=True, help_text='Whose agent it is; none for a shared agent nobody owns.', null=True, on_delete=django.db.models.deletion.PROTECT, related_name='agents', to='accounts.workspace'),
                ),
            ],
        ),
    ]
