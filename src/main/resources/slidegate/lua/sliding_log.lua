-- Sliding log: decide and charge every limit of one policy for one key, all or nothing.
--
-- KEYS[1]  sorted set of recorded permits: score = instant in microseconds, member unique per permit
-- ARGV[1]  cost (permits this call weighs, >= 1); 0 reads the state and writes nothing (admin views)
-- ARGV[2]  1 when refused attempts are charged too (count-rejected), else 0
-- ARGV[3]  capacity: the largest N of the policy (older entries never matter)
-- ARGV[4], ARGV[5], ...  N and W (microseconds) of each limit
--
-- Returns {allowed (1|0), tripped limit (0-based, -1 when allowed), retry-after us, now us,
--          remaining_1, reset_1 us, remaining_2, reset_2 us, ...}
-- (The call and reply shape shared by every strategy's script: see DecisionScripts.java.)
--
-- A permit at microsecond tick t counts through tick t + W (TIME truncates: the grant really happened
-- in [t, t + 1)), so a call of cost c passes limit N/W iff the (N - c + 1)-th newest entry is more
-- than W old.
local key = KEYS[1]
local cost = tonumber(ARGV[1])
local count_rejected = ARGV[2] == '1'
local capacity = tonumber(ARGV[3])
local nlimits = (#ARGV - 3) / 2

-- One clock read per call: on Redis 7.0 TIME is not frozen inside a script.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])

-- Time never steps backwards for a key (a new primary's clock may be behind after a failover), and
-- every call gets an instant of its own, so two calls in one microsecond are two entries.
local newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
if newest[2] then
  local last = tonumber(newest[2])
  if now <= last then now = last + 1 end
end

local max_window = 0
for i = 1, nlimits do
  local w = tonumber(ARGV[3 + 2 * i])
  if w > max_window then max_window = w end
end
-- Trim before counting: entries before now - W_max count in no window. (A read leaves them:
-- every count below is bounded by the window anyway.)
local peek = cost == 0
if not peek then
  redis.call('ZREMRANGEBYSCORE', key, '-inf', '(' .. string.format('%d', now - max_window))
end

-- The first tick at which a permit recorded at tick t no longer counts in a window of w.
local function free_at(t, w)
  return t + w + 1
end

local function kth_newest(k)
  local r = redis.call('ZRANGE', key, -k, -k, 'WITHSCORES')
  if r[2] then return tonumber(r[2]) end
  return nil
end

local function waits()
  local tripped, retry = -1, 0
  for i = 1, nlimits do
    local n = tonumber(ARGV[2 + 2 * i])
    local w = tonumber(ARGV[3 + 2 * i])
    local wait = 0
    if cost > n then
      wait = w
    else
      local t = kth_newest(n - cost + 1)
      if t then wait = free_at(t, w) - now end
    end
    if wait > retry then
      tripped, retry = i - 1, wait
    end
  end
  return tripped, retry
end

local function charge()
  local stamp = string.format('%d', now)
  local j = 1
  while j <= cost do
    local args = {}
    local last = math.min(cost, j + 499)
    for m = j, last do
      args[#args + 1] = stamp
      args[#args + 1] = stamp .. ':' .. m
    end
    redis.call('ZADD', key, unpack(args))
    j = last + 1
  end
  local card = redis.call('ZCARD', key)
  if card > capacity then
    redis.call('ZREMRANGEBYRANK', key, 0, card - capacity - 1)
  end
  redis.call('PEXPIRE', key, math.floor(max_window / 1000) + 1)
end

local tripped, retry = waits()
local allowed = tripped < 0
if not peek and (allowed or count_rejected) then
  charge()
  if not allowed then
    tripped, retry = waits()
  end
end

local out = {allowed and 1 or 0, tripped, allowed and 0 or retry, now}
for i = 1, nlimits do
  local n = tonumber(ARGV[2 + 2 * i])
  local w = tonumber(ARGV[3 + 2 * i])
  local used = redis.call('ZCOUNT', key, string.format('%d', now - w), '+inf')
  if used > n then used = n end
  local reset = 0
  if used > 0 then reset = free_at(kth_newest(used), w) - now end
  out[#out + 1] = n - used
  out[#out + 1] = reset
end
return out
