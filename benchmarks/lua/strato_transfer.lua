-- wrk script: sequential Token.transfer calls with resolve=true against the sandbox node.
-- Usage: wrk -t1 -c1 -d10s -s strato_transfer.lua URL -- <bearer token> <token contract address>
-- Every request sends 1 token to a new recipient (b0b0b0b0 followed by the request number), so
-- benchmarks/node_bench.py can count afterwards, from the contract's state, how many really ran.

local threads = {}

function setup(thread)
   table.insert(threads, thread)
end

function init(args)
   contract = args[2]
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
         .. '"args":{"to":"b0b0b0b0%032x","amount":1}}}]}',
      contract,
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
      "BENCH requests=%d duration_us=%d generated=%d bad=%d socket_errors=%d p50_us=%d p99_us=%d\n",
      summary.requests, summary.duration, g, b,
      summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
      latency:percentile(50), latency:percentile(99)
   ))
end
