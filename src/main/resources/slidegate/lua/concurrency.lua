-- Calls in flight: admit a call of one key while fewer than N of its leases are live, and record its lease.
--
-- KEYS[1]  sorted set of leases: member = the lease's name, the instant (us, Redis TIME) it was granted at; score =
--          the instant it expires unless its instance renews it (lease.lua). No two live leases share a name.
-- KEYS[2], KEYS[3]  the queue of calls waiting for a slot and their lapses (slot_wait.lua): a call that does not
--          wait is admitted only to a slot no live ticket waits for
-- ARGV[1]  cost: 1 takes a lease; 0 reads the state and writes nothing (admin views)
-- ARGV[2]  2 * max-wait (us) + count-rejected: unused here (a slot frees when a call ends, which no store foresees,
--          so nothing is reserved for a later instant; a refused call is never charged)
-- ARGV[3]  how long a refused caller is told to wait before it asks again (us): its retry-after, and the reset of a
--          key with no slot free
-- ARGV[4], ARGV[5]  N (the most leases live at once) and W (the lease time, us)
--
-- Returns {allowed (1|0), tripped limit (0 when refused, -1 when allowed), retry-after us, the lease's name when
--          admitted (else now), remaining, reset us} (the reply shape every strategy's script shares: DecisionScripts)
local key, queue, lapses = KEYS[1], KEYS[2], KEYS[3]
local cost = tonumber(ARGV[1])
local hint = tonumber(ARGV[3])
local n = tonumber(ARGV[4])
local w = tonumber(ARGV[5])

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])

-- leases past their expiry are over: their instance stopped renewing them (it died, or lost them)
redis.call('ZREMRANGEBYSCORE', key, '-inf', string.format('%d', now))
local live = redis.call('ZCARD', key)
-- calls queued for a slot come first (their lapsed tickets leave the queue)
local waiting = 0
if cost > 0 and redis.call('EXISTS', queue) == 1 then
  for _, t in ipairs(redis.call('ZRANGEBYSCORE', lapses, '-inf', string.format('%d', now))) do
    redis.call('ZREM', queue, t)
  end
  redis.call('ZREMRANGEBYSCORE', lapses, '-inf', string.format('%d', now))
  waiting = redis.call('ZCARD', queue)
end

if cost == 0 or live + waiting + cost > n then
  local left = n - live - waiting
  if left < 0 then left = 0 end
  local reset = 0
  if left == 0 then reset = hint end
  if cost == 0 then return {1, -1, 0, now, left, reset} end
  return {0, 0, hint, now, left, hint}
end

-- a name of its own: the first instant from now that no live lease of the key holds
local name = now
while redis.call('ZSCORE', key, string.format('%d', name)) do name = name + 1 end
redis.call('ZADD', key, string.format('%d', now + w), string.format('%d', name))
-- every lease expires by now + W (a renewal sets at most that), so the set expires with the newest
redis.call('PEXPIRE', key, math.floor(w / 1000) + 1)
local left = n - live - waiting - 1
local reset = 0
if left == 0 then reset = hint end
return {1, -1, 0, name, left, reset}
