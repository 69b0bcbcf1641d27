-- wrk script: sequential value transfers (eth_sendTransaction) against Ganache, the peer.
-- Usage: wrk -t1 -c1 -d10s -s ganache_transfer.lua URL -- <from account> <to account>
-- Ganache mines each transaction before it answers, so every response is a mined transaction;
-- benchmarks/node_bench.py checks the sender's nonce afterwards.

local threads = {}

function setup(thread)
   table.insert(threads, thread)
end

function init(args)
   from = args[1]
   to = args[2]
   headers = {["Content-Type"] = "application/json"}
   generated = 0
   bad = 0
end

function request()
   generated = generated + 1
   local body = string.format(
      '{"jsonrpc":"2.0","id":%d,"method":"eth_sendTransaction",'
         .. '"params":[{"from":"%s","to":"%s","value":"0x1"}]}',
      generated,
      from,
      to
   )
   return wrk.format("POST", "/", headers, body)
end

function response(status, headers, body)
   if status ~= 200 or string.find(body, '"result"', 1, true) == nil then
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
