"""One pagination for every paginated list: a flow's runs and conversations alike."""

from __future__ import annotations

import pytest

from agents.models import Conversation
from tests.factories import AgentFactory, FlowRunFactory


@pytest.fixture
def lists(alice, alice_flow) -> dict[str, str]:
    """Three paginated lists of alice's, 105 items each."""
    agent = AgentFactory(created_by=alice)
    FlowRunFactory.create_batch(105, flow=alice_flow)
    Conversation.objects.bulk_create(
        Conversation(agent=agent, user=alice, title=f"Topic {n}") for n in range(105)
    )
    return {
        "runs": f"/api/flows/{alice_flow.id}/runs",
        "agent conversations": f"/api/agents/{agent.id}/conversations",
        "conversations": "/api/conversations",
    }


def page_shape(api, url: str, query: str) -> dict:
    page = api.get(f"{url}?{query}").json()
    return {
        "count": page["count"],
        "size": len(page["results"]),
        "next": page["next"] and page["next"].removeprefix(f"http://testserver{url}"),
        "previous": page["previous"]
        and page["previous"].removeprefix(f"http://testserver{url}"),
    }


@pytest.mark.parametrize(
    "query, expected",
    [
        ("", {"count": 105, "size": 20, "next": "?page=2", "previous": None}),
        (
            "page=2&page_size=50",
            {
                "count": 105,
                "size": 50,
                "next": "?page=3&page_size=50",
                "previous": "?page_size=50",
            },
        ),
        (
            "page_size=1000",
            {
                "count": 105,
                "size": 100,
                "next": "?page=2&page_size=1000",
                "previous": None,
            },
        ),
    ],
    ids=["twenty-by-default", "page-size", "at-most-a-hundred"],
)
def test_every_list_pages_the_same_way(api, lists, query, expected):
    shapes = {name: page_shape(api, url, query) for name, url in lists.items()}

    assert shapes == {name: expected for name in lists}


def test_a_page_past_the_end_is_not_found_on_every_list(api, lists):
    for url in lists.values():
        response = api.get(f"{url}?page=99")

        assert response.status_code == 404
        assert response.json()["error"]["code"] == "not_found"
