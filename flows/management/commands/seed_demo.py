"""`manage.py seed_demo`: a demo user, agent and flow for a first look."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from agents.models import Agent, validate_model_string
from flows.models import Flow

DEMO_FLOW_NODES = [
    {
        "id": "trigger",
        "type": "webhook",
        "name": "Webhook",
        "position": {"x": 40, "y": 80},
        "data": {"method": "POST"},
    },
    {
        "id": "greet",
        "type": "code",
        "name": "Greet",
        "position": {"x": 320, "y": 80},
        "data": {
            "language": "javascript",
            "code": "return {greeting: 'hi ' + (input.name || 'there')};",
        },
    },
]
DEMO_FLOW_EDGES = [
    {"id": "e1", "source": "trigger", "target": "greet", "sourceHandle": None}
]


class Command(BaseCommand):
    help = "Create a demo user (only when there are no users), a demo agent and flow."

    def handle(self, *args, **options):
        User = get_user_model()
        if not User.objects.exists():
            password = secrets.token_urlsafe(9)
            User.objects.create_superuser("demo", "demo@example.com", password)
            self.stdout.write(
                self.style.SUCCESS(
                    f"\n  Demo user created. Sign in at /login/ as  demo / {password}\n"
                )
            )
        user = User.objects.filter(username="demo").first()
        if user is None:
            return
        flow, created = Flow.objects.get_or_create(
            owner=user,
            name="Say hello",
            defaults={
                "description": "Greets whoever is named in input.name.",
                "input_schema": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}},
                },
                "nodes": DEMO_FLOW_NODES,
                "edges": DEMO_FLOW_EDGES,
            },
        )
        if created:
            self.stdout.write(f"  Demo flow 'Say hello': {flow.webhook_url}")
        agent, created = Agent.objects.get_or_create(
            name="Echo",
            defaults={
                "owner": user,
                "model": "echo:demo",
                "description": "Offline demo agent: answers without any network.",
                "system_prompt": "You are a helpful assistant.",
            },
        )
        if created:
            agent.tools.add(flow)
            self.stdout.write("  Demo agent 'Echo' (model echo:demo).")
        self.apply_demo_agent_model(agent)

    def apply_demo_agent_model(self, agent):
        """DEMO_AGENT_MODEL moves the demo agent to a real model (one setting)."""
        model = settings.DEMO_AGENT_MODEL
        if not model or agent.model == model:
            return
        try:
            validate_model_string(model)
        except ValidationError:
            raise CommandError(
                f"DEMO_AGENT_MODEL={model!r} is not provider:model-name."
            ) from None
        agent.model = model
        agent.save(update_fields=["model", "updated_at"])
        self.stdout.write(f"  Demo agent '{agent.name}' now uses {model}.")
