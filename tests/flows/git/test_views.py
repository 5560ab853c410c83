"""The promotion page: the form, the diff of a dry run, then the promotion;
errors beside the form, and who may open it."""

from __future__ import annotations

from django.test import Client

from accounts.workspaces.models import Membership
from tests.factories import UserFactory


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def page(workspace) -> str:
    return f"/workspaces/{workspace.id}/promote/"


def test_the_form_lists_the_flows_and_the_workspaces_to_promote_to(
    staging_flows, staging, production, ops
):
    response = signed_in(ops).get(page(staging), {"flow": str(staging_flows[1].id)})

    text = response.content.decode()
    assert response.status_code == 200
    assert "Say hello" in text and "Charge customers" in text
    assert f'<option value="{production.id}"' in text
    assert f'value="{staging_flows[1].id}" checked' in text


def test_show_changes_renders_the_diff_and_writes_nothing(
    staging_flows, staging, production, ops
):
    body = {"flow": [str(staging_flows[1].id)], "to": str(production.id)}

    response = signed_in(ops).post(page(staging), {**body, "step": "preview"})

    text = response.content.decode()
    assert (
        '<span class="diff-added">+  &quot;name&quot;: &quot;Say hello&quot;,' in text
    )
    assert "Promote 1 flow to Production" in text
    assert not production.flows.exists()


def test_apply_promotes_and_says_so(staging_flows, staging, production, ops):
    body = {"flow": [str(f.id) for f in staging_flows], "to": str(production.id)}

    response = signed_in(ops).post(page(staging), {**body, "step": "apply"})

    assert "Promoted to Production" in response.content.decode()
    assert production.flows.count() == 2


def test_a_missing_credential_is_listed_beside_the_form(
    staging_flows, staging, production, ops
):
    production.credentials.all().delete()
    body = {"flow": [str(staging_flows[0].id)], "to": str(production.id)}

    response = signed_in(ops).post(page(staging), {**body, "step": "preview"})

    text = response.content.decode()
    assert response.status_code == 409
    assert 'id="promote-error"' in text
    assert "<strong>stripe</strong> (bearer), used by charge-customers" in text


def test_choosing_no_flow_is_an_error_beside_the_form(staging, production, ops):
    body = {"to": str(production.id), "step": "preview"}

    response = signed_in(ops).post(page(staging), body)

    assert response.status_code == 400
    assert "Choose at least one flow" in response.content.decode()


def test_an_editor_is_refused_and_a_stranger_finds_nothing(staging, production):
    editor = UserFactory(username="eddie")
    Membership.objects.create(workspace=staging, user=editor, role="editor")

    assert signed_in(editor).get(page(staging)).status_code == 403
    assert signed_in(UserFactory()).get(page(staging)).status_code == 404


def test_an_admin_of_one_workspace_is_told_where_promotion_needs_another(staging, ops):
    solo = UserFactory(username="solo")
    Membership.objects.filter(user=solo).delete()  # no personal workspace either
    Membership.objects.create(workspace=staging, user=solo, role="admin")

    text = signed_in(solo).get(page(staging)).content.decode()

    assert "No other workspace to promote to" in text
