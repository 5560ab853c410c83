"""Invitations kept per name typed, with or without an account behind it.

Rows sent before this had no typed name stored: they take their invitee's
username, which is unique in each workspace as the rows were.
"""

import django.db.models.deletion
import django.db.models.functions.text
from django.conf import settings
from django.db import migrations, models


def address_from_username(apps, schema_editor):
    Invitation = apps.get_model("accounts", "Invitation")
    for invitation in Invitation.objects.select_related("user"):
        invitation.address = invitation.user.username
        invitation.save(update_fields=["address"])


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0010_preference"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="invitation",
            name="address",
            field=models.CharField(default="", max_length=254),
            preserve_default=False,
        ),
        migrations.RunPython(address_from_username, migrations.RunPython.noop),
        migrations.RemoveConstraint(
            model_name="invitation", name="invitation_once_per_workspace"
        ),
        migrations.AlterField(
            model_name="invitation",
            name="user",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="invitations",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddConstraint(
            model_name="invitation",
            constraint=models.UniqueConstraint(
                django.db.models.functions.text.Lower("address"),
                models.F("workspace"),
                name="invitation_once_per_address",
            ),
        ),
    ]
