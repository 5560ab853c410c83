"""Runs you can find: `/api/runs?flow=&workspace=&q=` (flows/run_search.py),
on SQLite by scanning and on PostgreSQL through its trigram indexes."""

from __future__ import annotations

import pytest
from django.db import connection

from accounts.models import Membership
from flows.models import FlowRun, RunStep
from tests.factories import FlowFactory, FlowRunFactory

pytestmark = pytest.mark.django_db


def ids(response) -> set[str]:
    assert response.status_code == 200, response.content
    return {item["id"] for item in response.json()["results"]}


def step(run, node_id="greet", **fields) -> RunStep:
    return RunStep.objects.create(
        run=run, position=0, node_id=node_id, node_type="code", status="succeeded",
        **fields,
    )  # fmt: skip


@pytest.fixture
def runs(alice, alice_flow):
    other = FlowFactory(created_by=alice, name="Other")
    found = {
        "input": FlowRunFactory(flow=alice_flow, input={"email": "ada@example.com"}),
        "results": FlowRunFactory(
            flow=alice_flow, results={"fetch": {"order": "ORD-4711"}}
        ),
        "error": FlowRunFactory(
            flow=other,
            status="failed",
            error={"node_id": "x", "code": "http_status", "message": "Gateway Timeout"},
        ),
        "logs": FlowRunFactory(flow=other),
        "plain": FlowRunFactory(flow=other, input={"name": "Grace"}),
    }
    step(found["logs"], logs=["charging card 4242 for Ada"])
    return found


def test_the_runs_list_filters_by_flow(api, alice_flow, runs):
    response = api.get(f"/api/runs?flow={alice_flow.id}")

    assert ids(response) == {str(runs["input"].id), str(runs["results"].id)}


def test_the_runs_list_filters_by_workspace(api, alice, bob, alice_flow, runs):
    team_flow = FlowFactory(created_by=bob, name="Team")
    Membership.objects.create(workspace=team_flow.workspace, user=alice, role="viewer")
    team_run = FlowRunFactory(flow=team_flow)

    in_team = api.get(f"/api/runs?workspace={team_flow.workspace_id}")
    in_own = api.get(f"/api/runs?workspace={alice_flow.workspace_id}")

    assert ids(in_team) == {str(team_run.id)}
    assert ids(in_own) == {str(run.id) for run in runs.values()}


def test_a_flow_of_someone_else_matches_no_run(api, bob_flow, runs):
    FlowRunFactory(flow=bob_flow)

    assert ids(api.get(f"/api/runs?flow={bob_flow.id}")) == set()


@pytest.mark.parametrize(
    ("q", "expected"),
    [
        ("ada@EXAMPLE", {"input"}),
        ("ord-4711", {"results"}),
        ("gateway timeout", {"error"}),
        ("card 4242", {"logs"}),
        ("ada", {"input", "logs"}),
        ("nothing like it", set()),
    ],
)
def test_a_search_finds_runs_by_input_output_error_or_logs_in_any_case(
    api, runs, q, expected
):
    response = api.get("/api/runs", {"q": q})

    assert ids(response) == {str(runs[name].id) for name in expected}


def test_a_search_combines_with_the_other_filters(api, alice_flow, runs):
    response = api.get("/api/runs", {"q": "ada", "flow": str(alice_flow.id)})

    assert ids(response) == {str(runs["input"].id)}


@pytest.mark.parametrize("q", ['say "hi"', "100%", "a_b", "crème brûlée"])
def test_a_search_takes_quotes_wildcards_and_accents_literally(api, alice_flow, q):
    wanted = FlowRunFactory(flow=alice_flow, input={"text": f"they {q} now"})
    FlowRunFactory(flow=alice_flow, input={"text": "say hi 1000 aXb creme brulee"})

    assert ids(api.get("/api/runs", {"q": q})) == {str(wanted.id)}


def test_a_search_of_a_flows_history_finds_its_runs(api, alice_flow, runs):
    response = api.get(f"/api/flows/{alice_flow.id}/runs", {"q": "4711"})

    assert ids(response) == {str(runs["results"].id)}


def test_a_search_never_finds_other_users_runs(api, bob_flow, runs):
    FlowRunFactory(flow=bob_flow, input={"email": "ada@example.com"})

    assert ids(api.get("/api/runs", {"q": "ada@example"})) == {str(runs["input"].id)}


@pytest.mark.parametrize(
    ("query", "field", "message"),
    [
        ("q=ab", "q", "Search for at least 3 characters."),
        (f"q={'x' * 201}", "q", "Search for at most 200 characters."),
        ("flow=nope", "flow", "Give a flow's id (a UUID)."),
        ("workspace=7", "workspace", "Give a workspace's id (a UUID)."),
    ],
)
def test_a_bad_search_or_id_is_400_naming_it(api, runs, query, field, message):
    response = api.get(f"/api/runs?{query}")

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert error["details"] == {field: [message]}


def test_a_search_costs_the_same_queries_for_many_runs(
    api, alice_flow, django_assert_max_num_queries
):
    for n in range(15):
        FlowRunFactory(flow=alice_flow, input={"n": f"needle {n}"})

    with django_assert_max_num_queries(6):
        response = api.get("/api/runs", {"q": "needle"})

    assert response.json()["count"] == 15


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's index")
def test_on_postgresql_a_search_reads_the_trigram_indexes(alice_flow):
    from flows.run_search import search_runs

    runs = search_runs(FlowRun.objects.all(), "needle")
    with connection.cursor() as cursor:  # an empty table: make scanning it dear
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_indexscan = off")
        plan = runs.explain()

    assert "run_search_trgm_idx" in plan
    assert "runstep_logs_trgm_idx" in plan


def test_a_search_counts_at_most_the_cap_and_says_so(api, alice_flow, monkeypatch):
    from flows.run_pages import SearchPaginator

    monkeypatch.setattr(SearchPaginator, "cap", 3)
    for n in range(5):
        FlowRunFactory(flow=alice_flow, input={"n": f"needle {n}"})

    body = api.get("/api/runs", {"q": "needle", "page_size": 2}).json()

    assert (body["count"], body["count_capped"]) == (3, True)
    assert len(body["results"]) == 2
    assert "count_capped" not in api.get("/api/runs", {"q": "needle 1"}).json()
