import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("flows", "0022_workspaces_fill"),
    ]

    operations = [
        migrations.AlterField(
            model_name="flow",
            name="workspace",
            field=models.ForeignKey(
                help_text="Whose flow it is: its members reach it, by their role.",
                on_delete=django.db.models.deletion.PROTECT,
                related_name="flows",
                to="flows.workspace",
            ),
        ),
        migrations.AlterField(
            model_name="credential",
            name="workspace",
            field=models.ForeignKey(
                help_text="Every flow of this workspace may use it.",
                on_delete=django.db.models.deletion.PROTECT,
                related_name="credentials",
                to="flows.workspace",
            ),
        ),
    ]
