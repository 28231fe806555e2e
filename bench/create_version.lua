-- wrk script: every request commits a fresh version, latest + 1, spread over many tables.
-- Thread t of N owns the tables t, t + N, t + 2N, ...; its j-th request commits
-- version floor(j / (tables / N)) + 1 of its (j mod (tables / N))-th table.
-- Arguments (after --): tables threads api-key table-prefix
local counter = 0
local tables, threads, key, prefix
local thread_count = 0

function setup(thread)
  thread:set("thread_id", thread_count)
  thread_count = thread_count + 1
end

function init(args)
  tables = tonumber(args[1])
  threads = tonumber(args[2])
  key = args[3]
  prefix = args[4]
end

function request()
  local per_thread = math.floor(tables / threads)
  local j = counter
  counter = counter + 1
  local t = (j % per_thread) * threads + thread_id
  local v = math.floor(j / per_thread) + 1
  local body = string.format(
    '{"version":%d,"manifest_path":"bench/t%d.lance/_versions/%d.manifest","manifest_size":367,"e_tag":"e-%d","naming_scheme":"V2"}',
    v, t, v, v)
  return wrk.format("POST", "/v1/table/bench%24" .. prefix .. t .. "/version/create",
    {["Content-Type"] = "application/json", ["x-api-key"] = key}, body)
end

function done(summary, latency, requests)
  io.write(string.format("LVG-LATENCY-MS p50=%.2f p90=%.2f p99=%.2f p99.9=%.2f\n",
    latency:percentile(50) / 1000, latency:percentile(90) / 1000,
    latency:percentile(99) / 1000, latency:percentile(99.9) / 1000))
end
