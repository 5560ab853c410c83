"""Each user gets a personal workspace and its owner membership; their flows
and credentials land in it (agents: agents/migrations/0008). Batched by user,
so memory stays flat on a large install; reversing only empties the columns."""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import migrations
from django.utils.text import slugify


def unique_slug(Workspace, name):
    base = slugify(name)[:50] or "workspace"
    slug, n = base, 1
    while Workspace.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    return slug


def fill(apps, schema_editor):
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    Workspace = apps.get_model("flows", "Workspace")
    Membership = apps.get_model("flows", "Membership")
    Flow = apps.get_model("flows", "Flow")
    Credential = apps.get_model("flows", "Credential")
    username_field = get_user_model().USERNAME_FIELD
    for user in User.objects.order_by("pk").iterator(chunk_size=500):
        workspace = Workspace.objects.filter(personal_of=user).first()
        if workspace is None:
            username = getattr(user, username_field)
            workspace = Workspace.objects.create(
                name=username,
                slug=unique_slug(Workspace, username),
                personal_of=user,
            )
            Membership.objects.create(workspace=workspace, user=user, role="owner")
        Flow.objects.filter(owner=user, workspace=None).update(workspace=workspace)
        Credential.objects.filter(owner=user, workspace=None).update(
            workspace=workspace
        )


def unfill(apps, schema_editor):
    apps.get_model("flows", "Flow").objects.update(workspace=None)
    apps.get_model("flows", "Credential").objects.update(workspace=None)
    apps.get_model("flows", "Workspace").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [
        ("flows", "0021_workspaces"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [migrations.RunPython(fill, unfill, elidable=False)]
