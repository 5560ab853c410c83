"""The Runs page (`/runs/`) and the run page's readable errors."""

from __future__ import annotations

import re
import time

import pytest
from django.test import Client

from accounts.models import Membership, Workspace
from flows import files
from flows.engine import run_flow
from flows.engine.waits import resume_path
from flows.models import Flow, FlowRun, RunStep
from flows.views import readable_error
from tests.factories import FlowFactory, FlowRunFactory
from tests.flows.graphs import chain, node, trigger

pytestmark = pytest.mark.django_db


def run_rows(html: str) -> list[str]:
    return re.findall(r'<tr class="run-row">.*?</tr>', html, re.S)


def test_anonymous_visitors_are_sent_to_sign_in():
    response = Client().get("/runs/")

    assert response.status_code == 302
    assert response["Location"].startswith("/login/")


def test_the_runs_page_shows_only_the_users_runs(alice_client, alice, bob_flow):
    FlowRunFactory(flow=FlowFactory(created_by=alice, name="Mine"))
    FlowRunFactory(flow=bob_flow)

    html = alice_client.get("/runs/").content.decode()

    assert len(run_rows(html)) == 1
    assert "Mine" in html
    assert "Bob&#x27;s flow" not in html


def test_the_runs_page_filters_and_keeps_the_filters_when_paging(alice_client, alice):
    flow = FlowFactory(created_by=alice)
    for _ in range(26):
        FlowRunFactory(flow=flow, status="failed")
    FlowRunFactory(flow=flow)

    html = alice_client.get("/runs/?status=failed").content.decode()

    assert len(run_rows(html)) == 25
    assert "Page 1 of 2 · 26 runs" in html
    assert 'href="?status=failed&amp;page=2"' in html
    second = alice_client.get("/runs/?status=failed&page=2").content.decode()
    assert len(run_rows(second)) == 1


def test_a_bad_filter_is_explained_on_the_page(alice_client, alice):
    FlowRunFactory(flow=FlowFactory(created_by=alice))

    response = alice_client.get("/runs/?since=last+tuesday")

    assert response.status_code == 200
    html = response.content.decode()
    assert "The filter &#x27;since&#x27; is not valid" in html
    assert run_rows(html) == []


def test_the_runs_page_costs_the_same_queries_for_many_runs(
    alice_client, alice, django_assert_num_queries
):
    for _ in range(10):
        FlowRunFactory(flow=FlowFactory(created_by=alice))

    # session, user, the header's workspaces (with the pending invitations),
    # page (flows joined; not full, so its own count), the flow filter's choices
    with django_assert_num_queries(5):
        alice_client.get("/runs/")
    with django_assert_num_queries(5):
        alice_client.get("/runs/", {"page": "1"})


def test_expression_errors_lose_the_sandboxs_stack_lines():
    error = {
        "code": "template_error",
        "message": "A {{ }} expression failed: TypeError: x is undefined\n"
        "    at anonymous (<input>:3:9)\n    at call (native)\n",
    }

    assert readable_error(error) == (
        "template_error: A {{ }} expression failed: TypeError: x is undefined"
    )


def test_code_errors_keep_the_users_own_line_numbers():
    error = {
        "code": "code_error",
        "message": "Error: no\n    at <anonymous> (line 1, column 7)",
    }

    assert readable_error(error) == f"code_error: {error['message']}"


def waiting_run(owner, **data):
    nodes, edges = chain(trigger(), node("approve", "wait", **data))
    nodes[1]["name"] = "Approve the refund"
    flow = FlowFactory(created_by=owner, nodes=nodes, edges=edges)
    return run_flow(flow, {}, FlowRun.Trigger.MANUAL)


def test_a_waiting_run_shows_its_resume_link_on_the_runs_page(alice_client, alice):
    run = waiting_run(alice, mode="callback")

    html = alice_client.get("/runs/?status=waiting").content.decode()

    [row] = run_rows(html)
    assert "Waiting" in row
    assert resume_path(run.pk, "approve") in row


def test_the_run_page_of_a_waiting_run_says_where_and_offers_cancel(
    alice_client, alice
):
    run = waiting_run(alice, mode="callback")

    html = alice_client.get(f"/runs/{run.pk}/").content.decode()

    assert "Waiting at Approve the refund" in html
    assert resume_path(run.pk, "approve") in html
    assert 'id="run-cancel"' in html


def test_a_timed_wait_shows_no_resume_link(alice_client, alice):
    run = waiting_run(alice, mode="duration", seconds=60)

    html = alice_client.get(f"/runs/{run.pk}/").content.decode()

    assert "Waiting at Approve the refund" in html
    assert "/api/resume/" not in html


