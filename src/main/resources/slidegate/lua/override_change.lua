-- One change of the overrides kept in Redis, with its record (RedisOverrideSource).
--
-- KEYS[1]  the hash of overrides: field = a target as a JSON array, value = the override as JSON
-- KEYS[2]  the record of changes: member = a field, score = the version of its latest change
-- KEYS[3]  the newest version trimmed from the record
--          (KEYS[2] and KEYS[3] carry the hash tag {slidegate:overrides}: the slot of KEYS[1])
-- ARGV[1]  the field
-- ARGV[2]  the override as JSON, or '' to remove it
-- ARGV[3]  the most overrides the hash may hold: a new target beyond it is refused
-- ARGV[4]  '' or the JSON the field must still hold for the change to happen (an expired override removed
--          only if nobody replaced it meanwhile)
-- ARGV[5]  how many changes the record keeps
--
-- Returns the change's version (the newest before it + 1), -1 when refused for the count, 0 when the
-- field no longer held ARGV[4].
local hash, changes, floor = KEYS[1], KEYS[2], KEYS[3]
local field, value, most, expected, kept = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], tonumber(ARGV[5])
if expected ~= '' and redis.call('HGET', hash, field) ~= expected then return 0 end
if value ~= '' and redis.call('HEXISTS', hash, field) == 0 and redis.call('HLEN', hash) >= most then
  return -1
end
local newest = redis.call('ZRANGE', changes, -1, -1, 'WITHSCORES')
local version = (newest[2] and tonumber(newest[2]) or 0) + 1
if value == '' then redis.call('HDEL', hash, field) else redis.call('HSET', hash, field, value) end
redis.call('ZADD', changes, version, field)
local n = redis.call('ZCARD', changes)
if n > kept then
  local trimmed = redis.call('ZRANGE', changes, n - kept - 1, n - kept - 1, 'WITHSCORES')
  redis.call('SET', floor, trimmed[2])
  redis.call('ZREMRANGEBYRANK', changes, 0, n - kept - 1)
end
return version
