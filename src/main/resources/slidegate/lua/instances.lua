-- Instances sharing a Redis: each renews its own entry every second; the count of live entries is
-- what the fail mode local divides every N by.
--
-- KEYS[1]  sorted set of instances: member = instance id, score = when its entry expires (ms, Redis TIME)
-- ARGV[1]  this instance's id
-- ARGV[2]  how long its entry lives without renewal, in ms; 0 removes it (a clean shutdown)
--
-- Returns the number of live instances, this one included unless it just left.
local key = KEYS[1]
local ttl = tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
if ttl > 0 then
  redis.call('ZADD', key, now + ttl, ARGV[1])
  redis.call('PEXPIRE', key, ttl * 2)
else
  redis.call('ZREM', key, ARGV[1])
end
return redis.call('ZCARD', key)
