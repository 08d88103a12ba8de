-- Learned limits: what an upstream published for one (policy, key), kept for every instance that shares this Redis.
--
-- KEYS[1]  slidegate:{<policy>:<key>}:up (a string, in the slot of the key's state)
-- ARGV[1]  how long to keep ARGV[2], milliseconds; 0 only reads; -1 forgets
-- ARGV[2]  the limits, '<permits>/<window us>,...'
--
-- Returns the limits kept after the call ('' when none)
local key = KEYS[1]
local keep = tonumber(ARGV[1])
if keep == 0 then
  return redis.call('GET', key) or ''
end
if keep < 0 then
  redis.call('DEL', key)
  return ''
end
redis.call('SET', key, ARGV[2], 'PX', keep)
return ARGV[2]
