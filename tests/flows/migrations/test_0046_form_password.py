"""0046: a form node's password leaves the node for the flow's hash, and
leaves every stored version too."""

from __future__ import annotations

import pytest
from django.contrib.auth.hashers import check_password

from tests.flows.migrations.test_0033_http_request_on_http_error_output import (
    migrate,
)

BEFORE = [("flows", "0045_credential_kind_any")]
AFTER = [("flows", "0046_form_password")]


@pytest.mark.django_db(transaction=True)
def test_form_passwords_are_hashed_and_gone_from_nodes_and_versions(
    back_to_the_latest_schema,
):
    old = migrate(BEFORE)
    ada = old.get_model("auth", "User").objects.create(username="ada")
    team = old.get_model("accounts", "Workspace").objects.create(name="Ops", slug="ops")
    nodes = [{"id": "f", "type": "form", "data": {"access": "password", "password": "pw1"}}]
    flow = old.get_model("flows", "Flow").objects.create(
        created_by=ada, workspace=team, name="Payroll", nodes=nodes
    )
    old.get_model("flows", "FlowVersion").objects.create(
        flow=flow, number=1, name="Payroll", nodes=nodes, edges=[]
    )

    new = migrate(AFTER)

    migrated = new.get_model("flows", "Flow").objects.get(pk=flow.pk)
    assert migrated.nodes == [{"id": "f", "type": "form", "data": {"access": "password"}}]
    assert check_password("pw1", migrated.form_password)
    version = new.get_model("flows", "FlowVersion").objects.get(flow_id=flow.pk)
    assert "password" not in version.nodes[0]["data"]
