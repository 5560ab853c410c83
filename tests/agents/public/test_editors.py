"""An editor publishes an agent (API and page), reads its visitors'
conversations, and old ones are pruned after the agent's retention."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from accounts.models import Membership, Workspace
from agents.models import Agent, Conversation, Message
from tests.agents.public.helpers import Visitor, published_agent
from tests.factories import AgentFactory

pytestmark = pytest.mark.django_db


def patch(api, agent, body):
    return api.patch(f"/api/agents/{agent.pk}", body, format="json")


def test_an_editor_publishes_an_agent_through_the_api(api, alice):
    agent = AgentFactory(created_by=alice, shared=False)
    response = patch(
        api,
        agent,
        {
            "published": True,
            "public_slug": "support",
            "allowed_origins": [
                "https://WWW.Example.com:443/",
                "http://localhost:8080",
            ],
            "visitor_rate": "5/min",
            "public_rate": "100/hour",
            "visitor_retention_days": 7,
        },
    )
    assert response.status_code == 200, response.json()
    assert response.json()["allowed_origins"] == [
        "https://www.example.com",
        "http://localhost:8080",
    ]
    agent.refresh_from_db()
    assert (agent.published, agent.public_slug, agent.visitor_retention_days) == (
        True,
        "support",
        7,
    )
    assert Visitor(agent).chat("Hi").status_code == 200


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"published": True}, "public_slug"),
        ({"public_slug": "not a slug"}, "public_slug"),
        ({"allowed_origins": ["*"]}, "allowed_origins"),
        ({"allowed_origins": ["https://example.com/path"]}, "allowed_origins"),
        ({"allowed_origins": "https://example.com"}, "allowed_origins"),
        ({"visitor_rate": "lots"}, "visitor_rate"),
        ({"public_rate": "0/min"}, "public_rate"),
        ({"visitor_retention_days": 0}, "visitor_retention_days"),
    ],
)
def test_publishing_settings_are_checked_beside_their_field(api, alice, body, field):
    agent = AgentFactory(created_by=alice, shared=False)
    response = patch(api, agent, body)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "validation_error"
    assert field in response.json()["error"]["details"]
    assert Agent.objects.get(pk=agent.pk).published is False


def test_two_agents_cannot_share_a_slug(api, alice):
    published_agent(public_slug="support")
    agent = AgentFactory(created_by=alice, shared=False)
    response = patch(api, agent, {"public_slug": "support"})
    assert response.status_code == 400
    assert "public_slug" in response.json()["error"]["details"]


def test_editors_list_and_read_visitors_conversations(api, alice):
    agent = published_agent(created_by=alice)
    Visitor(agent).chat("Where is my parcel?")
    Conversation.objects.create(agent=agent, user=alice, title="Alice's own")

    listing = api.get(f"/api/agents/{agent.pk}/visitor-conversations")

    assert listing.status_code == 200
    [row] = listing.json()["results"]
    assert row["title"] == "Where is my parcel?"
    assert row["visitor"]
    detail = api.get(f"/api/agents/{agent.pk}/visitor-conversations/{row['id']}")
    assert detail.status_code == 200
    assert [m["content"] for m in detail.json()["messages"]] == [
        "Where is my parcel?",
        "Echo: Where is my parcel?",
    ]


def test_others_cannot_read_visitors_conversations(api, alice, bob, bob_api):
    agent = published_agent(created_by=alice)
    conversation_id = Visitor(agent).chat("Secret").json()["conversation_id"]
    url = f"/api/agents/{agent.pk}/visitor-conversations"

    assert bob_api.get(url).status_code == 404
    assert bob_api.get(f"{url}/{conversation_id}").status_code == 404
    team = Workspace.objects.create(name="Team", slug="team")
    Membership.objects.create(workspace=team, user=alice, role="owner")
    Membership.objects.create(workspace=team, user=bob, role="viewer")
    team_agent = published_agent(public_slug="team", workspace=team, created_by=alice)
    viewer = bob_api.get(f"/api/agents/{team_agent.pk}/visitor-conversations")
    assert viewer.status_code == 403
    assert viewer.json()["error"]["code"] == "permission_denied"


def test_the_visitors_page_shows_conversations_to_editors_only(
    alice_client, alice, client, bob
):
    agent = published_agent(created_by=alice)
    conversation_id = Visitor(agent).chat("Opening hours?").json()["conversation_id"]

    listing = alice_client.get(f"/agents/{agent.pk}/visitors/")
    assert listing.status_code == 200
    assert b"Opening hours?" in listing.content
    detail = alice_client.get(f"/agents/{agent.pk}/visitors/?c={conversation_id}")
    assert b"Echo: Opening hours?" in detail.content
    client.force_login(bob)
    assert client.get(f"/agents/{agent.pk}/visitors/").status_code == 404


def test_the_page_says_when_no_visitor_has_written(alice_client, alice):
    agent = AgentFactory(created_by=alice, shared=False)
    page = alice_client.get(f"/agents/{agent.pk}/visitors/")
    assert b"No visitor has written yet. Publish the agent" in page.content


def test_prune_deletes_visitors_conversations_past_the_agents_retention(alice):
    agent = published_agent(visitor_retention_days=7, created_by=alice)
    old, recent = Visitor(agent), Visitor(agent)
    old_id = old.chat("Old question").json()["conversation_id"]
    recent_id = recent.chat("New question").json()["conversation_id"]
    users = Conversation.objects.create(agent=agent, user=alice, title="mine")
    eight_days_ago = timezone.now() - timedelta(days=8)
    Conversation.objects.filter(pk__in=[old_id, users.pk]).update(
        updated_at=eight_days_ago
    )

    call_command("prune_visitor_chats", "--dry-run", stdout=(out := io.StringIO()))
    assert out.getvalue() == "Would delete 1 visitor conversations.\n"
    assert Conversation.objects.filter(pk=old_id).exists()
    call_command("prune_visitor_chats", stdout=(out := io.StringIO()))

    assert out.getvalue() == "Deleted 1 visitor conversations.\n"
    kept = {str(pk) for pk in Conversation.objects.values_list("pk", flat=True)}
    assert kept == {str(users.pk), recent_id}
    assert not Message.objects.filter(content="Old question").exists()
    assert old.conversation(old_id).status_code == 404


def admin_form(bob, **fields):
    return {
        "name": "Helper",
        "model": "echo:demo",
        "temperature": "0.3",
        "max_tokens": "800",
        "created_by": bob.pk,
        "is_active": "on",
        **fields,
    }


def test_the_admin_publishes_an_agent(admin_client, bob):
    response = admin_client.post(
        "/admin/agents/agent/add/",
        admin_form(
            bob,
            published="on",
            public_slug="desk",
            allowed_origins='["https://Shop.example.com/"]',
            visitor_rate="3/min",
        ),
    )
    assert response.status_code == 302
    agent = Agent.objects.get(public_slug="desk")
    assert agent.published and agent.allowed_origins == ["https://shop.example.com"]
    assert (agent.visitor_rate, agent.public_rate) == ("3/min", "60/min")


def test_the_admin_refuses_publishing_without_a_slug_or_with_a_wildcard(
    admin_client, bob
):
    no_slug = admin_client.post(
        "/admin/agents/agent/add/", admin_form(bob, published="on")
    )
    assert "A published agent needs a slug." in no_slug.content.decode()
    wildcard = admin_client.post(
        "/admin/agents/agent/add/",
        admin_form(bob, public_slug="desk", allowed_origins='["*"]'),
    )
    assert "is not an origin like" in wildcard.content.decode()
    assert not Agent.objects.exists()


def test_visitors_spend_shows_as_one_row_without_a_user_in_the_usage(api, alice):
    agent = published_agent(created_by=alice)
    Visitor(agent).chat("One")
    Visitor(agent).chat("Two")

    usage = api.get(f"/api/agents/{agent.pk}/usage").json()

    [row] = usage["by_user"]
    assert (row["user_id"], row["username"], row["messages"]) == (None, None, 2)
