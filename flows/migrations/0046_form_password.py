"""A form's password leaves its node: hashed on the flow, and gone from every
stored version (docs/forms.md, "The password")."""

from django.contrib.auth.hashers import make_password
from django.db import migrations, models


def _take_password(nodes):
    """Pop a form node's password from `nodes` (in place): None when no form
    node had one, else the password ("" when blank)."""
    typed = None
    for node in nodes or []:
        data = node.get("data") if isinstance(node, dict) else None
        is_form = isinstance(node, dict) and node.get("type") == "form"
        if is_form and isinstance(data, dict) and "password" in data:
            value = data.pop("password")
            typed = value if isinstance(value, str) else ""
    return typed


def seal_passwords(apps, schema_editor):
    Flow = apps.get_model("flows", "Flow")
    FlowVersion = apps.get_model("flows", "FlowVersion")
    for flow in Flow.objects.only("nodes").iterator():
        typed = _take_password(flow.nodes)
        if typed is not None:
            flow.form_password = make_password(typed) if typed else ""
            flow.save(update_fields=["nodes", "form_password"])
    for version in FlowVersion.objects.only("nodes").iterator():
        if _take_password(version.nodes) is not None:
            version.save(update_fields=["nodes"])


class Migration(migrations.Migration):
    dependencies = [
        ("flows", "0045_credential_kind_any"),
    ]

    operations = [
        migrations.AddField(
            model_name="flow",
            name="form_password",
            field=models.CharField(blank=True, editable=False, max_length=200),
        ),
        migrations.RunPython(seal_passwords, migrations.RunPython.noop),
    ]
