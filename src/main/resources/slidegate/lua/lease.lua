-- Leases of calls in flight (concurrency.lua): renew them while their calls run, or end them when the calls are done.
--
-- KEYS[1]  the key's sorted set of leases (member = name, score = expiry, us)
-- ARGV[1]  the lease time W (us): each named lease still held expires W from now; 0 ends the named leases; -1 only
--          reads how old the oldest live lease is (admin views)
-- ARGV[2], ARGV[3], ...  the leases' names
--
-- Returns the names that were no longer held (expired, reset, or ended before), as strings; when reading, {age of the
--          oldest live lease in us, or -1 when none}
local key = KEYS[1]
local w = tonumber(ARGV[1])

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])

if w < 0 then
  local oldest = -1
  for _, name in ipairs(redis.call('ZRANGEBYSCORE', key, '(' .. string.format('%d', now), '+inf')) do
    local at = tonumber(name)
    if oldest < 0 or now - at > oldest then oldest = now - at end
  end
  if oldest > 0 then return {string.format('%d', oldest)} end
  if oldest == 0 then return {'0'} end
  return {'-1'}
end

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
