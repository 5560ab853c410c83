"""The Variables page: linked from the members page, an empty state that
says what variables are for, editors add, change and delete with errors
beside their cause, and viewers read without forms."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.audit.models import AuditEvent
from accounts.models import Variable

pytestmark = pytest.mark.django_db


def page_client(user):
    client = Client()
    client.force_login(user)
    return client


def page_url(workspace):
    return f"/workspaces/{workspace.id}/variables/"


def test_the_members_page_links_to_the_variables(members, team):
    page = page_client(members["viewer"]).get(f"/workspaces/{team.id}/members/")

    assert page_url(team).encode() in page.content


def test_an_empty_workspace_says_what_variables_are_for(members, team):
    page = page_client(members["editor"]).get(page_url(team)).content.decode()

    assert "No variables yet" in page
    assert "vars.API_BASE" in page
    assert 'id="add-variable"' in page


def test_an_editor_adds_changes_and_deletes_a_variable(members, team):
    client = page_client(members["editor"])

    added = client.post(page_url(team), {"action": "add", "name": "TZ", "value": "UTC"})
    variable = Variable.objects.get(workspace=team)
    client.post(
        page_url(team),
        {
            "action": "save",
            "variable": variable.id,
            "name": "TZ",
            "value": "Asia/Tokyo",
        },
    )
    variable.refresh_from_db()
    listed = client.get(page_url(team)).content.decode()
    client.post(page_url(team), {"action": "delete", "variable": variable.id})

    assert added.status_code == 302
    assert variable.value == "Asia/Tokyo"
    assert 'value="Asia/Tokyo"' in listed
    assert not Variable.objects.exists()
    assert [e.action for e in AuditEvent.objects.order_by("at", "id")] == [
        "variable.created",
        "variable.updated",
        "variable.deleted",
    ]


def test_a_bad_name_is_shown_beside_the_form_with_what_was_typed(members, team):
    page = page_client(members["editor"]).post(
        page_url(team), {"action": "add", "name": "9lives", "value": "cat"}
    )

    assert page.status_code == 400
    text = page.content.decode()
    assert 'id="add-error"' in text and "letters, digits and _" in text
    assert 'value="9lives"' in text and 'value="cat"' in text


def test_a_taken_name_is_shown_beside_the_row_it_came_from(members, team):
    Variable.objects.create(workspace=team, name="A", value="1")
    b = Variable.objects.create(workspace=team, name="B", value="2")

    page = page_client(members["editor"]).post(
        page_url(team), {"action": "save", "variable": b.id, "name": "A", "value": "2"}
    )

    assert page.status_code == 400
    assert "already has a variable named A" in page.content.decode()


def test_a_viewer_reads_values_but_gets_no_forms(members, team):
    Variable.objects.create(workspace=team, name="REGION", value="eu-west")
    client = page_client(members["viewer"])

    page = client.get(page_url(team)).content.decode()
    refused = client.post(page_url(team), {"action": "add", "name": "X", "value": ""})

    assert "REGION" in page and "eu-west" in page
    assert 'id="add-variable"' not in page and 'action" value="delete"' not in page
    assert refused.status_code == 400
    assert not Variable.objects.filter(name="X").exists()


def test_a_non_member_finds_no_page(bob, team):
    assert page_client(bob).get(page_url(team)).status_code == 404
