"""The HTTP node through the server production runs (`python -m config.serve`):
a webhook whose flow calls a real loopback API, answered as a sender sees it."""

from __future__ import annotations

from flows.models import FlowRun
from tests.factories import FlowFactory
from tests.flows.graphs import chain, node, trigger
from tests.http_answers import ITEMS, PNG_BYTES


def calling_flow(owner, url: str, **data):
    nodes, edges = chain(trigger(), node("call", "http_request", url=url, **data))
    return FlowFactory(created_by=owner, nodes=nodes, edges=edges)


def base(api_server) -> str:
    return f"http://127.0.0.1:{api_server.server_address[1]}"


def test_a_404_fails_the_run_with_its_status_and_body(granian, alice, api_server):
    flow = calling_flow(alice, f"{base(api_server)}/status?code=404&body=no+such+order")
    web = granian(threads=2, HTTP_NODE_ALLOWLIST="127.0.0.1")

    answer = web.post_json(f"/api/webhooks/{flow.id}", {})

    assert answer.status == 500
    error = answer.json()["error"]
    assert (error["code"], error["status"], error["body"]) == (
        "http_error",
        404,
        "no such order",
    )
    assert FlowRun.objects.get(flow=flow).status == FlowRun.Status.FAILED


def test_pages_followed_by_link_arrive_as_one_list(granian, alice, api_server):
    flow = calling_flow(alice, f"{base(api_server)}/link", pagination={"mode": "link"})
    web = granian(threads=2, HTTP_NODE_ALLOWLIST="127.0.0.1")

    answer = web.post_json(f"/api/webhooks/{flow.id}", {})

    assert answer.status == 200, answer.body[:300]
    assert answer.json()["results"]["call"]["items"] == ITEMS
    assert answer.json()["results"]["call"]["pages"] == 3


def test_an_image_answer_is_a_run_file_that_downloads(
    granian, alice, api_server, _run_files_folder
):
    from tests.gunicorn_server import session_headers

    flow = calling_flow(alice, f"{base(api_server)}/files/chart.png")
    web = granian(
        threads=2, HTTP_NODE_ALLOWLIST="127.0.0.1", RUN_FILES_DIR=_run_files_folder
    )

    answer = web.post_json(f"/api/webhooks/{flow.id}", {})

    assert answer.status == 200, answer.body[:300]
    marker = answer.json()["results"]["call"]["body"]["$file"]
    assert (marker["name"], marker["type"]) == ("chart.png", "image/png")
    run_id = answer.json()["run_id"]
    download = web.request(
        "GET",
        f"/api/runs/{run_id}/files/{marker['id']}",
        headers=session_headers(alice),
    )
    assert download.status == 200
    assert download.body == PNG_BYTES
