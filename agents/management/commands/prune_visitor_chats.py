"""`manage.py prune_visitor_chats [--dry-run]`: delete visitors' conversations
older than their agent's `visitor_retention_days` (since the last message),
with their messages. Run it from cron daily, as `prune_runs`.

Only visitors' conversations go (a signed-in user's stay); each agent's are
deleted in one statement, messages by cascade.
"""

from __future__ import annotations

from datetime import timedelta

from django.core.management.base import BaseCommand
from django.utils import timezone

from agents.models import Agent, Conversation


def expired_visitor_conversations(agent, now):
    cutoff = now - timedelta(days=agent.visitor_retention_days)
    return Conversation.objects.filter(agent=agent, updated_at__lt=cutoff).exclude(
        visitor=""
    )


class Command(BaseCommand):
    help = (
        "Delete visitors' conversations older than their agent's "
        "visitor_retention_days, with their messages."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--dry-run", action="store_true", help="Count what would go."
        )

    def handle(self, *args, dry_run, **options):
        now = timezone.now()
        agents = Agent.objects.filter(
            pk__in=Conversation.objects.exclude(visitor="").values("agent_id")
        ).only("pk", "visitor_retention_days")
        total = 0
        for agent in agents:
            expired = expired_visitor_conversations(agent, now)
            if dry_run:
                total += expired.count()
            else:
                total += expired.delete()[1].get("agents.Conversation", 0)
        verb = "Would delete" if dry_run else "Deleted"
        self.stdout.write(f"{verb} {total} visitor conversations.")
