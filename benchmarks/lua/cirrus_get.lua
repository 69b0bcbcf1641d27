-- wrk script: GET requests against the sandbox node's Cirrus search, cycling through paths.
-- Usage: wrk -t1 -c1 -d6s -s cirrus_get.lua URL -- <bearer token> <path> [<path> ...]
-- Each connection sends the paths in turn (an `eq` query rotates over sampled addresses).
-- benchmarks/cirrus_bench.py reads the BENCH line printed at the end.

local threads = {}

function setup(thread)
   table.insert(threads, thread)
end

function init(args)
   local headers = { ["Authorization"] = "Bearer " .. args[1] }
   reqs = {}
   for i = 2, #args do
      reqs[#reqs + 1] = wrk.format("GET", args[i], headers)
   end
   sent = 0
end

function request()
   sent = sent + 1
   return reqs[(sent - 1) % #reqs + 1]
end

function done(summary, latency, requests)
   io.write(string.format(
      "BENCH requests=%d duration_us=%d socket_errors=%d status_errors=%d "
         .. "p50_us=%d p95_us=%d p99_us=%d max_us=%d\n",
      summary.requests, summary.duration,
      summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
      summary.errors.status,
      latency:percentile(50), latency:percentile(95), latency:percentile(99), latency.max
   ))
end
