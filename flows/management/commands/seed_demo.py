"""`manage.py seed_demo`: a demo user and flow for a first look, plus what apps add.

The demo agent comes from agents, through `flows.demo.SEED_HOOKS` (filled by
`AgentsConfig.ready()`), so this command never imports agents.
"""

from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from flows.audit.actor import Actor
from flows.demo import DEMO_FLOW_NAME, SEED_HOOKS, webhook_code_graph
from flows.history.save import save_flow
from flows.models import Flow


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
        nodes, edges = webhook_code_graph()
        flow = Flow.objects.filter(owner=user, name=DEMO_FLOW_NAME).first()
        if flow is None:
            flow = Flow(owner=user)
            fields = {
                "name": DEMO_FLOW_NAME,
                "description": "Greets whoever is named in input.name.",
                "input_schema": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}},
                },
                "nodes": nodes,
                "edges": edges,
            }
            save_flow(flow, fields, actor=Actor.system("seed_demo"), source="create")
            self.stdout.write(f"  Demo flow '{flow.name}': {flow.webhook_url}")
        for hook in SEED_HOOKS:
            hook(user, flow, self.stdout)
