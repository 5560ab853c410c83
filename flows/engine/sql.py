"""Hand-written SQL for the run store: one model's table and columns.

The ORM spends more CPU compiling a statement (0.2-0.4 ms, about 100 µs a row
for `bulk_create`) than the database spends running it, so the statements on
the hot path (flows/engine/store.py) are built here once per model, columns and
backend, and each value is prepared by the cheapest correct conversion.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime

import psycopg
from django.db import connections, models


def execute(using: str, statement: str, params: Sequence) -> int:
    """Run one hot-path statement; the number of rows it touched.

    On PostgreSQL the statement is bound server-side and prepared once per
    connection: the parameters (a run's JSON rows) travel apart from the text,
    so the driver does not quote them in Python, and PostgreSQL plans the
    statement once instead of on every run. Django's own cursors bind
    client-side and never prepare (`DB_PREPARED_STATEMENTS`, docs/operations.md,
    says why preparing can be turned off). Elsewhere, and while Django logs
    queries (tests counting them, DEBUG), Django's cursor.
    """
    return execute_on(connections[using], statement, params)


def execute_on(connection, statement: str, params: Sequence) -> int:
    """`execute` on a connection already looked up (each look-up by alias is
    a thread-local read)."""
    if connection.vendor != "postgresql" or connection.queries_logged:
        with connection.cursor() as cursor:
            cursor.execute(statement, params)
            return cursor.rowcount
    # What `connection.cursor()` does first, minus its client-binding cursor.
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    connection.validate_no_broken_transaction()
    with (
        connection.wrap_database_errors,
        psycopg.Cursor(connection.connection) as cursor,
    ):
        cursor.execute(statement, params, prepare=True)
        return cursor.rowcount


def value(using: str, statement: str, params: Sequence):
    """Run one hot-path query; the first column of its first row (None without
    one). Bound and prepared as `execute` binds and prepares."""
    connection = connections[using]
    if connection.vendor != "postgresql" or connection.queries_logged:
        with connection.cursor() as cursor:
            cursor.execute(statement, params)
            row = cursor.fetchone()
            return row[0] if row else None
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    connection.validate_no_broken_transaction()
    with (
        connection.wrap_database_errors,
        psycopg.Cursor(connection.connection) as cursor,
    ):
        cursor.execute(statement, params, prepare=True)
        row = cursor.fetchone()
        return row[0] if row else None


class Table:
    """One model's table and some of its columns, on one database connection.

    The only place SQL text is built: names quoted by the backend, and each
    value prepared by the cheapest correct conversion for its field.
    """

    def __init__(self, model, names: tuple[str, ...] | None, connection):
        self.model = model
        self.connection = connection
        self.name, self.columns, self.pk_column, plan = _plan(model, names, connection)
        self.fields = [field for field, _, _ in plan]
        self._preparers = [
            (field.attname, _preparer(field, conversion, connection), default)
            for field, conversion, default in plan
        ]
        self._statements: dict = {}  # SQL text made once (`insert_from_json`)
        self._keys = [
            (field.column, field.attname, default, _json_converter(field))
            for field, _, default in plan
        ]

    @classmethod
    def of(cls, model, names: tuple[str, ...] | None, using: str) -> Table:
        """`model`'s named fields (None: every concrete field but an auto key).

        Kept on the connection (one per thread and alias), as building one
        cost ~3% of a webhook's CPU, and every run builds two or three.
        """
        return cls.on(connections[using], model, names)

    @classmethod
    def on(cls, connection, model, names: tuple[str, ...] | None) -> Table:
        """`of`, on a connection already looked up."""
        tables = connection.__dict__.setdefault("weir_tables", {})
        table = tables.get((model, names))
        if table is None:
            table = tables[(model, names)] = cls(model, names, connection)
        return table

    def values(self, row: dict) -> list:
        """A row (values by attname; a missing one takes its default), prepared."""
        return [
            prepare(row.get(name, default))
            for name, prepare, default in self._preparers
        ]

    def values_of(self, instance: models.Model) -> list:
        """An instance's values of these columns, prepared."""
        return [
            prepare(getattr(instance, name)) for name, prepare, _ in self._preparers
        ]

    def pk_value(self, pk) -> object:
        return self.model._meta.pk.get_db_prep_value(pk, self.connection)

    def insert(self, rows: int = 1) -> str:
        row = "({})".format(", ".join(["%s"] * len(self.columns)))
        return "INSERT INTO {} ({}) VALUES {}".format(
            self.name, ", ".join(self.columns), ", ".join([row] * rows)
        )

    def insert_if(self, condition: str) -> str:
        """One row's INSERT, made only if `condition` holds: SQL in which the
        row's columns are `candidate.<column>`. On PostgreSQL the row is
        `insert_from_json`'s one JSON parameter (`json_rows`), on SQLite one
        parameter per value (`values_of`)."""
        key = ("insert_if", condition)
        statement = self._statements.get(key)
        if statement is None:
            columns = ", ".join(self.columns)
            if self.connection.vendor == "postgresql":
                source = f"jsonb_populate_recordset(NULL::{self.name}, %s::jsonb)"
            else:
                values = ", ".join(f"%s AS {column}" for column in self.columns)
                source = f"(SELECT {values})"
            statement = self._statements[key] = (
                f"INSERT INTO {self.name} ({columns}) SELECT {columns} "
                f"FROM {source} candidate WHERE {condition}"
            )
        return statement

    def insert_from_json(self) -> str:
        """PostgreSQL: INSERT the rows of one JSON array (`json_rows`).

        One parameter instead of one per value: the driver quotes each
        parameter in Python, and a run's final write had ~50 of them (a tenth
        of a webhook's CPU in the web process).
        """
        statement = self._statements.get("insert_from_json")
        if statement is None:
            columns = ", ".join(self.columns)
            statement = self._statements["insert_from_json"] = (
                f"INSERT INTO {self.name} ({columns}) SELECT {columns} "
                f"FROM jsonb_populate_recordset(NULL::{self.name}, %s::jsonb)"
            )
        return statement

    def with_inserted(self, statement: str) -> str:
        """PostgreSQL: `statement` after this table's `insert_from_json` in a
        `WITH` clause (its JSON rows the first parameter).

        Made once per statement and kept, as `insert_from_json` is: the same
        text object each time, so neither it nor the driver's look-up of its
        prepared statement (which hashes the text) starts over on every run.
        """
        key = ("with", statement)
        combined = self._statements.get(key)
        if combined is None:
            combined = f"WITH steps AS ({self.insert_from_json()}) {statement}"
            self._statements[key] = combined
        return combined

    def json_rows(self, rows: Sequence[dict | models.Model]) -> str:
        """Rows (dicts by attname, a missing value taking its default, or model
        instances) as the JSON array `insert_from_json` reads, keyed by column."""
        out = []
        for row in rows:
            is_dict = isinstance(row, dict)
            values = row if is_dict else row.__dict__  # a field not loaded: getattr
            item = {}
            for key, name, default, convert in self._keys:
                if name in values:
                    value = values[name]
                else:
                    value = default if is_dict else getattr(row, name)
                if convert is not None and value is not None:
                    value = convert(value)
                item[key] = value
            out.append(item)
        return json.dumps(out, default=_json_value, allow_nan=False)

    def update_by_pk(self, condition: str = "") -> str:
        assignments = ", ".join(f"{column} = %s" for column in self.columns)
        where = f"{self.pk_column} = %s" + (f" AND {condition}" if condition else "")
        return f"UPDATE {self.name} SET {assignments} WHERE {where}"

    def select_by_pk(self, condition: str = "") -> str:
        where = f"{self.pk_column} = %s" + (f" AND {condition}" if condition else "")
        return f"SELECT {', '.join(self.columns)} FROM {self.name} WHERE {where}"

    def column(self, name: str) -> str:
        field = self.model._meta.get_field(name)
        return self.connection.ops.quote_name(field.column)


def _json_converter(field: models.Field) -> Callable | None:
    """How a timestamp or id column's values become JSON text (`json_rows`),
    converted in the row's loop rather than by `json.dumps` calling back
    (`_json_value`) for each; None: the value is written as it is."""
    target = field.target_field if field.is_relation else field
    if isinstance(target, models.DateTimeField):
        return _timestamp_text
    if isinstance(target, models.UUIDField):
        return _uuid_text
    return None


def _timestamp_text(value):
    return value.isoformat() if isinstance(value, datetime) else value


def _uuid_text(value):
    return str(value) if isinstance(value, uuid.UUID) else value


def _json_value(value):
    """What `json.dumps` cannot write itself: timestamps and ids, as PostgreSQL
    reads them back into their columns."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, uuid.UUID):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


_PLANS: dict[tuple, tuple] = {}


def _plan(model, names: tuple[str, ...] | None, connection) -> tuple:
    """What does not change between calls: quoted names, and per field its
    conversion and the default a missing row value takes.

    Cached per backend (never per connection, which belongs to one thread)
    because it runs for every run. Defaults are taken once: step rows only
    default to constants (`[]`).
    """
    key = (model, names, connection.vendor)
    if key not in _PLANS:
        _PLANS[key] = _make_plan(model, names, connection.ops.quote_name)
    return _PLANS[key]


def _make_plan(model, names, quote: Callable) -> tuple:
    if names is None:
        fields = [
            field
            for field in model._meta.concrete_fields
            if not (field.primary_key and field.auto_created)
        ]
    else:
        fields = [model._meta.get_field(name) for name in names]
    plan = tuple(
        (
            field,
            _conversion(field),
            None if field.primary_key else field.get_default(),
        )
        for field in fields
    )
    columns = [quote(field.column) for field in fields]
    return quote(model._meta.db_table), columns, quote(model._meta.pk.column), plan


def _conversion(field: models.Field) -> str:
    if isinstance(field, models.JSONField):
        return "json"
    if isinstance(field, models.DateTimeField):
        return "datetime"
    if isinstance(field, models.CharField | models.IntegerField | models.FloatField):
        return "as_is"  # the driver takes these as they are
    return "field"


def _preparer(field: models.Field, conversion: str, connection) -> Callable:
    """The cheapest correct conversion of one field's values for the database."""
    if conversion == "json":
        adapt_json, encoder = connection.ops.adapt_json_value, field.encoder
        return lambda value: None if value is None else adapt_json(value, encoder)
    if conversion == "datetime":
        adapt_datetime = connection.ops.adapt_datetimefield_value
        return lambda value: None if value is None else adapt_datetime(value)
    if conversion == "as_is":
        return lambda value: value
    return lambda value: field.get_db_prep_save(value, connection)
