-- wrk script: sequential Token.transfer calls (eth_sendTransaction) against an EVM peer
-- (anvil, Ganache) of benchmarks/node_bench.py.
-- Usage: wrk -t1 -c1 -d10s -s evm_token_transfer.lua URL -- <from> <token> <selector> <method>
-- Every request sends 1 token to a new recipient (b0b0b0b0 followed by the request number);
-- node_bench.py checks the sender's nonce and token balance afterwards. <method> is
-- eth_sendTransactionSync (anvil: answered with the receipt) or eth_sendTransaction (Ganache:
-- answered once mined); no receipt is fetched separately (the Python client does that).

local threads = {}

function setup(thread)
   table.insert(threads, thread)
end

function init(args)
   from = args[1]
   token = args[2]
   selector = args[3]
   method = args[4]
   headers = {["Content-Type"] = "application/json"}
   generated = 0
   bad = 0
end

function request()
   generated = generated + 1
   local body = string.format(
      '{"jsonrpc":"2.0","id":%d,"method":"%s","params":[{"from":"%s",'
         .. '"to":"%s","gas":"0x186a0","data":"0x%s000000000000000000000000b0b0b0b0%032x'
         .. '0000000000000000000000000000000000000000000000000000000000000001"}]}',
      generated,
      method,
      from,
      token,
      selector,
      generated
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
