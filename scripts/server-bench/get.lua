-- wrk script: GET one page with a read token (argument 1: the token file;
-- the first line is used), and print the same RESULT line as upload.lua.
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  for line in io.lines(args[1]) do
    token = line
    break
  end
  non2xx = 0
  wrk.headers["Authorization"] = "Bearer " .. token
end

function response(status, headers, body)
  if status < 200 or status > 299 then non2xx = non2xx + 1 end
end

function done(summary, latency, requests)
  local bad = 0
  for _, t in ipairs(threads) do bad = bad + t:get("non2xx") end
  local secs = summary.duration / 1e6
  local errs = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  -- rate counts 2xx answers only: a refusal (429, 413) is not work done.
  io.write(string.format("RESULT requests=%d seconds=%.2f rate=%.1f p50_ms=%.2f p99_ms=%.2f max_ms=%.2f non2xx=%d socket_errors=%d\n",
    summary.requests, secs, (summary.requests - bad) / secs, latency:percentile(50) / 1000,
    latency:percentile(99) / 1000, latency.max / 1000, bad, errs))
end
