"""`manage.py seed_demo`: a demo user and flow for a first look, plus what apps add.

The demo agent comes from agents, through `flows.demo.SEED_HOOKS` (filled by
`AgentsConfig.ready()`), so this command never imports agents.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from accounts.audit.actor import Actor
from flows.demo import (
    DEMO_FLOW_NAME,
    DEMO_FORM_SLUG,
    SEED_HOOKS,
    approval_graph,
    contact_form_graph,
    fulfilment_graph,
    issue_to_slack_graph,
    orders_graph,
    signup_summary_graph,
    webhook_code_graph,
)
from flows.history.save import save_flow
from flows.models import Flow

# The worked examples of docs/engine.md; they need credentials before they run.
WORKED_EXAMPLES = [
    (
        "Yesterday's signups",
        "Every morning, count yesterday's signups and post a summary. Pick a "
        "PostgreSQL credential and your chat URL, then enable the schedule.",
        signup_summary_graph,
    ),
    (
        "Approve by e-mail",
        "E-mails a resume link to input.approver and waits for Approve or Reject. "
        "Pick an SMTP credential first.",
        approval_graph,
    ),
    (
        "GitHub issue to Slack",
        "Opens a GitHub issue from input.owner, input.repo, input.title and "
        "input.details, then posts its link to #issues. Pick a GitHub and a "
        "Slack credential first.",
        issue_to_slack_graph,
    ),
]

FORM_DESCRIPTION = "A public contact form; each answer is a run."
FULFIL_NAME = "Fulfil order"
FULFIL_DESCRIPTION = "Ships one order; fails for an order without a sku."
ORDERS_NAME = "Orders"
ORDERS_DESCRIPTION = (
    "For each order in input.orders, calls 'Fulfil order'; if any fail, e-mails "
    "input.approver a link to approve a retry. Pick an SMTP credential first."
)


def create_flow(user, name: str, description: str, nodes, edges) -> Flow:
    """A new flow of `user`'s, written through save_flow like every other."""
    flow = Flow(created_by=user)
    changes = {"name": name, "description": description}
    changes |= {"nodes": nodes, "edges": edges}
    save_flow(flow, changes, actor=Actor.system("seed_demo"), source="create")
    return flow


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
        flow = Flow.objects.filter(created_by=user, name=DEMO_FLOW_NAME).first()
        if flow is None:
            flow = Flow(created_by=user)
            fields = {
                "name": DEMO_FLOW_NAME,
                "description": "Greets whoever is named in input.name.",
                "input_schema": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}},
                },
                "nodes": nodes,
                "edges": edges,
                # It describes its input, so an MCP client may try it at once.
                "mcp_offered": True,
            }
            save_flow(flow, fields, actor=Actor.system("seed_demo"), source="create")
            self.stdout.write(f"  Demo flow '{flow.name}': {flow.webhook_url}")
        for name, description, graph in WORKED_EXAMPLES:
            nodes, edges = graph()
            if not Flow.objects.filter(created_by=user, name=name).exists():
                create_flow(user, name, description, nodes, edges)
        self.seed_orders(user)
        self.seed_form(user)
        for hook in SEED_HOOKS:
            hook(user, flow, self.stdout)

    def seed_form(self, user) -> None:
        """A contact form at /f/contact, unless some flow holds that address."""
        if Flow.objects.filter(form_slug=DEMO_FORM_SLUG).exists():
            return
        nodes, edges = contact_form_graph()
        flow = create_flow(user, "Contact form", FORM_DESCRIPTION, nodes, edges)
        self.stdout.write(f"  Demo form '{flow.name}': {settings.BASE_URL}/f/contact")

    def seed_orders(self, user) -> None:
        """docs/examples.md's first example: "Orders" calls "Fulfil order" by id,
        so the called flow is seeded first."""
        fulfil = Flow.objects.filter(created_by=user, name=FULFIL_NAME).first()
        if fulfil is None:
            nodes, edges = fulfilment_graph()
            fulfil = create_flow(user, FULFIL_NAME, FULFIL_DESCRIPTION, nodes, edges)
        if not Flow.objects.filter(created_by=user, name=ORDERS_NAME).exists():
            nodes, edges = orders_graph(str(fulfil.pk))
            create_flow(user, ORDERS_NAME, ORDERS_DESCRIPTION, nodes, edges)
