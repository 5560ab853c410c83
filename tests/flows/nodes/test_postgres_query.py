"""The postgres_query node on a throwaway database of the local PostgreSQL."""

from __future__ import annotations

import ipaddress
import socket
import time

import psycopg
import pytest
from django.db import connection

from core.net import postgres
from flows.credentials.models import Credential
from flows.engine import run_flow
from flows.models import FlowRun
from flows.nodes.postgres_query import PostgresQueryNode
from tests.factories import FlowFactory
from tests.flows.graphs import chain, node, trigger
from tests.processes import needs_postgres

pytestmark = [needs_postgres, pytest.mark.django_db]

TARGET = "weir_test_postgres_query_target"


def admin_dsn(dbname: str) -> dict:
    own = connection.settings_dict
    return {
        "host": own.get("HOST") or "127.0.0.1",
        "port": int(own.get("PORT") or 5432),
        "user": own.get("USER") or "postgres",
        "password": own.get("PASSWORD") or "",
        "dbname": dbname,
    }


@pytest.fixture(scope="module")
def target_db():
    """A database of its own with a `signups` table, dropped afterwards."""
    with psycopg.connect(**admin_dsn("postgres"), autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {TARGET}")
        admin.execute(f"CREATE DATABASE {TARGET}")
    with psycopg.connect(**admin_dsn(TARGET), autocommit=True) as db:
        db.execute(
            "CREATE TABLE signups (id serial primary key, email text, "
            "amount numeric(8,2), at timestamptz default '2026-11-24T10:00:00Z', "
            "raw bytea default '\\x00')"
        )
        db.execute(
            "INSERT INTO signups (email, amount) "
            "SELECT 'user' || n || '@example.com', n FROM generate_series(1, 5) n"
        )
    yield TARGET
    with psycopg.connect(**admin_dsn("postgres"), autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {TARGET} WITH (FORCE)")


@pytest.fixture
def database(alice, target_db, settings):
    settings.HTTP_NODE_ALLOWLIST = ["127.0.0.1"]
    dsn = admin_dsn(target_db)
    credential = Credential(
        created_by=alice,
        name="db",
        kind="postgres",
        public={
            "host": "127.0.0.1",
            "port": dsn["port"],
            "database": target_db,
            "username": dsn["user"],
            "sslmode": "disable",
        },
    )
    credential.set_secrets({"password": dsn["password"] or "unused"})
    credential.save()
    return credential


def query(owner, credential, sql, input=None, **data):
    step = node("q", "postgres_query", credential_id=str(credential.pk), query=sql)
    step["data"].update(data)
    nodes, edges = chain(trigger(), step)
    flow = FlowFactory(created_by=owner, nodes=nodes, edges=edges)
    return run_flow(flow, input or {}, FlowRun.Trigger.MANUAL)


def emails_in(target_db) -> list[str]:
    with psycopg.connect(**admin_dsn(target_db)) as db:
        return [row[0] for row in db.execute("SELECT email FROM signups ORDER BY id")]


def test_a_select_with_a_parameter_gives_rows_and_columns(alice, database):
    run = query(
        alice,
        database,
        "SELECT email, amount, at FROM signups WHERE email = %(email)s",
        {"email": "user2@example.com"},
        params={"email": "{{ input.email }}"},
    )

    assert run.status == "succeeded", run.error
    assert run.results["q"] == {
        "rows": [
            {
                "email": "user2@example.com",
                "amount": "2.00",
                "at": "2026-11-24T10:00:00+00:00",
            }
        ],
        "row_count": 1,
        "columns": ["email", "amount", "at"],
        "truncated": False,
    }


def test_an_injection_attempt_in_a_parameter_is_stored_literally(
    alice, database, target_db
):
    evil = "x'); DROP TABLE signups; --"

    run = query(
        alice,
        database,
        "INSERT INTO signups (email) VALUES (%(email)s) RETURNING email",
        {"email": evil},
        params={"email": "{{ input.email }}"},
        access="write",
    )

    assert run.status == "succeeded", run.error
    assert run.results["q"]["rows"] == [{"email": evil}]
    assert evil in emails_in(target_db)  # the table is still there


def test_a_write_in_read_mode_fails_and_writes_nothing(alice, database, target_db):
    before = emails_in(target_db)

    run = query(alice, database, "DELETE FROM signups")

    assert run.status == "failed"
    assert run.error["code"] == "db_read_only"
    assert emails_in(target_db) == before


def test_a_query_past_its_timeout_fails_db_timeout(alice, database):
    started = time.monotonic()

    run = query(alice, database, "SELECT pg_sleep(5)", timeout_ms=500)

    assert run.status == "timed_out"
    assert run.error["code"] == "db_timeout"
    assert time.monotonic() - started < 4


def test_more_rows_than_max_rows_are_cut_and_flagged(alice, database):
    run = query(alice, database, "SELECT id FROM signups ORDER BY id", max_rows=3)

    assert run.results["q"]["row_count"] == 3
    assert run.results["q"]["truncated"] is True


def test_two_statements_in_one_query_are_refused(alice, database, target_db):
    before = emails_in(target_db)

    run = query(alice, database, "SELECT 1; DELETE FROM signups", access="write")

    assert run.error["code"] == "db_error"
    assert emails_in(target_db) == before


def test_the_idempotency_key_is_a_parameter(alice, database):
    run = query(alice, database, "SELECT %(idempotency_key)s AS key")

    assert run.results["q"]["rows"] == [{"key": f"{run.pk}:q"}]


def test_a_binary_column_is_refused(alice, database):
    run = query(alice, database, "SELECT raw FROM signups LIMIT 1")

    assert run.error["code"] == "unsupported_type"


def test_weirs_own_database_is_refused(alice, database):
    database.public["database"] = connection.settings_dict["NAME"]
    database.save()

    run = query(alice, database, "SELECT count(*) FROM auth_user")

    assert run.error["code"] == "own_database"


def test_a_private_address_not_allowlisted_is_refused(alice, database, settings):
    settings.HTTP_NODE_ALLOWLIST = []

    run = query(alice, database, "SELECT 1")

    assert run.error["code"] == "address_refused"


def test_templates_in_the_sql_are_refused_at_save():
    problems = PostgresQueryNode().validate_data(
        {"query": "SELECT * FROM t WHERE id = {{ input.id }}"}
    )

    assert [p.field for p in problems] == ["data.query"]


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"query": "select 1", "max_rows": 10_001}, "data.max_rows"),
        ({"query": "select 1", "access": "admin"}, "data.access"),
        ({"query": "select 1", "params": {"bad name": "x"}}, "data.params"),
        ({"query": "select 1", "params": {"idempotency_key": "x"}}, "data.params"),
        ({"query": ""}, "data.query"),
    ],
)
def test_bad_settings_name_their_field(data, field):
    assert field in [p.field for p in PostgresQueryNode().validate_data(data)]


