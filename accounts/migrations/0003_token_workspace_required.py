import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("accounts", "0002_token_workspace")]

    operations = [
        migrations.AlterField(
            model_name="apitoken",
            name="workspace",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="api_tokens",
                to="flows.workspace",
            ),
        ),
    ]
