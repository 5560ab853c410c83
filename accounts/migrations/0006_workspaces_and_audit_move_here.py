"""Workspaces, memberships and the audit log move from the flows app to accounts
(issue 34): the models' state only; their tables keep their names
(flows_workspace, flows_membership, flows_auditevent), so no row is copied."""

import django.db.models.deletion
import django.utils.timezone
import uuid
from django.conf import settings
from django.db import migrations, models


MOVED = ["workspace", "membership", "auditevent"]


def move_content_types(apps, schema_editor, old="flows", new="accounts"):
    """The admin's log and permissions point at content types: keep them."""
    content_types = apps.get_model("contenttypes", "ContentType")
    taken = set(
        content_types.objects.filter(app_label=new, model__in=MOVED).values_list(
            "model", flat=True
        )
    )
    content_types.objects.filter(app_label=old, model__in=MOVED).exclude(
        model__in=taken
    ).update(app_label=new)


def move_content_types_back(apps, schema_editor):
    move_content_types(apps, schema_editor, old="accounts", new="flows")


class Migration(migrations.Migration):

    dependencies = [
        ('flows', '0030_task_queue_notify_later'),
        ('accounts', '0005_workspace_tokens'),
        ('contenttypes', '0002_remove_content_type_name'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='Workspace',
                    fields=[
                        ('id', models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                        ('name', models.CharField(max_length=100)),
                        ('slug', models.SlugField(max_length=60, unique=True)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('personal_of', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='personal_workspace', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'flows_workspace',
                        'ordering': ['name'],
                    },
                ),
                migrations.AlterField(
                    model_name='apitoken',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='api_tokens', to='accounts.workspace'),
                ),
                migrations.CreateModel(
                    name='Membership',
                    fields=[
                        ('id', models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                        ('role', models.CharField(choices=[('viewer', 'Viewer'), ('runner', 'Runner'), ('editor', 'Editor'), ('admin', 'Admin'), ('owner', 'Owner')], max_length=16)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('invited_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                        ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='memberships', to=settings.AUTH_USER_MODEL)),
                        ('workspace', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='memberships', to='accounts.workspace')),
                    ],
                    options={
                        'db_table': 'flows_membership',
                        'ordering': ['created_at'],
                        'indexes': [models.Index(fields=['user', 'workspace'], name='membership_user_idx')],
                        'constraints': [models.UniqueConstraint(fields=('workspace', 'user'), name='membership_workspace_user_unique')],
                    },
                ),
                migrations.CreateModel(
                    name='AuditEvent',
                    fields=[
                        ('id', models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                        ('at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('action', models.CharField(max_length=64)),
                        ('actor_label', models.CharField(max_length=150)),
                        ('token_label', models.CharField(blank=True, help_text='The API token used, by its prefix.', max_length=64)),
                        ('target_type', models.CharField(blank=True, max_length=32)),
                        ('target_id', models.CharField(blank=True, max_length=64)),
                        ('target_label', models.CharField(blank=True, max_length=200)),
                        ('changes', models.JSONField(blank=True, default=dict)),
                        ('address', models.CharField(blank=True, max_length=64)),
                        ('user_agent', models.CharField(blank=True, max_length=300)),
                        ('request_id', models.CharField(blank=True, max_length=64)),
                        ('actor', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                        ('workspace', models.ForeignKey(blank=True, db_index=False, help_text='The workspace of what was changed; none for sign-ins.', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='accounts.workspace')),
                    ],
                    options={
                        'db_table': 'flows_auditevent',
                        'ordering': ['-at', '-id'],
                        'indexes': [models.Index(fields=['at'], name='audit_at_idx'), models.Index(fields=['workspace', 'at'], name='audit_workspace_at_idx'), models.Index(fields=['target_type', 'target_id', 'at'], name='audit_target_idx')],
                    },
                ),
            ],
            database_operations=[
                migrations.RunPython(move_content_types, move_content_types_back),
            ],
        ),
    ]
