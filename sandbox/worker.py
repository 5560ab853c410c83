"""The sandbox worker: a fresh Python process that evaluates user JavaScript.

`sandbox.pool` starts it as `python -I worker.py <memory_mb> <ack_fd>`
with an empty environment, so nothing of Django (settings, secrets, database
connections) is in its memory. It imports only the standard library and
`quickjs`, never the project, and then shuts itself out of the disk
(`confine`). It talks JSON lines over stdin/stdout: one job in (two lines: the
job, then its variables), one reply out; it acknowledges each job on a pipe of
its own before running it.

Every job gets a brand-new QuickJS Context with its own time, heap and stack
limits; the process is reused, contexts never are. The OS limits below (address
space, CPU seconds) are the second wall, for the day QuickJS's own limits fail.
"""

import ctypes
import json
import os
import re
import resource
import sys
import tempfile
import time
from pathlib import Path

# The C extension itself: the `quickjs` wrapper starts a thread pool on import,
# and a process with a second thread can neither enter a user namespace nor
# confine that thread with the prctl and capset calls of `confine()`.
import _quickjs as quickjs

# The JavaScript harness (see harness.js's header): for each mode, one script
# whose value is a function of the variables (one JSON text) and the caps; it
# returns the job's entry point. Only strings and numbers cross into JavaScript;
# no Python callable is ever added to a context. Python reads the report one
# primitive at a time through the entry point and applies every cap again
# (`read_logs`, `read_settled`).
HERE = Path(__file__).parent
COMMON = (HERE / "harness.js").read_text()
VENDOR = HERE / "vendor"


def as_module(name: str, path: Path) -> str:
    """A vendored UMD file as a constant local to the harness, never a global."""
    return (
        f"const {name} = (function () {{ const module = {{ exports: {{}} }};"
        f" const exports = module.exports;\n{path.read_text()}\n"
        "return module.exports; })();\n"
    )


# The date helpers (docs/sandbox.md, "Dates"), read from disk once per worker
# and compiled only into the jobs whose source mentions `dates`: compiling is
# most of a job's cost, and contexts are never reused.
DATES = (
    as_module("dayjsOf", VENDOR / "dayjs-1.11.23.min.js")
    + as_module("utcPlugin", VENDOR / "dayjs-utc-1.11.23.min.js")
    + as_module("parsePlugin", VENDOR / "dayjs-customParseFormat-1.11.23.min.js")
    + (VENDOR / "tz-rules-2025b.js").read_text()
    + (HERE / "harness_dates.js").read_text()
)
MENTIONS_DATES = re.compile(r"\bdates\b")
HARNESSES = {
    (
        mode,
        dated,
    ): "(function (variables, logLines, logLineChars, logChars, outputChars) {\n"
    + COMMON
    + (DATES if dated else "")
    + (HERE / f"harness_{mode}.js").read_text()
    + "})"
    for mode in ("code", "expressions")
    for dated in (False, True)
}
PARSE_HARNESS = (HERE / "harness_parse.js").read_text()

OUT_OF_MEMORY = "out of memory"
LINE_CUT = "… [line truncated]"
MESSAGE_CHARS = 2000
SETTLED_ERRORS = (
    "invalid_output",
    "output_too_large",
    "code_error",
    "expression_error",
)
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
    return "\n".join(kept)[:MESSAGE_CHARS]


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
    limits = job["limits"]
    read = None
    try:
        if job["mode"] == "parse":
            context.eval(PARSE_HARNESS)(job["source"])
            return {"settled": {"kind": "json", "text": "null"}}
        user_text = job.get("source") or json.dumps(job.get("expressions"))
        dated = MENTIONS_DATES.search(user_text) is not None
        start = context.eval(HARNESSES[job["mode"], dated])
        entry = start(
            job["variables"],
            limits["logLines"],
            limits["logLineChars"],
            limits["logChars"],
            limits["outputChars"],
        )
        read = entry  # after "run", the entry point reads the report
        if job["mode"] == "code":
            entry("run", job["source"])
        else:
            entry("run", json.dumps(job["expressions"]))
        drain_jobs(context, deadline)
        logs = read_logs(read, limits)
        count = read("settledCount")
        if job["mode"] == "code":
            if count != 1:
                return {
                    "error": "code_error",
                    "message": "The code returned a promise that never settled.",
                    **logs,
                }
            return {"settled": read_settled(read, 0, limits), **logs}
        if count != len(job["expressions"]):
            raise ValueError("the harness lost an expression")
        settled = [read_settled(read, index, limits) for index in range(count)]
        return {"settled": settled, **logs}
    except TimeoutError:
        return {"error": "code_timeout", "message": "The code kept running jobs."}
    except (quickjs.JSException, quickjs.StackOverflow) as error:
        code, message = classify(error)
        return {"error": code, "message": message, **logs_after_error(read, limits)}