def test_a_node_without_a_database_fails_credential_missing(alice):
    step = node("q", "postgres_query", credential_id=None, query="select 1")
    nodes, edges = chain(trigger(), step)
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)

    run = run_flow(flow, {}, FlowRun.Trigger.MANUAL)

    assert run.status == "failed"
    assert run.error["code"] == "credential_missing"
    assert run.error["message"] == "Pick a database (a PostgreSQL credential)."


def test_a_credential_of_another_kind_fails_credential_kind(alice):
    other = Credential(created_by=alice, name="Stripe", kind="bearer", public={})
    other.set_secrets({"token": "sk_live_x"})
    other.save()

    run = query(alice, other, "select 1")

    assert run.status == "failed"
    assert run.error["code"] == "credential_kind"
    assert run.error["message"] == "Stripe is not a PostgreSQL credential."


@pytest.mark.parametrize("host", ["0.0.0.0", "::ffff:127.0.0.1"])
def test_weirs_own_database_is_refused_by_any_local_address(
    alice, database, settings, host
):
    """Under a wide allowlist (an operator who turned the wall off), 0.0.0.0
    and ::ffff:127.0.0.1 reach this machine's PostgreSQL as 127.0.0.1 does:
    Weir's own database is refused "whatever the allowlist says"."""
    settings.HTTP_NODE_ALLOWLIST = ["0.0.0.0/0", "::/0"]
    database.public["host"] = host
    database.public["database"] = connection.settings_dict["NAME"]
    database.save()

    run = query(alice, database, "SELECT count(*) AS n FROM auth_user")

    assert run.error is not None, run.results
    assert run.error["code"] == "own_database"


def this_hosts_outward_address() -> str:
    """The address this host sends from (a UDP connect sends nothing)."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("203.0.113.1", 9))
        return probe.getsockname()[0]
    except OSError:
        pytest.skip("no route off this host to find its own address")
    finally:
        probe.close()


def test_weirs_own_database_is_refused_by_this_hosts_other_addresses(db):
    """R25: with Weir's database on localhost, PostgreSQL listening on every
    address (`listen_addresses = '*'`) answers on this host's LAN address too;
    under a wide allowlist that address must count as this machine."""
    own = connection.settings_dict
    address = this_hosts_outward_address()
    if ipaddress.ip_address(address).is_loopback:
        pytest.skip("this host has no address but loopback")

    refused = postgres.is_weirs_own(address, int(own["PORT"] or 5432), own["NAME"])

    assert refused
    assert not postgres.is_weirs_own("192.0.2.254", 5432, own["NAME"])
