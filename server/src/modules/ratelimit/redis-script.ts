/**
 * `gcraStep` (gcra.ts) in Lua, run atomically by Redis: one EVALSHA per request.
 * KEYS[1] the bucket; ARGV[1] the limit per minute; ARGV[2] now in µs, or -1 to use Redis's own clock
 * (production: every instance then shares one clock, so clock skew between hosts cannot leak requests).
 * Returns {allowed 0|1, backlog µs, retry µs, interval µs}.
 */
export const GCRA_LUA = `
local limit = tonumber(ARGV[1])
local now = tonumber(ARGV[2])
if now < 0 then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local interval = math.max(1, math.floor(60000000 / limit + 0.5))
local tolerance = limit * interval
local stored = redis.call('HMGET', KEYS[1], 't', 'i')
local tat = tonumber(stored[1]) or now
local prev = tonumber(stored[2])
if prev and prev ~= interval then
  local backlog = math.min(math.max(0, tat - now) / prev, limit)
  tat = now + math.floor(backlog * interval + 0.5)
  redis.call('HSET', KEYS[1], 't', string.format('%d', tat), 'i', interval)
end
if tat < now then tat = now end
local newTat = tat + interval
if newTat - now > tolerance then
  return {0, tat - now, newTat - now - tolerance, interval}
end
redis.call('HSET', KEYS[1], 't', string.format('%d', newTat), 'i', interval)
redis.call('PEXPIRE', KEYS[1], math.ceil((newTat - now) / 1000) + 1000)
return {1, newTat - now, 0, interval}
`;
