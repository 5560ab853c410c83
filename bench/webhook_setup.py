"""Create the benchmark's user and flow (webhook -> code node); print the flow id."""

from __future__ import annotations

import django

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402

from flows.demo import webhook_code_graph  # noqa: E402
from flows.models import Flow  # noqa: E402

CODE = "return {greeting: 'hi ' + input.name, n: input.items.length};"

user, _ = get_user_model().objects.get_or_create(username="bench")
nodes, edges = webhook_code_graph(CODE)
flow = Flow.objects.create(
    created_by=user, name="Bench greeter", nodes=nodes, edges=edges
)
print(flow.id)
