-- One rate-limit decision, atomic: the generic cell rate algorithm of
-- plugins/ratelimit/internal/gcra, in microseconds on Redis's clock, so
-- every instance sharing the key agrees on the time.
-- KEYS[1]: the key (a hash: t, the theoretical arrival time; d, the
-- refusals in a row). ARGV[1]: the limit; ARGV[2]: the window in
-- microseconds.
-- Returns {allowed (0/1), remaining, reset µs, retry-after µs, refusals}.
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local interval = math.floor(window / limit)
local state = redis.call('HMGET', KEYS[1], 't', 'd')
local tat = tonumber(state[1]) or now
if tat < now then
  tat = now
end
local nxt = tat + interval
local over = nxt - now - window
if over > 0 then
  local refused = redis.call('HINCRBY', KEYS[1], 'd', 1)
  redis.call('PEXPIRE', KEYS[1], math.ceil((tat - now) / 1000) + 1)
  return {0, 0, tat - now, over, refused}
end
local remaining = math.floor((window - (nxt - now)) / interval)
if remaining > limit - 1 then
  remaining = limit - 1
end
redis.call('HSET', KEYS[1], 't', string.format('%.0f', nxt), 'd', 0)
redis.call('PEXPIRE', KEYS[1], math.ceil((nxt - now) / 1000) + 1)
return {1, remaining, nxt - now, 0, 0}