def read_logs(read, limits: dict) -> dict:
    """The console lines, each cap applied again to whatever the harness holds."""
    count = read("logCount")
    truncated = read("logsTruncated") is not False
    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
        count, truncated = 0, True
    if count > limits["logLines"]:
        count, truncated = limits["logLines"], True
    lines, total = [], 0
    for index in range(count):
        line = read_text(read("log", index))
        if line is None:
            truncated = True
            break
        if len(line) > limits["logLineChars"] + len(LINE_CUT):
            line = line[: limits["logLineChars"]] + LINE_CUT
        if total + len(line) > limits["logChars"]:
            truncated = True
            break
        lines.append(line)
        total += len(line)
    return {"logs": lines, "logs_truncated": truncated}


def read_text(literal) -> str | None:
    """A string the harness sent as a JSON string literal; None if it is not one."""
    if not isinstance(literal, str):
        return None
    text = json.loads(literal)
    return text if isinstance(text, str) else None


def read_settled(read, index: int, limits: dict) -> dict:
    """One result: `{"json": text}` or `{"error": code, "message": text}`."""
    kind, text = read("kind", index), read("text", index)
    message = read_text(read("message", index))
    if kind == "json" and isinstance(text, str):
        if len(text) > limits["outputChars"]:
            return {
                "error": "output_too_large",
                "message": f"The output is {len(text)} characters of JSON; "
                f"the limit is {limits['outputChars']}.",
            }
        return {"json": text}
    if kind == "error" and text in SETTLED_ERRORS and isinstance(message, str):
        if text == "code_error":
            message = tidy(message)
        return {"error": text, "message": message[:MESSAGE_CHARS]}
    return {"error": "invalid_output", "message": "The result was unreadable."}


def logs_after_error(read, limits: dict) -> dict:
    """The console lines written before a thrown error, when they can be had."""
    if read is None:
        return {}
    try:
        return read_logs(read, limits)
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


PR_SET_NO_NEW_PRIVS = 38
CLONE_NEWUSER = 0x10000000
NOBODY = 65534


def confine() -> str:
    """Shut this process out of the disk and out of privileges, as far as the OS lets.

    Called once everything the worker needs is loaded. It moves into an empty
    directory that is then deleted and makes it the root (chroot), so no path
    reaches the project, `.env` or the database file and nothing can be created;
    started as root it then becomes `nobody`; without root it does the same in a
    user namespace of its own. Capabilities are dropped and PR_SET_NO_NEW_PRIVS
    is set. Returns "chroot", or "none" where the OS allows no chroot (macOS, a
    container without CAP_SYS_CHROOT), in which case the worker still runs and
    the pool logs a warning.
    """
    if not sys.platform.startswith("linux"):
        return "none"
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    uid, gid = os.getuid(), os.getgid()
    if uid != 0:
        try:
            enter_user_namespace(libc, uid, gid)
        except OSError:
            return "none"
    try:
        jail = tempfile.mkdtemp(prefix="weir-sandbox-")
        os.chdir(jail)
        os.rmdir(jail)
        os.chroot(".")
        level = "chroot"
    except OSError:  # a container without CAP_SYS_CHROOT, say
        level = "none"
    if uid == 0:
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)
    drop_capabilities(libc)
    return level


def enter_user_namespace(libc, uid: int, gid: int) -> None:
    """Become root of a new user namespace (mapped to our own uid), to chroot."""
    if libc.unshare(CLONE_NEWUSER) != 0:
        raise OSError(ctypes.get_errno(), "unshare")
    for name, text in (
        ("setgroups", "deny"),
        ("uid_map", f"0 {uid} 1"),
        ("gid_map", f"0 {gid} 1"),
    ):
        with open(f"/proc/self/{name}", "w") as file:
            file.write(text)


def drop_capabilities(libc) -> None:
    """Clear the effective, permitted and inheritable capability sets."""
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3
    data = (ctypes.c_uint32 * 6)()
    if libc.capset(header, data) != 0:
        raise OSError(ctypes.get_errno(), "capset")


def main() -> None:
    memory_mb, acks = int(sys.argv[1]), int(sys.argv[2])
    limit_address_space(memory_mb)
    confinement = confine()
    limit_cpu(10)  # until the first job sets its own budget
    resource.setrlimit(resource.RLIMIT_NOFILE, (16, 16))
    reader, writer = sys.stdin.buffer, sys.stdout.buffer
    writer.write(json.dumps({"ready": True, "confined": confinement}).encode() + b"\n")
    writer.flush()
    for line in reader:
        # A job is two lines: its JSON, then the variables' JSON text as it is
        # (JSON has no raw newline), which is handed to JavaScript unparsed.
        variables = reader.readline()
        os.write(acks, b"+")  # started: from here on, the job is not retried
        try:
            job = json.loads(line)
            job["variables"] = variables.decode()
            reply = handle(job)
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
