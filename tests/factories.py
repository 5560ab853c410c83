"""factory-boy factories shared by the whole suite.

The default flow is the demo graph (`flows.demo.webhook_code_graph`): a webhook
trigger feeding one code node, re-exported here for the tests that build it.
"""

from __future__ import annotations

import factory
from django.contrib.auth import get_user_model

from accounts.audit.actor import Actor
from agents.models import Agent
from flows.demo import webhook_code_graph
from flows.history.save import save_flow
from flows.models import Flow, FlowRun

PASSWORD = "correct horse battery staple"


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

    created_by = factory.SubFactory(UserFactory)
    name = factory.Sequence(lambda n: f"Flow {n}")
    nodes = factory.LazyFunction(lambda: webhook_code_graph()[0])
    edges = factory.LazyFunction(lambda: webhook_code_graph()[1])

    @classmethod
    def _create(cls, model_class, *args, **kwargs):
        """Created as the app creates flows, so each has its first version."""
        flow = model_class(*args, **kwargs)
        save_flow(flow, actor=Actor.system("factory"), source="create")
        return flow


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
    # Agents of tests that predate user-made agents are seen by every user.
    shared = True


def make_credential(
    owner, name="api_key", kind="bearer", secrets=None, workspace=None, **public
):
    """A stored credential (in `owner`'s personal workspace unless `workspace`);
    `secrets` defaults to a bearer token."""
    from flows.models import Credential

    credential = Credential(
        created_by=owner, workspace=workspace, name=name, kind=kind, public=public
    )
    credential.set_secrets(secrets or {"token": "tok-" + name + "-s3cr3t-value"})
    credential.save()
    return credential
