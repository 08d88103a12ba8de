-- Hold: no call of one (policy, key) is placed before an instant (an upstream said it has no room until then).
--
-- KEYS[1]  the key of the strategy's state (a hash, or the sliding log's sorted set)
-- ARGV[1]  how long to hold from now, microseconds; 0 only reads how long the key is still held
-- ARGV[2]  'log' for a sliding log, else 'hash'
-- ARGV[3]  a sliding log's slots member for a key that has none yet ('#<N>/<W>,...')
-- ARGV[4]  '1': only when the key is not held now (a block that does not grow while its caller keeps calling)
--
-- A hash keeps the hold in field 'h' and raises field 'r' (the instant no call is placed before) to it; a log keeps
-- it after its slots member at score 0, '#<N>/<W>,...@<instant>', which its script reads as the same frontier. A
-- hold is never shortened, charges nothing, and keeps the key alive until it ends.
--
-- Returns {microseconds the key is held from now (0 when not held), now}
local key = KEYS[1]
local span = tonumber(ARGV[1])
local time = redis.call('TIME')
local clock = tonumber(time[1]) * 1000000 + tonumber(time[2])
local untl = clock + span
local held = 0
local unless_held = ARGV[4] == '1'
if ARGV[2] == 'log' then
  local meta = redis.call('ZRANGEBYSCORE', key, 0, 0)[1]
  local spec = ARGV[3]
  if meta then
    local at = string.find(meta, '@', 1, true)
    if at then
      spec, held = string.sub(meta, 1, at - 1), tonumber(string.sub(meta, at + 1))
    else
      spec = meta
    end
  end
  if span > 0 and untl > held and not (unless_held and held > clock) then
    if meta then redis.call('ZREM', key, meta) end
    redis.call('ZADD', key, 0, spec .. '@' .. string.format('%d', untl))
    held = untl
  end
else
  held = tonumber(redis.call('HGET', key, 'h') or '0')
  if span > 0 and untl > held and not (unless_held and held > clock) then
    local reserved = tonumber(redis.call('HGET', key, 'r') or '0')
    if untl > reserved then
      redis.call('HSET', key, 'h', string.format('%d', untl), 'r', string.format('%d', untl))
    else
      redis.call('HSET', key, 'h', string.format('%d', untl))
    end
    held = untl
  end
end
if span > 0 then
  local left = redis.call('PTTL', key)
  local needed = math.floor((held - clock) / 1000) + 1
  if left == -1 or (left >= 0 and left < needed) then redis.call('PEXPIRE', key, needed) end
end
local left = held - clock
if left < 0 then left = 0 end
return {left, clock}
