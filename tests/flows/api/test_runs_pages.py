"""What a page of runs costs (flows/run_pages.py): a short first page is its
own count, a count stops at a cap, and a list reads neither the runs' data
nor their flows' graphs (issue 38, item 2: a million runs)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from flows.models import FlowRun
from flows.run_pages import RunPaginator
from tests.factories import FlowRunFactory

pytestmark = pytest.mark.django_db


def listed(api, path: str, **params) -> tuple[dict, list[str]]:
    """The answer's body and the SQL it cost."""
    with CaptureQueriesContext(connection) as queries:
        response = api.get(path, params)
    assert response.status_code == 200, response.content
    return response.json(), [query["sql"] for query in queries]


def counts(sql: list[str]) -> int:
    return sum("COUNT(" in statement.upper() for statement in sql)


def runs_of(flow, n: int, **fields) -> list[FlowRun]:
    return [FlowRunFactory(flow=flow, **fields) for _ in range(n)]


@pytest.mark.parametrize("path", ["/api/runs", "/api/flows/{flow}/runs"])
def test_a_first_page_that_is_not_full_is_not_counted(api, alice_flow, path):
    runs_of(alice_flow, 3)

    body, sql = listed(api, path.format(flow=alice_flow.pk), flow=alice_flow.pk)

    assert body["count"] == 3 and len(body["results"]) == 3
    assert body["next"] is None
    assert counts(sql) == 0


def test_a_full_first_page_is_counted(api, alice_flow):
    runs_of(alice_flow, 5)

    body, sql = listed(api, "/api/runs", flow=alice_flow.pk, page_size=2)

    assert body["count"] == 5 and len(body["results"]) == 2
    assert body["next"] and "count_capped" not in body
    assert counts(sql) == 1


def test_later_pages_are_as_before(api, alice_flow):
    made = runs_of(alice_flow, 5)

    body, _ = listed(api, "/api/runs", page=3, page_size=2)
    past = api.get("/api/runs", {"page": 4, "page_size": 2})

    assert [item["id"] for item in body["results"]] == [str(made[0].pk)]
    assert body["count"] == 5 and body["next"] is None
    assert past.status_code == 404


def test_any_list_counts_at_most_the_cap_and_says_so(api, alice_flow, monkeypatch):
    monkeypatch.setattr(RunPaginator, "cap", 3)
    runs_of(alice_flow, 5)

    body, _ = listed(api, "/api/runs", page_size=2)
    exact, _ = listed(api, "/api/runs", status="failed")

    assert (body["count"], body["count_capped"]) == (3, True)
    assert len(body["results"]) == 2
    assert exact == {"count": 0, "next": None, "previous": None, "results": []}


def test_the_runs_page_says_over_the_cap(alice, alice_flow, monkeypatch, client):
    monkeypatch.setattr(RunPaginator, "cap", 30)
    runs_of(alice_flow, 31)
    client.force_login(alice)

    page = client.get("/runs/").content.decode()

    assert "over 30 runs" in page


def test_a_list_reads_no_run_data_nor_flow_graph(api, alice_flow):
    runs_of(alice_flow, 2, status="failed", error={"message": "boom"})

    body, sql = listed(api, "/api/runs")

    page_query = next(s for s in sql if '"flows_flowrun"."status"' in s)
    for column in ("input", "results", "request_meta"):
        assert f'"flows_flowrun"."{column}"' not in page_query
    for column in ("nodes", "edges", "pins"):
        assert f'"flows_flow"."{column}"' not in page_query
    first = body["results"][0]
    assert first["flow_name"] == "Alice's flow"
    assert first["error"] == {"message": "boom"} and first["status"] == "failed"


def test_the_queries_of_a_page_do_not_grow_with_its_runs(api, alice_flow):
    runs_of(alice_flow, 2)
    _, few = listed(api, "/api/runs")
    runs_of(alice_flow, 18)

    _, many = listed(api, "/api/runs")

    assert len(many) == len(few) + 1  # the full page is counted
