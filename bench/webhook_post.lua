-- wrk script: POST the benchmark's JSON body and print a machine-readable summary.
wrk.method = "POST"
wrk.body = '{"name": "Ada", "items": [1, 2, 3]}'
wrk.headers["Content-Type"] = "application/json"
-- PREFER_ASYNC=1: ask for the 202 (the run queued for a worker) instead of the result.
if os.getenv("PREFER_ASYNC") == "1" then
  wrk.headers["Prefer"] = "respond-async"
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "RESULT requests=%d seconds=%.3f rps=%.1f p50_ms=%.2f p99_ms=%.2f " ..
    "non2xx=%d connect=%d read=%d write=%d timeout=%d\n",
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    e.status, e.connect, e.read, e.write, e.timeout))
end
