"""The sandbox worker: a fresh Python process that evaluates user JavaScript.

`flows.sandbox.pool` starts it as `python -I worker.py <memory_mb>` with an empty
environment, so nothing of Django (settings, secrets, database connections) is
in its memory. It imports only the standard library and `quickjs`, never the
project. It talks JSON lines over stdin/stdout: one job in, one reply out.

Every job gets a brand-new QuickJS Context with its own time, heap and stack
limits; the process is reused, contexts never are. The OS limits below (address
space, CPU seconds) are the second wall, for the day QuickJS's own limits fail.
"""

import json
import re
import resource
import sys
import time

import quickjs

# Only strings cross into JavaScript: the variables as one JSON text and the
# user's source. No Python callable is ever added to a context.
PRELUDE = r"""
(function () {
  // Kept before user code runs, which may replace JSON's methods.
  const { parse, stringify } = JSON;
  const vars = parse(globalThis.__weir_vars);
  delete globalThis.__weir_vars;
  const limits = parse(globalThis.__weir_limits);
  delete globalThis.__weir_limits;
  const logs = [];
  let logBytes = 0;
  let logsTruncated = false;
  const show = (value) => {
    if (typeof value === "string") return value;
    try {
      const text = stringify(value);
      return text === undefined ? String(value) : text;
    } catch (error) {
      return String(value);
    }
  };
  const log = (...args) => {
    if (logsTruncated) return;
    let line = args.map(show).join(" ");
    if (line.length > limits.logLineChars) {
      line = line.slice(0, limits.logLineChars) + "… [line truncated]";
    }
    if (logs.length >= limits.logLines || logBytes + line.length > limits.logChars) {
      logsTruncated = true;
      return;
    }
    logs.push(line);
    logBytes += line.length;
  };
  globalThis.console = Object.freeze({
    log, info: log, warn: log, error: log, debug: log,
  });
  const encode = (value) => {
    let text;
    try {
      text = stringify(value);
    } catch (error) {
      return { error: "invalid_output", message: "The value is not JSON: " + error };
    }
    if (text === undefined) text = "null";
    if (text.length > limits.outputChars) {
      return { error: "output_too_large", message: "The output is " + text.length +
        " characters of JSON; the limit is " + limits.outputChars + "." };
    }
    return { json: text };
  };
  const describe = (error) => {
    if (!(error instanceof Error)) return "Uncaught " + show(error);
    return String(error) + (error.stack ? "\n" + error.stack : "");
  };
  let settled = null;
  globalThis.__weir_run_code = (source) => {
    const body = new Function("input", "prev", "results", "secrets", source);
    const args = [vars.input, vars.prev, vars.results, vars.secrets];
    Promise.resolve(body.call(undefined, ...args)).then(
      (value) => { settled = encode(value); },
      (error) => { settled = { error: "code_error", message: describe(error) }; },
    );
  };
  globalThis.__weir_run_expressions = (list) => {
    settled = parse(list).map((expression) => {
      try {
        const source = "return (" + expression + "\n);";
        const fn = new Function("input", "prev", "results", "secrets", source);
        const args = [vars.input, vars.prev, vars.results, vars.secrets];
        return encode(fn.call(undefined, ...args));
      } catch (error) {
        return { error: "expression_error", message: describe(error) };
      }
    });
  };
  globalThis.__weir_report = () => stringify({
    settled, logs, logsTruncated,
  });
})();
"""

# The harness's functions are taken out of the global object before user code
# runs, so the code cannot replace them.
TAKE_HARNESS = (
    "delete globalThis.__weir_run_code; delete globalThis.__weir_run_expressions;"
    " delete globalThis.__weir_report;"
)

OUT_OF_MEMORY = "out of memory"
# `new Function` puts the user's first line on line 3 of its source.
FUNCTION_HEADER_LINES = 2
USER_FRAME = re.compile(r"\(?<input>:(\d+):(\d+)\)?")


def tidy(text: str) -> str:
    """The error line and the user's own stack frames, with their line numbers.

    Frames from the first native call on belong to the harness and are dropped.
    """
    lines = text.strip().splitlines()
    kept = lines[:1]
    for line in lines[1:]:
        if "(native)" in line:
            break
        if line.strip() == "undefined":  # the "stack" of a thrown non-Error
            continue
        kept.append(
            USER_FRAME.sub(
                lambda m: f"(line {int(m[1]) - FUNCTION_HEADER_LINES}, column {m[2]})",
                line,
            )
        )
    return "\n".join(kept)[:2000]


INTERRUPTED = "interrupted"


