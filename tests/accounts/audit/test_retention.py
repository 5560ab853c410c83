"""Audit events older than AUDIT_RETENTION_DAYS are pruned; newer ones stay."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from accounts.audit.models import AuditEvent
from accounts.audit.retention import prune_audit

pytestmark = pytest.mark.django_db


def event(days_ago):
    return AuditEvent.objects.create(
        action="auth.login",
        actor_label="alice",
        at=timezone.now() - timedelta(days=days_ago),
    )


def test_events_past_the_retention_are_deleted_in_batches(settings):
    settings.AUDIT_RETENTION_DAYS = 365
    old = [event(400) for _ in range(5)]
    kept = event(300)

    assert prune_audit(batch_size=2) == 5

    assert list(AuditEvent.objects.all()) == [kept]
    assert not AuditEvent.objects.filter(pk__in=[e.pk for e in old]).exists()


def test_zero_keeps_every_event(settings):
    settings.AUDIT_RETENTION_DAYS = 0
    event(4000)

    assert prune_audit() == 0
    assert AuditEvent.objects.count() == 1


def test_the_supervisor_prunes_the_audit_log(settings, capsys):
    settings.AUDIT_RETENTION_DAYS = 30
    event(31)
    event(1)

    call_command("supervise", "--once")

    assert AuditEvent.objects.count() == 1
    assert "Pruned 1 audit events" in capsys.readouterr().out


def test_a_workspaces_old_events_are_pruned_too(settings, alice):
    settings.AUDIT_RETENTION_DAYS = 30
    workspace = alice.personal_workspace
    old = AuditEvent.objects.create(
        action="flow.updated",
        actor_label="alice",
        workspace=workspace,
        at=timezone.now() - timedelta(days=31),
    )
    kept = AuditEvent.objects.create(
        action="flow.updated", actor_label="alice", workspace=workspace
    )

    assert prune_audit() == 1
    assert list(AuditEvent.objects.values_list("pk", flat=True)) == [kept.pk]
    assert not AuditEvent.objects.filter(pk=old.pk).exists()
