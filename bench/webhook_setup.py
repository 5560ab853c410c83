"""Create the benchmark's user and flow (webhook -> code node); print the flow id."""

from __future__ import annotations

import django

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402

from flows.models import Flow  # noqa: E402

CODE = "return {greeting: 'hi ' + input.name, n: input.items.length};"

user, _ = get_user_model().objects.get_or_create(username="bench")
flow = Flow.objects.create(
    owner=user,
    name="Bench greeter",
    nodes=[
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
            "position": {"x": 300, "y": 80},
            "data": {"language": "javascript", "code": CODE},
        },
    ],
    edges=[{"id": "e1", "source": "trigger", "target": "greet", "sourceHandle": None}],
)
print(flow.id)
