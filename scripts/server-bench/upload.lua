-- wrk script: POST distinct bench reports to /api/v1/reports.
-- Arguments (after --): the report template (a compact bench report whose
-- host name is @HOST@), the token file (one secret a line), a run prefix.
-- Each request gets its own host name (prefix-thread-counter), so its body
-- and id are new: every request is a real insert, never an idempotent hit.
-- Requests rotate over the tokens to stay inside the per-token rate limit.
local threads = {}

function setup(thread)
  thread:set("id", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  local f = assert(io.open(args[1]))
  template = f:read("*a")
  f:close()
  tokens = {}
  for line in io.lines(args[2]) do
    if line ~= "" then table.insert(tokens, line) end
  end
  prefix = args[3]
  counter = 0
  non2xx = 0
  -- Threads start at different tokens.
  tok = (id * 7919) % #tokens
end

function request()
  counter = counter + 1
  tok = tok % #tokens + 1
  local body = template:gsub("@HOST@", prefix .. "-" .. id .. "-" .. counter, 1)
  return wrk.format("POST", "/api/v1/reports", {
    ["Authorization"] = "Bearer " .. tokens[tok],
    ["Content-Type"] = "application/json",
  }, body)
end

function response(status, headers, body)
  if status < 200 or status > 299 then
    non2xx = non2xx + 1
    if non2xx <= 3 then io.stderr:write("status " .. status .. ": " .. body:sub(1, 200) .. "\n") end
  end
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
