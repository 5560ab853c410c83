"""One account cannot take every synchronous slot of a process (issue 35).

Measured before: an account with its personal workspace and a team workspace
held both slots of a process (one per workspace), and anonymous calls to its
slow webhooks made another tenant's 3 ms flow answer 503 on 8 tries of 8.
"""

from __future__ import annotations

import threading
import time

import pytest

from accounts.models import Membership, Workspace
from core.http.admission import Slots
from core.http.errors import Throttled
from flows.engine.admission import caps_for
from tests.factories import FlowFactory
from tests.flows.graphs import chain, node, trigger


def slow_flow(owner, workspace=None):
    nodes, edges = chain(trigger(), node("wait", "delay", ms=3000))
    extra = {"workspace": workspace} if workspace else {}
    return FlowFactory(created_by=owner, nodes=nodes, edges=edges, **extra)


def team_of(owner) -> Workspace:
    team = Workspace.objects.create(name="Busy team", slug="busy-team")
    Membership.objects.create(workspace=team, user=owner, role=Membership.Role.OWNER)
    return team


def test_an_account_flooding_slow_webhooks_from_two_workspaces_leaves_room(
    granian, alice, bob
):
    slow = [slow_flow(alice), slow_flow(alice, team_of(alice))]
    fast = FlowFactory(created_by=bob)
    # 4 threads: 2 synchronous slots in the process, 1 per workspace.
    server = granian(threads=4, workers=1)
    stop = threading.Event()

    def flood(flow):
        while not stop.is_set():
            server.post_json(f"/api/webhooks/{flow.id}", {})

    flooders = [threading.Thread(target=flood, args=(slow[n % 2],)) for n in range(6)]
    for flooder in flooders:
        flooder.start()
    try:
        time.sleep(1.5)  # both of alice's workspaces have slow runs in hand
        tries = []
        for _ in range(8):
            tries.append(server.post_json(f"/api/webhooks/{fast.id}", {"n": 1}))
            time.sleep(0.3)
    finally:
        stop.set()
        for flooder in flooders:
            flooder.join()

    served = [answer for answer in tries if answer.status == 200]
    assert len(served) >= 3, [answer.status for answer in tries]


def test_the_accounts_cap_counts_every_workspace_of_the_account(settings):
    settings.SYNC_RUNS_PER_PROCESS = 4
    settings.SYNC_RUNS_PER_OWNER = 2
    settings.SYNC_RUNS_PER_ACCOUNT = 2
    slots = Slots()
    personal = caps_for(workspace_id=1, account_id=7, flow_id="a")
    team = caps_for(workspace_id=2, account_id=7, flow_id="b")
    other = caps_for(workspace_id=3, account_id=8, flow_id="c")
    slots.take(personal, slow_after=0)
    slots.take(team, slow_after=0)

    with pytest.raises(Throttled) as refused:
        slots.take(caps_for(workspace_id=2, account_id=7, flow_id="d"), slow_after=0)
    slots.take(other, slow_after=0)  # another account: room left

    assert "This account" in str(refused.value.detail)
    assert slots.in_use == 3
