"""0042: today's flows without a Webhook trigger node have their webhook
turned off; flows with one keep it as it was."""

from __future__ import annotations

import pytest

from tests.flows.migrations.test_0033_http_request_on_http_error_output import (
    migrate,
)

BEFORE = [("flows", "0041_uploaded_apps")]
AFTER = [("flows", "0042_webhook_off_without_a_webhook_trigger")]


@pytest.mark.django_db(transaction=True)
def test_flows_without_a_webhook_trigger_lose_their_webhook(
    back_to_the_latest_schema,
):
    old = migrate(BEFORE)
    ada = old.get_model("auth", "User").objects.create(username="ada")
    team = old.get_model("accounts", "Workspace").objects.create(name="Ops", slug="ops")
    Flow = old.get_model("flows", "Flow")

    def flow(name, node_type, enabled=True):
        nodes = [{"id": "t", "type": node_type, "data": {}}]
        return Flow.objects.create(
            created_by=ada,
            workspace=team,
            name=name,
            nodes=nodes,
            webhook_enabled=enabled,
        ).pk

    hooked = flow("Hooked", "webhook")
    scheduled = flow("Nightly", "schedule")
    helper = flow("Helper", "code")
    off = flow("Off", "webhook", enabled=False)
    form = flow("Contact", "form")

    new = migrate(AFTER)

    enabled = dict(new.get_model("flows", "Flow").objects.values_list("pk", "webhook_enabled"))
    assert enabled == {
        hooked: True,
        scheduled: False,
        helper: False,
        off: False,
        form: True,  # the flag also serves its form page
    }
