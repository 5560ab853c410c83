"""factory-boy factories shared by the whole suite."""

from __future__ import annotations

import factory
from django.contrib.auth import get_user_model

from agents.models import Agent
from flows.models import Flow, FlowRun

PASSWORD = "correct horse battery staple"


def webhook_code_graph(code="return {greeting: 'hi ' + input.name};"):
    """The smallest useful flow: a webhook trigger feeding one code node."""
    nodes = [
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
            "data": {"language": "javascript", "code": code},
        },
    ]
    edges = [{"id": "e1", "source": "trigger", "target": "greet", "sourceHandle": None}]
    return nodes, edges


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ["username"]

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda user: f"{user.username}@example.com")
    password = factory.django.Password(PASSWORD)


class FlowFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Flow

    owner = factory.SubFactory(UserFactory)
    name = factory.Sequence(lambda n: f"Flow {n}")
    nodes = factory.LazyFunction(lambda: webhook_code_graph()[0])
    edges = factory.LazyFunction(lambda: webhook_code_graph()[1])


class FlowRunFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = FlowRun

    flow = factory.SubFactory(FlowFactory)
    trigger = FlowRun.Trigger.MANUAL
    status = FlowRun.Status.SUCCEEDED


class AgentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Agent

    name = factory.Sequence(lambda n: f"Agent {n}")
    model = "echo:demo"
    system_prompt = "You are helpful."
