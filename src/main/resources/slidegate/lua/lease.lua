-- Leases of calls in flight (concurrency.lua): renew them while their calls run, or end them when the calls are done.
--
-- KEYS[1]  the key's sorted set of leases (member = name, score = expiry, us)
-- ARGV[1]  the lease time W (us): each named lease still held expires W from now; 0 ends the named leases
-- ARGV[2], ARGV[3], ...  the leases' names
--
-- Returns the names that were no longer held (expired, reset, or ended before), as strings
local key = KEYS[1]
local w = tonumber(ARGV[1])

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])

redis.call('ZREMRANGEBYSCORE', key, '-inf', string.format('%d', now))
local lost = {}
local expiry = string.format('%d', now + w)
for i = 2, #ARGV do
  local name = ARGV[i]
  if w == 0 then
    if redis.call('ZREM', key, name) == 0 then lost[#lost + 1] = name end
  elseif redis.call('ZSCORE', key, name) then
    redis.call('ZADD', key, expiry, name)
  else
    lost[#lost + 1] = name
  end
end
if w > 0 and #lost < #ARGV - 1 then
  redis.call('PEXPIRE', key, math.floor(w / 1000) + 1)
end
return lost
