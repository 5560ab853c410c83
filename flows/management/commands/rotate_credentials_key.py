"""`manage.py rotate_credentials_key`: re-encrypt every credential with the first key.

Rotation: put the new key first in CREDENTIALS_KEY (`new,old`), restart, run
this, then drop the old key. Each row is re-encrypted in its own short
transaction with a row lock, so a credential edited meanwhile is not
overwritten; one that no key opens is reported and left as it is (exit 1).
Other apps' columns under the same key (`crypto.ALSO_ENCRYPTED`: two-factor
secrets) are re-encrypted the same way.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from core import crypto
from flows.models import Credential


class Command(BaseCommand):
    help = "Re-encrypt every credential with the first key of CREDENTIALS_KEY."

    def handle(self, *args, **options):
        rotated, failed = 0, []
        # A server credential without a password holds nothing to re-encrypt.
        stored = Credential.objects.exclude(encrypted="")
        for pk in stored.values_list("pk", flat=True):
            with transaction.atomic():
                credential = (
                    Credential.objects.select_for_update().filter(pk=pk).first()
                )
                if credential is None:  # deleted meanwhile
                    continue
                try:
                    token = crypto.rotate(credential.encrypted)
                except crypto.UndecryptableValue:
                    failed.append(
                        f"{credential.name} (workspace {credential.workspace_id})"
                    )
                    continue
                Credential.objects.filter(pk=pk).update(encrypted=token)
                rotated += 1
        self.stdout.write(f"Re-encrypted {rotated} credential(s).")
        for label, model, field in crypto.ALSO_ENCRYPTED:
            count = self.rotate_column(model, field, failed, label)
            self.stdout.write(f"Re-encrypted {count} {label}(s).")
        if failed:
            raise CommandError(
                "No key in CREDENTIALS_KEY decrypts: " + ", ".join(failed)
            )

    @staticmethod
    def rotate_column(model, field: str, failed: list, label: str) -> int:
        rotated = 0
        for pk in model.objects.values_list("pk", flat=True):
            with transaction.atomic():
                row = model.objects.select_for_update().filter(pk=pk).first()
                if row is None:
                    continue
                try:
                    token = crypto.rotate(getattr(row, field))
                except crypto.UndecryptableValue:
                    failed.append(f"{label} {pk}")
                    continue
                model.objects.filter(pk=pk).update(**{field: token})
                rotated += 1
        return rotated
