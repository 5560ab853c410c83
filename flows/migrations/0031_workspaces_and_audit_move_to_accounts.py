"""Workspaces, memberships and the audit log now belong to the accounts app
(issue 34): flows forgets their state and points its foreign keys there; the
tables and constraints stay as they are."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('agents', '0012_workspace_in_accounts'),
        ('accounts', '0006_workspaces_and_audit_move_here'),
        ('flows', '0030_task_queue_notify_later'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(
                    model_name='membership',
                    name='invited_by',
                ),
                migrations.RemoveField(
                    model_name='membership',
                    name='user',
                ),
                migrations.RemoveField(
                    model_name='membership',
                    name='workspace',
                ),
                migrations.RemoveField(
                    model_name='workspace',
                    name='personal_of',
                ),
                migrations.AlterField(
                    model_name='credential',
                    name='workspace',
                    field=models.ForeignKey(help_text='Every flow of this workspace may use it.', on_delete=django.db.models.deletion.PROTECT, related_name='credentials', to='accounts.workspace'),
                ),
                migrations.AlterField(
                    model_name='flow',
                    name='workspace',
                    field=models.ForeignKey(help_text='Whose flow it is: its members reach it, by their role.', on_delete=django.db.models.deletion.PROTECT, related_name='flows', to='accounts.workspace'),
                ),
                migrations.DeleteModel(
                    name='AuditEvent',
                ),
                migrations.DeleteModel(
                    name='Membership',
                ),
                migrations.DeleteModel(
                    name='Workspace',
                ),
            ],
        ),
    ]
