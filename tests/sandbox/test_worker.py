"""Hostile JavaScript: each attack ends its own run cleanly and the next run works.

Every test here would fail without the defence it names: the QuickJS time,
heap and stack limits, the caps on logs and output, the fresh context per run,
the empty global scope, and the caller's wall clock around the worker process.
"""

from __future__ import annotations

import pytest

from flows.engine import run_flow
from tests.factories import FlowFactory
from tests.flows.graphs import chain, chain_flow, code, node, trigger

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _short_code_limit(settings):
    settings.CODE_TIMEOUT_MS = 300


def run_code(source: str, input: dict | None = None):
    return run_flow(chain_flow(trigger(), code("js", source)), input or {}, "manual")


def assert_next_run_works():
    run = run_code("return {sum: 1 + input.n}", {"n": 41})
    assert run.status == "succeeded"
    assert run.results["js"] == {"sum": 42}


@pytest.mark.parametrize(
    "source",
    [
        "while (true) {}",
        "for (;;) { Math.random(); }",
        "return /(a+)+$/.test('a'.repeat(40) + 'b')",
        "function f() { Promise.resolve().then(f) } f(); return 1",
        "return new Promise(() => { const spin = () => queueMicrotask(spin); spin() })",
    ],
    ids=[
        "infinite-loop",
        "busy-loop",
        "catastrophic-regex",
        "microtask-storm",
        "never-settling-storm",
    ],
)
def test_code_that_never_ends_times_out_the_run(source):
    run = run_code(source)

    assert run.status == "timed_out"
    assert run.error["node_id"] == "js"
    # QuickJS's own interrupt, or the caller's wall clock killing the worker.
    assert run.error["code"] in ("code_timeout", "sandbox_timeout")
    assert run.as_result()["success"] is False
    assert run.steps.get(node_id="js").status == "failed"
    assert_next_run_works()


@pytest.mark.parametrize(
    "source",
    [
        "const keep = []; while (true) keep.push({n: keep.length, s: 'x'.repeat(64)});",
        "const a = []; while (true) a.push('xxxxxxxxxx' + a.length);",
        "return new ArrayBuffer(1024 * 1024 * 1024).byteLength",
        "return new Uint8Array(512 * 1024 * 1024).length",
        "let s = 'x'; while (true) s = s + s;",
    ],
    ids=[
        "object-bomb",
        "string-array-bomb",
        "1GiB-ArrayBuffer",
        "typed-array",
        "string-doubling",
    ],
)
def test_code_that_eats_memory_fails_the_run_with_memory_limit(source, settings):
    # Time enough to reach the heap limit even on a loaded machine.
    settings.CODE_TIMEOUT_MS = 5000
    run = run_code(source)

    assert run.status == "failed"
    assert run.error["code"] == "memory_limit"
    assert "memory" in run.error["message"]
    assert_next_run_works()


def test_deep_recursion_fails_the_run_with_stack_overflow():
    run = run_code("function dive(n) { return dive(n + 1) + 1 } return dive(0)")

    assert run.status == "failed"
    assert run.error["code"] == "stack_overflow"
    assert_next_run_works()


def test_a_console_log_flood_is_capped_and_marked_truncated():
    run = run_code(
        "for (let i = 0; i < 100000; i++) console.log('line', i); return 'done'"
    )

    assert run.status == "succeeded"
    assert run.results["js"] == "done"
    logs = run.steps.get(node_id="js").logs
    assert len(logs) <= 201
    assert logs[0] == "line 0"
    assert logs[-1] == "[more log lines were dropped]"
    assert_next_run_works()


def test_a_very_long_log_line_is_cut():
    run = run_code("console.log('y'.repeat(100000)); return 1")

    [line] = run.steps.get(node_id="js").logs
    assert len(line) < 3000
    assert line.endswith("[line truncated]")


def test_an_enormous_return_value_fails_with_output_too_large():
    run = run_code("return 'x'.repeat(5 * 1024 * 1024)")

    assert run.status == "failed"
    assert run.error["code"] == "output_too_large"
    assert run.results == {"trigger": {}}
    assert_next_run_works()


def test_a_value_that_is_not_json_fails_clearly():
    run = run_code("return 10n")

    assert run.status == "failed"
    assert run.error["code"] == "invalid_output"


def test_undefined_and_functions_come_back_as_null():
    run = run_code("return undefined")

    assert run.status == "succeeded"
    assert run.results["js"] is None


def test_globals_set_by_one_run_are_not_visible_to_the_next():
    run_code(
        "globalThis.leak = 'secret'; Object.prototype.polluted = 'yes'; "
        "Array.prototype.map = () => 'hijacked'; JSON.stringify = () => '1'; return 1"
    )

    run = run_code("return [typeof leak, ({}).polluted, [1, 2].map(x => x * 2)]")

    assert run.results["js"] == ["undefined", None, [2, 4]]


@pytest.mark.parametrize(
    "expression",
    [
        "require",
        "process",
        "fetch",
        "std",
        "os",
        "module",
        "exports",
        "XMLHttpRequest",
        "Deno",
        "Bun",
        "scriptArgs",
        "print",
        "__weir_run_code",
        "__weir_parse_code",
        "__weir_report",
        "__weir_vars",
    ],
)
def test_code_sees_no_host_objects(expression):
    run = run_code(f"return typeof {expression}")

    assert run.results["js"] == "undefined"


def test_the_function_constructor_does_not_reach_process():
    run = run_code("return this.constructor.constructor('return process')()")

    assert run.status == "failed"
    assert run.error["code"] == "code_error"
    assert "process is not defined" in run.error["message"]


def test_the_global_object_holds_only_standard_javascript():
    run = run_code("return Object.getOwnPropertyNames(globalThis)")

    names = set(run.results["js"])
    assert {"JSON", "Math", "console", "Promise"} <= names
    assert not names & {"require", "process", "std", "os", "fetch", "__weir_vars"}


def test_a_syntax_error_fails_the_run_with_code_error():
    run = run_code("return {")

    assert run.status == "failed"
    assert run.error["code"] == "code_error"
    assert "SyntaxError" in run.error["message"]


def test_a_template_expression_is_sandboxed_too():
    spin = "{{ (() => { while (true) {} })() }}"
    flow = chain_flow(trigger(), node("t", "transform", values={"x": spin}))

    run = run_flow(flow, {}, "manual")

    assert run.status == "timed_out"
    assert run.error["node_id"] == "t"
    assert_next_run_works()


def test_a_condition_expression_that_throws_fails_the_run():
    nodes, edges = chain(
        trigger(), node("check", "condition", expression="input.a.b.c")
    )

    run = run_flow(FlowFactory(nodes=nodes, edges=edges), {}, "manual")

    assert run.status == "failed"
    assert run.error["code"] == "expression_error"
    assert "TypeError" in run.error["message"]


def test_an_error_names_the_line_of_the_users_code():
    run = run_code("const a = 1;\nreturn input.address.city;")

    assert run.error["message"] == (
        "TypeError: cannot read property 'city' of undefined\n"
        "    at anonymous (line 2, column 8)"
    )


def test_console_lines_written_before_a_throw_are_kept():
    run = run_code("console.log('about to fail'); throw new Error('bad')")

    assert run.status == "failed"
    assert run.steps.get(node_id="js").logs == ["about to fail"]


def test_code_that_replaces_json_cannot_forge_or_break_its_result():
    run = run_code(
        'JSON.stringify = () => \'{"settled": {"json": "42"}}\';'
        " JSON.parse = () => ({}); return 'honest'"
    )

    assert run.status == "succeeded"
    assert run.results["js"] == "honest"
    assert_next_run_works()