def classify(error: Exception) -> tuple[str, str]:
    """QuickJS's exception → (error code, one-line message for the user)."""
    text = str(error).strip()
    first_line = text.splitlines()[0] if text else type(error).__name__
    if isinstance(error, quickjs.StackOverflow) or "stack size exceeded" in text:
        return "stack_overflow", "The code recursed too deeply (stack overflow)."
    # Out of memory, QuickJS sometimes cannot even allocate the error and
    # throws a bare null instead.
    if OUT_OF_MEMORY in first_line or first_line in (
        "null",
        "InternalError: string too long",
    ):
        return "memory_limit", "The code ran out of memory (heap limit reached)."
    if INTERRUPTED in first_line:
        return "code_timeout", "The code ran longer than its time limit."
    return "code_error", tidy(text)


def drain_jobs(context, deadline: float) -> None:
    """Run queued promise jobs (microtasks) to completion, within the deadline."""
    while context.execute_pending_job():
        if time.monotonic() > deadline:
            raise TimeoutError


def handle(job: dict) -> dict:
    timeout_s = job["timeout_ms"] / 1000
    deadline = time.monotonic() + timeout_s
    limit_cpu(timeout_s)
    context = quickjs.Context()
    context.set_memory_limit(job["memory_mb"] * 1024 * 1024)
    context.set_max_stack_size(job["stack_kb"] * 1024)
    context.set_time_limit(timeout_s)
    make_report = None
    try:
        context.set("__weir_vars", job["variables"])
        context.set("__weir_limits", json.dumps(job["limits"]))
        context.eval(PRELUDE)
        run_code = context.get("__weir_run_code")
        run_expressions = context.get("__weir_run_expressions")
        make_report = context.get("__weir_report")
        context.eval(TAKE_HARNESS)
        if job["mode"] == "code":
            run_code(job["source"])
        else:
            run_expressions(json.dumps(job["expressions"]))
        drain_jobs(context, deadline)
        text = make_report()
        if not isinstance(text, str) or len(text) > job["limits"]["replyChars"]:
            return {"error": "output_too_large", "message": "The result is too large."}
        report = json.loads(text)
        if not isinstance(report, dict) or "settled" not in report:
            raise ValueError("not a report")
    except TimeoutError:
        return {"error": "code_timeout", "message": "The code kept running jobs."}
    except (quickjs.JSException, quickjs.StackOverflow) as error:
        code, message = classify(error)
        return {"error": code, "message": message, **logs_after_error(make_report)}
    if report["settled"] is None:
        return {
            "error": "code_error",
            "message": "The code returned a promise that never settled.",
            "logs": report["logs"],
            "logs_truncated": report["logsTruncated"],
        }
    report["logs_truncated"] = report.pop("logsTruncated")
    settled = report["settled"]
    if isinstance(settled, dict) and settled.get("error") == "code_error":
        settled["message"] = tidy(str(settled.get("message", "")))
    return report


def logs_after_error(make_report) -> dict:
    """The console lines written before a thrown error, when they can be had."""
    if make_report is None:
        return {}
    try:
        report = json.loads(make_report())
        return {"logs": report["logs"], "logs_truncated": report["logsTruncated"]}
    except Exception:  # the context may be out of memory or interrupted
        return {}


def limit_cpu(seconds: float) -> None:
    """Allow this job `seconds` (plus slack) more CPU time, else SIGXCPU ends us."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    used = usage.ru_utime + usage.ru_stime
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = int(used + seconds) + 2
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def limit_address_space(memory_mb: int) -> None:
    """Cap virtual memory at what we use now plus room for one job's heap.

    Linux only (it reads /proc); elsewhere, as on a macOS laptop, QuickJS's own
    heap limit and the caller's wall clock remain.
    """
    try:
        with open("/proc/self/status") as status:
            fields = dict(line.split(":", 1) for line in status if ":" in line)
        current = int(fields["VmSize"].split()[0]) * 1024
        limit = current + (memory_mb * 2 + 128) * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (OSError, ValueError, KeyError):
        return


def main() -> None:
    memory_mb = int(sys.argv[1])
    limit_address_space(memory_mb)
    limit_cpu(10)  # until the first job sets its own budget
    resource.setrlimit(resource.RLIMIT_NOFILE, (16, 16))
    reader, writer = sys.stdin.buffer, sys.stdout.buffer
    writer.write(b'{"ready": true}\n')
    writer.flush()
    for line in reader:
        try:
            reply = handle(json.loads(line))
        except MemoryError:
            reply = {
                "error": "memory_limit",
                "message": "The sandbox ran out of memory.",
            }
        except (ValueError, KeyError, TypeError):
            # The code tampered with the harness's output: fail this job only.
            reply = {"error": "invalid_output", "message": "The result was unreadable."}
        writer.write(json.dumps(reply).encode() + b"\n")
        writer.flush()


if __name__ == "__main__":
    main()
