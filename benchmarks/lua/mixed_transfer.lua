-- wrk script: Token.transfer calls with resolve=true, each to a new holder, for the mixed load of
-- benchmarks/state_load_bench.py (the token's state grows by one holder per request).
-- Usage: wrk -t1 -cN -d60s -s mixed_transfer.lua URL -- <bearer token> <token address> <prefix>
-- Recipients are <prefix> (8 hex digits) followed by the request number; each round of the
-- benchmark passes its own prefix, so no two requests of a run pay the same holder.

local threads = {}

function setup(thread)
   table.insert(threads, thread)
end

function init(args)
   contract = args[2]
   prefix = args[3]
   headers = {
      ["Authorization"] = "Bearer " .. args[1],
      ["Content-Type"] = "application/json",
   }
   generated = 0
   bad = 0
end

function request()
   generated = generated + 1
   local body = string.format(
      '{"txs":[{"type":"FUNCTION","payload":{"contractAddress":"%s","method":"transfer",'
         .. '"args":{"to":"%s%032x","amount":1}}}]}',
      contract,
      prefix,
      generated
   )
   return wrk.format("POST", "/svc/v2.3/transaction?resolve=true", headers, body)
end

function response(status, headers, body)
   if status ~= 200 or string.find(body, '"Success"', 1, true) == nil then
      bad = bad + 1
   end
end

function done(summary, latency, requests)
   local g, b = 0, 0
   for _, t in ipairs(threads) do
      g = g + t:get("generated")
      b = b + t:get("bad")
   end
   io.write(string.format(
      "BENCH requests=%d duration_us=%d generated=%d bad=%d socket_errors=%d status_errors=%d "
         .. "p50_us=%d p95_us=%d p99_us=%d max_us=%d\n",
      summary.requests, summary.duration, g, b,
      summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
      summary.errors.status,
      latency:percentile(50), latency:percentile(95), latency:percentile(99), latency.max
   ))
end
