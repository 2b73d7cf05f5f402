/**
 * `gcraSteps` (gcra.ts) in Lua, run atomically by Redis: one EVALSHA per request, for every bucket it counts in
 * (the account's, and the key's when it has a limit of its own). The request is admitted only when every bucket
 * admits it, and only then counted in each; a rescaled state (after a limit change) is kept either way.
 * KEYS the buckets; ARGV[1] now in µs, or -1 to use Redis's own clock (production: every instance then shares
 * one clock, so clock skew between hosts cannot leak requests); ARGV[1 + i] the limit per minute of KEYS[i];
 * ARGV[1 + #KEYS + i], when given, the units the request takes of KEYS[i] (1 without it; capped at the limit;
 * negative gives units back, as gcra.ts's `cost`).
 * Returns, per bucket, {allowed 0|1, backlog µs, retry µs, interval µs}, flattened.
 */
export const GCRA_LUA = `
local now = tonumber(ARGV[1])
if now < 0 then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local out = {}
local admitted = true
local newTats = {}
local intervals = {}
for i = 1, #KEYS do
  local limit = tonumber(ARGV[i + 1])
  local interval = math.max(1, math.floor(60000000 / limit + 0.5))
  local tolerance = limit * interval
  local stored = redis.call('HMGET', KEYS[i], 't', 'i')
  local tat = tonumber(stored[1]) or now
  local prev = tonumber(stored[2])
  if prev and prev ~= interval then
    local backlog = math.min(math.max(0, tat - now) / prev, limit)
    tat = now + math.floor(backlog * interval + 0.5)
    redis.call('HSET', KEYS[i], 't', string.format('%d', tat), 'i', interval)
  end
  if tat < now then tat = now end
  local cost = tonumber(ARGV[#KEYS + 1 + i]) or 1
  if cost > limit then cost = limit end
  local newTat = tat + cost * interval
  if newTat < now then newTat = now end
  newTats[i] = newTat
  intervals[i] = interval
  if newTat - now > tolerance then
    admitted = false
    table.insert(out, 0); table.insert(out, tat - now); table.insert(out, newTat - now - tolerance)
  else
    table.insert(out, 1); table.insert(out, newTat - now); table.insert(out, 0)
  end
  table.insert(out, interval)
end
if admitted then
  for i = 1, #KEYS do
    redis.call('HSET', KEYS[i], 't', string.format('%d', newTats[i]), 'i', intervals[i])
    redis.call('PEXPIRE', KEYS[i], math.ceil((newTats[i] - now) / 1000) + 1000)
  end
end
return out
`;
