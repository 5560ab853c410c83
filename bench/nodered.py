"""Node-RED as the benchmarks' reference: installed from npm, one flow.

`start(port)` installs `node-red` with npm into a folder of its own (the
`NODE_RED_DIR` environment variable, default a temporary folder; set it to
reuse an install between runs), writes an `http in -> function -> http
response` flow at `POST /bench` whose function does what the Weir
benchmark flow's code node does, starts Node-RED on `port` (loopback, editor
off) and returns the process once it answers.

    python bench/nodered.py 1880   # start it by hand; Ctrl+C stops it
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

FUNCTION = (
    "msg.payload = {greeting: 'hi ' + msg.payload.name, "
    "n: msg.payload.items.length}; return msg;"
)
FLOW = [
    {"id": "bench-tab", "type": "tab", "label": "bench"},
    {
        "id": "bench-in",
        "type": "http in",
        "z": "bench-tab",
        "url": "/bench",
        "method": "post",
        "wires": [["bench-fn"]],
    },
    {
        "id": "bench-fn",
        "type": "function",
        "z": "bench-tab",
        "func": FUNCTION,
        "outputs": 1,
        "wires": [["bench-out"]],
    },
    {"id": "bench-out", "type": "http response", "z": "bench-tab", "wires": []},
]
SETTINGS = """module.exports = {{
  uiHost: "127.0.0.1",
  uiPort: {port},
  flowFile: "flows.json",
  httpAdminRoot: false,
  logging: {{ console: {{ level: "warn", metrics: false, audit: false }} }},
}};
"""


def install(folder: Path) -> Path:
    """`node-red` installed in `folder` (npm, once); the path of its red.js."""
    red = folder / "node_modules" / "node-red" / "red.js"
    if not red.exists():
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["npm", "install", "--prefix", str(folder), "node-red"]
            + ["--no-audit", "--no-fund", "--loglevel=error"],
            check=True,
        )
    return red


def version(folder: Path) -> str:
    package = folder / "node_modules" / "node-red" / "package.json"
    return json.loads(package.read_text())["version"]


def start(port: int, folder: Path | None = None) -> subprocess.Popen:
    """Install if needed, start Node-RED on `port`, wait until it answers."""
    folder = folder or Path(
        os.environ.get("NODE_RED_DIR") or tempfile.mkdtemp(prefix="weir-nodered-")
    )
    red = install(folder)
    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", port)) == 0:
            raise RuntimeError(f"Port {port} is already in use")
    user_dir = folder / "user"
    user_dir.mkdir(exist_ok=True)
    (user_dir / "flows.json").write_text(json.dumps(FLOW))
    (user_dir / "settings.js").write_text(SETTINGS.format(port=port))
    process = subprocess.Popen(
        ["node", str(red), "--userDir", str(user_dir)]
        + ["--settings", str(user_dir / "settings.js")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    body = json.dumps({"name": "up", "items": []}).encode()
    for _ in range(300):
        if process.poll() is not None:
            raise RuntimeError("Node-RED exited while starting")
        try:
            request = urllib.request.Request(
                f"http://127.0.0.1:{port}/bench",
                data=body,
                headers={"Content-Type": "application/json"},
            )
            with urllib.request.urlopen(request, timeout=1) as response:
                if response.status == 200:
                    process.version = version(folder)
                    return process
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError("Node-RED did not answer within a minute")


if __name__ == "__main__":
    node_red = start(int(sys.argv[1]) if len(sys.argv) > 1 else 1880)
    # SIGTERM (a benchmark script's cleanup) stops Node-RED too, never orphaned.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"Node-RED {node_red.version} answers POST /bench; Ctrl+C stops it.")
    print(f"pid {node_red.pid}", flush=True)
    try:
        node_red.wait()
    except (KeyboardInterrupt, SystemExit):
        node_red.terminate()
        node_red.wait(10)
