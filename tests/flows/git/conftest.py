"""Two workspaces, staging and production, with the same credential in each,
and a flow in staging that uses it: the cast of the flows-as-files tests."""

from __future__ import annotations

import pytest

from accounts.workspaces.models import Membership, Workspace
from tests.factories import FlowFactory, UserFactory, make_credential
from tests.flows.graphs import chain, code, node, trigger


@pytest.fixture
def staging(db):
    return Workspace.objects.create(name="Staging", slug="staging")


@pytest.fixture
def production(db):
    return Workspace.objects.create(name="Production", slug="production")


@pytest.fixture
def ops(staging, production):
    """An admin of both workspaces."""
    user = UserFactory(username="ops")
    for workspace in (staging, production):
        Membership.objects.create(workspace=workspace, user=user, role="admin")
    return user


@pytest.fixture
def staging_flows(staging, production, ops):
    """Two flows in staging, one calling out with the `stripe` credential
    (which both workspaces hold, with different values)."""
    stripe = make_credential(ops, name="stripe", workspace=staging)
    make_credential(
        ops, name="stripe", workspace=production, secrets={"token": "prod-token-x9"}
    )
    nodes, edges = chain(
        trigger(),
        node(
            "call",
            "http_request",
            method="GET",
            url="https://example.com/",
            credential_id=str(stripe.pk),
        ),
        code("shape", "return {ok: true}"),
    )
    calls = FlowFactory(
        created_by=ops,
        workspace=staging,
        name="Charge customers",
        nodes=nodes,
        edges=edges,
    )
    nodes, edges = chain(trigger(), code("hello", "return {hello: 'world'}"))
    hello = FlowFactory(
        created_by=ops, workspace=staging, name="Say hello", nodes=nodes, edges=edges
    )
    return [calls, hello]