@pytest.mark.timing
def test_the_run_page_of_a_thousand_failed_steps_renders_in_time(alice_client, alice):
    # A thrown message of blank lines cost the stack-line regex quadratic time:
    # 300 such steps took 4.5 s to render (issue 27, item 15).
    run = FlowRunFactory(flow=FlowFactory(created_by=alice), status="succeeded")
    message = "A {{ }} expression failed: Error: no\n    at x (<input>)" + "\n" * 2000
    RunStep.objects.bulk_create(
        RunStep(
            run=run,
            position=position,
            node_id=f"n{position}",
            node_type="transform",
            status="failed",
            error={"code": "expression_error", "message": message},
        )
        for position in range(1000)
    )
    started = time.monotonic()

    response = alice_client.get(f"/runs/{run.id}/")

    assert time.monotonic() - started < 5.0
    assert response.status_code == 200
    assert "    at x (&lt;input&gt;)" not in response.content.decode()


def team_run(alice, bob, role):
    """A run of alice's team flow carrying data, seen by bob as `role`."""
    team = Workspace.objects.create(name="Team", slug="team")
    Membership.objects.create(workspace=team, user=alice, role="owner")
    Membership.objects.create(workspace=team, user=bob, role=role)
    run = FlowRunFactory(
        flow=FlowFactory(created_by=alice, workspace=team),
        input={"card": "S3CRET-IN"},
        results={"n": {"x": "S3CRET-OUT"}},
    )
    run.steps.create(
        node_id="n",
        node_type="code",
        node_name="Charge",
        status="succeeded",
        position=0,
        output={"x": "S3CRET-OUT"},
        logs=["S3CRET-LOG"],
    )
    page = Client()
    page.force_login(bob)
    return page.get(f"/runs/{run.pk}/").content.decode()


def test_a_viewer_sees_the_run_page_without_its_data(alice, bob):
    html = team_run(alice, bob, "viewer")

    assert "Charge" in html
    assert "Your role does not show run data" in html
    for secret in ("S3CRET-IN", "S3CRET-OUT", "S3CRET-LOG"):
        assert secret not in html


def test_a_runner_sees_the_run_pages_data(alice, bob):
    html = team_run(alice, bob, "runner")

    assert "Your role does not show run data" not in html
    for secret in ("S3CRET-IN", "S3CRET-OUT", "S3CRET-LOG"):
        assert secret in html


def test_a_viewer_sees_a_waiting_run_but_no_resume_link(alice, bob):
    run = waiting_run(alice, mode="callback")
    team = Workspace.objects.create(name="Team", slug="team")
    Membership.objects.create(workspace=team, user=alice, role="owner")
    Membership.objects.create(workspace=team, user=bob, role="viewer")
    Flow.objects.filter(pk=run.flow_id).update(workspace=team)
    page = Client()
    page.force_login(bob)

    listed = page.get("/runs/?status=waiting").content.decode()
    detail = page.get(f"/runs/{run.pk}/").content.decode()

    [row] = run_rows(listed)
    assert "Waiting" in row
    assert "Waiting at Approve the refund" in detail
    assert "/api/resume/" not in listed + detail
    assert "Cancel run" not in detail  # the API would refuse it: no button


def test_a_runner_may_cancel_a_waiting_run_from_its_page(alice, bob):
    run = waiting_run(alice, mode="callback")
    team = Workspace.objects.create(name="Team", slug="team")
    Membership.objects.create(workspace=team, user=bob, role="runner")
    Flow.objects.filter(pk=run.flow_id).update(workspace=team)
    page = Client()
    page.force_login(bob)

    assert "Cancel run" in page.get(f"/runs/{run.pk}/").content.decode()


def run_with_a_file(flow):
    run = FlowRunFactory(flow=flow)
    marker = files.store(
        workspace_id=flow.workspace_id,
        name='<b>"report".csv',
        content_type="text/csv",
        data=b"a,b\n",
        run_id=run.pk,
    )
    run.steps.create(
        node_id="n",
        node_type="code",
        status="succeeded",
        position=0,
        output={"report": marker},
    )
    return run, marker


def test_the_run_page_links_each_file_of_a_step(alice_client, alice):
    run, marker = run_with_a_file(FlowFactory(created_by=alice))

    html = alice_client.get(f"/runs/{run.pk}/").content.decode()

    href = f"/api/runs/{run.pk}/files/{marker['$file']['id']}"
    assert f'<a href="{href}" download="&lt;b&gt;&quot;report&quot;.csv">' in html
    assert "text/csv · 4\xa0bytes" in html
    assert "<b>" not in html


def test_a_viewer_sees_no_file_links(alice, bob):
    team = Workspace.objects.create(name="Team", slug="team")
    Membership.objects.create(workspace=team, user=alice, role="owner")
    Membership.objects.create(workspace=team, user=bob, role="viewer")
    run, marker = run_with_a_file(FlowFactory(created_by=alice, workspace=team))
    page = Client()
    page.force_login(bob)

    html = page.get(f"/runs/{run.pk}/").content.decode()

    assert "Your role does not show run data" in html
    assert marker["$file"]["id"] not in html
