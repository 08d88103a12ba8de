-- Token bucket (GCRA): decide and charge every limit of one policy for one key, all or nothing.
--
-- KEYS[1]  one hash per (policy, key): field '<W>:<N>' = theoretical arrival time (TAT) in us of the
--          limit N/W. When a limit's N changed (an override), the field of the old N is carried over
--          at the first call: the whole permits it had used (at most the new N) at the new rate.
-- ARGV[1]  cost (permits this call weighs, >= 1); 0 reads the state and writes nothing (admin views)
-- ARGV[2]  1 when refused attempts are charged too (count-rejected), else 0
-- ARGV[3]  unused (0): the strategy has no parameter
-- ARGV[4], ARGV[5], ...  N and W (microseconds) of each limit
--
-- Returns {allowed (1|0), tripped limit (0-based, -1 when allowed), retry-after us, now us,
--          remaining_1, reset_1 us, remaining_2, reset_2 us, ...}
-- (The call and reply shape shared by every strategy's script: see DecisionScripts.java.)
--
-- Limit N/W emits a permit every T = ceil(W / N) and holds at most N: a call of cost c passes iff
-- max(TAT, now) + c*T - now <= N*T, and then TAT = max(TAT, now) + c*T. The key expires when every
-- bucket is full again (its state is then the same as no state).
local key = KEYS[1]
local cost = tonumber(ARGV[1])
local count_rejected = ARGV[2] == '1'
local nlimits = (#ARGV - 3) / 2

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])

local function idiv(a, b) return (a - math.fmod(a, b)) / b end

local fields = {}
for i = 1, nlimits do fields[i] = ARGV[3 + 2 * i] .. ':' .. ARGV[2 + 2 * i] end
local stored = redis.call('HMGET', key, unpack(fields))

local permits, interval, tat = {}, {}, {}
for i = 1, nlimits do
  permits[i] = tonumber(ARGV[2 + 2 * i])
  local w = tonumber(ARGV[3 + 2 * i])
  interval[i] = idiv(w + permits[i] - 1, permits[i])
  if interval[i] < 1 then interval[i] = 1 end
  tat[i] = tonumber(stored[i] or '0')
  if tat[i] < now then tat[i] = now end -- never behind now: a failover's slower clock only refuses more
end

-- a limit without a field of its N may have one of another N (an override changed it): carry it over
local missing = false
for i = 1, nlimits do if not stored[i] then missing = true end end
if missing then
  local carried, stale, current = {}, {}, {}
  for i = 1, nlimits do current[fields[i]] = true end
  local all = redis.call('HGETALL', key)
  for j = 1, #all, 2 do
    local sep = string.find(all[j], ':', 1, true)
    if sep then
      local w = string.sub(all[j], 1, sep - 1)
      local n = tonumber(string.sub(all[j], sep + 1))
      for i = 1, nlimits do
        if not stored[i] and w == ARGV[3 + 2 * i] and n ~= permits[i] then
          local old_interval = idiv(tonumber(w) + n - 1, n)
          if old_interval < 1 then old_interval = 1 end
          local ahead = tonumber(all[j + 1]) - now
          if ahead < 0 then ahead = 0 end
          local used = idiv(ahead + old_interval - 1, old_interval)
          if used > permits[i] then used = permits[i] end
          tat[i] = now + used * interval[i]
          carried[#carried + 1] = fields[i]
          carried[#carried + 1] = string.format('%d', tat[i])
        end
      end
      if not current[all[j]] then stale[#stale + 1] = all[j] end
    end
  end
  if cost > 0 and #carried > 0 then
    -- written once, whatever this call's outcome, so every later call reads the same carried state
    if #stale > 0 then redis.call('HDEL', key, unpack(stale)) end
    redis.call('HSET', key, unpack(carried))
    local latest = now
    for i = 1, nlimits do if tat[i] > latest then latest = tat[i] end end
    redis.call('PEXPIREAT', key, string.format('%d', math.ceil(latest / 1000) + 1))
  end
end

local function waits()
  local tripped, retry = -1, 0
  for i = 1, nlimits do
    local wait = tat[i] + cost * interval[i] - now - permits[i] * interval[i]
    if cost > permits[i] then wait = tonumber(ARGV[3 + 2 * i]) end
    if wait > retry then tripped, retry = i - 1, wait end
  end
  return tripped, retry
end

local tripped, retry = waits()
local allowed = tripped < 0
if cost > 0 and (allowed or count_rejected) then
  local args, latest = {}, now
  for i = 1, nlimits do
    tat[i] = tat[i] + cost * interval[i]
    args[#args + 1] = fields[i]
    args[#args + 1] = string.format('%d', tat[i])
    if tat[i] > latest then latest = tat[i] end
  end
  redis.call('HSET', key, unpack(args))
  redis.call('PEXPIREAT', key, string.format('%d', math.ceil(latest / 1000) + 1))
  if not allowed then tripped, retry = waits() end
end

local out = {allowed and 1 or 0, tripped, allowed and 0 or retry, now}
for i = 1, nlimits do
  local ahead = tat[i] - now
  local used = idiv(ahead + interval[i] - 1, interval[i])
  local remaining = permits[i] - used
  if remaining < 0 then remaining = 0 end
  out[#out + 1] = remaining
  out[#out + 1] = ahead == 0 and 0 or (math.fmod(ahead - 1, interval[i]) + 1)
end
return out
