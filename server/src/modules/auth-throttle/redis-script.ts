/**
 * `attemptStep` (rules.ts) in Lua, run atomically by Redis: one EVALSHA per attempt.
 * KEYS[1] the counter (a hash: c count, n next attempt, e expiry, ms); ARGV[1] now (ms, the instance's clock);
 * ARGV[2] the kind ('window' or 'backoff'); window: ARGV[3] limit, ARGV[4] window ms;
 * backoff: ARGV[3] free attempts, ARGV[4] base delay ms, ARGV[5] max delay ms, ARGV[6] forget after ms.
 * Returns {allowed 0|1, retry after ms}. The key expires with the state (relative to now: instances' clocks and
 * Redis's may differ).
 */
export const ATTEMPT_LUA = `
local now = tonumber(ARGV[1])
local stored = redis.call('HMGET', KEYS[1], 'c', 'n', 'e')
local count, nextAt, expiresAt = 0, 0, 0
if stored[3] and tonumber(stored[3]) > now then
  count = tonumber(stored[1])
  nextAt = tonumber(stored[2])
  expiresAt = tonumber(stored[3])
end
if ARGV[2] == 'window' then
  local limit = tonumber(ARGV[3])
  local windowEnd = expiresAt
  if count == 0 then windowEnd = now + tonumber(ARGV[4]) end
  if count >= limit then return {0, math.max(1, windowEnd - now)} end
  redis.call('HSET', KEYS[1], 'c', count + 1, 'n', 0, 'e', string.format('%d', windowEnd))
  redis.call('PEXPIRE', KEYS[1], math.max(1, windowEnd - now))
  return {1, 0}
end
if nextAt > now then return {0, nextAt - now} end
count = count + 1
local free, base, cap, forget = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local delay = 0
if count >= free then delay = math.min(cap, base * 2 ^ math.min(30, count - free)) end
nextAt = now + delay
expiresAt = nextAt + forget
redis.call('HSET', KEYS[1], 'c', count, 'n', string.format('%d', nextAt), 'e', string.format('%d', expiresAt))
redis.call('PEXPIRE', KEYS[1], math.max(1, expiresAt - now))
return {1, 0}
`;
