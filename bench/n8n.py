"""n8n as a benchmark reference: installed from the npm registry alone, one flow.

`npm install n8n` fails on a machine that reaches only the npm registry:
n8n-nodes-base depends on `xlsx` as a tarball on cdn.sheetjs.com. `install`
writes a package.json whose `overrides` pin `xlsx` to 0.18.5, the last
version on the registry (the only dependency given by URL), so the whole
tree comes from the registry. The n8n version is the newest on the registry
that runs on Node 20 (2.10 and later need Node 22.16, 2.41 needs Node 24).

`start(port)` installs n8n into a folder of its own (the `N8N_DIR`
environment variable, default ~/.cache/weir-bench/n8n-<version>: 2.3 GB,
~6 min the first time), gives it a fresh SQLite database in a temporary
folder, imports and publishes a `Webhook (POST /webhook/bench) -> Code`
workflow answering the Code node's JSON (what the Weir benchmark flow's
code node does), starts n8n on `port` (loopback; telemetry, version
notifications, personalization and templates off) and returns the process
once the webhook answers with the flow's JSON. n8n keeps its defaults
otherwise: every execution is saved, the Code node runs in its task runner
(a child process).

    python bench/n8n.py 5678   # start it by hand; Ctrl+C stops it
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

VERSION = "2.8.4"
WORKFLOW_ID = "weirBenchFlow001"
CODE = "return {greeting: 'hi ' + $json.body.name, n: $json.body.items.length};"
WORKFLOW = {
    "id": WORKFLOW_ID,
    "name": "bench",
    "active": False,
    "nodes": [
        {
            "id": "5b0c6a3e-0000-4000-8000-000000000001",
            "name": "Webhook",
            "type": "n8n-nodes-base.webhook",
            "typeVersion": 2,
            "position": [0, 0],
            "webhookId": "5b0c6a3e-0000-4000-8000-0000000000aa",
            "parameters": {
                "httpMethod": "POST",
                "path": "bench",
                "responseMode": "lastNode",
                "responseData": "firstEntryJson",
                "options": {},
            },
        },
        {
            "id": "5b0c6a3e-0000-4000-8000-000000000002",
            "name": "Code",
            "type": "n8n-nodes-base.code",
            "typeVersion": 2,
            "position": [220, 0],
            "parameters": {"mode": "runOnceForEachItem", "jsCode": CODE},
        },
    ],
    "connections": {
        "Webhook": {"main": [[{"node": "Code", "type": "main", "index": 0}]]}
    },
    "settings": {"executionOrder": "v1"},
}
PACKAGE = {
    "private": True,
    "dependencies": {"n8n": VERSION},
    "overrides": {"xlsx": "0.18.5"},
}


def install(folder: Path) -> Path:
    """n8n installed in `folder` (npm, once); the path of its `n8n` command."""
    command = folder / "node_modules" / ".bin" / "n8n"
    if not command.exists():
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "package.json").write_text(json.dumps(PACKAGE, indent=2))
        subprocess.run(
            ["npm", "install", "--prefix", str(folder)]
            + ["--no-audit", "--no-fund", "--loglevel=error"],
            check=True,
        )
    return command


def environment(port: int, user_folder: Path) -> dict[str, str]:
    """n8n's settings: its own SQLite under `user_folder`, nothing phoning home."""
    return {
        **os.environ,
        "N8N_USER_FOLDER": str(user_folder),
        "DB_TYPE": "sqlite",
        "N8N_PORT": str(port),
        "N8N_LISTEN_ADDRESS": "127.0.0.1",
        "N8N_HOST": "127.0.0.1",
        "N8N_DIAGNOSTICS_ENABLED": "false",
        "N8N_VERSION_NOTIFICATIONS_ENABLED": "false",
        "N8N_PERSONALIZATION_ENABLED": "false",
        "N8N_TEMPLATES_ENABLED": "false",
        "N8N_LOG_LEVEL": "warn",
        "N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS": "false",
    }


def default_folder() -> Path:
    """A cache folder kept between runs: the install is large and slow."""
    cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache) / "weir-bench" / f"n8n-{VERSION}"


def version(folder: Path) -> str:
    package = folder / "node_modules" / "n8n" / "package.json"
    return json.loads(package.read_text())["version"]


def start(port: int, folder: Path | None = None) -> subprocess.Popen:
    """Install if needed, set up the flow, start n8n on `port`; wait for its answer."""
    folder = folder or Path(os.environ.get("N8N_DIR") or default_folder())
    n8n = str(install(folder))
    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", port)) == 0:
            raise RuntimeError(f"Port {port} is already in use")
    user_folder = Path(tempfile.mkdtemp(prefix="weir-n8n-"))
    env = environment(port, user_folder)
    workflow_file = user_folder / "workflow.json"
    workflow_file.write_text(json.dumps(WORKFLOW))
    # Each command boots n8n against the SQLite file (migrations the first time).
    for command in (
        ["import:workflow", f"--input={workflow_file}"],
        ["publish:workflow", f"--id={WORKFLOW_ID}"],
    ):
        done = subprocess.run([n8n, *command], env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"n8n {command[0]} failed:\n{done.stdout}{done.stderr}")
    process = subprocess.Popen(
        [n8n, "start"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    body = json.dumps({"name": "up", "items": []}).encode()
    for _ in range(600):
        if process.poll() is not None:
            raise RuntimeError("n8n exited while starting")
        try:
            request = urllib.request.Request(
                f"http://127.0.0.1:{port}/webhook/bench",
                data=body,
                headers={"Content-Type": "application/json"},
            )
            with urllib.request.urlopen(request, timeout=5) as response:
                answer = json.loads(response.read())
                if answer == {"greeting": "hi up", "n": 0}:
                    process.version = version(folder)
                    process.user_folder = user_folder
                    return process
        except OSError:
            time.sleep(0.5)
    process.kill()
    shutil.rmtree(user_folder)
    raise RuntimeError("n8n did not answer within five minutes")


if __name__ == "__main__":
    n8n_process = start(int(sys.argv[1]) if len(sys.argv) > 1 else 5678)
    # SIGTERM (a benchmark script's cleanup) stops n8n too, never orphaned.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"n8n {n8n_process.version} answers POST /webhook/bench; Ctrl+C stops it.")
    print(f"pid {n8n_process.pid}", flush=True)
    try:
        n8n_process.wait()
    except (KeyboardInterrupt, SystemExit):
        n8n_process.terminate()
        try:
            n8n_process.wait(30)
        except subprocess.TimeoutExpired:
            n8n_process.kill()
            n8n_process.wait()
    finally:
        shutil.rmtree(n8n_process.user_folder, ignore_errors=True)
