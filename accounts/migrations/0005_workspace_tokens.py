"""Workspace tokens (issue 23): `user` may be empty, with a `role_cap`; who
made a token is kept apart (`created_by`)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models
from django.db.models import F


def makers_are_users(apps, schema_editor):
    """Every token so far is personal: its user made it."""
    ApiToken = apps.get_model("accounts", "ApiToken")
    ApiToken.objects.update(created_by=F("user"))


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0004_merge_failures_tokens'),
        ('flows', '0028_owner_becomes_created_by'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='apitoken',
            name='created_by',
            field=models.ForeignKey(blank=True, help_text='Who made it (kept for the record; a workspace token outlives them).', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AddField(
            model_name='apitoken',
            name='role_cap',
            field=models.CharField(blank=True, choices=[('viewer', 'viewer'), ('runner', 'runner'), ('editor', 'editor')], help_text="A workspace token's role (viewer, runner or editor).", max_length=16),
        ),
        migrations.AlterField(
            model_name='apitoken',
            name='user',
            field=models.ForeignKey(blank=True, help_text='Whose personal token it is; empty for a workspace token.', null=True, on_delete=django.db.models.deletion.CASCADE, related_name='api_tokens', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AddConstraint(
            model_name='apitoken',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('role_cap', ''), ('user__isnull', False)), models.Q(('user__isnull', True), models.Q(('role_cap', ''), _negated=True)), _connector='OR'), name='apitoken_personal_or_workspace'),
        ),
        migrations.RunPython(makers_are_users, migrations.RunPython.noop),
    ]
