-- Calls waiting for a slot of a key (a policy of calls in flight with a max-wait): a queue in arrival order, shared by
-- every instance. Each waiting call is named by a ticket; its instance names it again every few tens of ms while it
-- waits, and a ticket not named again within its lapse leaves the queue (its instance died or paused). The free slots
-- (N minus the live leases) go to the first live tickets of the queue: a ticket named here that is among them gets a
-- lease, exactly as concurrency.lua grants one, and leaves the queue.
--
-- KEYS[1]  the key's sorted set of leases (concurrency.lua: member = name, score = expiry, us)
-- KEYS[2]  the queue: member = ticket, score = the ticket (the instant, us, it was queued at: arrival order)
-- KEYS[3]  the lapses: member = ticket, score = the instant it leaves the queue unless named again
-- ARGV[1], ARGV[2]  N (the most leases live at once) and W (the lease time, us)
-- ARGV[3]  the lapse (us): each ticket named stays queued that long; 0 takes the named tickets out of the queue
-- ARGV[4], ...  the tickets; 0 queues a new call at the end of the queue
--
-- Returns {free slots no ticket waits for, now, then per ticket named: the ticket, its lease's name or 0 while it waits}
local leases, queue, lapses = KEYS[1], KEYS[2], KEYS[3]
local n = tonumber(ARGV[1])
local w = tonumber(ARGV[2])
local lapse = tonumber(ARGV[3])

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])

if lapse == 0 then
  for i = 4, #ARGV do
    redis.call('ZREM', queue, ARGV[i])
    redis.call('ZREM', lapses, ARGV[i])
  end
  return {}
end

redis.call('ZREMRANGEBYSCORE', leases, '-inf', string.format('%d', now))
for _, t in ipairs(redis.call('ZRANGEBYSCORE', lapses, '-inf', string.format('%d', now))) do
  redis.call('ZREM', queue, t)
end
redis.call('ZREMRANGEBYSCORE', lapses, '-inf', string.format('%d', now))

local out = {0, now}
local mine = {}
local until_ = string.format('%d', now + lapse)
local next_id = now -- new tickets of this call take instants from here on, each after the last: O(n), not O(n^2)
for i = 4, #ARGV do
  local t = ARGV[i]
  if t == '0' then -- a ticket of its own: the first instant from now that no queued call holds
    while redis.call('ZSCORE', queue, string.format('%d', next_id)) do next_id = next_id + 1 end
    t = string.format('%d', next_id)
    next_id = next_id + 1
  end
  redis.call('ZADD', queue, t, t) -- a lapsed ticket named again takes its arrival place back
  redis.call('ZADD', lapses, until_, t)
  out[#out + 1] = tonumber(t)
  out[#out + 1] = 0
  mine[t] = #out
end

local live = redis.call('ZCARD', leases)
local free = n - live
local granted = false
if free > 0 then
  for _, t in ipairs(redis.call('ZRANGE', queue, 0, free - 1)) do
    local at = mine[t]
    if at then
      local name = now
      while redis.call('ZSCORE', leases, string.format('%d', name)) do name = name + 1 end
      redis.call('ZADD', leases, string.format('%d', now + w), string.format('%d', name))
      redis.call('ZREM', queue, t)
      redis.call('ZREM', lapses, t)
      out[at] = name
      live = live + 1
      granted = true
    end
  end
end
if granted then
  redis.call('PEXPIRE', leases, math.floor(w / 1000) + 1)
end
redis.call('PEXPIRE', queue, math.floor(lapse / 1000) + 1)
redis.call('PEXPIRE', lapses, math.floor(lapse / 1000) + 1)
local left = n - live - redis.call('ZCARD', queue)
if left < 0 then left = 0 end
out[1] = left
return out
